"""Language detection on short inputs (issue 27 item 3): accuracy per language of the detector's word lists
before issue 27 (banking words among them: carte, compte, virement; card, transfer, bank) and of today's
(function words and general words only), on bench/data/language_short_inputs.csv, in the same run.

Both use knowledge.matching.language's scoring; the word lists and the confidence's evidence term differ
(before: the input's length; now: the score of the words recognised). "right" is the detected language;
"switches" is right with a confidence of at least dialogs.engine's DETECTION_MIN_CONFIDENCE (0.5), the share
that makes a talk change language; "wrong switch" is a wrong language with that confidence. Among fr/en/nl
(every profiled language) and among fr/en (the demo bot's).

Usage (from the repo root): .venv/bin/python bench/language_detection.py
"""

from __future__ import annotations

import csv
import math
import sys
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from knowledge.matching import language
from knowledge.matching.normalise import strip_accents

INPUTS = Path(__file__).parent / "data" / "language_short_inputs.csv"
SWITCH = 0.5  # dialogs.engine.DETECTION_MIN_CONFIDENCE

# The word lists as they were before issue 27 (knowledge/matching/language.py at 5f20060).
BEFORE = {
    "fr": """le la les un une des du de et est sont je tu il elle nous vous ils elles ne pas plus que qui quoi
        comment pourquoi quand où combien mon ma mes ton ta tes son sa ses notre votre leur leurs ce cette ces
        avec pour dans sur par sans chez au aux ou mais donc car si oui non merci bonjour bonsoir salut
        avoir être fait faire peux peut veux veut dois doit suis es ai as avons avez ont était été
        carte compte argent payer paiement virement banque mot passe adresse aide besoin problème
        je j l d qu n c s m t aujourd hui très bien aussi encore déjà toujours jamais rien tout tous
        quel quelle quels quelles voudrais pouvez pourriez svp stp est-ce ça cela mon""",
    "en": """the a an and is are was were be been i you he she it we they me my your his her its our their
        this that these those what which who whom why how when where not no yes do does did don't can't
        can could would should will shall may might must have has had of to in on at for with from by
        about into out up down just only also very so too please thanks thank hello hi hey
        card account money pay payment transfer bank password address help need problem get got
        want there here some any all more most other than then if or but because as like make""",
    "nl": """de het een en is zijn was waren ik jij je u hij zij ze wij we jullie mijn jouw uw zijn haar ons
        onze hun niet geen wel ja nee wat wie waarom hoe wanneer waar welke kan kunnen kun wil willen
        moet moeten heb hebt heeft hebben van voor met op aan in uit bij naar over door om te
        dat die dit deze er hier daar ook nog al maar of want dus als dan graag bedankt dank hallo hoi
        kaart rekening geld betalen betaling overschrijving bank wachtwoord adres hulp nodig probleem
        mijn krijgen gekregen zou zouden worden wordt werd mag mogen""",
}


def confidence_before(best: float, second: float, n_words: int) -> float:
    """The confidence before issue 27: its evidence grew with the input's length, known words or not."""
    return (best - second) / (best + 1.0) * (1.0 - math.exp(-n_words / 4.0))


@contextmanager
def detector_before():
    saved = language._WORD_SETS, language.confidence
    language._WORD_SETS = {lang: {strip_accents(w) for w in text.split()} for lang, text in BEFORE.items()}
    language.confidence = confidence_before
    try:
        yield
    finally:
        language._WORD_SETS, language.confidence = saved


def measure(rows: list[tuple[str, str]], languages: list[str]) -> dict[str, tuple[int, int, int]]:
    """Per language: (questions, right, right with a confidence that switches a talk, wrong with one)."""
    out = {}
    for lang in languages:
        mine = [text for text, truth in rows if truth == lang]
        found = [language.detect_language(text, languages) for text in mine]
        right = sum(1 for detected, _ in found if detected == lang)
        switches = sum(1 for detected, confidence in found if detected == lang and confidence >= SWITCH)
        wrong = sum(1 for detected, confidence in found if detected != lang and confidence >= SWITCH)
        out[lang] = (len(mine), right, switches, wrong)
    return out


def main() -> None:
    with INPUTS.open(encoding="utf-8", newline="") as handle:
        rows = [(row["text"], row["language"]) for row in csv.DictReader(handle)]
    print(f"{len(rows)} short inputs ({INPUTS.name}); 'switches' = right with confidence >= {SWITCH}")
    for languages in (["fr", "en", "nl"], ["fr", "en"]):
        with detector_before():
            before = measure(rows, languages)
        after = measure(rows, languages)
        print(f"\namong {'/'.join(languages)}")
        print(
            f"{'language':<9}{'n':>4}  {'right before':>13}{'right now':>11}"
            f"  {'switches before':>16}{'switches now':>14}  {'wrong switch before':>20}{'now':>6}"
        )
        for lang in languages:
            n, right0, switch0, wrong0 = before[lang]
            _, right1, switch1, wrong1 = after[lang]
            print(
                f"{lang:<9}{n:>4}  {right0 / n:>13.3f}{right1 / n:>11.3f}  {switch0 / n:>16.3f}{switch1 / n:>14.3f}"
                f"  {wrong0 / n:>20.3f}{wrong1 / n:>6.3f}"
            )


if __name__ == "__main__":
    main()
