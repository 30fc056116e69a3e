"""The screen, drawn from the person's view only (`trusis.view(state, seat)`).

Nothing here reads the game state: every cell comes from the view's fields —
players, votes (public ones, or the Trusis kill votes for a Trusis), known,
results, choices, legal — so what is drawn is what the engine allows this seat
to know. Counts of votes are counts of the *visible* votes of the view.
"""

from __future__ import annotations

from collections import Counter

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from trusis.play.commands import COMMAND_FOR
from trusis.play.journal import Journal, result_fact
from trusis.play.text import Texts
from trusis.rules.formats import PlayerData, View
from trusis.rules.roles import DAY, ROLES

Notebook = dict[int, list[str]]


def chip(view: View, t: Texts) -> Text:
    """The permanent "You are the Sweeper" chip (docs/ux.md: players forget their role)."""
    style = "bold reverse" if view["team"] != "TRUSIS" else "bold reverse red"
    text = Text(f" {t('you_are.' + view['role'])} ", style=style)
    if not _me(view)["alive"]:
        text.append(" ☠", style="bold")
    return text


def _me(view: View) -> PlayerData:
    seat = view["seat"]
    assert seat is not None, "the terminal game plays a seat"
    return view["players"][seat - 1]


def status(view: View, t: Texts) -> Text:
    """Chip, phase, living count, who has passed, and the stalemate count when it matters."""
    phase = view["phase"]
    out = chip(view, t)
    style = "bold yellow" if phase["kind"] == DAY else "bold blue"
    icon = "☀" if phase["kind"] == DAY else "☾"
    out.append(f"  {icon} {t.phase(phase['kind'], phase['number'])}", style=style)
    out.append(" · " + t("alive_count", alive=len(view["alive"]), players=len(view["players"])))
    passed = view["passed"]
    out.append(" · " + t("passed_count", passed=len(passed), alive=len(view["alive"])))
    if passed:
        out.append(t("colon") + ", ".join(str(s) for s in passed), style="dim")
    if view["quiet_phases"] >= 3:
        out.append(" · " + t("quiet", quiet=view["quiet_phases"]), style="bold magenta")
    return out


def vote_counts(view: View) -> Counter[int]:
    """How many visible votes each seat has: the public tally of the view (R20, R23)."""
    return Counter(view["votes"].values())


def tally(view: View, t: Texts) -> Text | None:
    """"Votes: 4 Dee ×3 · 2 Bob ×1" for the visible votes; None when there are none."""
    counts = vote_counts(view)
    if not counts:
        return None
    key = "tally_day" if view["phase"]["kind"] == DAY else "tally_night"
    out = Text(t(key) + " ", style="bold")
    parts = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    out.append(" · ".join(f"{t.short(s)} ×{c}" for s, c in parts))
    return out


def _fact(view: View, seat: int, t: Texts) -> str:
    fact = view["known"].get(str(seat))
    return t.role(fact) if fact else ""


def seats(view: View, t: Texts, notebook: Notebook) -> Table:
    """The seats: number and name, alive or ☠, passed, visible vote and votes received,
    what this seat knows of each, and the person's own notes."""
    day = view["phase"]["kind"] == DAY
    running = view["status"] == "running"
    table = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 1),
                  header_style="bold")
    table.add_column("#", justify="right")
    table.add_column(t("col_player"))
    table.add_column(t("col_state"))
    votes = view["votes"]
    show_votes = running and (day or bool(votes))
    if show_votes:
        table.add_column(t("col_vote") if day else t("col_kill_vote"))
        table.add_column(t("col_votes"), justify="right")
    table.add_column(t("col_known"))
    counts = vote_counts(view)
    me = view["seat"]
    for p in view["players"]:
        s = p["seat"]
        name = Text(p["name"], style="bold" if s == me else "")
        if s == me:
            name.append(" " + t("you_mark"), style="cyan")
        if p["left"]:
            state = Text(t("left"), style="dim")
        elif not p["alive"]:
            state = Text("☠ " + t("dead"), style="red")
        elif p["passed"]:
            state = Text("✓ " + t("passed"), style="green")
        else:
            state = Text(t("alive"))
        row: list[RenderableType] = [str(s), name, state]
        if show_votes:
            target = votes.get(str(s))
            against_me = "bold " if target == me else ""
            row.append(Text(f"→ {t.short(target)}", style=against_me + "yellow")
                       if target else Text(""))
            row.append(str(counts[s]) if counts[s] else "")
        known = Text(_fact(view, s, t) if s != me else "", style="bold")
        if notebook.get(s):
            known.append(("  " if known else "") + notebook[s][-1], style="italic dim")
        row.append(known)
        table.add_row(*row, style="dim" if not p["alive"] else "")
    return table


def choice_parts(view: View, t: Texts) -> list[str]:
    """The seat's own choices this phase (R13), one phrase each."""
    parts = []
    night = view["phase"]["kind"] != DAY
    own = view.get("choices", {})
    for power, value in own.items():
        if power == "illusion":
            illusion = own["illusion"]
            parts.append(t("choice_illusion", shown=illusion["shown"], target=illusion["target"]))
        elif power in ("swept", "foreseen"):
            parts.append(t(f"choice_{power}"))
        elif power == "vote" and night:
            parts.append(t("choice_kill", target=value))
        else:
            parts.append(t(f"choice_{power}", target=value))
    return parts


def choices(view: View, t: Texts) -> Text | None:
    """The seat's own choices as one line, or None when it has made none."""
    parts = choice_parts(view, t)
    if not parts:
        return None
    return Text(t("your_choices") + " " + "; ".join(parts), style="cyan")


def usage(do: str, t: Texts) -> str:
    """How to type the command of action `do`, in the player's language."""
    return t(f"usage.{COMMAND_FOR.get(do, do)}")


def moves(view: View, t: Texts) -> Text:
    """What the person may do now, from the view's legal list only."""
    parts = []
    choices_now = view.get("choices", {})
    for legal in view["legal"]:
        do = legal["do"]
        if do == "leave":
            continue
        if do == "say":
            parts.append(t("usage.say"))
            if legal.get("targets"):
                parts.append(t("usage.whisper"))
            continue
        text = usage(do, t)
        if do == "revive":
            dead = legal.get("targets", [])
            text += " (" + (", ".join(t.short(s) for s in dead) if dead else t("nobody_dead")) + ")"
        parts.append(text)
        if do in ("vote", "illusion") and ("vote" in choices_now or "illusion" in choices_now):
            parts.append(t("usage.unvote"))
    out = Text(t("moves") + " ", style="bold")
    out.append(" · ".join(dict.fromkeys(parts)))
    out.append("  (" + t("more_help") + ")", style="dim")
    return out


def composition(view: View, t: Texts) -> str:
    return ", ".join(f"{c} × {t.role(r)}" for r, c in view["composition"].items())


def role_card(view: View, t: Texts) -> Panel:
    """Role, team and goal, powers, what the seat knows from the start, the table."""
    role = view["role"]
    lines: list[RenderableType] = [
        Text(t(f"you_are.{role}"), style="bold"),
        Text(t(f"team.{ROLES[role].team}"), style="bold"),
        Text(t(f"goal.{ROLES[role].team}")),
        Text(t(f"power.{own_power(view)}")),
    ]
    allies = [int(s) for s, f in view["known"].items() if int(s) != view["seat"]]
    if allies:
        lines.append(Text(t("you_know") + " " + ", ".join(
            f"{t.seat(s)}: {_fact(view, s, t)}" for s in allies), style="yellow"))
    lines.append(Text(t("composition", roles=composition(view, t)), style="dim"))
    return Panel(Group(*lines), title=t("role_title"), expand=False)


def own_power(view: View) -> str:
    """The key of the seat's own power text: a TRUSIS whose view names no other TRUSIS (each
    knows every other, R7) is the only one — the standard set deals one at 5-7 seats (R2) —
    and is not told of fellows it does not have."""
    role: str = view["role"]
    others = [f for s, f in view["known"].items() if int(s) != view["seat"]]
    return "TRUSIS_alone" if role == "TRUSIS" and "TRUSIS" not in others else role


def find_role(wanted: str, t: Texts) -> str | None:
    """The role named by `wanted`: its id, or its name in the player's language or English
    (any case; the start of a name when only one role starts so)."""
    key = " ".join(wanted.replace("_", " ").split()).casefold()
    if not key:
        return None
    names = {r: {ROLES[r].name(t.lang).casefold(), ROLES[r].name("en").casefold(),
                 r.replace("_", " ").casefold()} for r in ROLES}
    exact = [r for r, forms in names.items() if key in forms]
    if exact:
        return exact[0]
    starts = [r for r, forms in names.items() if any(f.startswith(key) for f in forms)]
    return starts[0] if len(starts) == 1 else None


def in_game(view: View, role: str) -> int:
    """How many seats of this game hold `role` (public: the composition)."""
    count: int = view["composition"].get(role, 0)
    return count


def any_role_card(role: str, view: View, t: Texts) -> Panel:
    """What any role is and does: team, goal, power, and how many this game holds."""
    team = ROLES[role].team
    lines: list[RenderableType] = [
        Text(f"{t('col_team')}: {t(f'team_short.{team}')}", style="bold"),
        Text(t(f"goal.{team}")),
        Text(t(f"power.{role}")),
        Text(t("in_this_game", count=in_game(view, role)), style="dim"),
    ]
    return Panel(Group(*lines), title=t.role(role), expand=False)


def roles_overview(view: View, t: Texts) -> Table:
    """Every role of Trusis in the order of the role table, the person's own marked."""
    table = Table(title=t("all_roles_title"), header_style="bold", show_lines=False)
    table.add_column(t("col_role"), no_wrap=True)
    table.add_column(t("col_team"), no_wrap=True)
    table.add_column(t("col_power"), ratio=1)
    table.add_column(t("col_here"), justify="right")
    for role in ROLES:
        team = ROLES[role].team
        name = t.role(role) + (" " + t("you_mark") if role == view["role"] else "")
        table.add_row(name, t(f"team_short.{team}"), t(f"power.{role}"),
                      str(in_game(view, role) or "·"),
                      style="bold" if role == view["role"] else "")
    table.caption = t("roles_hint")
    return table


def has_power(view: View) -> bool:
    """Whether the view's legal list holds anything but passing, leaving and talking."""
    return any(legal["do"] not in ("pass", "leave", "say") for legal in view["legal"])


def board(view: View, t: Texts, notebook: Notebook) -> Group:
    """The whole screen of a phase: status, seats, tally, choices and moves."""
    parts: list[RenderableType] = [status(view, t), seats(view, t, notebook)]
    line = tally(view, t)
    if line is not None:
        parts.append(line)
    if view["phase"]["kind"] != DAY and _me(view)["alive"] and not has_power(view):
        parts.append(Text(t("night_waiting"), style="blue"))
    mine = choices(view, t)
    if mine is not None:
        parts.append(mine)
    if view["legal"] and _me(view)["alive"] and not _me(view)["passed"]:
        parts.append(moves(view, t))
    return Group(*parts)


def notebook_table(view: View, t: Texts, notebook: Notebook) -> Table:
    """One row per seat: facts the game gave (locked), then the person's notes."""
    table = Table(title=t("notebook_title"), header_style="bold", expand=False)
    table.add_column("#", justify="right")
    table.add_column(t("col_player"))
    table.add_column(t("col_facts"))
    table.add_column(t("col_notes"))
    facts: dict[int, list[str]] = {}
    for result in view.get("results", ()):
        facts.setdefault(result["target"], []).append(result_fact(result, t))
    for key, fact in view["known"].items():
        seat = int(key)
        if seat != view["seat"] and not facts.get(seat):
            facts.setdefault(seat, []).append(t("fact_known", fact=t.role(fact)))
    for p in view["players"]:
        s = p["seat"]
        name = p["name"] + (" ☠" if not p["alive"] else "")
        table.add_row(str(s), Text(name), Text("\n".join(facts.get(s, []))),
                      Text("\n".join(notebook.get(s, []))))
    return table


def vote_grid(journal: Journal, view: View, t: Texts) -> Table:
    """The public votes of each day, as they stood when the day ended (ProAvalon's grid)."""
    days = sorted(journal.day_votes.keys() | journal.day_outcome.keys())
    table = Table(title=t("votes_title"), header_style="bold")
    table.add_column(t("col_player"))
    for day in days:
        table.add_column(t.phase(DAY, day), justify="center")
    for p in view["players"]:
        cells: list[RenderableType] = []
        for day in days:
            target = journal.day_votes.get(day, {}).get(p["seat"])
            cells.append(Text(f"→ {t.short(target)}" if target else ""))
        table.add_row(Text(t.short(p["seat"])), *cells)
    outcome: list[RenderableType] = []
    for day in days:
        if day not in journal.day_outcome:
            outcome.append(Text("…"))
        else:
            killed = journal.day_outcome[day]
            outcome.append(Text(f"☠ {t.short(killed)}" if killed else t("nobody")))
    table.add_row(Text(t("outcome"), style="bold"), *outcome, style="bold")
    return table
