"""One command from a seat, answered once: `ack` once stored, or `refused` with a reason.

The owner of a game runs this for its own connections and for the commands other
processes forward to it (cluster/node.py), so every command meets the same
checks, the same rate limits and the same once-only rule. A first answer
leaves out `seq`, the sender's stream number: the process that holds the
sender's connection adds it once that connection has been sent the action's
events (`numbered`), so that a copy gets the same answer. Every answer kept
(`Room.answers`) is stored here, and only here (restore.py reads them back).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from trusis.rules.actions import REPLACE, SAY, STAFF_DRAW, TIMEOUT, Action
from trusis.rules.engine import message_text
from trusis.rules.errors import IllegalAction
from trusis.rules.i18n import render, seat_label
from trusis.server.connections.protocol import ActionIn
from trusis.server.monitoring import metrics
from trusis.server.tables import chat_after_end, room_chat
from trusis.server.tables.answers import CommandAnswer
from trusis.server.tables.room import Room

NOT_COMMANDS = frozenset({TIMEOUT, STAFF_DRAW, REPLACE})
"""Actions of a record that no connection may send: the timer's, the staff's draw (D38,
stuck.py), and the host's hand-over (which goes through the lobby, where the server
checks who the host is)."""


def _namer(room: Room) -> Callable[[int], str]:
    names = room.host.table.state.names if room.host else []
    return lambda seat: names[seat] if 0 < seat < len(names) else seat_label(seat)


def refusal(room: Room, client_id: str, code: str, params: dict[str, Any],
            lang: str) -> CommandAnswer:
    """A refusal of command `client_id`, its reason in the client's language."""
    return CommandAnswer.refused(client_id, code, params,
                                 render(f"refusal.{code}", params, lang, _namer(room)))


async def command(room: Room, player_id: str, seat: int | None, client_id: str,
                  given: ActionIn, lang: str) -> CommandAnswer:
    """Apply one command of `player_id` (playing `seat`) and say what happened.

    A command sent again with the same id is answered again with the first answer and
    applied once, also when the copy arrives (on another connection of the same player)
    while the first is still being stored: the copy waits for the first's answer.
    `count` in the answer is the record's length after it (what a follower must have).
    """
    key = (player_id, client_id)
    book = room.answers
    while (pending := book.pending.get(key)) is not None:
        await asyncio.shield(pending)
    known = book.answer(player_id, client_id)
    if known is not None:  # the same command again: answered again, applied once
        return known.copy()
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    book.pending[key] = done
    began = time.perf_counter()
    try:
        reply = await _apply(room, player_id, seat, client_id, given, lang)
        if (figures := metrics.FIGURES) is not None:
            figures.ack.labels(reply.type).observe(time.perf_counter() - began)
        return reply
    finally:
        if book.pending.get(key) is done:
            del book.pending[key]
        done.set_result(None)


async def _apply(room: Room, player_id: str, seat: int | None, client_id: str,
                 given: ActionIn, lang: str) -> CommandAnswer:
    reply: CommandAnswer
    host = room.host
    if host is None and given.do == SAY and (
            sitting := room.lobby.seat_of(player_id)) is not None:
        return await _waiting_say(room, player_id, sitting, client_id, given, lang)
    if host is None or seat is None:
        # Before the start only a seated player's `say` is taken (D45): anyone else's is
        # a spectator's, as during the game.
        code = "not_started" if host is None and given.do != SAY else "spectator"
        reply = refusal(room, client_id, code, {}, lang)
    elif given.do in NOT_COMMANDS:  # the server's clock (R12) and the host's (R53) only
        reply = refusal(room, client_id, "unknown_action", {"do": given.do}, lang)
    elif (capped := chat_after_end.refusal(room, seat, given.do)) is not None:  # D21
        reply = refusal(room, client_id, *capped, lang)
    elif given.do == SAY and (muted := await room.store.mutes.until(
            player_id)) is not None:  # a moderator's mute, from the database (mutes.py)
        reply = refusal(room, client_id, "muted", {"until": muted or None}, lang)
    elif not host.allowed(player_id, Action(given.do)):
        # `retry_after`: when the same command would be taken (the chat says when).
        wait = host.retry_after(player_id, Action(given.do))
        reply = refusal(room, client_id, "rate_limited", {"retry_after": wait}, lang)
        if (figures := metrics.FIGURES) is not None:
            figures.rate_limited("chat" if given.do == SAY else "command")
        return reply  # not remembered: the same id may be tried again once the budget allows
    else:
        action = Action(given.do, seat, given.target, given.shown, given.text, given.to)
        made_in = None if given.phase is None else (given.phase.kind, given.phase.number)
        outcome = await host.submit(action, player_id, client_id, made_in)
        if outcome.refusal is None:  # counted as it is made: one answer built, not two
            reply = CommandAnswer.ack(client_id, _count(room))
        else:
            err = outcome.refusal  # rendered from the same catalogue as err.message()
            reply = refusal(room, client_id, err.code, err.params, lang)
    if reply.count != (count := _count(room)):
        reply = reply.counted(count)
    room.answers.remember(player_id, client_id, reply)
    return reply


def _count(room: Room) -> int | None:
    """The record's length now (what a follower must hold), None before the game."""
    return None if room.host is None else len(room.host.table.record.actions)


async def _waiting_say(room: Room, player_id: str, seat: int, client_id: str,
                       given: ActionIn, lang: str) -> CommandAnswer:
    """A seated player's `say` in the waiting room (D45): public only, checked as the
    game's chat is — the mute, the same per-player budgets (the room's, which the game's
    host takes over), D9's cleaning — and kept by the room, never stored."""
    reply: CommandAnswer
    if given.to is not None:
        reply = refusal(room, client_id, "private_not_started", {}, lang)
    elif (muted := await room.store.mutes.until(player_id)) is not None:  # D36, D41
        reply = refusal(room, client_id, "muted", {"until": muted or None}, lang)
    elif not room.budgets.allowed(player_id, chat=True):
        wait = room.budgets.retry_after(player_id, chat=True)
        if (figures := metrics.FIGURES) is not None:
            figures.rate_limited("chat")
        return refusal(room, client_id, "rate_limited", {"retry_after": wait}, lang)
    else:
        try:
            text = message_text(given.text)  # D9, as the engine cleans the game's chat
        except IllegalAction as err:
            reply = refusal(room, client_id, err.code, err.params, lang)
        else:
            room_chat.waiting_say(room, seat, text)
            reply = CommandAnswer.ack(client_id)
    room.answers.remember(player_id, client_id, reply)
    return reply


def numbered(room: Room, player_id: str, answer: CommandAnswer, seq: int) -> CommandAnswer:
    """`answer`, sent to its sender's connection at stream number `seq`: an `ack` not
    numbered yet takes it, and is kept so, for a copy to get the same answer."""
    if answer.type != "ack" or answer.seq is not None:
        return answer
    answer = answer.with_seq(seq)
    room.answers.remember(player_id, answer.id, answer)
    return answer
