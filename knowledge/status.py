"""What the knowledge app reports in the server status (the `dialog` application): the matcher must rank a
probe question first; vector jobs in progress and the matching indexes' memory are reported beside it."""

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


def vectors() -> Result:
    """Vector jobs pending or running (done / total per bot: those bots answer lexically meanwhile), and
    this process's matching indexes against their memory budget. Always Ok: a job in progress is normal."""
    from . import snapshot
    from .vectors import budget, jobs

    return Result(
        OK,
        {
            "vectors": jobs.in_progress(),
            "matchingMemory": budget.usage(list(snapshot._cache.values())),
        },
    )
