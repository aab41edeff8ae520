"""Turns NLP.js's French "Corpus 50" (MIT, AXA Group Operations Spain) into the bench/data format of the
matching benchmark's development sets: a French corpus not written by us (issue 27 item 1).

Usage (from the repo root), with a copy of the corpus taken from the axa-group/nlp.js repository:
    .venv/bin/python bench/nlpjs_corpus.py path/to/examples/13-languages/corpora/corpus-fr.json

Writes bench/data/nlpjs_fr.json and bench/data/nlpjs_fr_questions.csv. The rules were fixed before any figure
was measured on the corpus (bench/data/README.md says them and why).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
NAME = "nlpjs_fr"

# Two intents of the French file were never translated: their utterances are the English ones.
# A French bot's author would not write them so; they are left out with their tests.
UNTRANSLATED = {"support.app_name", "support.beta"}


def clean(text: str) -> str:
    # The file has no-break spaces before "?" (French typography) and stray spaces; a visitor's input has plain ones.
    return re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()


def convert(corpus: dict) -> tuple[dict, list[tuple[str, str]]]:
    items, questions = [], []
    for entry in corpus["data"]:
        # The machine translation also translated some keys: "intention" for "intent".
        intent = entry.get("intent") or entry.get("intention")
        tests = [clean(t) for t in entry["tests"]]
        if intent == "None":
            questions += [(t, "") for t in tests]
            continue
        if intent in UNTRANSLATED:
            continue
        formulations = list(dict.fromkeys(clean(u) for u in entry["utterances"]))
        items.append({"id": intent, "answer": f"[{intent}]", "formulations": formulations})
        questions += [(t, intent) for t in tests]
    return {"language": "fr", "items": items}, questions


def main(source: Path) -> None:
    kb, questions = convert(json.loads(source.read_text(encoding="utf-8")))
    (DATA / f"{NAME}.json").write_text(json.dumps(kb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    with open(DATA / f"{NAME}_questions.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "item"])
        writer.writerows(questions)
    answerable = sum(1 for _, item in questions if item)
    print(
        f"{len(kb['items'])} items, {sum(len(i['formulations']) for i in kb['items'])} formulations, "
        f"{answerable} answerable questions, {len(questions) - answerable} out of scope"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
