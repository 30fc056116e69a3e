"""The package's import graph: no cycle anywhere in src/, and layers import downward only.

README.md, "What is here": the folders are the layers — rules, table, stats, bots,
lab, server, play, cli, from the bottom up — and a module imports only from its own
layer or those below it, so that each layer can be read, tested and changed without
the ones above. Read with the stdlib's `ast` from the source (every `import`, also
those inside functions, which hide cycles rather than break them), never by importing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "trusis"

LAYERS = ("rules", "table", "stats", "bots", "lab", "server", "play", "cli")
"""From the bottom up, as README.md's table lists them (web/ holds no Python)."""

def modules() -> dict[str, Path]:
    """Every module of the package, by dotted name (a package by its __init__)."""
    found: dict[str, Path] = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The package's modules that `name` imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from a import b` imports the module a.b when there is one, else a itself.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import a.b.c` reaches a.b.c
                target = target.rpartition(".")[0]
            if target.startswith(PACKAGE) and target != name:
                yield target


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: set(imported(name, path, known)) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def layer(name: str) -> int:
    """A module's layer: its folder's place in LAYERS. The package's own __init__ (the
    engine's public API) sits just above the table layer; __main__ is the command."""
    parts = name.split(".")
    if len(parts) == 1:
        return LAYERS.index("table")
    if parts[1] == "__main__":
        return LAYERS.index("cli")
    return LAYERS.index(parts[1])


def test_the_graph_is_read() -> None:
    edges = graph()
    assert "trusis.rules.engine" in edges["trusis.table.table"]
    assert "trusis.rules.views" in edges["trusis.server.room"]
    # An import inside a function counts (play/endgame.py imports the stats there).
    assert "trusis.stats.tables" in edges["trusis.play.endgame"]


def test_no_import_cycle_in_src() -> None:
    """Issue 20: the server's core held one (room, restore, hand-overs, rematch seats,
    tied by imports inside functions); a room's peers and timers broke it."""
    assert [sorted(c) for c in cycles(graph())] == [], "import cycles"


def test_layers_import_downward_only() -> None:
    upward = sorted(
        f"{name} ({LAYERS[layer(name)]}) imports {target} ({LAYERS[layer(target)]})"
        for name, targets in graph().items() for target in targets
        if layer(target) > layer(name)
    )
    assert upward == []


def test_the_layers_are_the_readme_s_table() -> None:
    readme = (SRC.parent / "README.md").read_text(encoding="utf-8")
    table = readme.split("## What is here", 1)[1].split("\n## ", 1)[0]
    order = [line.split("`src/trusis/", 1)[1].split("/", 1)[0]
             for line in table.splitlines() if line.startswith("| `src/trusis/")]
    assert [folder for folder in order if folder != "web"] == list(LAYERS)
    assert sorted(p.name for p in (SRC / PACKAGE).iterdir()
                  if p.is_dir() and (p / "__init__.py").exists()) == sorted(LAYERS)
