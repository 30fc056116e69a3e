"""The role card of a lone TRUSIS in the browser (R2, R7): at 5-7 seats the standard set deals
one TRUSIS, whose view names no other, and its card no longer speaks of "your fellow Trusis,
whom you know". A Butcher may be on its team (R2 deals one at 5 seats) but is not a Trusis
(docs/rules.md §1) and is not known to it, which the card says too."""

from __future__ import annotations

from test_web_support import (
    DESKTOP,
    Watched,
    create_table,
    needs_chromium,
    play_to_end,
    shot,
    sign_in,
    sit_and_fill,
    start,
)

pytestmark = needs_chromium

ALONE = {
    "en": "you are the only Trusis. If others are on your team, you do not know them.",
    "fr": "vous êtes le seul Trusis. Si d'autres sont de votre équipe, vous ne les connaissez pas.",
    "it": "sei l'unico Trusis. Se altri sono della tua squadra, non li conosci.",
}
FELLOWS = {"en": "your fellow Trusis", "fr": "les autres Trusis", "it": "gli altri Trusis"}


def test_R2_the_lone_trusis_card_of_a_five_seat_game_says_it_is_the_only_one(
        server, browser) -> None:
    """A person and four bots play a game out; its replay as the TRUSIS seat shows the card
    that seat saw from the start, as in the game (the same card), in each language."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    sign_in(page, server.url, "Ann")
    table_id = create_table(page, 5)
    sit_and_fill(page, table_id)
    start(page)
    play_to_end(page)
    rows = page.locator(".endscreen .end-roles tbody tr")
    seats = [r.locator("td").nth(0).inner_text() for r in rows.all()
             if r.locator("td").nth(1).inner_text() == "Trusis"]
    assert len(seats) == 1, seats

    page.goto(f"{server.url}/t/{table_id}/replay?seat={seats[0]}&step=0")
    power = page.locator(".role-card .role-power")
    power.wait_for()
    for lang in ("en", "fr", "it"):
        page.locator("#lang-select").select_option(lang)
        page.locator(".role-card .role-power", has_text=ALONE[lang]).wait_for()
        assert FELLOWS[lang] not in power.inner_text()
        if lang == "fr":
            page.locator(".role-card details").evaluate("el => { el.open = true; }")
            shot(page, "lone-trusis-card-fr")
    # Two TRUSIS (8 seats and more) still read of their fellow: the same card, a view that
    # names the other (R7).
    said = page.evaluate("""async () => {
        const { roleCard } = await import('/static/rules.js');
        const view = { role: 'TRUSIS', team: 'TRUSIS', status: 'running',
                       known: { 3: 'TRUSIS', 6: 'TRUSIS' } };
        return roleCard(view, 3).querySelector('.role-power').textContent;
    }""")
    assert FELLOWS["it"] in said and ALONE["it"] not in said, said
    assert watched.problems() == []
    context.close()
