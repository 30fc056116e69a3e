"""What every process must tell its connections of a player or a table, whoever acted: a
revoked sign-in or a ban (close them), a warning or a mute (show it), a chat line hidden or
shown again (D71). One channel for all (`SESSIONS`), published by the process that acted and
heard by every other; the process that acted has already told its own connections."""

from __future__ import annotations

from collections.abc import Callable

from trusis.server.cluster.bus import Bus, channel
from trusis.server.cluster.messages import LineHidden, Message, Muted, Revoked, Warned
from trusis.server.data.hidden import HiddenFacts
from trusis.server.moderation.sanctions import WarningFacts
from trusis.server.players.revoked import Revocation

SESSIONS = channel("s", "revoked")
"""Every process listens here (the name is older than the warnings and hidden lines)."""


class PlayerNews:
    """This process's side of `SESSIONS`: it tells (`tell_*`) and hears (`heard`), and
    hands what it hears to the hub's hooks."""

    def __init__(self, bus: Bus, name: str, on_revoked: Callable[[Revocation], None],
                 on_warned: Callable[[str, WarningFacts], None],
                 on_hidden: Callable[[HiddenFacts], None]) -> None:
        self.bus = bus
        self.name = name
        self.on_revoked = on_revoked
        """The hub closes the connections of tokens another process revoked."""
        self.on_warned = on_warned
        """The hub tells its connections of a player of a warning given elsewhere."""
        self.on_hidden = on_hidden
        """The hub tells its connections of a table of a line hidden elsewhere (D71)."""

    async def tell_revoked(self, revoked: Revocation) -> None:
        """Tokens revoked here (sessions.py): every other process closes their connections.
        Their requests already fail, since every process asks the database."""
        await self.bus.publish(SESSIONS, Revoked(sender=self.name, **revoked.model_dump()))

    async def tell_warned(self, player_id: str, warning: WarningFacts) -> None:
        """A warning (or a mute) given here: every other process tells its connections of
        the player."""
        if warning.get("kind") == "mute" and "until" in warning:
            await self.bus.publish(SESSIONS, Muted(
                sender=self.name, player=player_id, id=warning["id"],
                reason=warning["reason"], at=warning["at"], until=warning["until"]))
            return
        await self.bus.publish(SESSIONS, Warned(sender=self.name, player=player_id,
                                                id=warning["id"], reason=warning["reason"],
                                                at=warning["at"]))

    async def tell_hidden(self, facts: HiddenFacts) -> None:
        """A line hidden or shown again here (D71): every other process tells its
        connections of the table."""
        await self.bus.publish(SESSIONS, LineHidden(sender=self.name, **facts))

    def heard(self, message: Message) -> bool:
        """Hand `message` on if it is news of a player or a line (not from this process);
        whether it was one."""
        if isinstance(message, Revoked):
            if message.sender != self.name:
                self.on_revoked(message)  # a Revocation, with its sender
        elif isinstance(message, Warned):
            if message.sender != self.name:
                self.on_warned(message.player, WarningFacts(
                    id=message.id, reason=message.reason, at=message.at))
        elif isinstance(message, Muted):
            if message.sender != self.name:
                self.on_warned(message.player, WarningFacts(
                    id=message.id, reason=message.reason, at=message.at, kind="mute",
                    until=message.until))
        elif isinstance(message, LineHidden):
            if message.sender != self.name:
                self.on_hidden(HiddenFacts(table=message.table, place=message.place,
                                           number=message.number, hidden=message.hidden,
                                           reason=message.reason, writer=message.writer))
        else:
            return False
        return True
