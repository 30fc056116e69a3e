"""The end screen: every role revealed, the winners, the vote grid and the statistics.

Roles come from the person's view after the game (R35: the end reveals every
role to everyone). Statistics come from the stats package, scoring the record
the same way `trusis stats` does, limited statistics left out (R60).
"""

from __future__ import annotations

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from trusis.play.journal import Journal
from trusis.play.screen import vote_grid
from trusis.play.text import Texts
from trusis.rules.formats import View
from trusis.rules.roles import ROLES
from trusis.table.record import Record

STATS_COLUMNS = 8
"""At most this many players side by side in one statistics table."""
LABEL_WIDTH = 28  # the statistic's name, with the table's borders
COLUMN_WIDTH = 11  # one player's column: "Flora (7)" and its borders
"""Players per statistics table, so that a 30-seat table stays readable."""


def verdict(view: View, t: Texts) -> Text:
    """The person's own result: won, lost, or a draw."""
    winner = view["winner"]
    if winner is None:
        return Text(t("unfinished"), style="bold")
    if winner == "DRAW":
        return Text(t("result_draw"), style="bold yellow")
    if view["seat"] in view["winners"]:
        return Text(t("result_won"), style="bold green")
    return Text(t("result_lost"), style="bold red")


def roles_table(view: View, t: Texts) -> Table:
    """Every seat with its role and team (known to all once the game is over)."""
    table = Table(title=t("roles_title"), header_style="bold")
    table.add_column("#", justify="right")
    table.add_column(t("col_player"))
    table.add_column(t("col_role"))
    table.add_column(t("col_team"))
    table.add_column(t("col_state"))
    table.add_column(t("col_result"))
    winners = set(view["winners"])
    for p in view["players"]:
        s = p["seat"]
        role = view["known"].get(str(s), "")
        team = ROLES[role].team if role in ROLES else ""
        name = p["name"] + (" " + t("you_mark") if s == view["seat"] else "")
        state = t("alive") if p["alive"] else "☠ " + t("dead")
        won = Text("★ " + t("winner"), style="green") if s in winners else Text("")
        table.add_row(str(s), Text(name), t.role(role) if role else "?",
                      t(f"team_short.{team}") if team else "", state, won,
                      style="bold" if s == view["seat"] else "")
    return table


def stats_tables(record: Record, t: Texts, width: int = 120) -> list[Table]:
    """The end-of-game statistics of `record`, in the player's language, with as many
    players side by side as a terminal `width` columns wide shows without wrapping."""
    from trusis.stats import score  # the stats package loads and checks its declaration
    from trusis.stats.tables import game_tables

    per_table = max(2, min(STATS_COLUMNS, (width - LABEL_WIDTH) // COLUMN_WIDTH))
    return game_tables(score(record), t.lang, (t("stats_game"), t("stats_players")),
                       t.short, per_table)


def show_end(console: Console, view: View, t: Texts, journal: Journal, record: Record) -> None:
    """Print the whole end screen; it stays in the terminal until the person leaves it."""
    winner = view["winner"]
    title = t.event("game_over", {"winner": winner}) if winner else t("unfinished")
    console.print()
    console.print(Panel(verdict(view, t), title=title, expand=False))
    console.print(roles_table(view, t))
    console.print(vote_grid(journal, view, t))
    try:
        for table in stats_tables(record, t, console.width):
            console.print(table)
    except Exception as err:  # statistics must never cost the player the end screen
        console.print(Text(t("stats_failed", error=str(err)), style="dim"))
