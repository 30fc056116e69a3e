"""What bots understand in chat, as help text players can read (`help_text(lang)`).

The play help and the web client can show it as it is: a few lines per language,
the same grammar docs/bots.md describes ("What bots understand").
"""

from __future__ import annotations

from typing import Final

HELP: Final[dict[str, str]] = {
    "en": """\
Bots read what you write, in English, French or Italian. They understand:
- role claims: "I'm the Sweeper", "I am the real Priest"
- results: "I swept Basil: Trusis!", "Basil is clean, I swept him", "I foresaw Basil: the \
Priest", "Basil was not a Trusis" (a grave)
- accusations: "Basil is suspicious", "I don't trust Basil", "Basil is lying"
- defences: "it's not me", "I'm innocent", "trust Basil", "don't vote Basil"
- calls to vote: "vote Basil", "Basil out!", "vote #3"
Name a player by name, the start of a name ("bas") or a seat number ("#3", "seat 3"); \
case, accents and small typos do not matter. Bots weigh a claim by who makes it and \
whether it fits what they know, and they notice two players claiming the same role.""",
    "fr": """\
Les bots lisent ce que vous écrivez, en français, en anglais ou en italien. Ils comprennent :
- les rôles annoncés : « je suis le Balayeur », « je suis le vrai Prêtre »
- les résultats : « j'ai balayé Basil : Trusis ! », « Basil est propre, je l'ai balayé », \
« j'ai vu Basil : Prêtre », « Basil n'était pas un Trusis » (le Croque-mort)
- les accusations : « Basil est louche », « je ne fais pas confiance à Basil », « Basil ment »
- les défenses : « ce n'est pas moi », « je suis innocent », « ne votez pas Basil »
- les appels au vote : « votez Basil », « votons Basil », « votez #3 »
Nommez un joueur par son nom, son début (« bas ») ou son numéro (« #3 », « siège 3 ») ; \
majuscules, accents et petites fautes ne comptent pas. Les bots pèsent une annonce selon \
qui la fait et ce qu'ils savent, et remarquent deux joueurs qui annoncent le même rôle.""",
    "it": """\
I bot leggono quello che scrivi, in italiano, inglese o francese. Capiscono:
- i ruoli dichiarati: "sono il Parroco", "sono io il vero Spazzino"
- i risultati: "ho spazzato Basil: Trusis!", "Basil è pulito, l'ho spazzato", \
"ho visto Basil: Parroco", "Basil non era un Trusis" (il Becchino)
- le accuse: "Basil è sospetto", "non mi fido di Basil", "Basil mente"
- le difese: "non sono io", "sono innocente", "non votate Basil"
- gli inviti al voto: "votate Basil", "votiamo Basil", "votate #3"
Indica un giocatore per nome, l'inizio del nome ("bas") o il numero ("#3", "posto 3"); \
maiuscole, accenti e piccoli errori non contano. I bot pesano una dichiarazione secondo chi \
la fa e quello che sanno, e notano due giocatori che dichiarano lo stesso ruolo.""",
}


def help_text(lang: str = "en") -> str:
    """What bots understand in chat, in `lang` (en, fr or it; English otherwise)."""
    return HELP.get(lang, HELP["en"])
