"""`trusis.bots.listen`: what people write, in English, French and Italian, read as claims.

Each test names one phrasing family and gives it in all three languages, with the usual
variations (case, accents or none, punctuation, typos, names whole, partial or by number).
"""

from __future__ import annotations

import pytest

from trusis.bots import chat, listen
from trusis.bots.chat import Claim

NAMES = ["Ann", "Basil", "Clara", "Dario", "Elsa Maria", "Félix", "Greta", "Hugo"]
ANN = 1  # the speaker in every test
BASIL, CLARA, DARIO, ELSA, FELIX = 2, 3, 4, 5, 6


def heard(text: str) -> set[tuple[str, int, str]]:
    return {(c.kind, c.about, c.role) for c in listen.parse(text, NAMES, ANN)}


def cases(*rows: tuple[str, str, tuple[str, int, str]]) -> list[object]:
    return [pytest.param(text, expected, id=f"{lang}:{text}") for lang, text, expected in rows]


ROLE_CLAIMS = cases(
    ("en", "I'm the Sweeper", (listen.ROLE, ANN, "SWEEPER")),
    ("en", "im the sweper!!", (listen.ROLE, ANN, "SWEEPER")),
    ("en", "I am the PRIEST.", (listen.ROLE, ANN, "PRIEST")),
    ("en", "i'm the real gravekeeper", (listen.ROLE, ANN, "GRAVEKEEPER")),
    ("fr", "je suis le Balayeur", (listen.ROLE, ANN, "SWEEPER")),
    ("fr", "Je suis le prêtre !", (listen.ROLE, ANN, "PRIEST")),
    ("fr", "moi je suis croque-mort", (listen.ROLE, ANN, "GRAVEKEEPER")),
    ("fr", "je suis la commere", (listen.ROLE, ANN, "WISE_WOMAN")),
    ("it", "sono il Parroco", (listen.ROLE, ANN, "PRIEST")),
    ("it", "Sono lo spazzino.", (listen.ROLE, ANN, "SWEEPER")),
    ("it", "io sono il becchino", (listen.ROLE, ANN, "GRAVEKEEPER")),
    ("it", "sono il paladino bianco", (listen.ROLE, ANN, "WHITE_KNIGHT")),
)


@pytest.mark.parametrize(("text", "expected"), ROLE_CLAIMS)
def test_role_claims(text: str, expected: tuple[str, int, str]) -> None:
    assert expected in heard(text)


SWEEPS = cases(
    ("en", "Basil is a Trusis, I swept him!", (chat.SWEEP_TRUSIS, BASIL, "")),
    ("en", "I swept Basil last night: Trusis! Vote Basil.", (chat.SWEEP_TRUSIS, BASIL, "")),
    ("en", "swept basi -> TRUSSIS", (chat.SWEEP_TRUSIS, BASIL, "")),
    ("en", "I checked seat 3, she's clean", (chat.SWEEP_CLEAR, CLARA, "")),
    ("en", "I swept Dario: not a trusis", (chat.SWEEP_CLEAR, DARIO, "")),
    ("en", "Clara is a castaway, I swept her", (chat.SWEEP_CASTAWAY, CLARA, "")),
    ("fr", "J'ai balayé Basil cette nuit : Trusis !", (chat.SWEEP_TRUSIS, BASIL, "")),
    ("fr", "basil est un trusis, je l'ai balaye", (chat.SWEEP_TRUSIS, BASIL, "")),
    ("fr", "j'ai balayé Elsa : elle est propre", (chat.SWEEP_CLEAR, ELSA, "")),
    ("fr", "J'ai balayé Clara : naufragée", (chat.SWEEP_CASTAWAY, CLARA, "")),
    ("it", "Ho spazzato Dario: è un Trusis!", (chat.SWEEP_TRUSIS, DARIO, "")),
    ("it", "dario e trusis, l'ho spazzato", (chat.SWEEP_TRUSIS, DARIO, "")),
    ("it", "ho spazzato Felix: pulito", (chat.SWEEP_CLEAR, FELIX, "")),
    ("it", "Ho spazzato #3: naufrago", (chat.SWEEP_CASTAWAY, CLARA, "")),
)


@pytest.mark.parametrize(("text", "expected"), SWEEPS)
def test_sweep_results(text: str, expected: tuple[str, int, str]) -> None:
    assert expected in heard(text)


OTHER_RESULTS = cases(
    ("en", "I foresaw Basil: the Priest", (listen.FORESEE, BASIL, "PRIEST")),
    ("en", "I am the Gravekeeper: Basil was a Trusis.", (chat.GRAVE_TRUSIS, BASIL, "")),
    ("en", "basil was innocent", (chat.GRAVE_CLEAR, BASIL, "")),
    ("fr", "J'ai vu Basil : Prêtre", (listen.FORESEE, BASIL, "PRIEST")),
    ("fr", "Basil n'était pas un Trusis", (chat.GRAVE_CLEAR, BASIL, "")),
    ("fr", "Je suis le croque-mort, Clara était Trusis", (chat.GRAVE_TRUSIS, CLARA, "")),
    ("it", "ho visto Clara: Parroco", (listen.FORESEE, CLARA, "PRIEST")),
    ("it", "Sono il Becchino: Basil era Trusis", (chat.GRAVE_TRUSIS, BASIL, "")),
    ("it", "Basil non era un Trusis", (chat.GRAVE_CLEAR, BASIL, "")),
)


@pytest.mark.parametrize(("text", "expected"), OTHER_RESULTS)
def test_foresee_and_grave_results(text: str, expected: tuple[str, int, str]) -> None:
    assert expected in heard(text)


ACCUSATIONS = cases(
    ("en", "Basil is suspicious", (listen.ACCUSE, BASIL, "")),
    ("en", "I don't trust Basil", (listen.ACCUSE, BASIL, "")),
    ("en", "Basill is lying", (listen.ACCUSE, BASIL, "")),
    ("en", "seat 4 is evil", (listen.ACCUSE, DARIO, "")),
    ("fr", "Basil est louche", (listen.ACCUSE, BASIL, "")),
    ("fr", "je ne fais pas confiance à Basil", (listen.ACCUSE, BASIL, "")),
    ("fr", "Greta ment", (listen.ACCUSE, 7, "")),
    ("it", "Non mi fido di Basil", (listen.ACCUSE, BASIL, "")),
    ("it", "Hugo è sospetto", (listen.ACCUSE, 8, "")),
    ("it", "greta mente!", (listen.ACCUSE, 7, "")),
)


@pytest.mark.parametrize(("text", "expected"), ACCUSATIONS)
def test_accusations(text: str, expected: tuple[str, int, str]) -> None:
    assert expected in heard(text)


DEFENCES = cases(
    ("en", "It's not me!", (listen.DEFEND, ANN, "")),
    ("en", "I'm not a trusis", (listen.DEFEND, ANN, "")),
    ("en", "I am innocent", (listen.DEFEND, ANN, "")),
    ("en", "I trust Felix", (listen.VOUCH, FELIX, "")),
    ("en", "don't vote clara", (listen.VOUCH, CLARA, "")),
    ("fr", "ce n'est pas moi", (listen.DEFEND, ANN, "")),
    ("fr", "je suis innocente", (listen.DEFEND, ANN, "")),
    ("fr", "Ne votez pas Clara", (listen.VOUCH, CLARA, "")),
    ("fr", "je fais confiance à Félix", (listen.VOUCH, FELIX, "")),
    ("it", "non sono io", (listen.DEFEND, ANN, "")),
    ("it", "sono innocente", (listen.DEFEND, ANN, "")),
    ("it", "Non votate Clara", (listen.VOUCH, CLARA, "")),
    ("it", "mi fido di Felix", (listen.VOUCH, FELIX, "")),
)


@pytest.mark.parametrize(("text", "expected"), DEFENCES)
def test_defences(text: str, expected: tuple[str, int, str]) -> None:
    assert expected in heard(text)


VOTE_CALLS = cases(
    ("en", "vote basil", (listen.VOTE_CALL, BASIL, "")),
    ("en", "Basill out!", (listen.VOTE_CALL, BASIL, "")),
    ("en", "everyone vote for Elsa Maria", (listen.VOTE_CALL, ELSA, "")),
    ("en", "vote #3", (listen.VOTE_CALL, CLARA, "")),
    ("fr", "votez pour #3", (listen.VOTE_CALL, CLARA, "")),
    ("fr", "Votons Dario.", (listen.VOTE_CALL, DARIO, "")),
    ("fr", "éliminez Félix", (listen.VOTE_CALL, FELIX, "")),
    ("it", "votate 3", (listen.VOTE_CALL, CLARA, "")),
    ("it", "Votiamo Dario", (listen.VOTE_CALL, DARIO, "")),
    ("it", "eliminiamo Elsa", (listen.VOTE_CALL, ELSA, "")),
)


@pytest.mark.parametrize(("text", "expected"), VOTE_CALLS)
def test_calls_to_vote(text: str, expected: tuple[str, int, str]) -> None:
    assert expected in heard(text)


@pytest.mark.parametrize("text", ["hello there", "good luck everyone", "Bonne chance à tous",
                                  "Buona fortuna a tutti", "I may be wrong", "ok", ""])
def test_small_talk_claims_nothing(text: str) -> None:
    assert heard(text) == set()


def test_seats_by_name_partial_name_typo_number_and_accents() -> None:
    for text in ("vote Basil", "vote BASIL", "vote basi", "vote Basli", "vote #2", "vote seat 2",
                 "vote p2", "votez pour le siège 2", "votate il posto 2"):
        assert (listen.VOTE_CALL, BASIL, "") in heard(text), text
    assert (listen.VOTE_CALL, FELIX, "") in heard("vote felix")  # "Félix" without its accent
    assert (listen.VOTE_CALL, ELSA, "") in heard("vote elsa")  # the first word of a name
    assert heard("vote 12") == set()  # no such seat
    # The speaker's own name is never the seat a result is about.
    assert heard("I swept Ann: Trusis") == set()


def test_one_message_can_make_several_claims() -> None:
    assert heard("I'm the real Sweeper, Basil is lying. I swept Clara: Trusis! Vote Clara") == {
        (listen.ROLE, ANN, "SWEEPER"), (listen.ACCUSE, BASIL, ""),
        (chat.SWEEP_TRUSIS, CLARA, ""), (listen.VOTE_CALL, CLARA, "")}


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_every_bot_sentence_is_understood(lang: str) -> None:
    """The bots' own templates (what other bots and people read) parse to their meaning."""
    expect = {chat.SWEEP_TRUSIS: chat.SWEEP_TRUSIS, chat.SWEEP_CLEAR: chat.SWEEP_CLEAR,
              chat.SWEEP_CASTAWAY: chat.SWEEP_CASTAWAY, chat.GRAVE_TRUSIS: chat.GRAVE_TRUSIS,
              chat.GRAVE_CLEAR: chat.GRAVE_CLEAR, chat.CLAIM_ROLE: listen.ROLE,
              chat.COUNTER: listen.ROLE, chat.PLAN: listen.VOTE_CALL}
    for kind, meaning in expect.items():
        text = chat.phrase(lang, kind, 0, "Basil", "SWEEPER")
        kinds = {c.kind for c in listen.parse(text, NAMES, ANN)}
        assert meaning in kinds, (text, kinds)


def test_claims_are_chat_claims() -> None:
    claims = listen.parse("I swept Basil: Trusis", NAMES, ANN)
    assert claims == [Claim(chat.SWEEP_TRUSIS, BASIL)]
    assert set(listen.KINDS) >= {c.kind for c in claims}


def test_help_text_in_every_language() -> None:
    for lang in ("en", "fr", "it"):
        text = listen.help_text(lang)
        assert len(text.splitlines()) >= 6
        assert "#3" in text
