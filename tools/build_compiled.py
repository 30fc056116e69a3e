"""Build the compiled engine into a folder of its own, for the tests and the benchmark.

Copies the pure package (src/trusis) to DEST/trusis, then compiles the modules that
setup.py lists with mypyc, in place in that copy, so that

    PYTHONPATH=DEST python ...

imports the compiled engine (and every other module as usual), while src/ stays pure
and the normal test run never sees an extension module. `./test` and bench/engine.py
use it; docs/architecture.md, "Compiled engine", says why.

Usage: python tools/build_compiled.py [DEST]   (default: build/compiled)
       python tools/build_compiled.py --check  (exit 0 if this machine can build it)
Exit status 3 when it cannot: no C compiler, no Python headers, or no mypy.
"""

from __future__ import annotations

import os
import runpy
import shutil
import subprocess
import sys
import time
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNAVAILABLE = 3
STAMP = ".built"  # written last, once the build imports as compiled


def missing() -> str | None:
    """Why this machine cannot build the compiled engine, or None if it can."""
    why: str | None = runpy.run_path(str(ROOT / "setup.py"), run_name="trusis_setup")[
        "toolchain_missing"]()
    if why:
        return why
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "no mypy (mypyc comes with it: pip install mypy)"
    return None


def build(dest: Path) -> None:
    """A pure copy of the package in `dest`, with the engine's modules compiled beside it."""
    setup_py = runpy.run_path(str(ROOT / "setup.py"), run_name="trusis_setup")
    if dest.exists():
        shutil.rmtree(dest)  # the stamp too: a build cut short is no build
    dest.mkdir(parents=True)
    shutil.copytree(ROOT / "src" / "trusis", dest / "trusis",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    # The setuptools run happens in a child, in `dest`: mypyc names modules by their
    # path from the current folder, and writes its C files under it.
    script = (
        "import sys, runpy\n"
        "from setuptools import setup\n"
        f"ns = runpy.run_path({str(ROOT / 'setup.py')!r}, run_name='trusis_setup')\n"
        "setup(name='trusis-compiled', packages=[], ext_modules=ns['extensions']('.'),\n"
        "      script_args=['-q', 'build_ext', '--inplace', '--build-temp', 'build/temp'])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=dest,
                          capture_output=True, text=True)
    if done.returncode:  # the compiler's output only when it failed
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"mypyc build failed (exit status {done.returncode})")
    shutil.rmtree(dest / "build")  # the C sources and object files
    built = sorted(p.name for p in (dest / "trusis" / "rules").iterdir()
                   if p.name.endswith(tuple(EXTENSION_SUFFIXES)))
    if len(built) != len(setup_py["COMPILED_MODULES"]):
        raise SystemExit(f"expected {len(setup_py['COMPILED_MODULES'])} modules, built {built}")


def main() -> None:
    args = sys.argv[1:]
    why = missing()
    if args == ["--check"]:
        print(why or "the compiled engine can be built here")
        raise SystemExit(UNAVAILABLE if why else 0)
    if why:
        print(f"compiled engine not built: {why}", file=sys.stderr)
        raise SystemExit(UNAVAILABLE)
    dest = Path(args[0] if args else ROOT / "build" / "compiled").resolve()
    start = time.monotonic()
    build(dest)
    check = subprocess.run(
        [sys.executable, "-c", "import trusis.rules as r; print(r.compiled())"],
        env={**os.environ, "PYTHONPATH": str(dest)}, capture_output=True, text=True, check=True,
    )
    if check.stdout.strip() != "True":
        raise SystemExit(f"{dest}: trusis.rules.compiled() is not True: {check.stdout}")
    (dest / STAMP).touch()  # ./run rebuilds when a file of src/trusis is newer than this
    print(f"compiled engine built in {dest} ({time.monotonic() - start:.0f} s)")


if __name__ == "__main__":
    main()
