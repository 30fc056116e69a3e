"""The French and the Italian interface, on a 390 px phone, for a whole game (issue 9)."""

from __future__ import annotations

import httpx

from serverproc import ServerProcess, pass_to_the_end
from test_web_support import (
    DESKTOP,
    PHONE,
    Helper,
    Watched,
    create_table,
    needs_chromium,
    phase_of,
    play_to_end,
    shot,
    sign_in,
    sit_and_fill,
    start,
)

pytestmark = needs_chromium


def test_french_then_italian_on_a_phone(server, browser) -> None:
    context = browser.new_context(viewport=PHONE, locale="fr-FR", has_touch=True, is_mobile=True)
    watched = Watched(context)
    page = watched.page
    helper = Helper(server, "Bea")
    try:
        sign_in(page, server.url, "Ann")  # the browser's language: French
        assert page.locator("html").get_attribute("lang") == "fr"
        assert page.locator("#create-title").inner_text() == "Créer une table"
        page.locator("#ct-seats").fill("8")
        page.locator(".dealt-list li", has_text="Trusis").wait_for()
        assert "Humain" in page.locator(".dealt-list").inner_text()  # the engine's role names
        # No horizontal scrolling at phone width.
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        shot(page, "lobby-phone", full_page=True)
        table_id = create_table(page, 8)
        made = helper.guest.http.get(f"/api/tables/{table_id}").json()
        assert made["options"]["lang"] == "fr"  # its bots chat in French (docs/bots.md)
        sit_and_fill(page, table_id, helper.guest)
        start(page)
        helper.connect(table_id)

        assert phase_of(page) == "☀ Jour 1"
        assert page.locator(".role-chip").inner_text().startswith("Vous êtes ")
        tabs = page.locator(".tabs-phone [role=tab]")
        names = [t.strip().rstrip("0123456789") for t in tabs.all_inner_texts()]  # no badges
        assert names == ["Table", "Discussion", "Carnet", "Journal"]
        # Two columns of seats, each a target of at least 44 px.
        columns = page.locator(".ring").evaluate("el => getComputedStyle(el).gridTemplateColumns")
        assert len(columns.split()) == 2
        for box in (page.locator(".seat").nth(i).bounding_box() for i in range(8)):
            assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 390
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        page.locator(".seat").nth(2).tap()
        page.locator(".btn-power[data-do=vote]").tap()
        page.locator(".actions-choices", has_text="vous votez contre").wait_for()
        bar = page.locator(".actions").bounding_box()
        assert bar is not None and bar["y"] + bar["height"] <= PHONE["height"] + 1  # in sight
        shot(page, "day-phone")

        # Vote and Pass stay in sight while typing in the chat.
        page.locator("#tab-p-chat").tap()
        page.locator(".chat-row input").fill("bonsoir")
        page.keyboard.press("Enter")
        page.locator(".chat-line .chat-text", has_text="bonsoir").wait_for()
        assert page.locator(".btn-pass").is_visible()
        page.locator("#tab-p-table").tap()

        page.locator("#lang-select").select_option("it")  # the switch, kept for next time
        page.locator(".statusbar .phase", has_text="Giorno 1").wait_for()
        assert page.locator(".role-chip").inner_text().split()[0] in ("Sei", "Tu")
        assert page.locator("#tab-p-notebook").inner_text().strip() == "Taccuino"
        assert page.evaluate("() => localStorage.getItem('trusis.lang')") == "it"

        page.locator(".btn-pass").tap()
        assert "Passa" in page.locator("dialog[open]").inner_text()
        page.locator("dialog[open] .btn-primary").tap()
        helper.pass_now()
        page.locator("body.theme-night").wait_for()
        assert "Notte 1" in phase_of(page)
        page.wait_for_timeout(900)  # dusk: the theme's colours fade in
        shot(page, "night-phone")
        page.locator("#tab-p-notebook").tap()
        page.locator(".nb-row").first.wait_for()
        assert page.locator(".fact", has_text="Il tuo ruolo").count() == 1
        shot(page, "notebook-phone")
        page.locator("#tab-p-table").tap()

        play_to_end(page, (helper,))
        assert page.locator(".endscreen .end-kicker").text_content() == "La partita è finita"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        page.locator("#banners .banner").wait_for(state="detached", timeout=15000)
        shot(page, "end-phone")
        page.locator(".endscreen .stats-table").scroll_into_view_if_needed()
        shot(page, "end-phone-stats")

        assert watched.problems() == []
    finally:
        helper.close()
        context.close()


def test_a_limit_of_one_is_said_in_the_singular_in_every_language(server, browser) -> None:
    """An operator's trial: with open_tables_per_player=1 the page said "You already have
    1 tables waiting to start…" (and so in French and Italian). A refusal that names its
    limit chooses its plural form on it, as every count of the page does (i18n.js)."""
    context = browser.new_context(viewport=PHONE)
    w = Watched(context)
    page = w.page
    page.goto(server.url + "/")
    page.locator("#lang-select").wait_for()
    said = page.evaluate("""async () => {
        const i18n = await import('/static/i18n.js');
        const { errorText } = await import('/static/errors.js');
        const out = {};
        for (const lang of ['en', 'fr', 'it']) {
          await i18n.setLang(lang);
          for (const code of ['too_many_open_tables', 'too_many_programs', 'too_many_blocks'])
            for (const limit of [1, 5])
              out[`${lang} ${code} ${limit}`] = errorText({ code, params: { limit } });
        }
        await i18n.setLang('en');
        return out;
    }""")
    expected = {
        "en too_many_open_tables 1": "You already have 1 table waiting to start",
        "en too_many_open_tables 5": "You already have 5 tables waiting to start",
        "fr too_many_open_tables 1": "Vous avez déjà 1 table qui attend de commencer",
        "fr too_many_open_tables 5": "Vous avez déjà 5 tables qui attendent de commencer",
        "it too_many_open_tables 1": "Hai già 1 tavolo in attesa",
        "it too_many_open_tables 5": "Hai già 5 tavoli in attesa",
        "en too_many_programs 1": "handed 1 seat to a program",
        "en too_many_programs 5": "handed 5 seats to programs",
        "fr too_many_programs 1": "confié 1 siège à un programme",
        "it too_many_programs 1": "affidato 1 posto a un programma",
        "en too_many_blocks 1": "You block 1 player already",
        "fr too_many_blocks 1": "Vous bloquez déjà 1 joueur :",
        "it too_many_blocks 1": "Blocchi già 1 giocatore:",
    }
    for key, start_of in expected.items():
        assert start_of in said[key], (key, said[key])
    assert w.problems() == []
    context.close()


def test_what_your_role_card_says_you_know_is_a_whole_sentence_in_each_language(
        server, browser) -> None:
    """A trial on a French phone read "Basil (siège 4): ni Trusis ni Naufragé" under
    "Vous savez" while the sweep's own card said "Basil (siège 4) : …": the list glued the
    seat and the fact with an English colon. Each catalogue now writes the whole line
    (docs/ux.md, "Languages")."""
    context = browser.new_context(viewport=PHONE)
    w = Watched(context)
    page = w.page
    page.goto(server.url + "/")
    page.locator("#lang-select").wait_for()
    said = page.evaluate("""async () => {
        const i18n = await import('/static/i18n.js');
        const { roleCard } = await import('/static/rules.js');
        i18n.setNames([{ seat: 3, name: 'Zoé' }, { seat: 4, name: 'Basil' }]);
        const view = { role: 'SWEEPER', team: 'HUMAN', status: 'running', known: { 4: 'NEITHER' } };
        const out = {};
        for (const lang of ['en', 'fr', 'it']) {
          await i18n.setLang(lang);
          out[lang] = roleCard(view, 3).querySelector('.role-known li').textContent;
        }
        await i18n.setLang('en');
        return out;
    }""")
    assert said["en"].startswith("◆ Basil (seat 4): neither"), said
    assert said["fr"].startswith("◆ Basil (siège 4) : ni Trusis"), said
    assert said["it"].startswith("◆ Basil (posto 4): "), said
    assert w.problems() == []
    context.close()


def finished_game(server: ServerProcess) -> str:
    """A guest and four bots, passing to the end over HTTP and the WebSocket; the table's id."""
    with httpx.Client(base_url=server.url, timeout=10) as host:
        assert host.post("/api/guest", json={"name": "Ann"}).status_code in (200, 201)
        table = host.post("/api/tables", json={"name": "relang", "seats": 5, "day_seconds": 30,
                                               "night_seconds": 15}).json()
        assert host.post(f"/api/tables/{table['id']}/seats", json={}).status_code == 200
        for _ in range(4):
            assert host.post(f"/api/tables/{table['id']}/bots", json={}).status_code == 200
        assert host.post(f"/api/tables/{table['id']}/start").status_code == 200
        pass_to_the_end(server, table["id"], [host])
        return str(table["id"])


def test_the_replay_toolbar_follows_a_switch_of_language(server, browser) -> None:
    """A French player's screenshot: the replay switched to French still said "End screen",
    "Watch as" and "Go to" — the toolbar was drawn once, in the language of the first load,
    and a switch redrew only the steps. Every word of it follows now, names of buttons too."""
    table_id = finished_game(server)
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    w = Watched(context)
    page = w.page
    page.goto(f"{server.url}/t/{table_id}/replay")
    page.locator(".replay-caption", has_text="Start:").wait_for()
    page.locator("#lang-select").select_option("fr")
    page.locator(".replay-caption", has_text="Début :").wait_for()
    head = page.locator(".replay-head")
    assert head.locator("a.btn").inner_text() == "Écran de fin"
    assert head.locator("label[for=replay-seat]").inner_text() == "Voir comme"
    assert head.locator("label[for=replay-phase]").inner_text() == "Aller à"
    assert head.locator(".replay-controls").get_attribute("aria-label") == "Étapes"
    assert head.locator(".step-first").get_attribute("aria-label") == "Première étape"
    assert head.locator(".step-last").get_attribute("title") == "Dernière étape"
    assert head.locator("#replay-slider").get_attribute("aria-label") == "Étape"
    assert "Rediffusion" in page.locator("#replay-title").inner_text()
    shot(page, "replay-fr")
    page.locator("#lang-select").select_option("it")
    head.locator("label[for=replay-seat]", has_text="Guarda come").wait_for()
    assert head.locator("a.btn").inner_text() == "Schermata finale"
    assert head.locator(".step-back").get_attribute("aria-label") == "Passo indietro"
    assert w.problems() == []
    context.close()


def test_the_lobby_follows_a_switch_of_language_and_keeps_what_was_typed(
        server, browser) -> None:
    """Switched to French, the lobby kept "Your name", "Create a table"… in English until
    the player went elsewhere, while the top bar changed at once. It is redrawn now as the
    other screens are, with what the player typed and chose still in its fields."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    w = Watched(context)
    page = w.page
    sign_in(page, server.url, "Ann")
    page.locator(".dealt-list").wait_for()
    page.locator("#name-input").fill("Annie")
    page.locator("#ct-name").fill("Ma table")
    page.locator("#ct-seats").fill("9")
    page.locator("#ct-private").check()
    page.locator("#ct-slow").check()
    page.locator("#ct-preset").select_option("relaxed")
    page.locator("#lang-select").select_option("fr")
    page.locator("#create-title", has_text="Créer une table").wait_for(timeout=3000)
    assert page.locator("#tables-title").inner_text() == "Tables ouvertes"
    assert page.locator("#name-title").inner_text() == "Votre nom"
    assert page.locator("#name-input").input_value() == "Annie"
    assert page.locator("#ct-name").input_value() == "Ma table"
    assert page.locator("#ct-seats").input_value() == "9"
    assert page.locator("#ct-private").is_checked()
    assert page.locator("#ct-slow").is_checked()
    assert page.locator(".slow-timers").is_visible()
    assert page.locator("#ct-preset").input_value() == "relaxed"
    assert page.locator("#ct-day-hours").input_value() == "48"
    page.locator(".dealt-list li", has_text="Humain").wait_for()  # the roles in French
    shot(page, "lobby-fr-switched", full_page=True)
    # A table's name left as the page gave it is no choice of the player's: it follows.
    page.locator("#ct-name").fill("Table de Trusis")
    page.locator("#lang-select").select_option("it")
    page.locator("#create-title", has_text="Crea un tavolo").wait_for(timeout=3000)
    assert page.locator("#ct-name").input_value() == "Tavolo di Trusis"
    assert page.locator("#name-input").input_value() == "Annie"
    assert w.problems() == []
    context.close()
