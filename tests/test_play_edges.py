"""`trusis play`'s rough edges (issue 12): roles, lines that do nothing, quitting, the end,
`--record`, the deal's seed and the bots' names, and the wording of a few messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from trusis.play import PlayOptions, ScriptedTerminal, Session
from trusis.play import cli as play_cli
from trusis.play import options as play_options
from trusis.play.commands import Command, parse
from trusis.play.options import OptionError
from trusis.play.screen import find_role
from trusis.play.text import Texts, sentence
from trusis.rules.actions import Action
from trusis.rules.engine import new_game
from trusis.rules.errors import IllegalAction
from trusis.rules.i18n import LANGUAGES, catalogue, render
from trusis.rules.roles import ROLES

PASSES = ["pass"] * 200


class Counting(ScriptedTerminal):
    """A scripted terminal that notes how many actions the record holds at each prompt."""

    def __init__(self, lines: list[str], console: Console) -> None:
        super().__init__(lines, console)
        self.session: Session | None = None
        self.counts: list[int] = []

    def ask(self, prompt: str) -> str:
        assert self.session is not None
        self.counts.append(len(self.session.game.record.actions))
        return super().ask(prompt)


def play(lines: list[str], **settings: object) -> tuple[Session, str, int]:
    console = Console(record=True, width=100, no_color=True, force_terminal=False)
    options = PlayOptions(**{"players": 8, "seat": 2, "seed": 1, "name": "Ann",
                             "bots": "heuristic", **settings})  # type: ignore[arg-type]
    session = Session(options, console, ScriptedTerminal(lines, console))
    status = session.run()
    return session, console.export_text(), status


# -- roles and role NAME ---------------------------------------------------------------


def test_roles_lists_every_role_with_its_power_and_count_here() -> None:
    session, out, _ = play(["roles", "quit"])
    listing = out.split("› roles", 1)[1].split("› quit", 1)[0]
    t = session.t
    for role in ROLES:
        assert t.role(role) in listing, role
    assert "The roles of Trusis" in listing
    assert "“role NAME” tells more about one role." in listing


@pytest.mark.parametrize(("typed", "lang", "role"), [
    ("priest", "en", "PRIEST"), ("Wise woman", "en", "WISE_WOMAN"), ("sweep", "en", "SWEEPER"),
    ("BLACK_KNIGHT", "en", "BLACK_KNIGHT"), ("commère", "fr", "WISE_WOMAN"),
    ("prêtre", "fr", "PRIEST"), ("Priest", "fr", "PRIEST"), ("parroco", "it", "PRIEST"),
    ("knight", "en", None), ("nobody", "en", None), ("", "en", None),
])
def test_find_role_by_id_or_name(typed: str, lang: str, role: str | None) -> None:
    assert find_role(typed, Texts(lang, ["A"] * 5)) == role


def test_role_name_explains_a_role_that_is_not_yours() -> None:
    session, out, _ = play(["role oracle", "role dancer", "role", "quit"])
    assert session.view()["role"] != "ORACLE"
    card = out.split("› role oracle", 1)[1].split("› role dancer", 1)[0]
    assert "Oracle" in card and "Team: Trusis" in card
    assert render("play.power.ORACLE", {}) in card.replace("\n", " ").replace("│", "")
    assert "In this game: 0." in card
    assert "✗ “dancer” is not a role; “roles” lists them all." in out
    own = out.split("› role\n", 1)[1]
    assert "Your role" in own


def test_roles_is_a_command_in_every_language() -> None:
    for lang, word in (("en", "roles"), ("fr", "rôles"), ("it", "ruoli")):
        assert parse(word, Texts(lang, ["A"] * 5)) == Command("roles")


# -- lines that do nothing let nobody move ---------------------------------------------------


def test_help_role_a_typo_an_empty_line_or_a_refusal_do_not_let_the_bots_move() -> None:
    console = Console(record=True, width=100, no_color=True, force_terminal=False)
    lines = ["help", "role", "role priest", "roles", "", "   ", "dance 3", "vote 99", "vote",
             "table", "notes", "votes", "log", "quit"]
    terminal = Counting(lines, console)
    options = PlayOptions(players=8, seat=2, seed=1, name="Ann")
    session = Session(options, console, terminal)
    terminal.session = session
    session.run()
    # The first prompt comes after the bots' first answer; until "quit" nothing moves.
    assert len(terminal.counts) == len(lines)
    assert len(set(terminal.counts)) == 1, terminal.counts


def test_an_action_the_engine_takes_lets_the_bots_answer() -> None:
    console = Console(record=True, width=100, no_color=True, force_terminal=False)
    terminal = Counting(["say hello", "say and again", "say once more", "quit"], console)
    session = Session(PlayOptions(players=8, seat=2, seed=1, name="Ann"), console, terminal)
    terminal.session = session
    session.run()
    actions = session.game.record.actions
    left = next(i for i, a in enumerate(actions) if a.seat == 2 and a.do == "leave")
    # R53: after "quit" a bot plays the seat on, and bots talk (D57), so only the lines
    # before the seat was left are the person's.
    said = [a.text for a in actions[:left] if a.seat == 2 and a.do == "say"]
    assert said == ["hello", "and again", "once more"]
    assert terminal.counts == sorted(terminal.counts)
    assert terminal.counts[-1] > terminal.counts[0]  # at least the person's own lines


# -- refusals: one sentence each ----------------------------------------------------------


def test_every_refusal_line_is_a_sentence_ending_with_a_full_stop() -> None:
    _session, out, _ = play(["dance", "vote 99", "vote Zorro", "sweep 3", "say", "whisper 3",
                             "note 42 x", "role dancer", "quit"])
    refusals = [line.strip() for line in out.splitlines() if line.startswith("✗")]
    assert len(refusals) == 8, refusals
    for line in refusals:
        assert line.endswith("."), line
        assert not line[2].isalpha() or line[2].isupper(), line  # a quoted word may start it


def test_catalogue_refusals_are_fragments_without_a_full_stop() -> None:
    """The engine's refusals read inside other sentences (`trusis replay`'s `reason`), so
    none ends with a full stop; the terminal makes each a sentence (`sentence`)."""
    for lang in LANGUAGES:
        for key, text in catalogue(lang).items():
            if key.startswith(("refusal.", "setup.")):
                assert not text.endswith("."), (lang, key)
    assert sentence("seat 5 is dead") == "Seat 5 is dead."
    assert sentence("Cancelled.") == "Cancelled."


def test_an_over_long_message_says_how_long_it_may_be() -> None:
    state = new_game(["Ann", "Bob", "Cid", "Dee", "Eve"], seed=7)
    with pytest.raises(IllegalAction) as refusal:
        from trusis.rules.engine import apply

        apply(state, Action("say", seat=1, text="x" * 501))
    for lang in LANGUAGES:
        text = refusal.value.message(lang)
        assert "500" in text, text
    assert refusal.value.message("en") == "a message may be at most 500 characters long"


# -- quitting, dying, the end ---------------------------------------------------------------


def test_the_quit_question_says_what_then_happens() -> None:
    _session, out, _ = play(["quit"])
    asked = out.split("› quit", 1)[1]
    assert "A bot takes over your seat" in asked
    assert "a bot has taken over your seat" in asked
    for lang in LANGUAGES:
        quit_text = catalogue(lang)["play.confirm.quit"]
        assert "bot" in quit_text and "passe" not in quit_text and "passes" not in quit_text
        assert "bot" in catalogue(lang)["play.you_left"]


def test_no_watching_once_the_game_has_ended() -> None:
    """Seed 1, 8 seats, seat 1 (random bots): the person dies in the game's last phase."""
    session, out, _ = play(PASSES, seed=1, seat=1, bots="random")
    state = session.game.state
    assert not state.running and not state.alive[1]
    assert 1 in state.history[-1]["died"], "the scenario needs the person to die at the end"
    end = out.split("☠ Ann (seat 1)", 1)[1]
    assert "You are dead." in end
    assert "watch" not in end.lower() and "Press Enter" not in end


def test_the_end_names_a_replay_command_from_the_readme(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    _session, out, _ = play(PASSES, record=path)
    # the terminal's width may fold the line anywhere a long temporary path puts it
    assert "".join(f"./run replay {path}".split()) in "".join(out.split())
    readme = (Path(__file__).parent.parent / "README.md").read_text("utf-8")
    assert "./run replay " in readme
    for lang in LANGUAGES:
        assert "./run replay {path}" in catalogue(lang)["play.saved"]


# -- --record, checked before the game -----------------------------------------------------


def run_play(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trusis", "play", "--delay", "0", *args],
                          input=stdin, capture_output=True, text=True, check=False,
                          timeout=120)


def test_record_in_a_folder_is_refused_before_the_game(tmp_path: Path) -> None:
    done = run_play("--record", str(tmp_path), stdin="pass\n" * 60)
    assert done.returncode == 2
    assert "--record" in done.stderr and "folder" in done.stderr
    assert done.stdout == ""  # no game was played


def test_record_in_a_missing_folder_is_refused_before_the_game(tmp_path: Path) -> None:
    done = run_play("--record", str(tmp_path / "no" / "game.json"), stdin="pass\n" * 60)
    assert done.returncode == 2 and "no folder" in done.stderr and done.stdout == ""


def test_an_existing_record_is_not_replaced_silently(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text("keep me\n", "utf-8")
    done = run_play("--record", str(path), stdin="pass\n" * 60)
    assert done.returncode == 2
    assert "already exists" in done.stderr and done.stdout == ""
    assert path.read_text("utf-8") == "keep me\n"


def test_check_record_reports_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    assert play_cli.check_record(path) is False
    path.write_text("{}", "utf-8")
    assert play_cli.check_record(path) is True
    with pytest.raises(OptionError, match="folder"):
        play_cli.check_record(tmp_path)


# -- the deal's seed stays secret --------------------------------------------------------------


def build(seed: int | None, name: str | None = "Ann") -> PlayOptions:
    return play_cli.build_options(8, None, seed, "standard", "heuristic", "en", name, None,
                                  0.0, False, False)


def test_the_seed_is_never_shown_unless_given(tmp_path: Path) -> None:
    done = run_play("--players", "6", stdin="quit\n")
    assert done.returncode == 0, done.stderr
    intro = done.stdout.split("Day 1", 1)[0]
    assert "seed" not in intro.lower()
    given = run_play("--players", "6", "--seed", "12345", stdin="quit\n")
    assert "--seed 12345, as you asked" in given.stdout


def test_the_seed_comes_from_secrets_and_names_from_an_independent_draw(
        monkeypatch: pytest.MonkeyPatch) -> None:
    draws = iter([111, 222, 333])
    monkeypatch.setattr(play_options.secrets, "randbelow", lambda _n: next(draws))
    options = build(None)
    assert (options.seed, options.table_seed, options.seed_given) == (111, 222, False)
    given = build(7)
    assert given.seed == 7 and given.seed_given
    # The bots' names do not depend on the deal's seed at all.
    a = PlayOptions(players=12, seat=3, seed=1, name="Ann", table_seed=5)
    b = PlayOptions(players=12, seat=3, seed=2, name="Ann", table_seed=5)
    c = PlayOptions(players=12, seat=3, seed=1, name="Ann", table_seed=6)
    assert a.names() == b.names()
    assert a.names() != c.names()


def test_player_names_are_cleaned_like_chat() -> None:
    """D9: control characters and line breaks become spaces, then the name is trimmed."""
    assert play_cli.clean_name(" Ann\nBob\t ") == "Ann Bob"
    assert build(1, "\n\tZed\x07").name == "Zed"
    assert build(1, "\n\t ").name  # empty once cleaned: the default name


# -- translations -------------------------------------------------------------------------------


def test_french_and_italian_wording() -> None:
    fr = catalogue("fr")
    assert fr["play.you_are.PRIEST"] == "Vous êtes le Prêtre"
    assert fr["play.you_are.WISE_WOMAN"] == "Vous êtes la Commère"
    it = catalogue("it")
    assert "«di' ciao»" in it["play.how_to"] and "«di ciao»" not in it["play.how_to"]
    assert it["play.usage.say"] == "di' TESTO"
    assert parse("di' ciao", Texts("it", ["A"] * 5)) == Command("say", text="ciao")
    for lang in LANGUAGES:
        for role in ROLES:
            assert f"play.you_are.{role}" in catalogue(lang), (lang, role)


def test_locale_files_keep_their_format() -> None:
    for lang in LANGUAGES:
        path = Path(__file__).parent.parent / "src/trusis/rules/locales" / f"{lang}.json"
        text = path.read_text("utf-8")
        assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
