"""The compiled engine is opt-in, and a test run knows which engine it tests.

`./test` runs the rules, golden, record and replay tests twice: on the pure package
(src/), and on the mypyc build of tools/build_compiled.py with
TRUSIS_EXPECT_COMPILED=1 and PYTHONPATH=build/compiled. These tests make sure each
run tests what it says: a run that expects the compiled engine and silently got the
.py files (or the reverse) fails here.
"""

from __future__ import annotations

import importlib
import os
import runpy
from pathlib import Path

import pytest

import trusis.rules

ROOT = Path(__file__).resolve().parent.parent
SETUP = runpy.run_path(str(ROOT / "setup.py"), run_name="trusis_setup")
EXPECT_COMPILED = os.environ.get("TRUSIS_EXPECT_COMPILED", "") == "1"


def test_the_engine_running_is_the_one_expected() -> None:
    assert trusis.rules.compiled() is EXPECT_COMPILED


@pytest.mark.parametrize("name", SETUP["COMPILED_MODULES"])
def test_every_listed_module_is_compiled_or_none_is(name: str) -> None:
    module = importlib.import_module(f"trusis.rules.{name}")
    assert (module.__file__ or "").endswith(".py") is not EXPECT_COMPILED, module.__file__


def test_a_plain_install_compiles_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without TRUSIS_COMPILE=1, setup.py builds no extension: no C compiler is needed."""
    for value in (None, "", "0", "yes"):
        if value is None:
            monkeypatch.delenv("TRUSIS_COMPILE", raising=False)
        else:
            monkeypatch.setenv("TRUSIS_COMPILE", value)
        assert not SETUP["wanted"]()
    monkeypatch.setenv("TRUSIS_COMPILE", "1")
    assert SETUP["wanted"]()


def test_the_build_requirements_add_mypy_only_when_compiling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    backend = runpy.run_path(str(ROOT / "tools" / "build_backend.py"), run_name="backend")
    monkeypatch.delenv("TRUSIS_COMPILE", raising=False)
    assert backend["_extra"]() == []
    monkeypatch.setenv("TRUSIS_COMPILE", "1")
    assert backend["_extra"]() == [backend["MYPY"]]


def test_no_extension_module_is_left_in_src() -> None:
    """One in src/ would shadow its .py in the normal run (and in every pure install)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    stray = [p for p in (ROOT / "src").rglob("*") if p.name.endswith(suffixes)]
    assert stray == []
