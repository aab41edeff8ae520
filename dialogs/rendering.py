"""Answer HTML: context variables in answers and rewording links in the form the chatbox runs."""

import html
import re

from knowledge.links import reword_link

VARIABLE = re.compile(r"\$\{\s*(?:capture\.)?([\w.-]+)\s*\}")


def substitute_variables(text: str, variables: dict[str, str]) -> str:
    """${capture.name} and ${name} become the dialog's value (HTML-escaped), or nothing when unset."""
    if "${" not in text:
        return text
    return VARIABLE.sub(lambda match: html.escape(str(variables.get(match.group(1), ""))), text)


def rewording_answer(intro: str, questions: list[str]) -> str:
    items = "".join(f"<li>{reword_link(question)}</li>" for question in questions)
    return f'<p>{intro}</p><ul class="rewords">{items}</ul>'
