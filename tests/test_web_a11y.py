"""Playable without a mouse and without sight (issue 22), in real Chromium against a real
`trusis serve`: focus after each action, the tab order, what the live regions say, the
screen-reader mode and its chat commands, field borders, 200% zoom, and axe-core on every page
at 1280 and 390 px, day and night. Two whole games: one with the keyboard alone, one in the
screen-reader mode driven only through the announcer and the chat commands."""

from __future__ import annotations

import re
import time

from a11y_support import (
    active,
    all_spoken,
    assert_focused,
    axe_problems,
    command,
    field_borders,
    record_speech,
    spoken,
    tab_to,
    wait_spoken,
)
from test_web_support import (
    DESKTOP,
    PHONE,
    Helper,
    Watched,
    create_table,
    finished,
    needs_chromium,
    shot,
    sign_in,
    sit_and_fill,
    start,
)

pytestmark = needs_chromium


def keyboard_fill(page, selector: str, value: str) -> None:
    tab_to(page, selector)
    page.keyboard.press("Control+A")
    page.keyboard.type(value)


def keyboard_pass(page) -> bool:
    """Pass with the keyboard (Tab to Pass, Enter, Enter in the dialog); whether it did."""
    if not page.locator(".btn-pass:not([disabled])").count():
        return False
    try:
        tab_to(page, ".btn-pass", limit=80)
        page.keyboard.press("Enter")
        page.locator("dialog[open]").wait_for(timeout=2000)
        page.keyboard.press("Enter")  # the dialog starts on its Pass button
        page.locator("dialog[open]").wait_for(state="detached", timeout=3000)
    except Exception:  # the phase ended between the look and the key
        return False
    page.wait_for_timeout(600)  # the answer, and perhaps the next phase, redraw the bar
    assert_focused(page, "Pass")
    return True


def other_pages(page, base: str, width: str) -> list[str]:
    """axe on the finished game's replay and on the leaderboard, then back to the table."""
    here = page.url
    replay = page.locator(".btn-replay").get_attribute("href")
    problems = []
    page.goto(base + replay)
    page.locator(".replay-title").wait_for()
    page.wait_for_timeout(500)
    problems += axe_problems(page, f"replay {width}")
    page.goto(base + "/leaderboard")
    page.locator("main h1").first.wait_for()
    page.wait_for_timeout(500)
    problems += axe_problems(page, f"leaderboard {width}")
    me = page.request.get(base + "/api/me").json()
    page.goto(f"{base}/p/{(me.get('player') or me)['id']}")
    page.locator("#profile-title").wait_for()  # a guest has a profile of finished games too
    page.wait_for_timeout(500)
    problems += axe_problems(page, f"profile {width}")
    page.goto(here)
    page.locator(".endscreen .end-roles tbody tr").first.wait_for()
    return problems


def test_a_whole_game_with_the_keyboard_alone(server, browser) -> None:
    """Lobby → seat → bots → Start → vote → pass … → end screen → lobby, with keys only.
    Focus never falls to <body> (Take a seat, Fill with bots, Start, Vote, Pass), the action
    bar comes before the seats in the tab order, and axe finds nothing serious at 1280 px."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB", bypass_csp=True)
    watched = Watched(context)
    page = watched.page
    problems: list[str] = []
    page.goto(server.url + "/")
    keyboard_fill(page, "form.name-form input", "Kim")
    page.keyboard.press("Enter")
    page.locator("form.name-form .hint").filter(has_text="Kim").wait_for()
    page.locator(".bal-row").first.wait_for(timeout=60000)
    problems += axe_problems(page, "lobby 1280")
    assert all(r["ratio"] >= 3 for r in field_borders(page)), field_borders(page)  # WCAG 1.4.11
    tab_to(page, "#account-button")
    page.keyboard.press("Enter")
    page.locator(".account-dialog[open] input[type=password]").wait_for()
    assert all(r["ratio"] >= 3 for r in field_borders(page)), field_borders(page)
    problems += axe_problems(page, "account dialog 1280")
    page.keyboard.press("Escape")
    assert active(page)["id"] == "account-button"
    keyboard_fill(page, "#ct-seats", "5")
    keyboard_fill(page, "#ct-day", "120")  # Day 1's checks (axe, Tab walks) outlast 30 s under load
    keyboard_fill(page, "#ct-night", "15")
    page.locator(".dealt-list").wait_for()
    tab_to(page, "form.create button[type=submit]")
    page.keyboard.press("Enter")
    page.locator(".waiting h1").wait_for()
    problems += axe_problems(page, "waiting room 1280")

    # Take a seat: focus moves on to what the host does next, Fill with bots.
    tab_to(page, ".wait-seat.is-free button[data-focus^='sit-']")
    assert active(page)["text"] == "Sit here"
    name = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert name == "Sit here, seat 1"
    page.keyboard.press("Enter")
    page.locator(".wait-seat.is-me").wait_for()
    page.wait_for_timeout(300)
    assert assert_focused(page, "Take a seat")["focus"] == "fill"
    page.keyboard.press("Enter")
    page.locator(".btn-start:not([disabled])").wait_for()
    page.wait_for_timeout(300)
    assert assert_focused(page, "Fill with bots")["focus"] == "start"
    shot(page, "a11y-waiting-desktop", full_page=True)
    page.keyboard.press("Enter")
    page.locator(".role-chip:not([hidden])").wait_for()
    page.locator(".seat").first.wait_for()
    page.wait_for_timeout(500)
    now = assert_focused(page, "Start")
    assert now["inActions"] or "seat" in now["cls"], now

    # The action bar (shown above the seats) comes before them in the tab order.
    tab_to(page, ".role-chip")
    order = []
    for _ in range(40):
        page.keyboard.press("Tab")
        here = active(page)
        if here["inActions"]:
            order.append("actions")
        elif "seat" in here["cls"].split():
            order.append("seat")
        if "seat" in order:
            break
    assert "actions" in order and order.index("actions") < order.index("seat"), order

    # Vote (R20) with the keyboard: arrows choose a seat, Shift+Tab back to Vote.
    page.keyboard.press("ArrowRight")
    target = page.locator(".seat[aria-checked=true]").get_attribute("data-seat")
    tab_to(page, ".btn-power[data-do=vote]:not([disabled])")
    page.keyboard.press("Enter")
    page.locator(".actions-choices", has_text="You vote for").wait_for()
    page.locator(f".seat[data-seat='{target}'] .seat-votes").wait_for()
    page.wait_for_timeout(300)
    # The vote cast, Vote rests (the seat is the choice already): the focus moves to the
    # control beside it, Withdraw, never to <body> (WCAG 2.4.3).
    assert assert_focused(page, "Vote")["focus"] == "withdraw-vote"
    problems += axe_problems(page, "day 1280")
    shot(page, "a11y-day-desktop")

    deadline = time.monotonic() + 300
    night_checked = False
    while not finished(page):
        assert time.monotonic() < deadline, "the game did not end"
        if not night_checked and page.locator("body.theme-night").count():
            page.wait_for_timeout(900)  # the theme's colours fade in
            problems += axe_problems(page, "night 1280")
            night_checked = True
        keyboard_pass(page)  # R11: pass in every phase
        page.wait_for_timeout(300)
    page.locator(".endscreen .end-roles tbody tr").first.wait_for()
    page.wait_for_timeout(300)
    assert assert_focused(page, "the game's end")["id"] == "end-title"
    page.locator("#banners .banner").wait_for(state="detached", timeout=15000)
    problems += axe_problems(page, "end screen 1280")
    problems += other_pages(page, server.url, "1280")
    tab_to(page, ".end-buttons .btn-primary")
    page.keyboard.press("Enter")
    page.locator(".lobby").wait_for()
    assert problems == []
    assert watched.problems() == []
    context.close()


def test_the_table_speaks_and_keeps_focus(server, browser) -> None:
    """Votes, withdrawals, passes, tallies and unseen chat are announced; the phase once per
    phase; no countdown at the start; the private-message list waits for Enter (WCAG 3.2.2);
    the result card takes focus and gives it back; field borders 3:1; 200% zoom is compact."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB", bypass_csp=True)
    watched = Watched(context)
    page = watched.page
    helper = Helper(server, "Bea")
    problems: list[str] = []
    try:
        sign_in(page, server.url, "Ann")
        table_id = create_table(page, 8, day_seconds=60)  # 8: day 1 cannot end the game
        sit_and_fill(page, table_id, helper.guest)
        start(page)
        helper.connect(table_id)
        assert helper.player is not None
        started = len(spoken(page))
        # The phase text is written once per phase, not on every render.
        page.evaluate("""() => { window.phaseWrites = 0;
          new MutationObserver(() => { window.phaseWrites += 1; })
            .observe(document.querySelector('.statusbar .phase'),
                     { childList: true, characterData: true, subtree: true }); }""")
        assert page.locator(".statusbar .phase[role=status]").count() == 0

        # R20: Bea's vote, its withdrawal and the tally, spoken.
        helper.player.command(do="vote", target=1)
        wait_spoken(page, "Bea (seat 2) votes for Ann (seat 1)")
        wait_spoken(page, "Tally:", also="Ann (seat 1) ")
        helper.player.command(do="vote", target=None)
        wait_spoken(page, "Bea (seat 2) withdraws their vote")
        # R50: a whisper in a thread not on screen, spoken.
        helper.player.command(do="say", text="psst, trust me", to=1)
        wait_spoken(page, "Bea (seat 2) privately to you: psst, trust me")
        # The countdown says nothing the moment a 60-second day starts.
        assert not [s for s in spoken(page)[started:] if "left" in s], spoken(page)
        # The public chat, while the chat box shows it, is read by the chat's own live log.
        helper.player.command(do="say", text="hello all")
        page.locator(".chat-line .chat-text", has_text="hello all").wait_for()
        assert not [s for s in spoken(page) if "hello all" in s]
        assert page.locator(".chat-log[role=log] > ol.chat-lines > li").count() >= 1
        assert page.locator(".log-box[role=log] > ol.log-lines").count() == 1

        # The private-message list: arrows only choose, Enter opens (WCAG 3.2.2).
        pick = page.locator(".thread-pick")
        pick.focus()
        page.keyboard.press("ArrowDown")
        page.wait_for_timeout(200)
        assert active(page)["cls"] == "thread-pick"
        assert page.locator(".thread.is-current").get_attribute("data-thread") == "public"
        chosen = pick.input_value()
        assert chosen
        page.keyboard.press("Enter")
        page.locator(f".thread.is-current[data-thread='{chosen}']").wait_for()
        assert active(page)["id"] == "chat-input"
        # The public thread's button is named by its label (WCAG 2.5.3).
        public = page.locator(".thread[data-thread=public]")
        assert public.get_attribute("aria-label") is None
        assert "Everyone" in page.evaluate(
            "() => document.querySelector('.thread[data-thread=public]').textContent")
        public.click()

        for tab in ("chat", "log", "notebook"):
            page.locator(f"#tab-d-{tab}").click()
            page.wait_for_timeout(200)
            problems += axe_problems(page, f"day 1280 {tab}")
        # Each notebook field says whose it is.
        labels = page.locator(".nb-row select, .nb-row input").evaluate_all(
            "els => els.map((e) => e.getAttribute('aria-label'))")
        assert "Tag for Bea (seat 2)" in labels and "Note on Bea (seat 2)" in labels
        assert len(set(labels)) == len(labels)
        assert all(r["ratio"] >= 3 for r in field_borders(page)), field_borders(page)

        page.locator(".table-foot .btn-report").click()
        page.locator(".report-dialog[open] textarea").wait_for()
        assert all(r["ratio"] >= 3 for r in field_borders(page)), field_borders(page)
        problems += axe_problems(page, "report dialog 1280")
        page.keyboard.press("Escape")

        # A phone on the Table tab: public chat is spoken, it is not on screen.
        page.set_viewport_size(PHONE)
        page.locator("#tab-p-table").click()
        helper.player.command(do="say", text="anyone there?")
        wait_spoken(page, "Bea (seat 2) says: anyone there?")
        for tab in ("table", "chat", "log", "notebook"):
            page.locator(f"#tab-p-{tab}").click()
            page.wait_for_timeout(200)
            problems += axe_problems(page, f"day 390 {tab}")
        shot(page, "a11y-day-phone")
        page.locator("#tab-p-table").click()

        # 200% zoom of a 1280 px screen (640 px wide): the compact layout.
        page.set_viewport_size({"width": 640, "height": 400})
        page.wait_for_timeout(200)
        assert page.locator(".tabs-phone").is_visible()
        seat = page.locator(".seat").first
        assert seat.evaluate("el => getComputedStyle(el).position") == "static"
        # What stays on screen as the page scrolls leaves most of the height to seats and chat.
        pinned = page.evaluate("""() => [...document.querySelectorAll(
            '.statusbar, .tabs-phone, .actions')]
          .filter((e) => ['sticky', 'fixed'].includes(getComputedStyle(e).position))
          .reduce((sum, e) => sum + e.getBoundingClientRect().height, 0)""")
        assert 400 - pinned >= 250, pinned
        shot(page, "a11y-zoom-200")
        page.set_viewport_size(DESKTOP)

        # The result card (role=alertdialog) takes the focus and gives it back.
        page.locator("#tab-d-chat").click()
        page.locator("#chat-input").focus()
        page.evaluate("() => import('/static/dialogs.js')"
                      ".then((m) => m.resultCard('Your sweep', 'Rosa is TRUSIS'))")
        assert active(page)["cls"] == "result-card"
        # Just before the main content, not at the end of the page.
        assert page.evaluate("() => [...document.body.children].map((e) => e.id)"
                             ".filter(Boolean).join(' ')") == "banners cards main announcer"
        page.locator(".result-card .btn:not([disabled])").wait_for()
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        assert page.locator(".result-card").count() == 0
        assert active(page)["id"] == "chat-input"

        # R11: Bea passes (spoken), then both: dusk, announced once; the phase written once.
        helper.player.command(do="pass")
        wait_spoken(page, "Bea (seat 2) has passed")
        assert page.evaluate("() => window.phaseWrites") == 0
        tab_to(page, ".btn-pass")
        page.keyboard.press("Enter")
        page.keyboard.press("Enter")
        page.locator("body.theme-night").wait_for()
        page.wait_for_timeout(900)
        assert assert_focused(page, "Pass")["inActions"]
        assert len([s for s in spoken(page) if "Night 1" in s]) == 1
        assert page.evaluate("() => window.phaseWrites") == 1
        assert all(r["ratio"] >= 3 for r in field_borders(page)), field_borders(page)
        for tab in ("chat", "log", "notebook"):
            page.locator(f"#tab-d-{tab}").click()
            page.wait_for_timeout(200)
            problems += axe_problems(page, f"night 1280 {tab}")
        shot(page, "a11y-night-desktop")
        page.set_viewport_size(PHONE)
        for tab in ("table", "chat"):
            page.locator(f"#tab-p-{tab}").click()
            page.wait_for_timeout(200)
            problems += axe_problems(page, f"night 390 {tab}")
        # The commands answer in the player's language (en, fr, it).
        page.set_viewport_size(DESKTOP)
        page.locator("#tab-d-chat").click()
        page.locator("#lang-select").select_option("fr")
        page.locator("html[lang=fr]").wait_for()
        assert command(page, "/aide").startswith("Commandes : /qui")
        assert "Ann (siège 1), vous, " in command(page, "/qui")  # en vie, or not
        page.locator("#lang-select").select_option("it")
        page.locator("html[lang=it]").wait_for()
        assert command(page, "/aiuto").startswith("Comandi: /chi")
        assert "mancano" in command(page, "/tempo")
        assert problems == []
        assert watched.problems() == []
    finally:
        helper.close()
        context.close()


def test_a_whole_game_in_the_screen_reader_mode(server, browser) -> None:
    """On a phone, in the screen-reader mode: the seats are a flat list, and the game is
    played from the lobby to the end only through the announcer and the chat commands."""
    context = browser.new_context(viewport=PHONE, locale="en-GB", bypass_csp=True)
    watched = Watched(context)
    page = watched.page
    problems: list[str] = []
    page.goto(server.url + "/")
    page.locator("form.name-form").wait_for()
    record_speech(page)
    tab_to(page, "#sr-toggle")
    page.keyboard.press("Enter")
    wait_spoken(page, "Screen-reader mode on")
    assert page.locator("body.sr-mode").count() == 1
    assert page.locator("#sr-toggle").get_attribute("aria-pressed") == "true"
    keyboard_fill(page, "form.name-form input", "Lea")
    page.keyboard.press("Enter")
    page.locator("form.name-form .hint").filter(has_text="Lea").wait_for()
    page.locator(".bal-row").first.wait_for(timeout=60000)
    problems += axe_problems(page, "lobby 390")
    keyboard_fill(page, "#ct-seats", "5")
    keyboard_fill(page, "#ct-day", "120")  # Day 1's checks (axe, Tab walks) outlast 30 s under load
    keyboard_fill(page, "#ct-night", "15")
    page.locator(".dealt-list").wait_for()
    tab_to(page, "form.create button[type=submit]")
    page.keyboard.press("Enter")
    page.locator(".waiting h1").wait_for()
    problems += axe_problems(page, "waiting room 390")
    tab_to(page, "button[data-focus^='sit-']")
    page.keyboard.press("Enter")
    page.locator(".wait-seat.is-me").wait_for()
    page.keyboard.press("Enter")  # focus moved on to Fill with bots
    page.locator(".btn-start:not([disabled])").wait_for()
    page.keyboard.press("Enter")  # and then to Start
    wait_spoken(page, "Day 1")
    # A flat list: every seat starts at the same left edge, one under another.
    boxes = page.locator(".seat").evaluate_all(
        "els => els.map((e) => e.getBoundingClientRect().toJSON())")
    assert len({round(b["x"]) for b in boxes}) == 1
    assert all(boxes[i]["y"] < boxes[i + 1]["y"] for i in range(len(boxes) - 1))
    tab_to(page, "#tab-p-table")  # the tab list holds one tab stop; arrows move along it
    page.keyboard.press("ArrowRight")
    assert active(page)["id"] == "tab-p-chat"

    assert "/who" in command(page, "/help")
    role = command(page, "/role")
    assert role.startswith("You are ")  # "the Sweeper", "a Human"
    who = command(page, "/who")
    assert who.count("(seat ") >= 5 and "Lea (seat 1), you, alive" in who
    assert "left" in command(page, "/time")
    problems += axe_problems(page, "day 390 sr-mode")
    shot(page, "a11y-sr-day-phone", full_page=True)
    other = re.findall(r"\(seat (\d)\), alive", who)
    assert command(page, f"/vote {other[0]}").startswith("Sent, on ")
    assert "1 vote" in command(page, "/votes") or "votes" in command(page, "/votes")
    wait_spoken(page, "Lea (seat 1) votes for")
    wait_spoken(page, "Tally:")
    assert command(page, "/qui").count("(seat ") >= 5  # the French word works too
    assert "Unknown command" in command(page, "/dance")
    # How much is spoken: a list under the chat in this mode, remembered in the browser.
    tab_to(page, "#sr-verbosity")
    page.keyboard.press("End")
    assert page.evaluate("() => localStorage.getItem('trusis.sr.verbosity')") == "full"

    deadline = time.monotonic() + 300
    night_checked = False
    while True:
        assert time.monotonic() < deadline, f"the game did not end; said {spoken(page)[-6:]}"
        if [s for s in spoken(page) if "The game is over" in s or "the game is over" in s]:
            break
        if not night_checked and [s for s in spoken(page) if "Night 1" in s]:
            page.wait_for_timeout(900)
            problems += axe_problems(page, "night 390 sr-mode")
            night_checked = True
        try:
            answer = command(page, "/pass")  # R11; refused once passed, or when dead (R15)
        except AssertionError:
            # Typed as the phase ended (the box is disabled between phases) or the game did:
            # the loop asks again, or sees the end.
            continue
        assert answer.startswith("Sent") or answer, answer
        page.wait_for_timeout(500)
    # The bots' votes were spoken as they came (R20): those of Day 1 may all have come before
    # the mode was on (bots at full speed vote at dawn), so this holds from Day 2 on.
    votes = [s for s in spoken(page) if re.search(r"\(seat \d\) votes for", s)]
    if any("Day 2" in s for s in all_spoken(page)):
        assert [s for s in votes if not s.startswith("Lea")], all_spoken(page)[-40:]
    assert "game is over" in command(page, "/last 3").lower()
    # The phase once per phase: Day 1 (which starts with no event, D12) and Night 1 once each.
    said = all_spoken(page)
    for phase in ("☀ Day 1 —", "☾ Night 1 —", "☀ Day 2 —"):
        assert len([s for s in said if phase in s]) <= 1, (phase, said)
    assert len([s for s in said if "☀ Day 1 —" in s]) == 1
    if [s for s in said if "☀ Day 2 —" in s]:  # (a game may end with Day 1's vote)
        assert len([s for s in said if "☾ Night 1 —" in s]) == 1
    # Everything is read through the announcer here: the chat box itself is quiet.
    assert page.locator(".chat-log").get_attribute("aria-live") == "off"
    tab_to(page, "#tab-p-chat")
    page.keyboard.press("ArrowLeft")  # back to the Table tab: the end screen
    page.locator(".endscreen .end-roles tbody tr").first.wait_for()
    page.locator("#banners .banner").wait_for(state="detached", timeout=15000)
    problems += axe_problems(page, "end screen 390")
    problems += other_pages(page, server.url, "390")
    shot(page, "a11y-sr-end-phone", full_page=True)
    # ★ and ☠ say what they mean; the vote grid's cells have words.
    roles = page.locator(".end-roles").text_content() or ""
    if "★" in roles:  # (a draw has no winner)
        assert "winner" in roles  # the star has its word beside it
    assert "did not win" in roles or "—" not in roles
    if "☠" in roles:
        assert ", dead" in roles  # a reader hears "dead", not a skull
    grid = page.locator(".endscreen .vote-grid")
    if grid.count():
        cells = grid.locator("tbody td").evaluate_all("tds => tds.map((td) => td.textContent)")
        assert all(re.search(r"[A-Za-z]", c) for c in cells), cells  # never just "→ 7"
    assert watched.problems() == []
    assert problems == []
    context.close()


SWEEPER_PANEL = """async () => {
  const { ActionPanel } = await import('/static/actions.js');
  const players = [{ seat: 1, name: "Ann", alive: true }, { seat: 3, name: "Cid", alive: true }];
  const view = { status: "running", phase: { kind: "night", number: 1 }, choices: {}, players,
                 legal: [{ do: "sweep", targets: [3] }, { do: "pass" }] };
  const store = { view, seat: 1, me: () => players[0] };
  window.sent = [];
  const act = async (action) => {
    window.sent.push(action);
    await new Promise((done) => setTimeout(done, 300));  // the server thinks
    view.choices = { swept: true };
    view.legal = [{ do: "pass" }];
    return { type: "ok" };
  };
  const panel = new ActionPanel(store, { act, selected: () => 3 });
  document.body.append(panel.el);
  panel.render();
}"""


def test_focus_stays_after_confirming_a_sweep(server, browser) -> None:
    """R27: the Sweeper's sweep asks first (the focus starts on Cancel, it cannot be undone);
    once confirmed and answered, the sweep button is gone and the focus moves on to Pass,
    not to <body>. The real action panel, driven by a stand-in for the game's store."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    try:
        page.goto(server.url + "/")
        page.locator(".lobby").wait_for()
        page.evaluate(SWEEPER_PANEL)
        page.locator("[data-focus=power-sweep]").focus()
        page.keyboard.press("Enter")
        page.locator("dialog[open]").wait_for()
        assert active(page)["text"] == "Cancel"
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        page.locator("dialog[open]").wait_for(state="detached")
        assert assert_focused(page, "confirming a sweep")["inActions"]  # the bar while busy
        page.locator("[data-focus=power-sweep]").wait_for(state="detached")
        page.wait_for_timeout(200)
        assert assert_focused(page, "a sweep's answer")["focus"] == "pass"
        # The phase it was chosen in goes with it (stale_phase once that phase is over).
        assert page.evaluate("() => window.sent") == [
            {"do": "sweep", "target": 3, "phase": {"kind": "night", "number": 1}}]
        assert watched.problems() == []
    finally:
        context.close()
