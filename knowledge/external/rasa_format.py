"""Rasa NLU YAML conventions both directions share: the format versions, the example lines of an
`examples: |` block, and Rasa's entity annotation syntax (`[text](entity)`, `[text]{...}`)."""

import re
import unicodedata

# The version this server writes (Rasa 3.1+), and the ones it reads: the NLU part has not changed since 2.0.
WRITTEN_VERSION = "3.1"
READ_VERSION = re.compile(r"^(?:2\.0|3\.\d{1,2})$")
# Rasa's own pattern for an annotated entity in an example: `[text](type)`, `[text](type:value)`,
# `[text]{"entity": …}`. Rasa reads it as an entity (and refuses the file when the {…} is not JSON).
ENTITY = re.compile(r"\[(?P<text>[^\]]+?)\](?:\((?P<entity>[^:)]+?)(?::(?P<value>[^)]+))?\)|\{(?P<dict>[^}]+?)\})")
# A closing bracket right before "(" or "{" is what makes an annotation.
ANNOTATION_START = re.compile(r"\](?=[({])")


def one_line(text: str) -> str:
    """The text on one line, every run of whitespace (line and paragraph separators too, which Rasa's
    `splitlines` would cut at) one space, control characters dropped."""
    kept = "".join(" " if unicodedata.category(char) in ("Cc", "Cs") else char for char in str(text))
    return " ".join(kept.split())


def example_text(text: str) -> str:
    """A phrase as an example line Rasa reads back as that very phrase, with no entity in it."""
    line = one_line(text)
    if ENTITY.search(line):
        line = ANNOTATION_START.sub("] ", line)
    return line


def block(lines: list[str]) -> str:
    """The `examples` block: one `- text` line per example."""
    return "".join(f"- {line}\n" for line in lines)


def plain_example(line: str) -> str:
    """An example as Rasa trains on it: its annotations replaced by their text."""
    return ENTITY.sub(lambda match: match.group("text"), line)


def block_lines(examples: str) -> list[str]:
    """The examples of an `examples: |` block, read as Rasa reads them: each line starting with "-",
    without it and the spaces around (other lines Rasa skips)."""
    return [line[1:].strip("\n\r ") for line in examples.splitlines() if line.startswith("-")]
