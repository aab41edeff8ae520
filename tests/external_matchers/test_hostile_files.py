"""Hostile or broken Rasa files: each is refused with a 400 (413 over the size limit) that names the
problem, and nothing is stored (no item, formulation, answer, group or intent name; the knowledge
version does not move)."""

import pytest
from django.test import override_settings

from knowledge.external.models import ExternalIntent
from knowledge.models import Answer, Formulation, KnowledgeItem, MatchingGroup

from .conftest import BASE, import_body

OK_HEAD = 'version: "3.1"\nnlu:\n- intent: greet\n  examples: |\n    - bonjour\n'
BILLION_LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + level)}: &{chr(98 + level)} [{', '.join(['*' + chr(97 + level)] * 9)}]\n" for level in range(8)
)
HOSTILE = {
    "billion laughs (anchors and aliases)": (BILLION_LAUGHS + OK_HEAD, "anchors and aliases"),
    "one alias in a valid file": (
        OK_HEAD + "- synonym: &s prêt\n  examples: |\n    - crédit\n- intent: *s\n",
        "aliases",
    ),
    "nesting deeper than Rasa's format needs": ("nlu: " + "[" * 30 + "]" * 30 + "\n", "nested deeper than 20"),
    # libyaml itself stops at 1,000 levels, before a Python stack could overflow.
    "nesting 5,000 levels deep": ("nlu: " + "[" * 5000 + "]" * 5000 + "\n", "nesting depth"),
    "a python object tag": (OK_HEAD + '- intent: !!python/object/apply:os.system ["true"]\n', "not YAML"),
    "a custom tag": (OK_HEAD + "- intent: !secret x\n  examples: |\n    - a\n", "not YAML"),
    "not YAML": ("nlu: [unclosed\n", "not YAML"),
    "a list at the top": ("- intent: greet\n", "not a mapping"),
    "a string at the top": ('"just text"\n', "not a mapping"),
    "a number at the top": ("42\n", "not a mapping"),
    "no nlu": ('version: "3.1"\nstories: []\n', "'nlu' is empty"),
    "nlu is a string": ('version: "3.1"\nnlu: intent greet\n', "'nlu' is a string"),
    "an entry that is a list": ("nlu:\n- [intent, greet]\n", "nlu entry 1 is a list"),
    "an intent that is a list": ("nlu:\n- intent: [a, b]\n  examples: |\n    - a\n", "non-empty string"),
    "an empty intent name": ("nlu:\n- intent: ''\n  examples: |\n    - a\n", "non-empty string"),
    "examples that are a number": ("nlu:\n- intent: a\n  examples: 3\n", "examples must be"),
    "synonym examples as a list": ("nlu:\n- synonym: a\n  examples: [b, c]\n", "examples must be a text block"),
    "an unknown key": ("nlu:\n- intent: a\n  exemples: |\n    - b\n", "unknown keys: exemples"),
    "two kinds in one entry": ("nlu:\n- intent: a\n  synonym: b\n", "exactly one of"),
    "version as a number": ("version: 3.1\n" + OK_HEAD[14:], "version 3.1 is not"),
    "an unknown version": ('version: "4.0"\n' + OK_HEAD[14:], "version '4.0' is not"),
    "responses as a list": (OK_HEAD + "responses: [utter_greet]\n", "'responses' is a list"),
    "a response text that is a mapping": (OK_HEAD + "responses:\n  utter_greet:\n  - text: {a: b}\n", "text must be"),
    "a NUL character": (OK_HEAD + '- intent: "nul\\0"\n  examples: |\n    - a\n', "NUL"),
    # libyaml refuses the escape of a lone surrogate itself; the check_text guard is there for the pure-Python loader.
    "a lone surrogate": (OK_HEAD + '- intent: "\\ud800"\n  examples: |\n    - a\n', "invalid Unicode character"),
    "an example too long": ("nlu:\n- intent: a\n  examples: |\n    - " + "x" * 1001 + "\n", "longer than 1000"),
    "nothing to import": ("nlu:\n- regex: zip\n  examples: |\n    - \\d{5}\n", "no intent and no synonym"),
}


def stored(bot) -> tuple:
    bot.refresh_from_db()
    return (
        KnowledgeItem.objects.count(),
        Formulation.objects.count(),
        Answer.objects.count(),
        MatchingGroup.objects.count(),
        ExternalIntent.objects.count(),
        bot.knowledge_version,
    )


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_or_broken_file_is_a_400_naming_the_problem_and_stores_nothing(client, demo_bot, personas, name):
    text, problem = HOSTILE[name]
    before = stored(demo_bot)
    response = import_body(client, demo_bot, personas.alice, text, "fr")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] in ("INVALID_RASA_FILE", "UNSUPPORTED_VERSION", "NOTHING_TO_IMPORT") and body["field"] == "file"
    assert problem in body["error"], body["error"]
    assert stored(demo_bot) == before


def test_bytes_that_are_not_utf8_and_an_empty_body(client, demo_bot, personas):
    before = stored(demo_bot)
    response = import_body(client, demo_bot, personas.alice, b"nlu:\n- intent: \xff\xfe\n", "fr")
    assert response.status_code == 400 and "not UTF-8" in response.json()["error"]
    empty = import_body(client, demo_bot, personas.alice, b"", "fr")
    assert empty.status_code == 400 and empty.json()["code"] == "MISSING_FIELD"
    assert stored(demo_bot) == before


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=4096)
def test_a_file_over_the_limit_of_bots_servlet_limits_is_a_413_before_it_is_read(client, demo_bot, personas):
    """The import's limit is the one bots/servlet/limits.py gives its URL (DATA_UPLOAD_MAX_MEMORY_SIZE, 5 MB
    by default), checked on the declared length here as the ASGI and WSGI middlewares do before the view."""
    before = stored(demo_bot)
    huge = OK_HEAD + "".join(f"    - exemple {index}\n" for index in range(400))
    assert len(huge.encode()) > 4096
    response = import_body(client, demo_bot, personas.alice, huge, "fr")
    assert response.status_code == 413
    assert (
        response.json()
        == {
            "error": response.json()["error"],
            "code": "TOO_LARGE",
            "maxBytes": 4096,
        }
        and "DATA_UPLOAD_MAX_MEMORY_SIZE" in response.json()["error"]
    )
    # The same as a multipart upload, whose parts are counted as they arrive.
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("nlu.yml", huge.encode(), content_type="application/yaml")
    multipart = client.post(f"{BASE}/import/{demo_bot.uuid}", {"file": upload}, **personas.alice.auth)
    assert multipart.status_code == 413
    assert stored(demo_bot) == before


def test_a_database_failure_in_the_middle_stores_nothing(client, demo_bot, personas, monkeypatch):
    """One transaction: a failure after the groups were written takes them back too."""
    from knowledge.external import rasa_import

    def failing(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(rasa_import, "store_intents", failing)
    before = stored(demo_bot)
    text = OK_HEAD + "- synonym: prêt\n  examples: |\n    - crédit\n"
    client.raise_request_exception = False
    response = import_body(client, demo_bot, personas.alice, text, "fr")
    assert response.status_code == 500
    assert stored(demo_bot) == before
