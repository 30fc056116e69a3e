"""The table: one game's state, its record and its event log, with no I/O.

Every consumer of a live game stands on this object — the server, the bot
driver, `trusis play` and the scorer — so that none of them keeps its own log,
cursors or replay loop. It is pure: time comes in as an argument, nothing is
sent anywhere; `submit` says what happened and `events_after` says what a seat
may now read.

Three facts it keeps together, and why:

- **The record** (`Record`): every well-formed action in order, with its time,
  refused ones included (but messages, and anything after the end: D42) —
  replaying a refused action refuses it again and changes nothing, and
  statistics count refusals (`refused_actions`) and time (`pass_seconds`,
  `game_seconds`).
- **The log**: every event in order, internal ones included (statistics read
  them; no seat ever does: `Event.visible_to` is False for them).
- **Each seat's stream**: the events that seat may see, numbered 1, 2, … in
  that seat's own numbering (events.py explains why never the global `seq`).
  A client that reconnects says the last number it saw and reads the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from trusis.rules.actions import SAY, Action
from trusis.rules.engine import apply
from trusis.rules.errors import IllegalAction, RecordError
from trusis.rules.events import Event
from trusis.rules.formats import EventData, View
from trusis.rules.views import view
from trusis.table.game import Game
from trusis.table.hiding import Reader
from trusis.table.record import Record

SPECTATOR = 0
"""The stream key of the public view (spectators, and seats' public part)."""


@dataclass(slots=True)
class Outcome:
    """What one submitted action did.

    `refusal` is None when the engine accepted it. `index` is its position in the
    record, or None when it was not recorded (an action that is not well formed
    for this table, such as a seat number of another table: a record must load).
    `phase_changed` and `ended` tell a server when to move timers and bots; `ended` is
    true only for the action that ended the game, never for one played after the end.
    """

    action: Action
    events: list[Event]
    refusal: IllegalAction | None
    index: int | None
    phase_changed: bool
    ended: bool

    @property
    def accepted(self) -> bool:
        return self.refusal is None


@dataclass(slots=True)
class _Stream:
    """One reader's position in the log: what it has indexed so far."""

    scanned: int = 0
    indices: list[int] = field(default_factory=list)


class Table(Game):
    """A game with its record (times and refusals included) and its event log."""

    def __init__(self, players: Sequence[str], seed: int = 0,
                 custom: Mapping[str, int] | None = None,
                 deal: Sequence[str] | None = None,
                 started_at: float | None = None, bot_seats: Sequence[int] = ()) -> None:
        super().__init__(players, seed, custom, deal, bot_seats)
        self.log: list[Event] = []
        self.log_times: list[float | None] = []  # when each event of the log happened
        self._streams: dict[int, _Stream] = {}
        self._restoring = False  # `from_record`: every action given is kept
        self.line_steps: list[int] = []
        """Each chat line's step (its action's index + 1), in the order of the state's
        chat: the name a moderator hides it by (hiding.py, D71)."""
        self._line_of: dict[int, int] = {}  # the log index of each chat event: its step
        if started_at is not None:
            self.record.extra["started_at"] = started_at

    @classmethod
    def from_record(cls, record: Record) -> Table:
        """The table that `record` describes, with every action played again.

        The record's own times are kept, so a restarted server carries on with
        the same clock, and its statistics are the same as before the restart.
        """
        started = record.extra.get("started_at")
        table = cls(record.players, record.seed, record.custom, record.roles(),
                    started if isinstance(started, (int, float)) else None,
                    record.extra.get("bot_seats", ()))
        table.record.extra.update(record.extra)
        times = list(record.times) + [None] * (len(record.actions) - len(record.times))
        table._restoring = True
        for action, t in zip(record.actions, times, strict=False):
            table.submit(action, t)
        table._restoring = False
        return table

    # -- playing ----------------------------------------------------------

    def submit(self, action: Action, t: float | None = None) -> Outcome:
        """Apply `action` at time `t` (seconds, any epoch) and keep it; never raises.

        An action the rules refuse is recorded too when it is well formed, so the
        record says what each seat tried; it changes nothing (the engine's
        guarantee) and emits no event.
        """
        state = self.state
        phase = (state.kind, state.number)
        was_running = state.running
        try:
            events = apply(state, action)
            refusal = None
        except IllegalAction as err:
            events, refusal = [], err
        index = self._keep(action, t) if refusal is None or self._kept_refused(
            action, was_running) else None
        if refusal is None and action.do == SAY and index is not None:
            self.line_steps.append(index + 1)
            for j, event in enumerate(events, len(self.log)):
                if event.code in ("said", "whispered"):
                    self._line_of[j] = index + 1
        self.log.extend(events)
        self.log_times.extend([t] * len(events))
        # The end happens once: an action after it (a "gg" in the chat) ends nothing.
        ended = was_running and not state.running
        return Outcome(action, events, refusal, index,
                       (state.kind, state.number) != phase or ended, ended)

    def play(self, action: Action, t: float | None = None) -> list[Event]:
        """`Game.play` on the table: raises `IllegalAction` for a refusal (kept all the same)."""
        outcome = self.submit(action, t)
        if outcome.refusal is not None:
            raise outcome.refusal
        return outcome.events

    def _keep(self, action: Action, t: float | None) -> int:
        record = self.record
        if len(record.times) < len(record.actions):  # a record loaded without times
            record.times.extend([None] * (len(record.actions) - len(record.times)))
        record.actions.append(action)
        record.times.append(t)
        return len(record.actions) - 1

    def _kept_refused(self, action: Action, was_running: bool) -> bool:
        """Whether a refused `action` is kept, so that the record says what each seat
        tried. Not a message (R50: it reached nobody, and a copy of the record must not
        carry its text to its would-be recipient), nor anything after the end (D42:
        nothing is tried in a game that is over, and a record must not grow without
        bound), nor what would not load again. A restore keeps what it is given: the
        stored actions' positions are the record's own."""
        if self._restoring:
            return True
        return action.do != SAY and was_running and self._well_formed(action)

    def _well_formed(self, action: Action) -> bool:
        """Whether `action` would load again from the exported record."""
        try:
            return Action.from_dict(action.to_dict(), self.state.n) == action
        except (RecordError, TypeError, ValueError, AttributeError):
            return False

    # -- reading ----------------------------------------------------------

    def stream_length(self, seat: int | None) -> int:
        """How many events `seat` (None: a spectator) may have read so far."""
        return self.state.stream_position(seat)

    def events_after(self, seat: int | None, number: int,
                     reader: Reader | None = None) -> list[EventData]:
        """The events `seat` may see after its stream number `number`, numbered.

        Each event is a fresh dict (`code`, `params`, `seq`, and `t` when the action
        that made it had a time) with a fresh `params`, whose own lists and maps are
        read-only (the engine makes them so: frozen.py), so no two readers share
        mutable data. A number beyond the stream's end gives nothing; a negative one
        is read as 0. `reader`: who reads, for the lines a moderator hid (hiding.py, D71).
        """
        first, indices = self._unread(seat, number)
        log, times = self.log, self.log_times
        masks = reader if reader is not None and reader.active else None
        out: list[EventData] = []
        for position, i in enumerate(indices, first):
            event = log[i]
            params = self._read_line(i, event.params, masks) if masks is not None else None
            data: EventData = {"seq": position, "code": event.code,
                               "params": params if params is not None else dict(event.params)}
            t = times[i]
            if t is not None:
                data["t"] = t
            out.append(data)
        return out

    def events_json(self, seat: int | None, number: int,
                    memo: dict[int, bytes] | None = None,
                    reader: Reader | None = None) -> tuple[int, bytes]:
        """`events_after(seat, number)` serialised: (the last event's number, the events'
        JSON objects joined by commas), the same bytes as `orjson.dumps` of each.

        What an event says is the same for every reader but its number (each stream
        counts its own), so its other fields are serialised once per `memo` — the
        server passes one for all the seats it sends an action to — and each reader's
        number put in front. With nothing to read it gives (`number`, b"").
        A line a moderator hid reads as `reader` may read it (hiding.py, D71), never memoised:
        another reader may read it otherwise.
        """
        first, indices = self._unread(seat, number)
        if not indices:
            return number, b""
        log, times = self.log, self.log_times
        memo = {} if memo is None else memo
        masks = reader if reader is not None and reader.active else None
        parts: list[bytes] = []
        for position, i in enumerate(indices, first):
            if masks is not None and (params := self._read_line(
                    i, log[i].params, masks)) is not None:
                own: dict[str, Any] = {"code": log[i].code, "params": params}
                if times[i] is not None:
                    own["t"] = times[i]
                parts.append(b'{"seq":%d,%b' % (position, orjson.dumps(own)[1:]))
                continue
            rest = memo.get(i)
            if rest is None:
                event = log[i]
                t = times[i]
                fields: dict[str, Any] = {"code": event.code, "params": event.params}
                if t is not None:
                    fields["t"] = t
                rest = memo[i] = orjson.dumps(fields)[1:]  # '"code":…}': no opening brace
            parts.append(b'{"seq":%d,%b' % (position, rest))
        return first + len(indices) - 1, b",".join(parts)

    def _read_line(self, i: int, params: Mapping[str, Any],
                   reader: Reader) -> dict[str, Any] | None:
        """The `params` of log event `i` as `reader` reads them, if that is not as everyone
        does: a chat line hidden, or named for staff (hiding.py)."""
        step = self._line_of.get(i)
        return None if step is None else reader.line(params, step)

    def _unread(self, seat: int | None, number: int) -> tuple[int, list[int]]:
        """(the stream number of the first event after `number`, the log indices of the
        events `seat` may see after it), its index of the log brought up to date."""
        key = SPECTATOR if seat is None else seat
        stream = self._streams.get(key)
        if stream is None:
            stream = self._streams[key] = _Stream()
        log = self.log
        if stream.scanned < len(log):
            indices = stream.indices
            for i in range(stream.scanned, len(log)):
                if log[i].visible_to(seat):
                    indices.append(i)
            stream.scanned = len(log)
        # The numbers are the state's count (GameState.stream_position, the view's `seq`:
        # the one numbering of a stream); the index only finds the events. The two agree
        # from the first event on, so `offset` is 0 (kept so that they cannot diverge).
        offset = self.state.stream_position(seat) - len(stream.indices)
        start = max(number - offset, 0)
        return start + 1 + offset, stream.indices[start:]

    def snapshot(self, seat: int | None, chat: bool = True,
                 reader: Reader | None = None) -> View:
        """Everything `seat` may know now: its view, whose `seq` is its stream length.

        The view itself, with no copy: it is a value (`views.view`: what it shares
        with other seats' views is read-only), so a snapshot handed to one reader
        shares nothing it could change with another's.
        `chat=False` leaves the chat lines out (the events carry them). `reader`: who
        reads, for the lines a moderator hid (hiding.py, D71): then the chat is a new list.
        """
        seen = view(self.state, seat, chat)
        if not chat or reader is None or not reader.active:
            return seen
        lines: list[dict[str, Any]] = []
        for (sender, to, line), step in zip(self.state.chat_lines, self.line_steps,
                                            strict=False):
            if to and seat not in (sender, to):
                continue  # another seat's whisper (R50), as readable_chat leaves it out
            lines.append(reader.line(line, step) or line)
        masked: View = {**seen, "chat": lines}  # type: ignore[typeddict-item]
        return masked
