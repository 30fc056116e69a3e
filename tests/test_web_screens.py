"""What a new user's first session in real Chromium found on the screens (desktop 1366×900,
phone 390×844; English, French, Italian): the custom set's form, the end screen on a phone,
the seat cards, the status bar, the host's buttons, and words that did not say what they
meant. Each test measures what a person saw (boxes, overflow, text), against a real
`trusis serve`; the screenshots are for a person to look at."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from test_web_support import (
    PHONE,
    Watched,
    needs_chromium,
    shot,
    sign_in,
)

pytestmark = needs_chromium

WIDE = {"width": 1366, "height": 900}  # the new user's laptop
SIZES = {"desktop": WIDE, "phone": PHONE}


def context_for(browser: Any, size: str, locale: str) -> Any:
    if size == "phone":
        return browser.new_context(viewport=PHONE, locale=locale, is_mobile=True,
                                   has_touch=True, device_scale_factor=2)
    return browser.new_context(viewport=WIDE, locale=locale)


# -- the custom set's form ---------------------------------------------------------------

def rows_of_role_counts(page: Page) -> list[dict[str, Any]]:
    """Each role's label in the custom set's form, with the input that sits beside it on
    screen (the nearest on its line, to its right or left) and the input it labels."""
    return page.evaluate("""() => {
        const inputs = [...document.querySelectorAll('.role-counts input')];
        return [...document.querySelectorAll('.role-counts label')].map((label) => {
            const box = label.getBoundingClientRect();
            const mid = box.top + box.height / 2;
            const beside = inputs.filter((i) => {
                const r = i.getBoundingClientRect();
                return r.top <= mid && mid <= r.bottom;
            }).sort((a, b) => Math.abs(a.getBoundingClientRect().left - box.right)
                              - Math.abs(b.getBoundingClientRect().left - box.right));
            return {label: label.textContent, labels: label.htmlFor,
                    beside: beside.length ? beside[0].id : null,
                    count: beside.length};
        });
    }""")


def test_each_role_count_sits_beside_its_own_role(server, browser) -> None:
    """Found by a new user: the custom set's grid had its hint as first item, so every box
    sat beside the next role's name: 2 typed on the "Trusis" row asked for two White
    Knights. Each box is on the line of the role it counts (desktop and phone, English and
    French), and typing beside "Trusis" changes the Trusis in the summary."""
    for size, locale in (("desktop", "en-GB"), ("phone", "fr-FR"), ("phone", "en-GB"),
                         ("desktop", "it-IT")):
        context = context_for(browser, size, locale)
        watched = Watched(context)
        page = watched.page
        try:
            sign_in(page, server.url, "Rosa")
            page.locator("#ct-custom").check()
            page.locator(".role-counts input").first.wait_for()
            rows = rows_of_role_counts(page)
            assert len(rows) >= 10, rows
            wrong = [r for r in rows if r["beside"] != r["labels"]]
            assert not wrong, (size, locale, wrong)
            # The accessible name of the box beside "Trusis" is Trusis, and 2 in it is two
            # Trusis in the summary.
            beside = next(r["beside"] for r in rows if r["label"] == "Trusis")
            field = page.locator(f"#{beside}")
            assert page.get_by_label("Trusis", exact=True).get_attribute("id") == beside
            field.scroll_into_view_if_needed()
            field_box = field.bounding_box()
            assert field_box is not None
            page.mouse.click(field_box["x"] + field_box["width"] / 2,
                             field_box["y"] + field_box["height"] / 2)
            page.keyboard.press("Control+A")
            page.keyboard.type("2")
            page.locator(".dealt-list li", has_text="Trusis").filter(has_text="2 ×").wait_for()
            assert page.locator(".check-bad").count() == 0
            page.locator(".role-counts").scroll_into_view_if_needed()
            shot(page, f"screens-role-counts-{size}-{locale}")
            assert watched.problems() == []
        finally:
            context.close()
