"""Packaging: the optional compiled engine (docs/architecture.md, "Compiled engine").

Everything else about the package is in pyproject.toml. A plain install
(`pip install .`, `pip install -e .`, `./run`) compiles nothing and needs no C
compiler: the package is pure Python. With `TRUSIS_COMPILE=1` set, the hot
modules of `trusis.rules` listed below are also compiled with mypyc into
extension modules, which Python then imports instead of the .py files beside
them; that needs a C compiler and the Python headers, and mypy in the build
environment (tools/build_backend.py adds it to the build requirements then).

`tools/build_compiled.py` builds the same modules into a separate folder
(build/compiled/), for the tests and the benchmark, without touching src/.
"""

from __future__ import annotations

import os
from typing import Any

# The hot modules of trusis.rules (the engine, its state, legal actions, views and
# what they import on every action); i18n and errors are not worth it.
COMPILED_MODULES = (
    "actions", "engine", "events", "legal", "powers", "resolution", "roles", "setup",
    "state", "victory", "views",
)


def wanted() -> bool:
    """Whether this build compiles the engine: only when TRUSIS_COMPILE=1."""
    return os.environ.get("TRUSIS_COMPILE", "") == "1"


def extensions(root: str = "src") -> list[Any]:
    """The mypyc extension modules of COMPILED_MODULES under `root` (raises without mypy)."""
    try:
        from mypyc.build import mypycify
    except ImportError as exc:  # pragma: no cover - a build environment without mypy
        raise SystemExit(
            "TRUSIS_COMPILE=1 needs mypy (which includes mypyc) in the build environment"
        ) from exc
    paths = [os.path.join(root, "trusis", "rules", f"{m}.py") for m in COMPILED_MODULES]
    return list(mypycify(paths, opt_level="3", target_dir=os.path.join("build", "mypyc")))


if __name__ == "__main__":
    from setuptools import setup

    # (tools/build_backend.py sets TRUSIS_BUILD_REQUIRES_ONLY while setuptools lists
    # its build requirements, which happens before mypy is installed.)
    compiling = wanted() and not os.environ.get("TRUSIS_BUILD_REQUIRES_ONLY")
    setup(ext_modules=extensions() if compiling else [])
