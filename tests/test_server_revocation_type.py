"""Issue 36: one revocation type crosses the layers and the cluster's bus.

A ban's revocation was `BanFacts` → `requests.Revoked` → `messages.Revoked` → another
`Revoked` → a frame dict. Now it is one `Revocation` (players/revoked.py): the bus's
`Revoked` is a Revocation with its sender, and the `banned` frame is made from it."""

from __future__ import annotations

import orjson

from trusis.server.cluster.messages import Revoked, decode, encode
from trusis.server.moderation.sanctions import BanFacts
from trusis.server.players.revoked import Revocation
from trusis.server.tables.player_connections import banned_frame

BEFORE = (b'{"k":"revoked","sender":"n-old","player":"p1","family":null,"keep":null,'
          b'"ban":true,"until":1764666400.0,"reason":"threats in the chat","deleted":false}')
"""A ban's revocation as a process of the version before published it (flat fields)."""


def test_a_ban_s_revocation_is_one_type_from_the_route_to_the_frame() -> None:
    ban = BanFacts(until=1764666400.0, reason="threats in the chat")
    revocation = Revocation.of_ban("p1", ban)
    message = Revoked(sender="n-new", **revocation.model_dump())
    heard = decode(encode(message))
    assert isinstance(heard, Revoked) and isinstance(heard, Revocation)
    assert heard.banned() == ban == revocation.banned()
    assert orjson.loads(banned_frame(ban)) == {"type": "banned", "until": 1764666400.0,
                                               "reason": "threats in the chat"}


def test_the_bus_carries_a_revocation_in_the_fields_it_always_had() -> None:
    """A process of the version before and a new one read each other's revocations during a
    rolling upgrade (docs/deploy.md): same field names, same meanings."""
    old = decode(BEFORE)
    assert isinstance(old, Revoked)
    assert old.banned() == BanFacts(until=1764666400.0, reason="threats in the chat")
    new = Revoked(sender="n-new", **Revocation(player="p2", family="f1").model_dump())
    # The same fields, and the bus version every message now carries (`v`, issue 38: a
    # process of the version before reads it as a newer field and goes on).
    assert set(orjson.loads(encode(new))) - {"v"} == set(orjson.loads(BEFORE))
    assert new.banned() is None and not new.deleted
