"""Print requirements.lock: every package `trusis` needs to run, pinned at the version
installed here — where the tests ran — so that the Docker image installs the same ones.

    .venv/bin/python tools/lock.py > requirements.lock

The Dockerfile installs with `pip install -c requirements.lock .`;
tests/test_deploy_files.py checks that the file matches the environment the tests run in
(run this again after changing or upgrading a dependency). `./test` installs under
these pins, so to move to newer releases: `.venv/bin/pip install -U <package>`, run the
tests, then write the file again with this script. Only the running server's
dependencies are pinned, with the extras they ask for (uvicorn[standard], ...), for this
Python on Linux, as the image is.
"""

from __future__ import annotations

import sys
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

HEADER = """\
# The versions `trusis serve` was tested with: the Dockerfile installs with
#   pip install -c requirements.lock .
# Made by tools/lock.py from the test environment; run it again after changing a
# dependency in pyproject.toml (tests/test_deploy_files.py checks that they agree).
"""


def closure(root: str = "trusis") -> dict[str, str]:
    """Name -> installed version of every runtime dependency of `root`, recursively."""
    pinned: dict[str, str] = {}
    todo: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        dist = metadata.distribution(name)
        if name != root:
            pinned[canonicalize_name(name)] = dist.version
        for line in dist.requires or []:
            requirement = Requirement(line)
            marker = requirement.marker
            wanted = marker is None or any(
                marker.evaluate({"extra": extra}) for extra in (extras or {""}))
            if wanted:
                todo.append((canonicalize_name(requirement.name),
                             frozenset(requirement.extras)))
    return pinned


def render() -> str:
    pins = closure()
    return HEADER + "".join(f"{name}=={pins[name]}\n" for name in sorted(pins))


if __name__ == "__main__":
    sys.stdout.write(render())
