"""The rules of Trusis: a pure, deterministic engine (no I/O, no clock, no chance after the deal).

Everything above this package — the table layer, statistics, bots, the server and
the clients — reads the game only through `apply`, `legal_actions` and `view`.
"""
