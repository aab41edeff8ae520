"""Space redirection (product-behaviour.md §2.6): a question answered only in another consultation space
gets a link offering that space; the link's click switches the dialog there (and the chatbox, guiCSName)."""

from collections.abc import Callable

from knowledge.links import reword_link
from knowledge.models import KnowledgeItem
from knowledge.snapshot import MATCHABLE, Snapshot

from .handover import Reply

REDIRECTION = "redirection_consultation_space"
# What the offer answers: understood (the bot knows the answer), but not an answer yet.
OFFERED = "DMSpaceRedirection"
OFFER = {
    "fr": "Je n'ai pas de réponse à cette question dans l'espace « {here} », mais l'espace « {there} » en a une :",
    "en": "I have no answer to this question in the “{here}” space, but the “{there}” space has one:",
}


def offer(
    snapshot: Snapshot, dialog, matcher, text: str, space_id: int, question_of: Callable, *, evidence=None
) -> Reply | None:
    """A link to the space that answers the input, when only another space does (matched among the
    items answered elsewhere only, so a plain talk that was understood never gets here). `evidence` is
    the input as the talk's matching read it (Matcher.read): the models do not run a second time."""
    language = dialog.language
    elsewhere = _elsewhere(snapshot, language, space_id, dialog.qualification_mode)
    if not elsewhere:
        return None
    result = matcher.match_first(text, [elsewhere], evidence=evidence)
    if result.outcome != "direct":
        return None
    candidate = result.candidates[0]
    there_id = min(snapshot.items[candidate.item_id].answer_spaces[language] - {space_id})
    here, there = snapshot.space_names.get(space_id, ""), snapshot.space_names[there_id]
    link = reword_link(
        question_of(snapshot, language, candidate), REDIRECTION, space=there, knowledgeId=candidate.item_id
    )
    intro = OFFER.get(language, OFFER["en"]).format(here=here, there=there)
    dialog.misunderstood_streak = 0
    return Reply(text=f'<p>{intro}</p><ul class="rewords"><li>{link}</li></ul>', type_response=OFFERED)


def follow(snapshot: Snapshot, dialog, request) -> str:
    """The click on an offer: the dialog moves to the space the link names (a space of the bot's);
    returns its name, for the chatbox to switch too (guiCSName), or "" when it names none."""
    space_id = snapshot.space_id(str(request.extra.get("space", ""))[:100])
    if space_id is None:
        return ""
    dialog.space = snapshot.space_names.get(space_id, dialog.space)
    return dialog.space


def _elsewhere(snapshot: Snapshot, language: str, space_id: int, qualification: bool) -> frozenset[int]:
    """Items a question could reach if only the dialog were in another space (built once per snapshot)."""

    def build():
        here = snapshot.allowed_items(language, space_id, qualification)
        return frozenset(
            item.id
            for item in snapshot.items.values()
            if item.kind in MATCHABLE
            and item.id not in here
            and (item.parent_id is None or item.direct_access)
            and item.status != KnowledgeItem.Status.DISABLED
            and (qualification or item.status == KnowledgeItem.Status.PUBLISHED)
            and item.answer_spaces.get(language, frozenset()) - {space_id}
        )

    return snapshot.memo(("elsewhere", language, space_id, qualification), build)
