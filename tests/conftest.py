"""Fixtures shared by several test modules."""

import os

from clusterproc import cut_processes, two_processes, two_processes_long_lease
from core_fakes import core_clock, core_store, core_template
from sqlitestore import sqlite_store
from test_web_support import module_browser, module_server

# The suite plays hundreds of visitors from one address (127.0.0.1) within minutes: more
# than any real group, so the per-address limits it would meet are relaxed for every
# server it starts (docs/deploy.md, "Limits per player and per address"). The tests of
# the limits set their own (`--limit`, tests/test_server_limits.py).
os.environ.setdefault("TRUSIS_LIMIT_GUESTS_PER_ADDRESS_HOUR", "100000")
os.environ.setdefault("TRUSIS_LIMIT_OPEN_TABLES_PER_ADDRESS", "100000")
os.environ.setdefault("TRUSIS_LIMIT_RUNNING_TABLES_PER_ADDRESS", "100000")
os.environ.setdefault("TRUSIS_LIMIT_TABLES_PER_ADDRESS_HOUR", "100000")
# A web test module signs one guest in for each of its games, whose bots play on after it.
os.environ.setdefault("TRUSIS_LIMIT_RUNNING_TABLES_PER_PLAYER", "100000")
os.environ.setdefault("TRUSIS_LIMIT_TABLES_PER_PLAYER_HOUR", "100000")

# `server` and `browser` (module_server, module_browser) are the web test modules' own real
# server and Chromium; a module that defines its own `server` uses that one.
__all__ = [
           "core_clock",
           "core_store",
           "core_template",
           "cut_processes",
           "module_browser",
           "module_server",
           "sqlite_store",
           "two_processes",
           "two_processes_long_lease",
]
