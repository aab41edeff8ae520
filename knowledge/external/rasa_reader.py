"""Reading an untrusted Rasa NLU YAML file into what it asks to store, or a 400 naming the problem.

The file is parsed by PyYAML's safe loader only (no Python objects, no custom tags), after a first pass
over its parse events that refuses anchors and aliases (the "billion laughs" of YAML) and nesting deeper
than Rasa's format ever needs. Then every part is checked against Rasa's published NLU schema
(rasa/shared/nlu/training_data/schemas/nlu.yml): a wrong type is refused, never guessed.
"""

from dataclasses import dataclass, field

import yaml

from bots.servlet.errors import BadRequest
from bots.servlet.params import check_text

from ..models import Formulation, MatchingGroup
from . import rasa_format

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_DEPTH = 20
INTENT_NAME_LENGTH = 200
FORMULATION_LENGTH = Formulation._meta.get_field("text").max_length
GROUP_NAME_LENGTH = MatchingGroup._meta.get_field("name").max_length
NLU_KEYS = {"intent": {"examples", "metadata"}, "synonym": {"examples"}, "regex": {"examples"}, "lookup": {"examples"}}
RESPONSE_PREFIX = "utter_"


class InvalidRasaFile(BadRequest):
    code = "INVALID_RASA_FILE"

    def __init__(self, message: str, **extra):
        super().__init__(f"The Rasa file is not valid: {message}", field="file", **extra)


@dataclass
class Intent:
    name: str
    examples: list[str] = field(default_factory=list)
    response: str | None = None


@dataclass
class NluData:
    """What a file brings: intents with their examples and response, synonyms, what is left out."""

    intents: dict[str, Intent] = field(default_factory=dict)
    synonyms: dict[str, list[str]] = field(default_factory=dict)
    skipped: list[dict] = field(default_factory=list)


def read_nlu(source) -> NluData:
    """The NLU data of a YAML file (a binary file object), or InvalidRasaFile."""
    text = decoded(source.read())
    check_events(text)
    try:
        document = yaml.load(text, Loader=Loader)
    except yaml.YAMLError as error:
        raise InvalidRasaFile(f"it is not YAML ({one_line_error(error)}).") from None
    return nlu_data(document)


def decoded(raw: bytes) -> str:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InvalidRasaFile(f"it is not UTF-8 text (byte {error.start}).") from None
    if "\x00" in text:
        raise InvalidRasaFile("it contains a NUL character.")
    return text


def check_events(text: str) -> None:
    """Refuse anchors, aliases and deep nesting before anything is built from the file."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=Loader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                line = event.start_mark.line + 1
                raise InvalidRasaFile(f"line {line}: anchors and aliases (&, *) are not accepted.", line=line)
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    line = event.start_mark.line + 1
                    raise InvalidRasaFile(f"line {line}: nested deeper than {MAX_DEPTH} levels.", line=line)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as error:
        raise InvalidRasaFile(f"it is not YAML ({one_line_error(error)}).") from None


def one_line_error(error: yaml.YAMLError) -> str:
    return " ".join(str(error).split())[:300]


def nlu_data(document) -> NluData:
    if not isinstance(document, dict):
        raise InvalidRasaFile(f"its top level is {kind(document)}, not a mapping (version, nlu…).")
    data = NluData()
    for key in document:
        if not isinstance(key, str):
            raise InvalidRasaFile(f"the top-level key {key!r} is not a string.")
    if "version" in document:
        version = document["version"]
        if not isinstance(version, str) or not rasa_format.READ_VERSION.match(version):
            raise InvalidRasaFile(
                f"version {version!r} is not a Rasa training data version this server reads "
                f'(a string: "2.0" or "3.x", e.g. version: "{rasa_format.WRITTEN_VERSION}").',
                code="UNSUPPORTED_VERSION",
            )
    nlu = document.get("nlu")
    if not isinstance(nlu, list):
        raise InvalidRasaFile(f"'nlu' is {kind(nlu)}; it must be a list of intents and synonyms.")
    for index, entry in enumerate(nlu, start=1):
        read_entry(data, entry, f"nlu entry {index}")
    responses = document.get("responses")
    if responses is not None:
        read_responses(data, responses)
    for key in document:
        if key not in ("version", "nlu", "responses"):
            data.skipped.append({"section": key, "reason": "not NLU training data"})
    if not data.intents and not data.synonyms:
        raise InvalidRasaFile("it has no intent and no synonym to import.", code="NOTHING_TO_IMPORT")
    return data


def read_entry(data: NluData, entry, where: str) -> None:
    if not isinstance(entry, dict):
        raise InvalidRasaFile(f"{where} is {kind(entry)}; it must be a mapping (intent, synonym…).")
    kinds = [key for key in NLU_KEYS if key in entry]
    if len(kinds) != 1:
        raise InvalidRasaFile(f"{where} must have exactly one of intent, synonym, regex, lookup.")
    (what,) = kinds
    unknown = sorted(str(key) for key in entry if key != what and key not in NLU_KEYS[what])
    if unknown:
        raise InvalidRasaFile(f"{where} ({what}) has unknown keys: {', '.join(unknown)}.")
    name = entry[what]
    if not isinstance(name, str) or not name.strip():
        raise InvalidRasaFile(f"{where}: {what} must be a non-empty string, not {kind(name)}.")
    name = checked(where, what, name)
    if what in ("regex", "lookup"):
        data.skipped.append({"section": f"{what}: {name}", "reason": f"a {what} has no equivalent here"})
        return
    examples = entry.get("examples", "")
    if what == "intent":
        lines = intent_examples(examples, f"{where} (intent {name})")
        if len(name) > INTENT_NAME_LENGTH:
            raise InvalidRasaFile(f"{where}: the intent name is longer than {INTENT_NAME_LENGTH} characters.")
        intent = data.intents.setdefault(name, Intent(name))
        intent.examples.extend(line for line in lines if line not in intent.examples)
    else:
        if not isinstance(examples, str):
            raise InvalidRasaFile(f"{where} (synonym {name}): examples must be a text block, not {kind(examples)}.")
        if len(rasa_format.one_line(name)) > GROUP_NAME_LENGTH:
            raise InvalidRasaFile(f"{where}: the synonym name is longer than {GROUP_NAME_LENGTH} characters.")
        # Group names are unique in a bot whatever their case: "Prêt" and "prêt" are one synonym.
        name = rasa_format.one_line(name)
        name = next((known for known in data.synonyms if known.lower() == name.lower()), name)
        members = data.synonyms.setdefault(name, [])
        for line in rasa_format.block_lines(checked(where, "examples", examples)):
            member = rasa_format.one_line(line)
            if member and member not in members:
                members.append(member)


def intent_examples(examples, where: str) -> list[str]:
    """An intent's examples: a `- text` block, or a list of {text, metadata} (both in Rasa's schema)."""
    if isinstance(examples, str):
        lines = rasa_format.block_lines(checked(where, "examples", examples))
    elif isinstance(examples, list):
        lines = []
        for example in examples:
            if not isinstance(example, dict) or not isinstance(example.get("text"), str):
                raise InvalidRasaFile(f"{where}: each example of the list must be a mapping with a text.")
            if set(example) - {"text", "metadata"}:
                raise InvalidRasaFile(f"{where}: an example has keys other than text and metadata.")
            lines.append(checked(where, "text", example["text"]))
    else:
        raise InvalidRasaFile(f"{where}: examples must be a text block or a list, not {kind(examples)}.")
    out = []
    for line in lines:
        text = rasa_format.one_line(rasa_format.plain_example(line))
        if len(text) > FORMULATION_LENGTH:
            raise InvalidRasaFile(f"{where}: an example is longer than {FORMULATION_LENGTH} characters.")
        if text and text not in out:
            out.append(text)
    return out


def read_responses(data: NluData, responses) -> None:
    """`utter_<intent>` responses give the intent's answer: the first variation's text."""
    if not isinstance(responses, dict):
        raise InvalidRasaFile(f"'responses' is {kind(responses)}; it must be a mapping of utter_ names.")
    for name, variations in responses.items():
        where = f"response {name}"
        if not isinstance(name, str) or not isinstance(variations, list) or not variations:
            raise InvalidRasaFile(f"{where}: a response is a name with a non-empty list of variations.")
        if not all(isinstance(variation, dict) for variation in variations):
            raise InvalidRasaFile(f"{where}: each variation must be a mapping (text, buttons…).")
        text = variations[0].get("text")
        if text is not None and not isinstance(text, str):
            raise InvalidRasaFile(f"{where}: text must be a string, not {kind(text)}.")
        intent = data.intents.get(name[len(RESPONSE_PREFIX) :]) if name.startswith(RESPONSE_PREFIX) else None
        if intent is None or not (text or "").strip():
            data.skipped.append({"section": f"responses: {name}", "reason": "names no intent of the file, or no text"})
            continue
        intent.response = checked(where, "text", text.strip())
        if len(variations) > 1:
            data.skipped.append({"section": f"responses: {name}", "reason": "only the first variation is kept"})


def checked(where: str, what: str, value: str) -> str:
    """The text, or a 400 naming where it is when it holds a lone surrogate (YAML can escape one)."""
    try:
        return check_text(what, value)
    except BadRequest as error:
        raise InvalidRasaFile(f"{where}: {error.message}") from None


def kind(value) -> str:
    names = {dict: "a mapping", list: "a list", str: "a string", type(None): "empty", bool: "a boolean"}
    return names.get(type(value), f"a {type(value).__name__}")
