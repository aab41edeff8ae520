"""What an answer's rich parts may hold (client-contract.md §3): the known templates' fields, the URL
redirection and the further steps. One set of checks for the back office and the XML import."""

import json
import re
from urllib.parse import urlsplit

QUICK_REPLY = "dydu_quick_reply_001"
PRODUCT = "dydu_product_001"
CAROUSEL = "dydu_carousel_001"

# A product card's fields as the chatbox reads them (CV5's ProductTemplate).
PRODUCT_FIELDS = ("title", "subtitle", "imageLink", "imageName", "numeric", "buttonA", "buttonB", "buttonC")
# CV5 shows at most 9 quick replies (sorted by key, so button10 would come before button2) and reads the
# carousel's cards 1 to 5.
QUICK_REPLY_BUTTON = re.compile(r"^button([1-9])$")
CAROUSEL_FIELD = re.compile(r"^(" + "|".join(PRODUCT_FIELDS) + r")([1-5])$")
CAROUSEL_CARDS = 5
STEPS_MAX = 10
SIDEBAR_FIELDS = ("title", "content", "url", "width", "height")

TEMPLATE_FIELDS = {
    QUICK_REPLY: "button1 … button9 (each the HTML of a button, e.g. a reword link)",
    PRODUCT: ", ".join(PRODUCT_FIELDS),
    CAROUSEL: "the product fields numbered 1 to 5 (title1, subtitle1, imageLink1 … buttonC5)",
}


class RichAnswerError(ValueError):
    """A rich part of an answer that the chatbox could not show; the message says what to fix."""


def check_template(name: str, data: str) -> None:
    """Template data must fit its template: a JSON object with the template's fields only, each text
    (numeric may be a number). Unknown template names are the site's own: their data is not checked."""
    name = (name or "").strip()
    if not name:
        if (data or "").strip():
            raise RichAnswerError("Template data needs a template name.")
        return
    if name not in TEMPLATE_FIELDS:
        return
    try:
        fields = json.loads(data or "")
    except ValueError as error:
        raise RichAnswerError(f"The data of {name} must be a JSON object ({TEMPLATE_FIELDS[name]}): {error}.") from None
    if not isinstance(fields, dict) or not fields:
        raise RichAnswerError(f"The data of {name} must be a JSON object with {TEMPLATE_FIELDS[name]}.")
    for key, value in fields.items():
        known = {
            QUICK_REPLY: QUICK_REPLY_BUTTON.match(key),
            PRODUCT: key in PRODUCT_FIELDS,
            CAROUSEL: CAROUSEL_FIELD.match(key),
        }[name]
        if not known:
            raise RichAnswerError(f"{name} has no field '{key[:60]}' (its fields: {TEMPLATE_FIELDS[name]}).")
        numeric = key.startswith("numeric") and isinstance(value, int | float) and not isinstance(value, bool)
        if not (isinstance(value, str) or numeric):
            raise RichAnswerError(f"Field '{key}' of {name} must be text.")
    if name == PRODUCT and not str(fields.get("title") or "").strip():
        raise RichAnswerError(f"{name} needs a title.")
    if name == CAROUSEL:
        cards = sorted({int(CAROUSEL_FIELD.match(key).group(2)) for key in fields})
        untitled = [card for card in cards if not str(fields.get(f"title{card}") or "").strip()]
        if untitled:
            raise RichAnswerError(f"Card {untitled[0]} of {name} needs a title (title{untitled[0]}).")


def check_url_redirect(url: str) -> None:
    """Where the chatbox sends the host page: an http(s) address or a path on the host site, never a
    script (the chatbox opens it in the page itself)."""
    url = (url or "").strip()
    if not url:
        return
    if url.startswith("/") and not url.startswith("//"):
        return
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in url):
        raise RichAnswerError("The URL redirection must be an http(s) address or a path starting with /.")


def check_steps(steps) -> None:
    """Further steps: a list of {"text": HTML, "sidebar": {…}} (text required, sidebar optional)."""
    if steps in (None, ""):
        return
    if not isinstance(steps, list):
        raise RichAnswerError('Steps must be a JSON list: [{"text": "<p>Step 2</p>"}, …].')
    if len(steps) > STEPS_MAX:
        raise RichAnswerError(f"An answer has at most {STEPS_MAX} further steps.")
    for number, step in enumerate(steps, start=2):
        if not isinstance(step, dict) or not isinstance(step.get("text"), str) or not step["text"].strip():
            raise RichAnswerError(f"Step {number} needs a text.")
        unknown = set(step) - {"text", "sidebar"}
        if unknown:
            raise RichAnswerError(f"Step {number} has an unknown field '{sorted(unknown)[0][:40]}' (text, sidebar).")
        sidebar = step.get("sidebar")
        if sidebar is not None and not isinstance(sidebar, dict):
            raise RichAnswerError(f"The sidebar of step {number} must be a JSON object ({', '.join(SIDEBAR_FIELDS)}).")


def check_answer(*, template_name="", template_data="", url_redirect="", steps=None) -> None:
    """Every rich part of one answer."""
    check_template(template_name, template_data)
    check_url_redirect(url_redirect)
    check_steps(steps)
