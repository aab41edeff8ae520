"""Talks that come from a click (extraParameters, servlet-api.md's table): a link to a page is recorded
and answered with nothing visible; a link to knowledge answers that item; neither is ever "misunderstood"."""

import html
import re
from collections.abc import Callable

from knowledge.links import reword_onclick
from knowledge.matching import normalise
from knowledge.snapshot import Snapshot

from . import mailto, spaces
from .handover import Reply

REWORD = "reword_auto"
KNOWLEDGE = "redirection_knowledge"
# Clicks on a link to a page or a script: the visitor leaves for it, the bot only records the click.
# redirection_invalidlink is what the chatbox sends for a redirection link that is not a URL.
LINKS = frozenset(
    {"redirection", "redirection_newpage", "redirection_javascript", "redirection_invalidlink", "before_close_dialog"}
)
# Clicks that send a question (a rewording, a link to an item, a change of space, the top questions…).
QUESTIONS = frozenset(
    {
        REWORD,
        KNOWLEDGE,
        spaces.REDIRECTION,
        "redirection_personnality",
        "reword_teaser",
        "exportable_faq",
        "reword_feedback",
    }
)
ORIGINS = LINKS | QUESTIONS
# The answer to a click that shows nothing: empty text (the chatbox draws no bubble for it) and a
# typeResponse the chatbox reacts to in no way (neither "understood" nor "misunderstood").
LINK_FOLLOWED = "DMLinkClicked"
# Answers that are no question of the visitor's: analytics leave their interactions out.
NOT_COUNTED = frozenset({LINK_FOLLOWED, mailto.SENT, mailto.REFUSED})

# The chatbox shows no question bubble for these clicks (client-contract.md §3, handleRewordClicked).
UNSHOWN = frozenset({"redirection", "redirection_newpage", "redirection_invalidlink"})
# A link to a web page in an answer, without a handler of its own.
PAGE_LINK = re.compile(r"<a\b(?![^>]*\bonclick\s*=)[^>]*\bhref\s*=\s*\"(https?://[^\"]+)\"[^>]*>", re.IGNORECASE)
NEW_TAB = re.compile(r"\btarget\s*=\s*\"_blank\"", re.IGNORECASE)

Answerer = Callable[..., Reply | None]


def is_click(origin: str) -> bool:
    return origin in ORIGINS


def counted(type_response: str) -> bool:
    """Whether analytics count an interaction with this answer (a followed link is no question)."""
    return type_response not in NOT_COUNTED


def hidden_request(origin: str, user_input: str) -> bool:
    """Whether the chatbox showed no bubble for this input (a page link's address, a push, an export):
    replayed history hides it too."""
    return origin in UNSHOWN or user_input.startswith(("_goalpage_:", "#dydumailto:"))


def logged_links(answer: str) -> str:
    """An answer's links to web pages get the handler that logs their click as a talk, as the product's
    servers add it (client-contract.md §3): the page still opens, the click is recorded."""
    if "<a" not in answer:
        return answer

    def log(match: re.Match) -> str:
        tag = match.group(0)
        kind = "redirection_newpage" if NEW_TAB.search(tag) else "redirection"
        onclick = reword_onclick(html.unescape(match.group(1)), kind, follow=True)
        return f'{tag[:-1].rstrip("/").rstrip()} onclick="{onclick}">'

    return PAGE_LINK.sub(log, answer)


def followed() -> Reply:
    return Reply(text="", type_response=LINK_FOLLOWED)


def answer(snapshot: Snapshot, dialog, request, text: str, *, item_answer: Answerer, understand: Answerer) -> Reply:
    """The answer to a click: a page link is only recorded; a question link answers its item (named in
    the click's parameters, else the formulation it shows), else what matching finds, else nothing
    visible. The misunderstood streak is the visitor's typing only: a click never touches it."""
    origin = request.origin
    if origin in LINKS:
        return followed()
    streak = dialog.misunderstood_streak
    switched = spaces.follow(snapshot, dialog, request) if origin == spaces.REDIRECTION else ""
    space_id = snapshot.space_id(dialog.space) or snapshot.default_space_id
    # A rewording's click goes through matching as before (DMRewordClickedAuto); other links name their item.
    item_id = None if origin == REWORD else clicked_item(snapshot, dialog, request, text, space_id)
    reply = item_answer(snapshot, dialog, item_id, space_id) if item_id else None
    if reply is not None:
        dialog.current_node_id = item_id if snapshot.items[item_id].has_children else None
    else:
        reply = understand(snapshot, dialog, request, text)
    dialog.misunderstood_streak = streak
    if reply is None or reply.type_response.startswith("GB"):
        reply = followed()
    if switched:
        reply.payload = {**reply.payload, "guiCSName": switched}
    return reply


def clicked_item(snapshot: Snapshot, dialog, request, text: str, space_id: int) -> int | None:
    """The item a click asks for: the id the link carries (knowledgeId), else the item one of whose
    formulations is the clicked text; only an item the visitor may reach from here."""
    language, qualification = dialog.language, dialog.qualification_mode
    reachable = snapshot.allowed_items(language, space_id, qualification)
    if dialog.current_node_id:
        follow_ups = snapshot.follow_up_items(dialog.current_node_id, language, space_id, qualification)
        reachable = follow_ups | reachable
    carried = _item_id(request.extra)
    if carried in reachable:
        return carried
    for item_id in _formulation_items(snapshot, language).get(_key(text, language), ()):
        if item_id in reachable:
            return item_id
    return None


def _item_id(extra: dict) -> int | None:
    for name in ("knowledgeId", "kId", "knowledgeID"):
        value = str(extra.get(name, "")).strip()
        if value.isascii() and value.isdigit() and len(value) < 19:
            return int(value)
    return None


def _key(text: str, language: str) -> str:
    return normalise(text[:600], language)


def _formulation_items(snapshot: Snapshot, language: str) -> dict[str, list[int]]:
    """Each formulation's normalised text → the items it belongs to, in knowledge order (built once per
    knowledge version and language)."""

    def build():
        found: dict[str, list[int]] = {}
        for _, item_id, formulation, _ in snapshot.formulations.get(language, ()):
            key = _key(formulation, language)
            if key and item_id not in found.setdefault(key, []):
                found[key].append(item_id)
        return found

    return snapshot.memo(("click_formulations", language), build)
