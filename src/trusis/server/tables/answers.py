"""A command's answer as a value: what the client sees, apart from what only servers use.

The client sees `ack` (`id`, and `seq` once its connection has been sent the action's
events) or `refused` (`id`, `code`, `params`, `message`), exactly as docs/protocol.md
shows them; `frame` is the one place those bytes are built. Two facts stay inside
the servers: `count`, the record's length after the command (what a follower must
hold before it answers), and `again`, set on an answer read back from the store
after a restart (restore.py), whose stream number was never stored. An answer
crosses processes (cluster/forward.py) inside the typed `Reply` (cluster/messages.py),
all its fields included, validated when it is read back. `AnswerBook` keeps a table's
answers, so that each command is answered once.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from trusis.server.connections.frames import AckFrame, FrameBytes, RefusedFrame, serialise

AnswerType = Literal["ack", "refused"]

ANSWERS_KEPT = 5000


@dataclass(frozen=True, slots=True)
class CommandAnswer:
    """The one answer to one command (`id`: the client's id for it)."""

    type: AnswerType
    id: str
    code: str = ""
    """`refused` only: the engine's (or the server's) refusal code."""
    params: Mapping[str, Any] = field(default_factory=dict)
    message: str = ""
    seq: int | None = None
    """`ack` only: the sender's stream number after the action's events; None until known."""
    count: int | None = None
    """Internal: the record's length after this command (None before the game)."""
    again: bool = False
    """Internal: read back from the store; its stream number is unknown."""

    @classmethod
    def ack(cls, client_id: str, count: int | None = None) -> CommandAnswer:
        return cls("ack", client_id, count=count)

    @classmethod
    def refused(cls, client_id: str, code: str, params: Mapping[str, Any],
                message: str) -> CommandAnswer:
        return cls("refused", client_id, code, dict(params), message)

    @classmethod
    def read_back(cls, client_id: str) -> CommandAnswer:
        """An `ack` stored before a restart: its copy is numbered afresh when sent."""
        return cls("ack", client_id, again=True)

    # The three variants below are written out rather than `dataclasses.replace`, which
    # looks up every field's definition on each call: two of them run for every command.

    def counted(self, count: int | None) -> CommandAnswer:
        return CommandAnswer(self.type, self.id, self.code, self.params, self.message,
                             self.seq, count, self.again)

    def copy(self) -> CommandAnswer:
        """The answer a copy of the command gets: the same, except that one read back
        from the store forgets the stream number it never had (its sender numbers it)."""
        if not self.again:
            return self
        return CommandAnswer(self.type, self.id, self.code, self.params, self.message,
                             None, self.count, False)

    def with_seq(self, seq: int) -> CommandAnswer:
        """This `ack` with its sender's stream number, once known."""
        return CommandAnswer(self.type, self.id, self.code, self.params, self.message,
                             seq, self.count, self.again)

    def frame(self) -> FrameBytes:
        """The client's frame (docs/protocol.md, "Answers"): no internal field."""
        if self.type == "ack":
            ack = AckFrame(type="ack", id=self.id)
            if self.seq is not None:
                ack["seq"] = self.seq
            return serialise(ack)
        return serialise(RefusedFrame(type="refused", id=self.id, code=self.code,
                                      params=dict(self.params), message=self.message))


@dataclass
class AnswerBook:
    """A table's answers by (player, client id), the last `ANSWERS_KEPT`, and the commands
    being applied. The room's, not its game's: a command is answered once from the lobby
    on (`not_started`) to the end (commands.py)."""

    answers: OrderedDict[tuple[str, str], CommandAnswer] = field(default_factory=OrderedDict)
    pending: dict[tuple[str, str], asyncio.Future[None]] = field(default_factory=dict)
    """Commands being applied, by (player, client id): a copy waits for their answer."""

    def answer(self, player_id: str, client_id: str) -> CommandAnswer | None:
        return self.answers.get((player_id, client_id))

    def remember(self, player_id: str, client_id: str, reply: CommandAnswer) -> None:
        self.answers[(player_id, client_id)] = reply
        while len(self.answers) > ANSWERS_KEPT:
            self.answers.popitem(last=False)
