"""The `trusis` command line as a newcomer meets it (issue 12): `--version`, `-h`, a
description that mentions playing, `play` first, and a first `./run` that says what it does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def trusis(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trusis", *args], capture_output=True,
                          text=True, check=False, timeout=60,
                          env={**os.environ, "COLUMNS": "100", "TERM": "dumb"})


def test_version() -> None:
    done = trusis("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"trusis {version('trusis')}"


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_short_and_long_help(flag: str) -> None:
    done = trusis(flag)
    assert done.returncode == 0, done.stderr
    assert "play a game in the terminal against bots" in " ".join(done.stdout.split())
    assert "--version" in done.stdout


def test_play_comes_first_in_the_command_list() -> None:
    out = trusis("-h").stdout
    commands = out.split("Commands", 1)[1]
    order = [word for word in ("play", "replay", "stats", "simulate") if f" {word} " in commands]
    assert order == ["play", "replay", "stats", "simulate"]
    positions = [commands.index(f" {word} ") for word in order]
    assert positions == sorted(positions)


def test_subcommands_take_minus_h_too() -> None:
    for command in ("play", "replay", "stats", "simulate"):
        done = trusis(command, "-h")
        assert done.returncode == 0, (command, done.stderr)
        assert "Usage" in done.stdout


def test_first_run_says_what_it_installs(tmp_path: Path) -> None:
    """`./run` on a fresh clone: a line on standard error before the long, quiet install.
    (A stand-in `.venv` whose pip does nothing, so the test needs no network.)"""
    shutil.copy(ROOT / "run", tmp_path / "run")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, body in (("python", "exit 0"), ("trusis", 'echo "trusis $*"')):
        script = bin_dir / name
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(0o755)
    done = subprocess.run(["bash", str(tmp_path / "run")], capture_output=True, text=True,
                          check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "installing" in done.stderr
    assert done.stdout.startswith("trusis")  # then it starts the game (or the server)
    again = subprocess.run(["bash", str(tmp_path / "run"), "--version"], capture_output=True,
                           text=True, check=False, timeout=60)
    assert "installing" not in again.stderr  # only the first time
    assert again.stdout.strip() == "trusis --version"
