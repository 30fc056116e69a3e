"""`trusis simulate`: the balance lab's command line, tables and plot.

It turns options into a plan of games (`trusis.lab.simulate`), runs them with
a Rich progress bar on standard error, and reports win rates per team with
Wilson 95% intervals, game length and how games ended — as a table, as JSON
(`--json`), and as a plot of win rate against player count (`--plot`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from trusis.bots.registry import available_kinds
from trusis.lab.ladder import Rung, cell, climb, z_score
from trusis.lab.simulate import Tally, plan, run, tally
from trusis.rules.errors import SetupError
from trusis.rules.roles import MAX_PLAYERS, MIN_PLAYERS, ROLES, TEAMS
from trusis.rules.setup import deal_roles

TEAM_LABELS = {"HUMAN": "Human", "TRUSIS": "Trusis", "CASTAWAY": "Castaway", "DRAW": "Draw"}


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def parse_players(text: str) -> list[int]:
    """`5-30`, `5,7,9` or a mix (`5-8,12`): the sorted player counts, each 5..30."""
    counts: set[int] = set()
    for part in text.replace(" ", "").split(","):
        try:
            if "-" in part:
                low, high = (int(x) for x in part.split("-", 1))
                counts.update(range(low, high + 1))
            else:
                counts.add(int(part))
        except ValueError:
            _fail(f"--players: {part!r} is not a number or a range like 5-30")
    if not counts:
        _fail("--players: give a range like 5-30 or a list like 5,7,9")
    bad = [c for c in sorted(counts) if not MIN_PLAYERS <= c <= MAX_PLAYERS]
    if bad:
        _fail(f"--players: {bad[0]} is outside {MIN_PLAYERS}-{MAX_PLAYERS}")
    return sorted(counts)


def parse_set(text: str) -> dict[str, int] | None:
    """`standard` (None) or `custom:ROLE=COUNT,...`."""
    if text == "standard":
        return None
    if not text.startswith("custom:"):
        _fail("--set: use standard or custom:ROLE=COUNT,... (e.g. custom:TRUSIS=2,SWEEPER=1)")
    custom: dict[str, int] = {}
    for part in filter(None, text[len("custom:"):].split(",")):
        role, _, count = part.partition("=")
        role = role.strip().upper()
        if role not in ROLES or role == "HUMAN":
            _fail(f"--set: unknown special role {role!r}; choose among "
                  f"{', '.join(r for r in ROLES if r != 'HUMAN')}")
        if role in custom:
            _fail(f"--set: {role} is given twice")
        try:
            custom[role] = int(count)
        except ValueError:
            _fail(f"--set: the count of {role} must be an integer")
    return custom


def parse_bots(text: str) -> dict[str, str]:
    """`KIND` for every team, or `TEAM=KIND,...` (teams left out play `heuristic`)."""
    kinds = available_kinds()
    if "=" not in text:
        mapping = dict.fromkeys(TEAMS, text)
    else:
        mapping = dict.fromkeys(TEAMS, "heuristic")
        seen: set[str] = set()
        for part in text.split(","):
            team, _, kind = part.partition("=")
            team = team.strip().upper()
            if team not in TEAMS:
                _fail(f"--bots: unknown team {team!r}; teams are {', '.join(TEAMS)}")
            if team in seen:
                _fail(f"--bots: {team} is given twice")
            seen.add(team)
            mapping[team] = kind.strip()
    for kind in mapping.values():
        if kind not in kinds:
            _fail(f"--bots: unknown bot kind {kind!r}; available: {', '.join(kinds)}")
    return mapping


def _rate(t: Tally, outcome: str) -> str:
    """A win rate and its 95% interval, in whole percent: "45 (35–55)"."""
    doc = t.as_dict()
    low, high = doc["ci95"][outcome]
    return f"{doc['win_rate'][outcome] * 100:.0f} ({low * 100:.0f}–{high * 100:.0f})"


def favoured(t: Tally) -> str:
    """The team whose 95% interval lies wholly above every other team's, or "—"."""
    ci = t.as_dict()["ci95"]
    for team in TEAMS:
        others = [o for o in (*TEAMS, "DRAW") if o != team]
        if all(ci[team][0] > ci[o][1] for o in others):
            return TEAM_LABELS[team]
    return "—"


def teams_at(counts: Sequence[int], custom: dict[str, int] | None) -> dict[int, set[str]]:
    """The teams the set deals at each player count: a team that has no seat there cannot
    win there, so its rate is shown as "—" and left out of the plot."""
    return {c: {ROLES[r].team for r in deal_roles(c, 0, custom)} for c in counts}


def render_table(tallies: Sequence[Tally], title: str,
                 teams: Mapping[int, set[str]] | None = None) -> Table:
    """Win rates per team with Wilson 95% intervals, game length and who is favoured;
    80 columns wide at most (the games per count are in the title, being the same).

    `teams`: the teams dealt at each player count; elsewhere a team's column shows
    "—" rather than a meaningless 0%.
    """
    games = sorted({t.games for t in tallies})
    if len(games) == 1:
        title = f"{title}, {games[0]} games per count"
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False,
                  caption="Win rates in %, with their 95% intervals in brackets. Draw: no "
                  "team won — six quiet phases (R34), the phase limit (D15), or nobody left "
                  "alive (R33). Days: the average length. Favours: the team whose interval "
                  "lies above all others (— when they overlap).")
    table.add_column("Players", justify="right")
    if len(games) != 1:
        table.add_column("Games", justify="right")
    for outcome in TEAMS:
        table.add_column(f"{TEAM_LABELS[outcome]} %", justify="right", no_wrap=True)
    table.add_column("Draw %", justify="right")
    table.add_column("Days", justify="right")
    table.add_column("Favours", justify="left")
    for t in tallies:
        doc = t.as_dict()
        dealt = teams.get(t.players, set(TEAMS)) if teams is not None else set(TEAMS)
        rates = [_rate(t, team) if team in dealt else "—" for team in TEAMS]
        table.add_row(
            str(t.players), *([str(t.games)] if len(games) != 1 else []), *rates,
            f"{doc['win_rate']['DRAW'] * 100:.0f}", f"{doc['avg_days']:.1f}", favoured(t),
        )
    return table


def render_votes(tallies: Sequence[Tally]) -> Table:
    """How the day votes took shape, per player count: how often the day's victim was the
    first seat voted for, and how concentrated the visible votes were along the day."""
    table = Table(title="How the day votes took shape", box=box.SIMPLE_HEAD, pad_edge=False,
                  caption="Kill days: days whose vote killed someone. First voted: of those, "
                  "the share whose victim drew the day's first visible vote. Top share: the "
                  "largest share of the visible votes on one seat after a quarter, a half "
                  "and all of the day's actions (days with a visible vote by then).")
    table.add_column("Players", justify="right")
    table.add_column("Kill days", justify="right")
    table.add_column("First voted %", justify="right")
    for name in ("¼ day %", "½ day %", "day %"):
        table.add_column(f"Top {name}", justify="right")
    for t in tallies:
        votes = t.votes.as_dict()
        conc = votes["concentration"]
        table.add_row(str(t.players), str(votes["kill_days"]),
                      f"{votes['first_voted_share'] * 100:.0f}",
                      *(f"{conc[k] * 100:.0f}" for k in ("quarter", "half", "all")))
    return table


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend, or exit 2 saying how to install it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        _fail("--plot needs matplotlib: pip install 'trusis[plot]'")
    return plt


PLOT_COLOURS = {"HUMAN": "tab:blue", "TRUSIS": "tab:red", "CASTAWAY": "tab:green",
                "DRAW": "tab:gray"}


def plot_series(tallies: Sequence[Tally], teams: Mapping[int, set[str]] | None = None,
                ) -> dict[str, list[tuple[int, float, float, float]]]:
    """What the plot draws: per outcome, (players, rate, low, high) at the counts where
    that team is dealt (a draw can happen anywhere); outcomes with no point are left out."""
    series: dict[str, list[tuple[int, float, float, float]]] = {}
    for outcome in (*TEAMS, "DRAW"):
        points = []
        for t in tallies:
            dealt = teams.get(t.players, set(TEAMS)) if teams is not None else set(TEAMS)
            if outcome != "DRAW" and outcome not in dealt:
                continue
            d = t.as_dict()
            low, high = d["ci95"][outcome]
            points.append((t.players, d["win_rate"][outcome], low, high))
        if points:
            series[outcome] = points
    return series


def draw_plot(tallies: Sequence[Tally], path: Path, title: str,
              teams: Mapping[int, set[str]] | None = None) -> None:
    """Win rate per team (with 95% bands) against player count, as a PNG: whole numbers
    of players on the axis, and no line for a team the set never deals at that size."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(9, 5))
    for outcome, points in plot_series(tallies, teams).items():
        xs = [p[0] for p in points]
        colour = PLOT_COLOURS[outcome]
        ax.plot(xs, [p[1] for p in points], marker="o", color=colour,
                label=TEAM_LABELS[outcome])
        ax.fill_between(xs, [p[2] for p in points], [p[3] for p in points], color=colour,
                        alpha=0.15)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    counts = [t.players for t in tallies]
    if len(counts) == 1:  # one count: one tick, not a span around it
        ax.set_xticks(counts)
    ax.set_xlabel("players")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as err:
        _fail(f"--plot: cannot write {path}: {err.strerror}")
    finally:
        plt.close(fig)


def render_ladder(rungs: Sequence[Rung], kinds: Sequence[str], title: str) -> list[Table]:
    """Two matrices — the Human team's win rate by (its kind, the Trusis kind), and the
    Trusis team's by (its kind, the Human kind) — then each kind's z against the first
    kind, on the same opponents and seeds."""
    by = {(r.human, r.trusis): r for r in rungs}
    tables = []
    for side, label in (("HUMAN", "Human"), ("TRUSIS", "Trusis")):
        table = Table(title=f"{label} team's win % by its kind (rows) against the other "
                      f"team's (columns); {title}", box=box.SIMPLE_HEAD, pad_edge=False)
        table.add_column(f"{label} kind")
        for kind in kinds:
            table.add_column(f"vs {kind}", justify="right", no_wrap=True)
        table.add_column(f"z vs {kinds[0]}", justify="right")
        for mine in kinds:
            cells, zs = [], []
            for other in kinds:
                rung = by[(mine, other) if side == "HUMAN" else (other, mine)]
                base = by[(kinds[0], other) if side == "HUMAN" else (other, kinds[0])]
                wins = rung.human_wins if side == "HUMAN" else rung.trusis_wins
                base_wins = base.human_wins if side == "HUMAN" else base.trusis_wins
                cells.append(cell(wins, rung.games))
                zs.append(f"{z_score(wins, base_wins, rung.games):+.1f}")
            table.add_row(mine, *cells, " / ".join(zs) if mine != kinds[0] else "—")
        tables.append(table)
    return tables


def parse_ladder(text: str) -> list[str]:
    """`KIND,KIND,...`: two or more distinct available kinds."""
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    known = available_kinds()
    for kind in kinds:
        if kind not in known:
            _fail(f"--ladder: unknown bot kind {kind!r}; available: {', '.join(known)}")
    if len(set(kinds)) != len(kinds) or len(kinds) < 2:
        _fail("--ladder: give two or more different kinds, e.g. normal,expert")
    return kinds


def simulate_command(
    players: Annotated[str, typer.Option(help="Player counts: a range (5-30) or a list.")] = "5-30",
    games: Annotated[int, typer.Option(min=1, help="Games per player count.")] = 100,
    table_set: Annotated[str, typer.Option(
        "--set", help="standard, or custom:ROLE=COUNT,...")] = "standard",
    bots: Annotated[str, typer.Option(
        help="A bot kind for everyone, or per team: HUMAN=heuristic,TRUSIS=random,...",
    )] = "heuristic",
    jobs: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
    seed: Annotated[int, typer.Option(help="Base seed: same seed, same games.")] = 0,
    lang: Annotated[str, typer.Option(help="Language the bots chat in: en, fr or it.")] = "en",
    plot: Annotated[Path | None, typer.Option(help="Draw win rates to this PNG file.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    records: Annotated[Path | None, typer.Option(
        help="Write every game's record (trusis-record/1) into this directory.")] = None,
    ladder: Annotated[str | None, typer.Option(
        help="Kinds to pit against each other on both sides, e.g. normal,expert: "
             "a strength table instead of one match-up.")] = None,
) -> None:
    """Simulate bot games and report how often each team wins (the balance lab)."""
    counts = parse_players(players)
    custom = parse_set(table_set)
    mapping = parse_bots(bots)
    if lang not in ("en", "fr", "it"):
        _fail("--lang: choose en, fr or it")
    for count in counts:
        try:
            deal_roles(count, 0, custom)
        except SetupError as err:
            _fail(f"--set at {count} players: {err}")
    # Output places are checked before hours of games, not after.
    if plot is not None:
        _pyplot()
        if not plot.parent.is_dir():
            _fail(f"--plot: the folder {plot.parent} does not exist")
    if records is not None:
        try:
            records.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            _fail(f"--records: cannot use {records} as a folder: {err.strerror or err}")
    if ladder is not None:
        _ladder(parse_ladder(ladder), counts, games, seed, custom, lang, jobs, as_json)
        return
    dealt = teams_at(counts, custom)
    batches = plan(counts, games, seed, custom, mapping, lang, records is not None)
    console = Console(stderr=True)
    start = time.perf_counter()
    with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, transient=as_json) as progress:
        task = progress.add_task("games", total=games * len(counts))
        tallies = tally(run(batches, jobs, lambda k: progress.advance(task, k)), records)
    elapsed = time.perf_counter() - start
    title = (f"{'standard set' if custom is None else 'custom set'}, bots "
             + ", ".join(f"{team}={kind}" for team, kind in mapping.items())
             + f", seed {seed}")
    if plot is not None:
        draw_plot(tallies, plot, title, dealt)
    if as_json:
        doc: dict[str, Any] = {
            "set": {"standard": True} if custom is None else {"custom": custom},
            "bots": mapping, "seed": seed, "games_per_count": games,
            "seconds": round(elapsed, 2),
            "results": [t.as_dict() for t in tallies],
        }
        typer.echo(json.dumps(doc, ensure_ascii=False))
        return
    Console().print(render_table(tallies, title, dealt))
    Console().print(render_votes(tallies))
    total = sum(t.games for t in tallies)
    typer.echo(f"{total} games in {elapsed:.2f} s ({total / max(elapsed, 1e-9):.1f} games/s)")


def _ladder(kinds: list[str], counts: list[int], games: int, seed: int,
            custom: dict[str, int] | None, lang: str, jobs: int, as_json: bool) -> None:
    console = Console(stderr=True)
    start = time.perf_counter()
    with Progress(TextColumn("ladder"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, transient=as_json) as progress:
        task = progress.add_task("games", total=games * len(counts) * len(kinds) ** 2)
        rungs = climb(kinds, counts, games, seed, custom, lang, jobs,
                      lambda k: progress.advance(task, k))
    elapsed = time.perf_counter() - start
    players = ",".join(str(c) for c in counts)
    if as_json:
        typer.echo(json.dumps({"ladder": [r.as_dict() for r in rungs], "kinds": kinds,
                               "players": counts, "games_per_count": games, "seed": seed,
                               "seconds": round(elapsed, 2)}))
        return
    title = f"{players} players, {games * len(counts)} games each (same seeds), seed {seed}"
    for table in render_ladder(rungs, kinds, title):
        Console().print(table)
    typer.echo(f"{sum(r.games for r in rungs)} games in {elapsed:.0f} s; intervals: Wilson 95%; "
               f"z: two-proportion, against {kinds[0]} on the same opponents")
