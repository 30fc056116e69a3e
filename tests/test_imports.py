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
    assert "trusis.rules.views" in edges["trusis.server.tables.room"]
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


SERVER_FOLDERS = ("errors", "monitoring", "data", "limits", "moderation", "players",
                  "notifications", "connections", "tables", "cluster", "api", "config",
                  "lifecycle", "app", "cli")
"""The server package's rooms from the bottom up (docs/architecture.md, "The server's folders"):
a module imports only from its own folder or those below it. `errors` (the lobby's refusals)
is at the bottom; `config`, `lifecycle`, `app` and `cli` put the server together at the top."""

SERVER_TOP_LEVEL_AT_MOST = 15
"""Issue 36: 82 modules side by side was where a newcomer got lost."""


def server_folder(name: str) -> int:
    """A server module's place in SERVER_FOLDERS: its folder, or its own name at the top."""
    return SERVER_FOLDERS.index(name.split(".")[2])


def test_the_server_s_folders_import_downward_only() -> None:
    """Issue 36: folders by concern, imports one way."""
    server = {name: targets for name, targets in graph().items()
              if name.startswith("trusis.server.")}
    upward = sorted(
        f"{name} imports {target}"
        for name, targets in server.items() for target in targets
        if target.startswith("trusis.server.") and server_folder(target) > server_folder(name)
    )
    assert upward == []


def test_the_server_s_folders_are_few_and_named() -> None:
    """Every folder of SERVER_FOLDERS is there with a docstring that says what is inside,
    and at most SERVER_TOP_LEVEL_AT_MOST modules stand at the top of the server package."""
    server = SRC / PACKAGE / "server"
    top = sorted(p.name for p in server.iterdir() if p.suffix == ".py")
    assert len(top) <= SERVER_TOP_LEVEL_AT_MOST, top
    folders = sorted(p.name for p in server.iterdir()
                     if p.is_dir() and (p / "__init__.py").exists())
    assert sorted(f for f in SERVER_FOLDERS if (server / f).is_dir()) == folders
    assert sorted([*folders, *(p.removesuffix(".py") for p in top if p != "__init__.py")]) \
        == sorted(SERVER_FOLDERS)
    for folder in folders:
        init = server / folder / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), folder


STATUS_MACHINE = "trusis.server.tables.status"
NOT_A_TABLE_S_STATUS = {"trusis.server.errors"}
"""`LobbyError.status` is a refusal's HTTP status, not a table's."""


def test_only_the_status_machine_changes_a_table_s_status() -> None:
    """Issue 36: a room's status was assigned in 7 places across 6 modules; now only
    tables/status.py changes it (`Room.status` reads `Room.life`). Any assignment to an
    attribute named `status` elsewhere in the server is one more place."""
    found = []
    for name, path in modules().items():
        if not name.startswith("trusis.server.") or name == STATUS_MACHINE \
                or name in NOT_A_TABLE_S_STATUS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            found += [f"{name}:{node.lineno}" for t in targets
                      if isinstance(t, ast.Attribute) and t.attr in ("status", "_status")]
    assert found == []
    machine = modules()[STATUS_MACHINE].read_text(encoding="utf-8")
    assert "self._status = " in machine  # the test reads what it means to


def third_party(path: Path) -> set[str]:
    """The top-level names of the modules outside the package that a file imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_only_the_data_package_speaks_sql() -> None:
    """Issue 36, rows behind the data layer: no server module outside data/ imports
    SQLAlchemy or the table definitions (data/schema.py); they ask data/'s query groups.
    Nor does the command line (cli/): `trusis admin` asks data/overview.py."""
    known = modules()
    outside = {name: path for name, path in known.items()
               if name.startswith(("trusis.server.", "trusis.cli."))
               and not name.startswith("trusis.server.data")}
    assert "trusis.server.api.moderation" in outside and "trusis.cli.admin" in outside
    speaking = sorted(name for name, path in outside.items() if "sqlalchemy" in third_party(path))
    assert speaking == [], "import sqlalchemy outside server/data/"
    edges = graph()
    schema_readers = sorted(name for name in outside if "trusis.server.data.schema" in edges[name])
    assert schema_readers == [], "import data/schema.py outside server/data/"


def untyped_rows() -> set[str]:
    """`module.function` of every public function or method of server/data/ whose return
    annotation holds `dict[str, Any]`."""
    found = set()
    for path in sorted((SRC / PACKAGE / "server" / "data").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
                    and not node.name.startswith("_") and node.returns is not None \
                    and "dict[str, Any]" in ast.unparse(node.returns):
                found.add(f"{path.stem}.{node.name}")
    return found


def test_the_data_package_answers_typed_rows() -> None:
    """Issue 36: rows come back typed, so a reader names a column the table has (the last
    eight, the games' rows and a player's data download, became TypedDicts: data/rows.py,
    data/personal.py). A new query answers a dataclass or a TypedDict."""
    assert untyped_rows() == set(), "a query answering dict[str, Any]"
