"""Which engine a build makes, and a test run knows which engine it tests.

`pip install .` from the repository compiles the engine when it can and falls back
to pure Python with one line (setup.py; TRUSIS_COMPILE=0 never, =1 always);
editable installs never compile. `./test` runs the rules, golden, record and replay
tests twice: on the pure package (src/), and on the mypyc build of
tools/build_compiled.py with TRUSIS_EXPECT_COMPILED=1 and PYTHONPATH=build/compiled.
These tests make sure each run tests what it says: a run that expects the compiled
engine and silently got the .py files (or the reverse) fails here. The wheel builds
(a minute or more each) run with TRUSIS_SLOW=1.
"""

from __future__ import annotations

import importlib
import os
import runpy
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import trusis.rules

ROOT = Path(__file__).resolve().parent.parent
SETUP = runpy.run_path(str(ROOT / "setup.py"), run_name="trusis_setup")
EXPECT_COMPILED = os.environ.get("TRUSIS_EXPECT_COMPILED", "") == "1"
SLOW = pytest.mark.skipif(os.environ.get("TRUSIS_SLOW") != "1",
                          reason="builds a wheel (a minute or more): TRUSIS_SLOW=1")


def test_the_engine_running_is_the_one_expected() -> None:
    assert trusis.rules.compiled() is EXPECT_COMPILED


@pytest.mark.parametrize("name", SETUP["COMPILED_MODULES"])
def test_every_listed_module_is_compiled_or_none_is(name: str) -> None:
    module = importlib.import_module(f"trusis.rules.{name}")
    assert (module.__file__ or "").endswith(".py") is not EXPECT_COMPILED, module.__file__


def test_a_build_compiles_when_it_can_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """Auto by default (compiler and headers here), 0 never, 1 always, editable never."""
    monkeypatch.delenv(SETUP["EDITABLE"], raising=False)
    can = SETUP["toolchain_missing"]() is None
    for value, expected in ((None, can), ("", can), ("auto", can), ("0", False), ("1", True)):
        if value is None:
            monkeypatch.delenv("TRUSIS_COMPILE", raising=False)
        else:
            monkeypatch.setenv("TRUSIS_COMPILE", value)
        assert SETUP["wanted"]() is expected, value
    monkeypatch.setenv(SETUP["EDITABLE"], "1")
    for value in ("", "1"):
        monkeypatch.setenv("TRUSIS_COMPILE", value)
        assert not SETUP["wanted"](), value


def test_no_compiler_means_nothing_to_compile_with(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "no-such-cc")
    assert SETUP["toolchain_missing"]() == "no C compiler (no-such-cc)"
    monkeypatch.delenv("TRUSIS_COMPILE", raising=False)
    monkeypatch.delenv(SETUP["EDITABLE"], raising=False)
    assert not SETUP["wanted"]()


def test_the_build_requirements_add_mypy_only_when_compiling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)  # a build backend runs in the project's folder
    backend = runpy.run_path(str(ROOT / "tools" / "build_backend.py"), run_name="backend")
    monkeypatch.setenv("TRUSIS_COMPILE", "0")
    assert backend["_extra"]() == []
    monkeypatch.setenv("TRUSIS_COMPILE", "1")
    assert backend["_extra"]() == [backend["MYPY"]]
    with backend["_env"](backend["EDITABLE"]):
        assert backend["_extra"]() == []
    assert backend["EDITABLE"] not in os.environ
    monkeypatch.delenv("TRUSIS_COMPILE")
    monkeypatch.setenv("CC", "no-such-cc")
    assert backend["_extra"]() == []


def test_no_extension_module_is_left_in_src() -> None:
    """One in src/ would shadow its .py in the normal run (and in every pure install)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    stray = [p for p in (ROOT / "src").rglob("*") if p.name.endswith(suffixes)]
    assert stray == []


def build_wheel(tmp_path: Path, **env: str) -> tuple[list[str], str]:
    """`pip wheel . --no-deps -v` with `env`: the wheel's file names and pip's output.

    From a copy of what the Dockerfile copies: setuptools would reuse the objects
    of an earlier build left in the repository's build/ folder.
    """
    tree = tmp_path / "tree"
    tree.mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tree)
    (tree / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "build_backend.py", tree / "tools")
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__"))
    environ = {k: v for k, v in os.environ.items() if k not in ("TRUSIS_COMPILE", "CC")}
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-v", "-w", str(tmp_path)],
        cwd=tree, env={**environ, **env}, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = tmp_path.glob("trusis-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return [*archive.namelist(), wheel.name], done.stdout + done.stderr


def extension_modules(names: list[str]) -> list[str]:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return [n for n in names if n.endswith(suffixes)]


@SLOW
def test_a_wheel_built_here_has_the_compiled_engine(tmp_path: Path) -> None:
    why = SETUP["toolchain_missing"]()
    if why:
        pytest.skip(why)
    names, _ = build_wheel(tmp_path)
    built = {n.split("/")[-1].split(".")[0] for n in extension_modules(names)
             if n.startswith("trusis/rules/")}
    assert built == set(SETUP["COMPILED_MODULES"])
    assert "py3-none-any" not in names[-1]


@SLOW
def test_a_wheel_is_pure_when_told_or_without_a_compiler(tmp_path: Path) -> None:
    names, _ = build_wheel(tmp_path / "zero", TRUSIS_COMPILE="0")
    assert extension_modules(names) == []
    assert names[-1].endswith("py3-none-any.whl")
    names, out = build_wheel(tmp_path / "nocc", CC="no-such-cc")
    assert extension_modules(names) == []
    assert "trusis: no C compiler (no-such-cc): the engine is built as pure Python" in out


@SLOW
def test_a_failed_compile_falls_back_to_pure(tmp_path: Path) -> None:
    """Auto mode with a compiler that fails (`false`): a pure wheel and one line."""
    names, out = build_wheel(tmp_path, CC="false")
    assert extension_modules(names) == []
    assert "trusis: compiling the engine failed" in out


def run_script(tree: Path, *args: str, **env: str) -> str:
    """`./run ARGS` in `tree` with `env`: what it printed (it must succeed)."""
    environ = {k: v for k, v in os.environ.items()
               if k not in ("TRUSIS_COMPILE", "CC", "PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(["./run", *args], cwd=tree, env={**environ, **env},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout + done.stderr


@SLOW
def test_run_uses_the_compiled_engine_and_says_which(tmp_path: Path) -> None:
    """A first `./run` compiles into build/compiled/ (the editable src/ stays pure), a
    second reuses it (without looking for a compiler), and each prints one line saying
    which engine runs."""
    why = SETUP["toolchain_missing"]()
    if why:
        pytest.skip(why)
    tree = tmp_path / "clone"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "__pycache__", "*.egg-info", ".*_cache", "node_modules"))
    first = run_script(tree, "--help")
    assert "Trusis: compiling the engine with mypyc" in first
    assert "Trusis: the compiled engine is in use." in first
    assert "Usage: trusis" in first
    second = run_script(tree, "--help")
    assert "compiling" not in second and "Trusis: the compiled engine is in use." in second
    # The server's own options go to `serve`, as `./run` alone serves (a new user typed
    # `./run --port 8765` and was told there was no such option).
    assert "Start the game server" in run_script(tree, "--port", "8765", "--help")
    check = subprocess.run(
        [str(tree / ".venv" / "bin" / "python"), "-c",
         "import trusis.rules as r; print(r.compiled(), r.__file__)"],
        env={**os.environ, "PYTHONPATH": str(tree / "build" / "compiled")},
        capture_output=True, text=True, check=True)
    assert check.stdout.startswith(f"True {tree / 'build' / 'compiled'}"), check.stdout
    assert [p for p in (tree / "src").rglob("*.so")] == []
    assert ("Trusis: TRUSIS_COMPILE=0: the engine runs as pure Python."
            in run_script(tree, "--help", TRUSIS_COMPILE="0"))
    (tree / "build" / "compiled" / ".built").unlink()  # as if never built here
    assert ("Trusis: no C compiler (no-such-cc): the engine runs as pure Python."
            in run_script(tree, "--help", CC="no-such-cc"))
