"""The converters of the public corpora in bench/data (NLP.js's French corpus, Home Assistant's intents) follow
the rules bench/data/README.md states, and every committed language set loads with its questions' items in its
knowledge base."""

import json

import pytest

from bench import ha_corpus, nlpjs_corpus
from bench.matching_decisions import LANGUAGE_SETS, load_devset


def test_nlpjs_rules():
    corpus = {
        "data": [
            {
                "id": 1,
                "intent": "support.about",
                "utterances": ["Que développe votre entreprise\xa0?", "Que développe votre entreprise\xa0?", "x  y"],
                "tests": ["Quoi d'autre développé", "Quoi d'autre développé"],
            },
            # Keys translated by the machine translation.
            {"identifiant": 2, "intention": "smalltalk.age", "utterances": ["quel âge as-tu"], "tests": ["ton âge"]},
            {"id": 3, "intent": "support.beta", "utterances": ["do you have a beta test?"], "tests": ["beta"]},
            {"id": 0, "intent": "None", "utterances": [], "tests": ["Je préfère beta max à vhs"]},
        ]
    }
    kb, questions = nlpjs_corpus.convert(corpus)
    assert kb["language"] == "fr"
    assert [i["id"] for i in kb["items"]] == ["support.about", "smalltalk.age"]  # untranslated intent left out
    assert kb["items"][0]["formulations"] == ["Que développe votre entreprise ?", "x y"]  # duplicates, spaces
    assert questions == [
        ("Quoi d'autre développé", "support.about"),
        ("Quoi d'autre développé", "support.about"),  # tests kept as published
        ("ton âge", "smalltalk.age"),
        ("Je préfère beta max à vhs", ""),  # the None intent's tests are out of scope
    ]


def write_tests(folder, name, tests):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps({"language": "nl", "tests": tests}), encoding="utf-8")  # JSON is YAML


def test_home_assistant_rules(tmp_path):
    folder = tmp_path / "nl"
    kettle = {"name": "HassTurnOn", "slots": {"name": "Waterkoker", "area": "Keuken"}}
    write_tests(folder, "_fixtures.yaml", [{"sentences": ["not a test"], "intent": {"name": "X"}}])
    write_tests(
        folder,
        "homeassistant_HassTurnOn.yaml",
        [
            {"sentences": ["Zet waterkoker aan", "waterkoker  aan"], "intent": kettle, "response": "Aangezet"},
            {"sentences": ["Doe de lamp aan", "lamp aan", "Lamp aan"], "intent": {"name": "HassTurnOn"}},
        ],
    )
    # The same request in another file: one item with the first file's sentences.
    write_tests(
        folder,
        "switch_HassTurnOn.yaml",
        [{"sentences": ["WATERKOKER AAN", "keukenwaterkoker aanzetten", "waterkoker inschakelen"], "intent": kettle}],
    )
    kb, questions = ha_corpus.convert(folder, "nl")
    assert len(kb["items"]) == 1  # the lamp has 2 different sentences only; the fixtures are no test
    item = kb["items"][0]
    assert item["answer"] == "Aangezet"
    assert item["formulations"] == ["Zet waterkoker aan", "waterkoker aan"]
    assert questions == [("keukenwaterkoker aanzetten", item["id"]), ("waterkoker inschakelen", item["id"])]


@pytest.mark.parametrize("name", LANGUAGE_SETS)
def test_committed_sets_load(name):
    devset = load_devset(name)
    items = {item for _, item in devset.kb}
    assert devset.language in ("fr", "nl") and len(items) >= 20
    answerable = [item for _, item in devset.questions if item]
    assert len(answerable) >= 200 and set(answerable) <= items
