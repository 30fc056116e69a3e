"""Chat in the waiting room (R50, D45) in Debian's Chromium against a real `trusis serve`:
two players seated before the start exchange a line, and it shows on both pages with its
sender's name; a spectator's box keeps to the commands."""

from __future__ import annotations

from test_web_support import create_table, needs_chromium, shot, sign_in, sit

pytestmark = needs_chromium


def test_two_seated_players_talk_in_the_waiting_room(server, browser) -> None:
    ann_ctx, bob_ctx, eve_ctx = (browser.new_context() for _ in range(3))
    ann, bob, eve = (ctx.new_page() for ctx in (ann_ctx, bob_ctx, eve_ctx))
    sign_in(ann, server.url, "Ann")
    table = create_table(ann, 5)
    sit(ann)
    sign_in(bob, server.url, "Bob")
    bob.goto(f"{server.url}/t/{table}")
    sit(bob)
    sign_in(eve, server.url, "Eve")  # she watches
    eve.goto(f"{server.url}/t/{table}")
    eve.locator(".waiting h1").wait_for()

    box = ann.locator("#chat-input")
    box.wait_for()
    assert box.get_attribute("placeholder") == "Message to everyone"
    box.fill("hello Bob, ready?")
    box.press("Enter")
    bob.locator(".chat-line", has_text="hello Bob, ready?").wait_for()
    bob.locator("#chat-input").fill("ready, Ann")
    bob.locator("#chat-input").press("Enter")
    for page in (ann, bob, eve):
        line = page.locator(".chat-line", has_text="ready, Ann")
        line.wait_for()
        assert "Bob" in line.locator(".chat-who").inner_text()
        first = page.locator(".chat-line", has_text="hello Bob, ready?")
        assert "Ann" in first.locator(".chat-who").inner_text()
    spectator_box = eve.locator("#chat-input")
    assert spectator_box.get_attribute("placeholder") == "Commands only, such as /help"
    shot(ann, "waiting-chat-ann")
    shot(bob, "waiting-chat-bob")
    for ctx in (ann_ctx, bob_ctx, eve_ctx):
        ctx.close()
