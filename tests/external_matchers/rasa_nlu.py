"""Rasa's published NLU training data format, as the tests check it: the schema Rasa validates every
file against (rasa/shared/nlu/training_data/schemas/nlu.yml and responses.yml of RasaHQ/rasa, written
for pykwalify; here the same rules in JSON Schema), then the reading rules of Rasa's RasaYAMLReader
(rasa/shared/nlu/training_data/formats/rasa_yaml.py): example lines start with "-", entity annotations
`[text](type)` / `[text]{json}` are entities (a {…} that is not JSON makes Rasa refuse the file), a
version newer than the reader's is not read."""

import json
import re

import jsonschema
import yaml

# pykwalify "str" with allowempty False, and "examples: str" (may be empty).
NAME = {"type": "string", "minLength": 1}
TEXT = {"type": "string"}
METADATA = {}  # type: any
INTENT_WITH_BLOCK = {
    "type": "object",
    "required": ["intent"],
    "properties": {"intent": NAME, "metadata": METADATA, "examples": TEXT},
    "additionalProperties": False,
}
INTENT_WITH_LIST = {
    "type": "object",
    "required": ["intent"],
    "properties": {
        "intent": NAME,
        "metadata": METADATA,
        "examples": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"text": NAME, "metadata": METADATA},
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}


def keyed(key: str) -> dict:
    return {
        "type": "object",
        "required": [key],
        "properties": {key: TEXT, "examples": TEXT},
        "additionalProperties": False,
    }


BUTTONS = {
    "type": "array",
    "items": {"type": "object", "properties": {"title": TEXT, "payload": TEXT}, "additionalProperties": False},
}
RESPONSE_VARIATION = {
    "type": "object",
    "minProperties": 1,
    "properties": {
        "id": TEXT,
        "text": TEXT,
        "image": TEXT,
        "custom": {"type": "object"},
        "buttons": BUTTONS,
        "button_type": TEXT,
        "quick_replies": BUTTONS,
        "attachment": {"type": "object"},
        "elements": {"type": "array", "items": {"type": "object"}},
        "channel": TEXT,
        "metadata": METADATA,
        "condition": {"type": "array", "items": {"type": "object", "minProperties": 1}},
    },
    "additionalProperties": False,
}
NLU_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "version": NAME,
        "nlu": {
            "type": "array",
            # pykwalify `matching: any`: an entry valid for one of the shapes.
            "items": {
                "anyOf": [INTENT_WITH_BLOCK, INTENT_WITH_LIST, keyed("synonym"), keyed("regex"), keyed("lookup")]
            },
        },
        "responses": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": RESPONSE_VARIATION},
        },
    },
    # regex;(.*): any other top-level key is allowed.
    "additionalProperties": True,
}
LATEST_VERSION = (3, 1)
ENTITY = re.compile(
    r"\[(?P<entity_text>[^\]]+?)\](\((?P<entity>[^:)]+?)(?:\:(?P<value>[^)]+))?\)|\{(?P<entity_dict>[^}]+?)\})"
)


class RasaRefuses(AssertionError):
    """What Rasa's loader would refuse (or silently drop) in a file."""


def validate(text: str) -> dict:
    """The file's content, after Rasa's schema check and version check; RasaRefuses otherwise."""
    document = yaml.safe_load(text)
    try:
        jsonschema.validate(document, NLU_SCHEMA)
    except jsonschema.ValidationError as error:
        raise RasaRefuses(f"schema: {error.message} at {list(error.absolute_path)}") from None
    version = document.get("version")
    if version is not None:
        major, minor = (int(part) for part in version.split("."))
        if (major, minor) > LATEST_VERSION:
            raise RasaRefuses(f"version {version} is newer than Rasa 3.1 reads")
    return document


def read(text: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(intent → plain examples, synonym → values) as Rasa reads the file. Fails on anything Rasa would
    refuse, and on what it would skip with a warning (a line without "-", an intent without examples,
    an unexpected entity): an export must lose nothing on the way."""
    document = validate(text)
    intents: dict[str, list[str]] = {}
    synonyms: dict[str, list[str]] = {}
    for entry in document.get("nlu") or []:
        if "intent" in entry:
            examples = entry.get("examples", "")
            lines = [example["text"] for example in examples] if isinstance(examples, list) else lines_of(examples)
            if not lines:
                raise RasaRefuses(f"intent {entry['intent']} has no examples")
            for line in lines:
                for match in ENTITY.finditer(line):
                    if match.group("entity_dict"):
                        json.loads("{" + match.group("entity_dict") + "}")  # Rasa raises the same way
                    raise RasaRefuses(f"the example {line!r} annotates an entity")
            intents.setdefault(entry["intent"], []).extend(lines)
        elif "synonym" in entry:
            synonyms.setdefault(entry["synonym"], []).extend(lines_of(entry.get("examples", "")))
    return intents, synonyms


def lines_of(examples: str) -> list[str]:
    out = []
    for line in examples.splitlines():
        if not line.startswith("-"):
            raise RasaRefuses(f"the line {line!r} does not start with '-' (Rasa skips it)")
        out.append(line[1:].strip("\n\r "))
    if any(not line for line in out):
        raise RasaRefuses("an empty example")
    return out
