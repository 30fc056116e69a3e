"""Read-only dicts and lists: what views and events are made of (docs/architecture.md,
"Views are values").

The engine builds some client data once and hands the same objects to every
seat, every call and sometimes every game (a phase's public part, history and
chat lines, legal actions, results, an event's lists). Copying them for each
reader would cost the engine its speed; sharing them mutable let one careless
reader change what another is sent. So they are made read-only instead.

`FrozenDict` and `FrozenList` subclass `dict` and `list` so that every reader
stays as it was — `json` and `orjson` write them as they write dicts and lists,
`==` compares them with plain ones, `isinstance(x, dict)` holds — but every
method that would change one raises `TypeError`. `thaw` gives an editable copy.

Not compiled with the engine (setup.py): mypyc compiles no subclass of a builtin
container; the compiled engine calls these classes like any Python class.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


def _refuse(self: object, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(
        f"{type(self).__name__} is read-only: it is shared with other readers of the game; "
        "edit a copy (trusis.rules.frozen.thaw)"
    )


class FrozenDict(dict[K, V]):
    """A dict that refuses every change (views share these between seats)."""

    __slots__ = ()
    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        # copy, deepcopy and pickle rebuild it from a plain dict (not item by item).
        return (type(self), (dict(self),))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


class FrozenList(list[T]):
    """A list that refuses every change (views share these between seats)."""

    __slots__ = ()
    __setitem__ = _refuse
    __delitem__ = _refuse
    __iadd__ = _refuse
    __imul__ = _refuse
    append = _refuse
    clear = _refuse
    extend = _refuse
    insert = _refuse
    pop = _refuse
    remove = _refuse
    reverse = _refuse
    sort = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (list(self),))

    def __repr__(self) -> str:
        return f"FrozenList({list.__repr__(self)})"


def freeze(data: Any) -> Any:
    """`data` (JSON-like: dicts, lists, tuples, scalars) made read-only all the way down."""
    if isinstance(data, dict):
        if type(data) is FrozenDict:
            return data
        return FrozenDict({k: freeze(v) for k, v in data.items()})
    if isinstance(data, (list, tuple)):
        if type(data) is FrozenList:
            return data
        return FrozenList([freeze(v) for v in data])
    return data


def thaw(data: Any) -> Any:
    """An editable copy of JSON-like `data`, sharing nothing mutable with it."""
    if isinstance(data, dict):
        return {k: thaw(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [thaw(v) for v in data]
    return data

