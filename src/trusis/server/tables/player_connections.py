"""A player's connections at every table this process holds: what a revocation closes
and a warning reaches (split from hub.py, which stays the rooms' registry and routing)."""

from __future__ import annotations

from trusis.server.connections.clients import Client
from trusis.server.connections.frames import (
    BannedFrame,
    FrameBytes,
    MutedFrame,
    WarningFrame,
    serialise,
)
from trusis.server.data.personal import DELETED_NAME
from trusis.server.data.store import Store
from trusis.server.moderation.sanctions import BanFacts, WarningFacts
from trusis.server.players.revoked import Revocation
from trusis.server.tables.room import Room
from trusis.server.tables.seats.banning import unseat_banned

SIGNED_OUT = 4401
"""The close code of a connection whose session ended (docs/protocol.md)."""
BANNED = 4423
"""The close code of a banned player's connection, after a `banned` frame that says the
ban's end and reason (docs/protocol.md, D53): not a sign-out's, which asks for a name."""


def banned_frame(ban: BanFacts) -> FrameBytes:
    """What a banned player's connection hears before it closes with `BANNED`."""
    return serialise(BannedFrame(type="banned", until=ban["until"], reason=ban["reason"]))


class PlayerConnections:
    """The connections of a player across the hub's rooms (`rooms`: open and running
    tables held here, `finished`: end screens read back; the hub's own dicts, read live)."""

    def __init__(self, rooms: dict[str, Room], finished: dict[str, Room], store: Store) -> None:
        self.rooms = rooms
        self.finished = finished
        self.store = store

    def tell_warning(self, player_id: str, warning: WarningFacts) -> None:
        """Send the `warning` frame to this process's connections of `player_id` — or for a
        mute the `muted` frame, its end and reason (issue 38; docs/protocol.md)."""
        frame = serialise(WarningFrame(type="warning", id=warning["id"],
                                       reason=warning["reason"], at=warning["at"]))
        if warning.get("kind") == "mute":
            self.store.mutes.forget()  # in force from now on, here too (mutes.py, D69)
            frame = serialise(MutedFrame(type="muted", id=warning["id"], reason=warning["reason"],
                                         at=warning["at"], until=warning.get("until")))
        for client in self.of(player_id):
            client.send(frame)

    def close_revoked(self, revoked: Revocation) -> None:
        """Close this process's connections opened with revoked tokens: 4401, or for a ban
        `BANNED` after a `banned` frame (its end and reason, D53)."""
        ban = revoked.banned()
        told = banned_frame(ban) if ban is not None else None
        if revoked.deleted:  # its seats show the name its stored rows have now
            for room in (*self.rooms.values(), *self.finished.values()):
                room.lobby.rename(revoked.player, DELETED_NAME)
            self.finished.clear()
        for client in self.of(revoked.player):
            if revoked.family is not None and client.family != revoked.family:
                continue
            if revoked.keep is not None and client.family == revoked.keep:
                continue
            if told is not None:
                client.send(told)
                client.shut(BANNED, "banned")
            else:
                client.shut(SIGNED_OUT, "signed out")
        if revoked.ban or revoked.deleted:  # D36; a deleted account's seats go the same way (D53)
            unseat_banned(self.rooms.values(), revoked.player)

    def people_here(self) -> set[str]:
        """Every player this process serves: connected here, or seated as a person (or a
        program) at an open or running table it writes (deletions.py asks which of them
        are deleted)."""
        found = {c.player_id for room in (*self.rooms.values(), *self.finished.values())
                 for c in room.clients}
        for room in self.rooms.values():
            if room.owned and room.status in ("open", "running"):
                found.update(s.player_id for s in room.lobby.seats.values()
                             if s.player_id is not None and s.kind != "bot")
        return found

    def of(self, player_id: str) -> list[Client]:
        """This process's connections of `player_id`, at every table it holds."""
        rooms = {id(r): r for r in (*self.rooms.values(), *self.finished.values())}
        return [c for room in rooms.values() for c in room.clients if c.player_id == player_id]
