"""The repository stands on its own: its documentation cites only what it contains.

The rule, for every text file of the repository (code, tests, docs, configuration):

- it never cites the workplace folder beside the repository (`OUTSIDE` below: documents
  that are dead on a clone);
- every `NAME.md` it mentions exists in the repository, either relative to the file that
  mentions it or relative to the repository's root (`docs/rules.md` from anywhere, `rules.md`
  from inside `docs/`); names are case-sensitive, so `RULES.md` is not `docs/rules.md`;
- every relative link `[text](path)` in a Markdown file leads to a file or folder that exists.

Web addresses (`https://…`) are left alone.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "build", "dist", "__pycache__",
             ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis"}
TEXT_SUFFIXES = {".py", ".md", ".toml", ".json", ".txt", ".cfg", ".ini", ".yml", ".yaml",
                 ".html", ".js", ".ts", ".css", ".sh", ".rst", ""}

URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
MD_NAME = re.compile(r"(?<![\w./-])((?:\.{1,2}/)*[\w.-]+(?:/[\w.-]+)*\.md)\b")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def repository_files() -> list[Path]:
    """Files of the repository: git's view (tracked, and new files not ignored) when there is
    one, else a walk of the tree that leaves out virtual environments and caches."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT, capture_output=True, check=True, text=True,
        ).stdout
        names = [name for name in out.split("\0") if name]
        return sorted(ROOT / name for name in names if (ROOT / name).is_file())
    except (OSError, subprocess.CalledProcessError):
        found = []
        for folder, dirs, files in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
            found += [Path(folder) / f for f in files]
        return sorted(found)


def text_files() -> list[Path]:
    files = []
    for path in repository_files():
        if path.suffix not in TEXT_SUFFIXES:
            continue
        try:
            path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        files.append(path)
    return files


def exists(cited: str, source: Path) -> bool:
    """Whether a cited path names something in the repository."""
    cited = cited.split("#", 1)[0]
    if not cited:
        return True  # a link to an anchor of the same page
    for base in (source.parent, ROOT):
        target = (base / cited).resolve()
        if target.is_relative_to(ROOT) and target.exists() and target.name in {
            p.name for p in target.parent.iterdir()  # case-sensitive even on macOS
        }:
            return True
    return False


OUTSIDE = "/".join(("..", "sh" + "ared"))
"""The folder beside the repository that the project's documents came from, spelled in
parts so that this file, which looks for it, does not cite it itself."""


def line_problems(line: str, source: Path) -> list[str]:
    """What is wrong with one line of `source`: an empty list when nothing is."""
    problems = []
    if OUTSIDE in line:
        problems.append(f"cites {OUTSIDE}, which is outside the repository")
    line = URL.sub("", line)
    cited = set(MD_NAME.findall(line))
    if source.suffix == ".md":
        cited |= set(MD_LINK.findall(line))
    for name in sorted(cited):
        if not exists(name, source):
            problems.append(f"cites {name}, which the repository does not contain")
    return problems


def bad_citations(path: Path) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{number}: {problem}"
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            for problem in line_problems(line, path)]


def test_the_repository_cites_only_documents_it_contains() -> None:
    here = Path(__file__).resolve()  # this file names the forbidden citations on purpose
    problems = [p for path in text_files() if path != here for p in bad_citations(path)]
    assert not problems, (
        "Every document a file cites must be in the repository (the rules are docs/rules.md, "
        "records and `trusis replay` docs/record.md, design docs/architecture.md, UX docs/ux.md):"
        "\n  " + "\n  ".join(problems)
    )


@pytest.mark.parametrize("line, bad", [
    ("see RULES.md R12", True),
    ("see docs/rules.md R12", False),
    (f"[rules]({OUTSIDE}/RULES.md)", True),
    ("(RECORD.md `known`)", True),
    ("https://example.org/RULES.md is a web page", False),
    ("[licence](LICENSE)", False),
    ("[nothing](docs/nothing.json)", True),
])
def test_the_rule_itself(line: str, bad: bool) -> None:
    problems = line_problems(line, ROOT / "README.md")  # as if the line were in the README
    assert bool(problems) is bad, problems


def test_rule_ids_agree() -> None:
    """The README and docs/rules.md speak of the same rules, R1–R63, and of the same
    decisions, each defined once: a range of them the README names ends at the last one
    rules.md defines (a trial read "D1–D17" there when rules.md was at D72)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "R1–R63" in readme and "R1–R53" not in readme
    for rule in ("R1", "R7", "R14", "R34", "R35", "R53", "R63"):
        assert f"**{rule}" in rules, rule
    defined = [int(n) for n in re.findall(r"\*\*D(\d+)\b", rules)]
    assert all(n == str(max(defined)) for n in re.findall(r"\bD1–D(\d+)", readme))
    for number in range(1, 18):
        assert defined.count(number) == 1, f"D{number} must be defined once"
    twice = sorted({n for n in defined if defined.count(n) > 1})
    assert not twice, f"defined more than once: {twice}"


def test_licence_matches_pyproject() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^license = "MIT"', pyproject, re.MULTILINE)
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License")
    assert "Copyright (c) The Trusis contributors" in licence


def test_record_doc_names_every_field() -> None:
    """docs/record.md keeps every field of the record and of the replay document, exactly."""
    doc = (ROOT / "docs" / "record.md").read_text(encoding="utf-8")
    fields = ["format", "players", "set", "seed", "deal", "actions", "seat", "do", "target",
              "shown", "text", "to", "by", "trusis-record/1", "trusis-result/1", "status",
              "phase", "winner", "winners", "composition", "roles", "alive", "passed", "votes",
              "history", "vote_killed", "died", "revived", "refused", "index", "reason", "views",
              "role", "known", "NOT_TRUSIS", "NEITHER", "--as", "--json"]
    missing = [f for f in fields if f"`{f}`" not in doc]
    assert not missing, missing
    for do in ("vote", "illusion", "protect", "extra_vote", "kamikaze", "revive", "sweep",
               "foresee", "pass", "say", "leave", "replace", "timeout"):
        assert f"| `{do}` |" in doc, do
    for status in ("| 0 |", "| 2 |", "| 130 |"):
        assert status in doc
