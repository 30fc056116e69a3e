"""Packaging: the compiled engine (docs/architecture.md, "Compiled engine").

Everything else about the package is in pyproject.toml. `pip install .` and
`pip wheel .` from the repository compile the hot modules of `trusis.rules` listed
below with mypyc when this machine can (a C compiler and the Python headers:
`tools/build_backend.py` then adds mypy to the build requirements), and build the
pure package otherwise, saying so in one line (`pip install -v .` shows it). Python
imports an extension module instead of the .py beside it. TRUSIS_COMPILE picks:

- unset (or `auto`): compile when possible; any failure falls back to pure Python;
- `0`: pure Python, no compiler needed;
- `1`: compile, and fail loudly when it cannot.

Editable installs (`pip install -e .`, `./run`, `./test`) never compile: the
extension modules would land in src/ and shadow the .py files being edited.
`tools/build_compiled.py` builds the same modules into a separate folder
(build/compiled/), for `./run`, the tests and the benchmark, without touching src/.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any, Literal

# The hot modules of trusis.rules (the engine, its state, legal actions, views and
# what they import on every action); i18n and errors are not worth it.
COMPILED_MODULES = (
    "actions", "engine", "events", "legal", "powers", "resolution", "roles", "setup",
    "state", "victory", "views",
)
# Set by tools/build_backend.py while it builds an editable install.
EDITABLE = "TRUSIS_BUILD_EDITABLE"
Mode = Literal["auto", "on", "off"]


def mode() -> Mode:
    """TRUSIS_COMPILE read: `1` on, `0` off, anything else (unset) auto."""
    value = os.environ.get("TRUSIS_COMPILE", "").strip()
    return "on" if value == "1" else "off" if value == "0" else "auto"


def toolchain_missing() -> str | None:
    """Why no extension module can be built here (compiler, headers), or None."""
    # CC as setuptools reads it: the environment's first, then Python's own build's.
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Python.h)"
    return None


def wanted() -> bool:
    """Whether this build tries to compile the engine (mypy needed in the build then)."""
    if os.environ.get(EDITABLE):
        return False
    chosen = mode()
    return chosen == "on" or (chosen == "auto" and toolchain_missing() is None)


def say_pure(why: str) -> None:
    """The one line of a build that falls back to the pure engine."""
    print(f"trusis: {why}: the engine is built as pure Python", file=sys.stderr, flush=True)


def extensions(root: str = "src") -> list[Any]:
    """The mypyc extension modules of COMPILED_MODULES under `root` (raises without mypy)."""
    try:
        from mypyc.build import mypycify
    except ImportError as exc:  # pragma: no cover - a build environment without mypy
        raise SystemExit(
            "compiling the engine needs mypy (which includes mypyc) in the build environment"
        ) from exc
    paths = [os.path.join(root, "trusis", "rules", f"{m}.py") for m in COMPILED_MODULES]
    return list(mypycify(paths, opt_level="3", target_dir=os.path.join("build", "mypyc")))


def auto_build_ext() -> Any:
    """setuptools' build_ext, but a failed compile leaves a pure package (auto mode).

    mypyc builds one shared library and a small shim per module: a partial build
    would import nothing, so any failure drops every extension module built.
    """
    from setuptools.command.build_ext import build_ext

    class AutoBuildExt(build_ext):  # type: ignore[misc]
        def run(self) -> None:
            try:
                super().run()
            except Exception as exc:  # any compiler or linker failure
                for ext in self.extensions:
                    Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
                self.extensions = []
                say_pure(f"compiling the engine failed ({type(exc).__name__}: {exc})")

    return AutoBuildExt


def plan() -> tuple[list[Any], dict[str, Any]]:
    """The extension modules and command classes of this build."""
    if not wanted():
        if mode() == "auto" and not os.environ.get(EDITABLE):
            say_pure(toolchain_missing() or "cannot compile")
        return [], {}
    if mode() == "on":
        return extensions(), {}
    try:
        return extensions(), {"build_ext": auto_build_ext()}
    except (Exception, SystemExit) as exc:  # mypy missing, or mypyc refused
        say_pure(f"compiling the engine failed ({exc})")
        return [], {}


if __name__ == "__main__":
    from setuptools import setup

    # (tools/build_backend.py sets TRUSIS_BUILD_REQUIRES_ONLY while setuptools lists
    # its build requirements, which happens before mypy is installed.)
    if os.environ.get("TRUSIS_BUILD_REQUIRES_ONLY"):
        setup(ext_modules=[])
    else:
        ext_modules, cmdclass = plan()
        setup(ext_modules=ext_modules, cmdclass=cmdclass)
