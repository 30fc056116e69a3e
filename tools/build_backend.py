"""The build backend: setuptools' own, plus mypy when the compiled engine is wanted.

pyproject.toml names this module as its build backend (with `backend-path`) so that
`TRUSIS_COMPILE=1 pip install .` fetches mypy into the isolated build environment;
without TRUSIS_COMPILE=1 the requirements, and the build, are setuptools' alone.
See setup.py and docs/architecture.md, "Compiled engine".
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every hook not redefined below

MYPY = "mypy>=1.10"
REQUIRES_ONLY = "TRUSIS_BUILD_REQUIRES_ONLY"


def _extra() -> list[str]:
    return [MYPY] if os.environ.get("TRUSIS_COMPILE", "") == "1" else []


def _requires(hook: Callable[[Any], list[str]], config_settings: Any) -> list[str]:
    # setuptools runs setup.py to list its own requirements, before mypy is there:
    # setup.py then lists no extension (REQUIRES_ONLY), and the build itself does.
    os.environ[REQUIRES_ONLY] = "1"
    try:
        return [*hook(config_settings), *_extra()]
    finally:
        del os.environ[REQUIRES_ONLY]


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return _requires(_setuptools.get_requires_for_build_wheel, config_settings)


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    return _requires(_setuptools.get_requires_for_build_editable, config_settings)
