"""A finished game's record as each reader may have it (docs/record.md): secret while the
game runs (its seed and deal), then whole but for the private messages of others (R50, D16)
and with a moderator's hidden lines masked but to their writer (D71). Downloads, replays and
the end screen's statistics are built from it."""

from __future__ import annotations

from trusis.rules.actions import SAY
from trusis.server.data import hidden
from trusis.server.data.store import Store
from trusis.server.errors import LobbyError
from trusis.server.tables.records import stored_record
from trusis.server.tables.room import Room
from trusis.table.hiding import Hide, masked_record
from trusis.table.record import Record


async def record(store: Store, room: Room) -> Record:
    """The finished game's record; a running game's record is secret (seed, deal)."""
    if room.status != "finished":
        raise LobbyError(403, "game_running",
                         "a game's record is secret until the game has ended")
    return await stored_record(store, room.id)


async def hidden_lines(store: Store, room: Room) -> dict[int, Hide]:
    """The game's lines hidden now, by step (D71), as stored: a replay or a download
    reads them from the database, whatever this process's copy heard."""
    return {x["number"]: Hide(x["reason"], x["writer_id"])
            for x in await hidden.of_table(store.engine, room.id)
            if x["place"] == "game"}


async def players_record(store: Store, room: Room, viewer: str | None,
                         hides: dict[int, Hide] | None = None) -> Record:
    """The finished game's record as `viewer` may have it: the whole game, but a
    private message only for its sender and its recipient (R50: nothing about it
    reaches anyone else, not even that it was sent; D16). Whispers change nothing
    in the game, so this record replays to the same result; downloads and replays
    are built from it. A line a moderator hid says the placeholder but to its writer
    (`hides`: as `hidden_lines` reads them; D71): the record still replays the same."""
    full = await record(store, room)
    full = masked_record(full, await hidden_lines(store, room) if hides is None else hides,
                         viewer)
    seats = room.lobby.seats
    mine = {n for n, s in seats.items() if viewer is not None and s.player_id == viewer}
    kept = [(a, t) for a, t in zip(full.actions, full.times, strict=False)
            if a.do != SAY or a.to is None or a.seat in mine or a.to in mine]
    return Record(full.players, full.seed, full.custom, full.deal, [a for a, _ in kept],
                  dict(full.extra), [t for _, t in kept])
