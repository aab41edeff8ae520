"""Links in answer HTML that the chatbox turns into a new question when clicked."""

import html
import re

GROUP_REFERENCE = re.compile(r"\{\s*([^{}]+?)\s*\}")


def reword_link(question: str, link_type: str = "reword_auto", **options: str) -> str:
    """A link that makes the chatbox send `question` as the next talk (client-contract.md §3); the
    options (e.g. space= for a change of consultation space) come back in its extraParameters.

    The chatbox decodes entities once before it runs the onclick, so a double quote would end the
    attribute: it is replaced; a single quote is backslash-escaped for the JavaScript string.
    """
    shown = question.replace('"', "'")
    onclick = reword_onclick(shown, link_type, **options)
    return f'<a href="#" class="reword" onclick="{onclick}">{html.escape(shown, quote=False)}</a>'


def reword_onclick(text: str, link_type: str, *, follow: bool = False, **options) -> str:
    """The onclick attribute's value (escaped for a double-quoted attribute) that sends `text` as a talk
    with extraParameters {type, …options}; with follow, the link is followed too (a page's link)."""
    js = _js_string(text.replace('"', "'"))
    extra = "".join(
        f",'{name}':'{_js_string(str(value).replace(chr(34), chr(39)))}'" for name, value in options.items()
    )
    stop = "" if follow else " return false;"
    # Single quotes stay literal, as in the chatbox's own test data; & < > are escaped once.
    return html.escape(f"try {{reword('{js}',{{'type':'{link_type}'{extra}}});{stop}}}catch(e){{}}", quote=False)


def _js_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def plain_formulation(text: str) -> str:
    """A formulation as a person would read it: a matching-group reference {name} becomes its name."""
    return GROUP_REFERENCE.sub(lambda match: match.group(1), text)
