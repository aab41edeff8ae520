"""What the knowledge app reports in the server status: the matcher (part of the `dialog`
application) must rank a probe question first."""

from bots.status.checks import KO, OK, Result

from .matching import FormulationEntry, Matcher, MatcherConfig


def matcher() -> Result:
    """A small lexical index built on the spot, asked a reworded question: no database needed."""
    probe = Matcher.build(
        "fr",
        [
            FormulationEntry(1, 1, "quels sont vos horaires d'ouverture"),
            FormulationEntry(2, 2, "j'ai perdu ma carte bancaire"),
            FormulationEntry(3, 3, "comment ouvrir un compte"),
        ],
        config=MatcherConfig(use_embeddings=False),
    )
    ranked = probe.rank("horaires d'ouverture de l'agence")
    if ranked and ranked[0].item_id == 1:
        return Result(OK, {"matcher": "Ok"})
    return Result(KO, {"matcher": "Ko"}, reason="the matcher does not rank a probe question first")
