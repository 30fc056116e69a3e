"""A revocation: sign-ins that just ended, and why — the one type every layer passes on.

A logout, a password change, a deleted account and a ban each end sign-ins. What ends
(one sign-in's `family`, all of a player's but `keep`'s, or all) and, for a ban, what its
player is told (its end and reason, D53) is one `Revocation`, from the route that revokes
(tables/revocation.py's `Sessions`) through the hub that closes this process's connections,
to the cluster's bus, whose `Revoked` message *is* a Revocation with its sender added
(cluster/messages.py), to the `banned` frame a connection hears (`banned`). Issue 36 found
the one fact in five shapes (`BanFacts`, two TypedDicts, a bus model, a dict literal).

Its fields are flat, as the bus has always carried them, so that a process of the version
before reads a new process's revocations (docs/deploy.md, "Upgrading a cluster").
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from trusis.server.moderation.sanctions import BanFacts


class Revocation(BaseModel):
    """Tokens just revoked: one sign-in's (`family`), or all of a player's but `keep`'s,
    or all of them. `ban`: the player's seats go too (banning.py), and the connections are
    told the ban's end (`until`, None: never) and `reason` before they close (D53);
    `deleted`: an account deleted, whose seats go as a ban's (D53)."""

    model_config = ConfigDict(frozen=True)

    player: str
    family: str | None = None
    keep: str | None = None
    ban: bool = False
    until: float | None = None
    reason: str = ""
    deleted: bool = False

    @classmethod
    def of_ban(cls, player: str, ban: BanFacts) -> Revocation:
        """Every sign-in of a banned player, with what the ban tells them."""
        return cls(player=player, ban=True, until=ban["until"], reason=ban["reason"])

    def banned(self) -> BanFacts | None:
        """What its connections are told before they close, for a ban; else None."""
        return BanFacts(until=self.until, reason=self.reason) if self.ban else None
