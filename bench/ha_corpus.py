"""Turns the test sentences of Home Assistant's voice intents (CC BY 4.0, the Home Assistant authors) into the
bench/data format of the matching benchmark's development sets: a Dutch and a French corpus not written by us
(issue 27 item 1).

Usage (from the repo root), with the `tests` folder of the home-assistant/intents repository:
    .venv/bin/python bench/ha_corpus.py path/to/tests nl
    .venv/bin/python bench/ha_corpus.py path/to/tests fr

Writes bench/data/ha_<language>.json and bench/data/ha_<language>_questions.csv. The rules were fixed before any
figure was measured on the corpus (bench/data/README.md says them and why).
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parent / "data"
# An item needs this many different sentences: half become its formulations, half its test questions.
MIN_SENTENCES = 4


def blocks(folder: Path):
    """(intent, slots, sentences, response) per test block, in file order."""
    for path in sorted(folder.glob("*.yaml")):
        if path.name.startswith("_"):  # fixtures: the test home's devices and areas, no sentence
            continue
        for test in yaml.safe_load(path.read_text(encoding="utf-8")).get("tests", []):
            intent = test["intent"]
            yield intent["name"], intent.get("slots") or {}, test["sentences"], test.get("response", "")


def convert(folder: Path, language: str) -> tuple[dict, list[tuple[str, str]]]:
    # One item per request: the same intent with the same slots in several files (a lamp is a light and a
    # device) is one item, its sentences together.
    merged: dict[str, dict] = {}
    for name, slots, sentences, response in blocks(folder):
        key = name + " " + json.dumps(slots, sort_keys=True, ensure_ascii=False)
        item = merged.setdefault(key, {"sentences": {}, "response": response})
        for s in sentences:
            item["sentences"].setdefault(" ".join(s.split()).lower(), " ".join(s.split()))
    items, questions = [], []
    for n, (key, item) in enumerate(merged.items()):
        sentences = list(item["sentences"].values())
        if len(sentences) < MIN_SENTENCES:
            continue
        # The first half as the bot's author's formulations (the files list the plainest first), the rest as
        # visitors' questions.
        half = len(sentences) // 2
        item_id = f"{n:03d} {key.split(' ', 1)[0]}"
        items.append({"id": item_id, "answer": str(item["response"]) or key, "formulations": sentences[:half]})
        questions += [(q, item_id) for q in sentences[half:]]
    return {"language": language, "items": items}, questions


def main(folder: Path, language: str) -> None:
    kb, questions = convert(folder / language, language)
    name = f"ha_{language}"
    (DATA / f"{name}.json").write_text(json.dumps(kb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    with open(DATA / f"{name}_questions.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "item"])
        writer.writerows(questions)
    print(
        f"{name}: {len(kb['items'])} items, {sum(len(i['formulations']) for i in kb['items'])} formulations, "
        f"{len(questions)} questions"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
