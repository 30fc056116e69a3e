"""The rules of Trusis: a pure, deterministic engine (no I/O, no clock, no chance after the deal).

Everything above this package — the table layer, statistics, bots, the server and
the clients — reads the game only through `apply`, `legal_actions` and `view`.

The hot modules may run compiled by mypyc (setup.py, docs/architecture.md "Compiled
engine") or as the plain Python beside them; both give the same results.
"""


def compiled() -> bool:
    """Whether the engine running is the mypyc-compiled build (False: pure Python)."""
    from trusis.rules import engine

    return not (engine.__file__ or "").endswith(".py")
