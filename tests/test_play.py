"""`trusis play`: whole games from scripted input, in-process and as a subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from trusis.play import PlayOptions, ScriptedTerminal, Session
from trusis.play.commands import Command, CommandError, parse
from trusis.play.text import Texts, capital
from trusis.rules.errors import IllegalAction
from trusis.rules.i18n import render
from trusis.rules.roles import ROLES
from trusis.rules.setup import deal_roles
from trusis.rules.views import view
from trusis.table.game import replay
from trusis.table.record import load_record

PASSES = ["pass"] * 200


def play(lines: list[str], *, interactive: bool = False, watch: tuple[str, ...] = (),
         **settings: object) -> tuple[Session, str, int]:
    """Play one game in-process; returns the session, the transcript and the exit status."""
    console = Console(record=True, width=140, no_color=True, force_terminal=False)
    options = PlayOptions(**{"players": 6, "seat": 2, "seed": 1, "seed_given": True, "name": "Ann",
                             "bots": "heuristic", **settings})  # type: ignore[arg-type]
    terminal = ScriptedTerminal(lines, console, interactive, watch)
    session = Session(options, console, terminal)
    status = session.run()
    return session, console.export_text(), status


def test_a_whole_game_of_passes_ends_with_the_end_screen() -> None:
    session, out, status = play(PASSES)
    state = session.game.state
    assert status == 0
    assert not state.running
    assert "You are the Sweeper" in out
    assert "Every role, revealed" in out
    assert "Votes, day by day" in out
    assert "Statistics: the game" in out
    assert capital(render("event.game_over", {"winner": state.winner})) in out
    assert "not saved" in out


def test_the_intro_shows_role_goal_and_table() -> None:
    _session, out, _status = play(PASSES)
    head = out.split("Every role, revealed")[0]
    assert "Your team: the Humans" in head
    assert "every Trusis is dead" in head
    assert "2 × Human, 1 × Trusis, 1 × Sweeper" in head
    assert "Day 1" in head and "Night 1" in head


def test_votes_are_shown_with_arrows_and_counts() -> None:
    session, out, _status = play(["vote 4", "table", *PASSES], bots="random")
    names = session.t.names
    assert f"→ 4 {names[3]}" in out
    assert f"Ann (seat 2) votes for {names[3]} (seat 4)" in out
    assert f"You vote for {names[3]} (seat 4) — passing locks it. Pass?" in out


@pytest.mark.parametrize("bots", ["random", "heuristic"])
@pytest.mark.parametrize(("players", "seed", "seat"), [(6, 1, 2), (8, 3, 3), (9, 5, 1), (12, 7, 8)])
def test_no_other_seat_role_shows_before_the_end(bots: str, players: int, seed: int,
                                                 seat: int) -> None:
    """Scan every line but chat for a seat's name next to its role's name, unless known."""
    session, out, _status = play(["vote 1", "sweep 3", "protect 3", "vote 4", *PASSES],
                                 bots=bots, players=players, seed=seed, seat=seat)
    record = session.game.record
    before_end = replay(type(record)(record.players, record.seed, record.custom,
                                     record.deal, record.actions[:-1]))
    allowed = before_end.state.known[seat]
    roles = session.game.state.roles
    names = session.t.names
    t = session.t
    body = out.split(t("roles_title"))[0]
    public = [t("tally_night"), render("fact.NEITHER", {}), render("fact.NOT_TRUSIS", {})]
    for line in body.splitlines():
        text = line.strip()
        if text.startswith(("[", "☠[")):  # chat: what players claim is theirs to say
            continue
        for phrase in public:
            text = text.replace(phrase, "")
        for other in range(1, players + 1):
            if other == seat or allowed.get(other) == roles[other]:
                continue
            role_name = ROLES[roles[other]].en
            if not re.search(rf"\b{re.escape(names[other - 1])}\b", text):
                continue
            if not re.search(rf"\b{re.escape(role_name)}\b", text):
                continue
            explained = any(allowed.get(s) == roles[other] and s != other
                            and re.search(rf"\b{re.escape(names[s - 1])}\b", text)
                            for s in range(1, players + 1))
            assert explained, f"seat {other}'s role {role_name} leaks: {line!r}"


def test_refusals_are_shown_in_french() -> None:
    _session, out, _status = play(["balayer 3", "voter 99", *PASSES], lang="fr")
    wrong = IllegalAction("wrong_phase_day", power="sweep").message("fr")
    assert capital(wrong) in out
    assert "Il n'y a pas de siège 99" in out
    assert "Vous êtes le Balayeur" in out
    assert "only the" not in out and "You are" not in out


def test_italian_names_roles_and_commands() -> None:
    _session, out, _status = play(["vota 4", *["passa"] * 100], lang="it")
    assert "Sei lo Spazzino" in out
    assert "(posto 4)" in out
    assert "Tutti i ruoli, svelati" in out


def test_pass_asks_first_and_no_keeps_the_phase() -> None:
    session, out, _status = play(["vote 4", "pass", "n", "quit", "y"], interactive=True)
    assert "[y/N]" in out
    assert "Cancelled." in out
    record = session.game.record
    assert {"seat": 2, "do": "leave"} in [a.to_dict() for a in record.actions]
    assert session.game.state.status == "finished"


def test_irreversible_sweep_is_confirmed_and_answered() -> None:
    # Seed 1, six players: seat 2 is the Sweeper; pass Day 1, then sweep at night.
    session, out, _status = play(["pass", "y", "sweep 1", "y", *["pass", "y"] * 50],
                                 interactive=True, bots="random")
    assert f"Sweep {session.t.names[0]} (seat 1)?" in out and "cannot be undone" in out
    fact = render("event.sweep_result", {"target": 1, "result": "TRUSIS"},
                  name=session.t.seat)  # seed 1: seat 1 is the Trusis
    assert session.game.state.roles[1] == "TRUSIS"
    assert "★ " + capital(fact) in out


def test_notebook_keeps_notes_and_facts() -> None:
    _session, out, _status = play(["note 4 quiet, suspicious", "notes", *PASSES])
    assert "Your notebook" in out
    assert "quiet, suspicious" in out
    assert "Noted in your notebook" in out


def test_an_illusionist_shows_one_vote_and_casts_another() -> None:
    custom = {"TRUSIS": 1, "ILLUSIONIST": 1}
    seat = deal_roles(6, 4, custom).index("ILLUSIONIST") + 1
    others = [s for s in range(1, 7) if s != seat]
    session, out, _status = play([f"illusion {others[0]} {others[1]}"], custom=custom, seed=4,
                                 seat=seat, bots="random")
    assert "you show a vote for" in out
    record = session.game.record
    action = next(a for a in record.actions if a.do == "illusion")
    assert (action.shown, action.target) == (others[0], others[1])


def test_end_of_input_leaves_the_seat_and_bots_finish(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    session, out, status = play(["say hi"], record=path)
    assert status == 0
    assert "You have left the game" in out
    assert str(path) in out
    doc = load_record(path.read_text("utf-8"))
    assert replay(doc).state.winner == session.game.state.winner


def test_ctrl_c_saves_the_record(tmp_path: Path) -> None:
    class Interrupting(ScriptedTerminal):
        def ask(self, prompt: str) -> str:
            if not self.lines:
                raise KeyboardInterrupt
            return super().ask(prompt)

    console = Console(record=True, width=120, no_color=True)
    path = tmp_path / "cut.json"
    options = PlayOptions(players=6, seat=2, seed=1, name="Ann", record=path)
    session = Session(options, console, Interrupting(["vote 4"], console))
    assert session.run() == 130
    saved = json.loads(path.read_text("utf-8"))
    mine = [{k: v for k, v in a.items() if k != "t"} for a in saved["actions"]]
    assert {"seat": 2, "do": "vote", "target": 4} in mine
    assert all(isinstance(a["t"], float) for a in saved["actions"])  # every action is timed
    assert "Interrupted." in console.export_text()


def test_a_dead_player_watches_and_can_still_talk() -> None:
    session, out, _status = play(["vote 1", *PASSES], watch=("say I was the Sweeper",),
                                 bots="random", seed=1)
    state = session.game.state
    if state.alive[2]:
        pytest.skip("the Sweeper survived this game")
    assert "You are dead" in out
    said = [a for a in session.game.record.actions if a.do == "say" and a.seat == 2]
    assert said and said[0].text == "I was the Sweeper"


def test_commands_take_numbers_names_prefixes_and_other_languages() -> None:
    t = Texts("fr", ["Ann", "Bob", "Bea", "Dee", "Eve", "Zoe"])
    assert parse("voter 4", t) == Command("vote", 4)
    assert parse("vote dee", t) == Command("vote", 4)
    assert parse("v Zo", t) == Command("vote", 6)
    assert parse("protéger aucun", t) == Command("protect", withdraw=True)
    assert parse("illusion 2 5", t) == Command("illusion", 5, 2)
    assert parse("chuchoter Eve on vote Bob ?", t) == Command("whisper", 5, text="on vote Bob ?")
    assert parse("", t) is None
    with pytest.raises(CommandError) as ambiguous:
        parse("vote B", t)
    assert ambiguous.value.key == "ambiguous_name"
    with pytest.raises(CommandError):
        parse("dance 3", t)


def test_only_a_trusis_sees_the_night_kill_votes() -> None:
    """Seed 6, six players: seat 1 is a Trusis, seat 2 the Priest (R24: votes for the TRUSIS)."""
    assert deal_roles(6, 6)[:2] == ["TRUSIS", "PRIEST"]
    trusis, out_t, _status = play(["pass", "vote 3", "table", "quit"], bots="random", seed=6,
                                  seat=1)
    assert view(trusis.game.state, 1)["role"] == "TRUSIS"
    assert "Kill vote" in out_t and "Trusis kill votes:" in out_t
    assert "votes to kill" in out_t
    _priest, out_p, _status = play(["pass", "protect 2", "table", "quit"], bots="random",
                                   seed=6, seat=2)
    night = out_p.split("Night 1", 1)[1].split("Day 2")[0]
    assert "Kill vote" not in night and "votes to kill" not in night
    assert "Night — waiting" not in night  # the Priest has a power to use
    assert "you protect Ann (seat 2)" in night


def run_cli(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trusis", *args], input=stdin,
                          capture_output=True, text=True, check=False, timeout=120)


def test_subprocess_game_saves_a_record_that_replays_to_the_same_winner(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    done = run_cli("play", "--players", "6", "--seed", "1", "--seat", "2", "--delay", "0",
                   "--record", str(path), stdin="vote 4\n" + "pass\n" * 60)
    assert done.returncode == 0, done.stderr
    assert "You are the Sweeper" in done.stdout
    assert "Every role, revealed" in done.stdout
    replayed = run_cli("replay", str(path), "--json", stdin="")
    assert replayed.returncode == 0, replayed.stderr
    winner = json.loads(replayed.stdout)["winner"]
    assert winner is not None
    assert capital(render("event.game_over", {"winner": winner})) in done.stdout


def test_subprocess_refuses_bad_options() -> None:
    for args, word in ((["--players", "4"], "--players"), (["--seat", "9"], "--seat"),
                       (["--lang", "de"], "--lang"), (["--bots", "nope"], "--bots"),
                       (["--set", "custom:ILLUSIONIST=3"], "--set"),
                       (["--set", "custom:PRIEST=1"], "--set")):
        done = run_cli("play", *args, stdin="")
        assert done.returncode == 2
        assert word in done.stderr and done.stdout == ""


def test_play_strings_exist_in_every_language_with_the_same_placeholders() -> None:
    import string

    from trusis.rules.i18n import LANGUAGES, catalogue

    def fields(template: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}

    english = {k: v for k, v in catalogue("en").items() if k.startswith("play.")}
    assert len(english) > 100
    for lang in LANGUAGES:
        other = {k: v for k, v in catalogue(lang).items() if k.startswith("play.")}
        assert set(other) == set(english), lang
        for key, template in english.items():
            assert fields(other[key]) == fields(template), (lang, key)
    for lang in LANGUAGES:
        path = Path(__file__).parent.parent / "src/trusis/rules/locales" / f"{lang}.json"
        text = path.read_text("utf-8")
        assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


def test_R12_bots_do_not_pass_at_night_before_the_person() -> None:
    """R12: waiting reveals no roles. Bots that passed as soon as they were done would
    leave exactly the seats with night powers (the TRUSIS above all) still deciding."""
    import re
    import subprocess
    import sys

    for seed in (3, 7, 11):
        done = subprocess.run(
            [sys.executable, "-m", "trusis", "play", "--seed", str(seed), "--seat", "1",
             "--players", "8", "--delay", "0", "--no-color"],
            input="pass\ntable\ntable\ntable\n" + "pass\n" * 40,
            capture_output=True, text=True, check=False, timeout=120,
        )
        nights = re.findall(r"Night 1 · \d+/\d+ alive · passed (\d+)/\d+", done.stdout)
        assert nights, done.stdout[-2000:]
        assert set(nights) == {"0"}, (seed, nights)


def test_R53_a_bot_takes_over_the_seat_of_a_person_who_quits(tmp_path: Path) -> None:
    """Issue 4: bots take over players who leave — the seat keeps its role and acts again."""
    record = tmp_path / "game.json"
    subprocess.run(
        [sys.executable, "-m", "trusis", "play", "--seed", "4", "--seat", "3", "--players", "9",
         "--delay", "0", "--record", str(record)],
        input="quit\n", capture_output=True, text=True, check=True, timeout=120,
    )
    timed = json.loads(record.read_text())["actions"]
    actions = [{k: v for k, v in a.items() if k != "t"} for a in timed]  # times aside
    first = actions.index({"seat": 3, "do": "leave"})
    assert actions[first + 1] == {"seat": 3, "do": "replace", "by": "bot"}
    assert any(a.get("seat") == 3 for a in actions[first + 2:])
