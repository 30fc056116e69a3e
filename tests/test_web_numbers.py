"""Numbers in the page's language: the balance lab's chances beside a set read "62,5 %" on a
French or Italian page and "62.5 %" on an English one, whatever the browser's own locale (the
page formatted them with the browser's locale, so an English browser switched to French read
"62.5 %")."""

from __future__ import annotations

import json
import math
import re
import time

from test_web_support import DESKTOP, Watched, needs_chromium, shot, sign_in

pytestmark = needs_chromium

OUTCOMES = ["HUMAN", "TRUSIS", "CASTAWAY", "DRAW"]


def expected(rates: dict[str, float], comma: bool) -> list[str]:
    """What each shown chance should read: tenths of a percent, no trailing zero."""
    out = []
    for key in OUTCOMES:
        if key not in rates or (key == "CASTAWAY" and not rates[key]):
            continue
        tenths = math.floor(rates[key] * 1000 + 0.5)
        text = str(tenths // 10) + (f".{tenths % 10}" if tenths % 10 else "")
        out.append((text.replace(".", ",") if comma else text) + " %")
    return out


def test_the_balance_chances_use_the_pages_decimal_comma(server, browser) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    sign_in(page, server.url, "Ann")
    standard = json.dumps({"standard": True})
    for seats in range(5, 31):  # a size whose shipped estimate has a decimal to show
        data = page.request.get(f"{server.url}/api/balance?players={seats}&set={standard}").json()
        rates = data["win_rate"]
        if any(math.floor(r * 1000 + 0.5) % 10 for r in rates.values()):
            break
    else:
        raise AssertionError("no standard estimate with a decimal")
    page.locator("#ct-seats").fill(str(seats))
    shown = lambda: [s.replace("\u00a0", " ").replace("\u202f", " ")  # noqa: E731
                     for s in page.locator(".bal-pct").all_inner_texts()]
    # The estimate of the default size may still be on the page when the rows first show
    # (CI read another size's figures): wait for this size's.
    deadline = time.monotonic() + 60
    while shown() != expected(rates, comma=False) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert shown() == expected(rates, comma=False)  # English as it was

    for lang in ("fr", "it"):
        page.locator("#lang-select").select_option(lang)
        page.locator(".balance-title", has_text={"fr": "Équilibre", "it": "Equilibrio"}[lang]
                     ).wait_for()  # drawn again in the new language
        assert shown() == expected(rates, comma=True), lang
        assert not any(re.search(r"\d\.\d", s) for s in shown())
        if lang == "fr":
            page.locator(".balance").scroll_into_view_if_needed()
            shot(page, "balance-fr")
    assert watched.problems() == []
    context.close()
