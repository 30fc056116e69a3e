"""The build backend: setuptools' own, plus mypy when the engine is to be compiled.

pyproject.toml names this module as its build backend (with `backend-path`) so that
`pip install .` fetches mypy into the isolated build environment when setup.py will
compile the engine (a C compiler and the Python headers are here, or
TRUSIS_COMPILE=1), and not otherwise (TRUSIS_COMPILE=0, or nothing to compile with).
Editable builds never compile: they mark themselves for setup.py.
See setup.py and docs/architecture.md, "Compiled engine".
"""

from __future__ import annotations

import os
import runpy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every hook not redefined below

MYPY = "mypy>=1.10"
# setup.py lists no extension while this is set (requirements and metadata only).
REQUIRES_ONLY = "TRUSIS_BUILD_REQUIRES_ONLY"
EDITABLE = "TRUSIS_BUILD_EDITABLE"


@contextmanager
def _env(name: str) -> Iterator[None]:
    old = os.environ.get(name)
    os.environ[name] = "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ[name]
        else:
            os.environ[name] = old


def _extra() -> list[str]:
    setup_py = runpy.run_path("setup.py", run_name="trusis_setup")
    return [MYPY] if setup_py["wanted"]() else []


def _requires(hook: Callable[[Any], list[str]], config_settings: Any) -> list[str]:
    # setuptools runs setup.py to list its own requirements, before mypy is there:
    # setup.py then lists no extension (REQUIRES_ONLY), and the build itself does.
    with _env(REQUIRES_ONLY):
        return [*hook(config_settings), *_extra()]


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return _requires(_setuptools.get_requires_for_build_wheel, config_settings)


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    with _env(REQUIRES_ONLY):  # metadata only: no need to run mypyc for it
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    with _env(EDITABLE):
        return _requires(_setuptools.get_requires_for_build_editable, config_settings)


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    with _env(EDITABLE):
        return _setuptools.prepare_metadata_for_build_editable(
            metadata_directory, config_settings)


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    with _env(EDITABLE):  # extension modules would land in src/ and shadow the .py files
        return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
