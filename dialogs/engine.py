"""The talk pipeline: the one place where a user's input becomes the bot's answer, for REST and
websocket alike (architecture.md §3)."""

import copy
import re
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from knowledge import matching
from knowledge.links import plain_formulation
from knowledge.models import GlobalSentence, KnowledgeItem
from knowledge.sentences import feedback_wording, global_sentence
from knowledge.snapshot import KnowledgeChanged, Snapshot, current_version, snapshot_for

from . import branches, clicks, complements, contexts, handover, mailto, spaces, statements, variables
from .clock import epoch_ms
from .handover import LEAVE_QUEUE_INPUT, Code, Reply
from .models import Dialog, Interaction
from .rendering import rewording_answer, substitute_variables
from .requests import TalkRequest
from .rich import rich_payload
from .slots import flow as slots

K = GlobalSentence.Kind
# A push rule fired in the chatbox: on an event-triggered item (kId) or a goal page (bgpId).
PUSH_CONDITION = re.compile(r"^_(?:pushcondition|goalpage)_:(\d+)$")
# Answering again from newer knowledge when answers vanished under a talk (an import committing meanwhile).
KNOWLEDGE_ATTEMPTS = 3
# Language detection switches the dialog's language only when it is this sure (short inputs are not).
DETECTION_MIN_CONFIDENCE = 0.5
# What a talk may change on a running dialog (dialogs/statements.py writes them in one UPDATE).
TALK_CHANGES = (
    "last_activity",
    "language",
    "space",
    "misunderstood_streak",
    "current_node",
    "client_id",
    "qualification_mode",
)


class TypeResponse:
    UNDERSTOOD = "DMUnderstoodQuestion"
    REWORD_CLICKED = "DMRewordClickedAuto"
    CLIENT_PUSH = "DMClientPush"
    ONE_REWORD = "RWOneReword"
    SEVERAL_REWORDS = "RWSeveralRewords"
    MISUNDERSTOOD = "GBMisunderstoodQuestion"
    TOO_MANY_MISUNDERSTOOD = "GBTooManyMisunderstoodQuestions"
    EMPTY = "GBEmptySentence"
    TOO_LONG = "GBTooLongSentence"


@dataclass
class TalkResponse:
    dialog: Dialog
    text: str
    type_response: str
    language: str
    knowledge_id: int = 0
    ask_feedback: bool = False
    payload: dict = field(default_factory=dict)
    interaction_id: int = 0
    server_time_ms: int = 0
    feedback_wording: dict = field(default_factory=dict)
    # The input went to a human operator: over the websocket nothing is sent back for it.
    relayed: bool = False
    # Live chat pushed the answer to the dialog's sockets already (leaving the queue).
    pushed: bool = False

    def values(self, bot) -> dict:
        """The talkResponse values the chatbox reads (client-contract.md §3); strings are encoded later."""
        values = {
            "knowledgeId": self.knowledge_id,
            "actionId": self.interaction_id,
            "typeResponse": self.type_response,
            "contextId": str(self.dialog.uuid),
            "serverTime": self.server_time_ms,
            "language": self.language,
            "botId": str(bot.uuid),
            "text": self.text,
            "hasProfilePicture": False,
            "startLivechat": False,
            "keepPopinMinimized": False,
            "human": False,
            "askFeedback": self.ask_feedback,
            "feedbackWording": self.feedback_wording,
        }
        values.update(self.payload)
        return values


# `talk` looks the dialog up itself unless the caller did (contexts.dialog_with_bot, joined to the bot).
LOOK_UP = object()


def talk(bot, request: TalkRequest, found=LOOK_UP) -> TalkResponse:
    now = timezone.now()
    snapshot = snapshot_for(bot)
    if found is LOOK_UP:
        dialog = contexts.active_dialog(bot, request.context_id, now)
    else:
        dialog = contexts.still_active(found, now)
    if dialog is None:
        # Stored below with its first interaction, in one transaction: a talk that fails leaves nothing.
        dialog = open_dialog(bot, request, snapshot, now, store=False)
    dialog.bot = bot  # already loaded: spares a query when the bot's settings are read
    # The variables as stored: the talk merges only what it changes (dialogs/variables.py).
    stored_variables = dict(dialog.variables or {})
    _apply_request(dialog, request, snapshot)

    text = request.user_input.strip()
    livechat = handover.current()
    if text == "#reset#":
        if dialog.livechat and livechat:
            livechat.close(dialog, now)
        contexts.archive_dialog(dialog, now)
        dialog = open_dialog(bot, request, snapshot, now, store=False)
        _apply_request(dialog, request, snapshot)
        answer = _welcome(snapshot, dialog)
    else:
        answer, snapshot = _answer_from_one_version(bot, snapshot, dialog, request, text, livechat)

    interaction, answer = _store(bot, snapshot, dialog, answer, request, now, stored_variables, livechat)
    if livechat:
        livechat.talked(dialog, interaction)  # supervisors reading along see the line
    return TalkResponse(
        dialog=dialog,
        text=answer.text,
        type_response=answer.type_response,
        language=dialog.language,
        knowledge_id=answer.knowledge_id,
        ask_feedback=answer.ask_feedback,
        payload=answer.payload,
        interaction_id=interaction.pk if interaction else 0,
        relayed=answer.relayed,
        pushed=answer.pushed,
        server_time_ms=epoch_ms(now),
        feedback_wording=feedback_wording(snapshot.sentences, dialog.language) if answer.ask_feedback else {},
    )


def _answer_from_one_version(bot, snapshot: Snapshot, dialog: Dialog, request: TalkRequest, text: str, livechat):
    """The answer and the snapshot it came from. Answers are read after the rest of the knowledge (once per
    version): when an import or a delete committed in between, they are gone (KnowledgeChanged, raised
    before anything is written); the talk then answers again, its dialog as it was, from the bot's
    knowledge as it is now."""
    for _ in range(KNOWLEDGE_ATTEMPTS):
        before = _dialog_state(dialog)
        try:
            return _answer(bot, snapshot, dialog, request, text, livechat), snapshot
        except KnowledgeChanged:
            dialog.__dict__.update(before)
            bot.knowledge_version = current_version(bot)
            snapshot = snapshot_for(bot)
            _apply_request(dialog, request, snapshot)
    # The knowledge changed under every attempt: the talk says it did not understand rather than fail.
    return _misunderstood(snapshot, dialog, request), snapshot


def _dialog_state(dialog: Dialog) -> dict:
    """What answering may change on the dialog, to put back before answering again."""
    state = dict(dialog.__dict__)
    state["variables"] = copy.deepcopy(dialog.variables)
    return state


def _answer(bot, snapshot: Snapshot, dialog: Dialog, request: TalkRequest, text: str, livechat) -> Reply:
    if dialog.livechat and livechat and not _special_input(text):
        # A human holds the dialog: the bot stays silent, what the visitor writes goes to the operator.
        return Reply(text="", type_response=Code.VISITOR_MESSAGE, relayed=True)
    if text == "#welcome#":
        return _welcome(snapshot, dialog)
    if text == LEAVE_QUEUE_INPUT and livechat:
        return Reply(text="", type_response=Code.LEAVE_QUEUE)
    if match := PUSH_CONDITION.match(text):
        # A push for an item that may not be pushed (unpublished, not an event) is refused silently.
        return _pushed(snapshot, dialog, int(match.group(1)), request) or clicks.followed()
    if mailto.is_mailto(text):
        return mailto.export(bot, dialog, text, request.client_address)
    if clicks.is_click(request.origin):
        return clicks.answer(snapshot, dialog, request, text, item_answer=_item_answer, understand=_understand)
    if bot.language_detection and request.language_detection and len(snapshot.languages) > 1 and text:
        detected, confidence = matching.detect_language(text, snapshot.languages)
        if detected != dialog.language and confidence >= DETECTION_MIN_CONFIDENCE:
            dialog.language = detected
    if slots.in_flow(dialog):
        # A slot-filling flow awaits a value (dialogs/slots/): it answers, or leaves to _understand.
        return slots.resume(
            snapshot, dialog, request, text, answer_item=_slot_answer(snapshot, dialog), understand=_understand
        )
    return _understand(snapshot, dialog, request, text)


def _store(
    bot, snapshot: Snapshot, dialog: Dialog, answer: Reply, request: TalkRequest, now, stored_variables: dict, livechat
):
    """Store the talk: the interaction (unless the request asks not to), the dialog's insert or update,
    and what the answer needs besides (a complement shown, a live-chat step), all or nothing. Returns
    the interaction (or None) and the answer, which a live-chat step may replace."""
    plain = not (
        answer.complements
        or answer.type_response == Code.LEAVE_QUEUE
        or (answer.escalate and livechat)
        or answer.relayed
        or request.do_not_register
    )
    if plain and statements.stores_talk_at_once():
        # Nothing but the interaction and the dialog to write: one statement (PostgreSQL).
        interaction = _interaction(bot, snapshot, dialog, answer, request, now)
        if dialog.pk is not None:
            dialog.last_activity = now
        statements.store_talk(dialog, interaction, TALK_CHANGES, variables.changes(stored_variables, dialog.variables))
        return interaction, answer
    with transaction.atomic():
        # A new dialog, live chat's changes (queue, assignment) and the interaction are stored together.
        created = dialog.pk is None
        if created:
            statements.insert(dialog)
        if answer.complements:
            complements.record(dialog, answer.complements, now)
        if answer.type_response == Code.LEAVE_QUEUE:
            answer = livechat.leave_queue(dialog, request, now)
        elif answer.escalate and livechat:
            answer = livechat.escalate(dialog, request, answer, now)
        interaction = None
        if not request.do_not_register or answer.relayed:
            interaction = _interaction(bot, snapshot, dialog, answer, request, now)
            statements.insert(interaction)
        if answer.relayed:
            answer = livechat.relay(dialog, interaction, request, now)
        # A dialog inserted just now holds every field already (live chat updates its own).
        if not created:
            dialog.last_activity = now
            statements.update(dialog, TALK_CHANGES, variables.changes(stored_variables, dialog.variables))
    return interaction, answer


def _interaction(bot, snapshot: Snapshot, dialog: Dialog, answer: Reply, request: TalkRequest, now) -> Interaction:
    # The item answered is kept by id and title: the reference becomes NULL if the item goes (even now).
    return Interaction(
        dialog=dialog,
        bot_id=bot.pk,
        counted=not dialog.qualification_mode and clicks.counted(answer.type_response),
        created_at=now,
        user_input=request.user_input,
        answer=answer.text,
        type_response=answer.type_response,
        knowledge_item_id=answer.knowledge_id or None,
        answered_id=answer.knowledge_id or None,
        answered_title=snapshot.title(answer.knowledge_id, dialog.language)[:1000] if answer.knowledge_id else "",
        reworded_items=answer.reworded,
        language=dialog.language,
        space=dialog.space,
        origin=request.origin,
        ask_feedback=answer.ask_feedback,
        payload=answer.payload,
    )


def _special_input(text: str) -> bool:
    """The chatbox's own inputs (#welcome#, #livechatleavequeue#, push rules…), not the visitor's words."""
    return (text.startswith("#") and text.endswith("#") and len(text) > 1) or text.startswith(
        ("_pushcondition_:", "_goalpage_:")
    )


def open_dialog(bot, request: TalkRequest, snapshot: Snapshot | None = None, now=None, *, store: bool = True) -> Dialog:
    """A new dialog with what the request says of the visitor (the talk and context calls); with
    store=False it is not saved yet (talk saves it with its first interaction)."""
    snapshot = snapshot or snapshot_for(bot)
    return (contexts.open_dialog if store else contexts.new_dialog)(
        bot,
        now,
        client_id=request.client_id,
        language=snapshot.language(request.language),
        space=_space_name(snapshot, request.space),
        variables=dict(request.variables),
        browser=request.browser,
        os=request.os,
        user_url=request.user_url,
        context_type=request.context_type,
        solution_used=request.solution_used,
        already_came=request.already_came,
        qualification_mode=request.qualification_mode,
    )


def _apply_request(dialog: Dialog, request: TalkRequest, snapshot: Snapshot):
    """What each talk may change on its dialog: language, space, variables, client id."""
    if request.language:
        code = snapshot.spoken_language(request.language)
        if code:
            dialog.language = code
    if dialog.language not in snapshot.languages:
        dialog.language = snapshot.default_language
    if request.space:
        dialog.space = _space_name(snapshot, request.space)
    if request.variables:
        dialog.variables = {**(dialog.variables or {}), **request.variables}
    if request.client_id:
        dialog.client_id = request.client_id
    # Once a dialog is in qualification mode (the test bot) it stays out of analytics.
    dialog.qualification_mode = dialog.qualification_mode or request.qualification_mode


def _space_name(snapshot: Snapshot, requested: str) -> str:
    """The stored name of the requested space (any case); an unknown space means the default one."""
    space_id = snapshot.space_id(requested)
    if space_id is None:
        space_id = snapshot.default_space_id
    return snapshot.space_names.get(space_id, "")


def _welcome(snapshot: Snapshot, dialog: Dialog) -> Reply:
    text = substitute_variables(global_sentence(snapshot.sentences, dialog.language, K.WELCOME), dialog.variables)
    return Reply(text=text, type_response=TypeResponse.UNDERSTOOD)


def _pushed(snapshot: Snapshot, dialog: Dialog, item_id: int, request: TalkRequest) -> Reply | None:
    """An event-triggered item the chatbox's push rules fired."""
    item = snapshot.items.get(item_id)
    space_id = _space_id(snapshot, dialog)
    if item is None or item.kind != KnowledgeItem.Kind.EVENT:
        return None
    if not snapshot.reachable(item, dialog.language, space_id, dialog.qualification_mode):
        return None
    answer = _item_answer(snapshot, dialog, item_id, space_id)
    if answer is None:
        return None
    answer.type_response = TypeResponse.CLIENT_PUSH
    return answer


def _space_id(snapshot: Snapshot, dialog: Dialog) -> int:
    space_id = snapshot.space_id(dialog.space)
    return snapshot.default_space_id if space_id is None else space_id


def _understand(snapshot: Snapshot, dialog: Dialog, request: TalkRequest, text: str) -> Reply:
    language = dialog.language
    if not text:
        return Reply(global_sentence(snapshot.sentences, language, K.EMPTY_INPUT), TypeResponse.EMPTY)
    space_id = _space_id(snapshot, dialog)
    qualification = dialog.qualification_mode
    matcher = snapshot.matcher(language)

    allowed = snapshot.allowed_items(language, space_id, qualification)
    follow_ups = None
    if dialog.current_node_id:
        follow_ups = snapshot.follow_up_items(dialog.current_node_id, language, space_id, qualification)
    # The input is read once (with embeddings, the models' time): the follow-ups of a decision tree
    # ("oui" / "non") first, then the whole knowledge base, then the other spaces' items use it.
    evidence = matcher.read(text)
    result = matcher.match_first(text, [follow_ups, allowed] if follow_ups else [allowed], evidence=evidence)

    if result.outcome == "direct":
        item_id = result.candidates[0].item_id
        # An item that needs slots asks the missing ones first (dialogs/slots/).
        answer = slots.start(snapshot, dialog, item_id, text) or _item_answer(snapshot, dialog, item_id, space_id)
        if answer is not None:
            if request.origin == "reword_auto":
                answer.type_response = TypeResponse.REWORD_CLICKED
            dialog.misunderstood_streak = 0
            dialog.current_node_id = item_id if snapshot.items[item_id].has_children else None
            return answer
    # Answered only in another consultation space: offer that space (before any rewording here).
    if result.outcome != "direct" and (
        offer := spaces.offer(snapshot, dialog, matcher, text, space_id, _reword_text, evidence=evidence)
    ):
        return offer
    if result.outcome == "reword" and result.candidates:
        questions = [_reword_text(snapshot, language, candidate) for candidate in result.candidates[:3]]
        intro = global_sentence(snapshot.sentences, language, K.REWORD_INTRO)
        return Reply(
            text=rewording_answer(intro, questions),
            type_response=TypeResponse.ONE_REWORD if len(questions) == 1 else TypeResponse.SEVERAL_REWORDS,
            reworded=[candidate.item_id for candidate in result.candidates[:3]],
        )
    return _misunderstood(snapshot, dialog, request)


def _slot_answer(snapshot: Snapshot, dialog: Dialog):
    """The answer of an item whose slots are all filled, as a direct match gives it."""

    def answer(item_id: int) -> Reply | None:
        found = _item_answer(snapshot, dialog, item_id, _space_id(snapshot, dialog))
        if found is not None:
            dialog.current_node_id = item_id if snapshot.items[item_id].has_children else None
        return found

    return answer


def _misunderstood(snapshot: Snapshot, dialog: Dialog, request: TalkRequest) -> Reply:
    dialog.misunderstood_streak += 1
    limit = dialog.bot.too_many_misunderstood
    escalate = ""
    if limit and dialog.misunderstood_streak >= limit:
        dialog.misunderstood_streak = 0
        kind, type_response = K.TOO_MANY_MISUNDERSTOOD, TypeResponse.TOO_MANY_MISUNDERSTOOD
        escalate = "too_many_misunderstood"
    elif request.too_long:
        kind, type_response = K.TOO_LONG_INPUT, TypeResponse.TOO_LONG
    else:
        kind, type_response = K.MISUNDERSTOOD, TypeResponse.MISUNDERSTOOD
    return Reply(global_sentence(snapshot.sentences, dialog.language, kind), type_response, escalate=escalate)


def _reword_text(snapshot: Snapshot, language: str, candidate) -> str:
    """The question a rewording link shows: the matched formulation if it may be offered, else the
    item's first one that may. A formulation that refers to a matching group ({name}) is a pattern,
    not a sentence to show."""
    first = None
    for fid, item_id, text, rewordable in snapshot.formulations.get(language, ()):
        if item_id != candidate.item_id or not rewordable or "{" in text:
            continue
        if fid == candidate.formulation_id:
            return text
        first = first or text
    return first or plain_formulation(candidate.formulation_text)


def _item_answer(snapshot: Snapshot, dialog: Dialog, item_id: int, space_id: int) -> Reply | None:
    main = snapshot.answers([item_id], dialog.language, space_id).get(item_id)
    if main is None:
        return None
    # Complementary answers before, after or instead of it (their conditions and frequency).
    # Context conditions choose the answer's branch (dialogs/branches.py).
    text = branches.answer_text(snapshot, dialog, item_id, main)
    text, shown_complements = complements.add_to(snapshot, dialog, item_id, space_id, text)
    payload = rich_payload(main, dialog.variables)
    if getattr(main, "survey_id", None):  # the survey's UUID (the link's own column): no query
        payload["survey"] = str(main.survey_id)
    return Reply(
        # Links to web pages log their click as a talk (dialogs/clicks.py).
        text=clicks.logged_links(substitute_variables(text, dialog.variables)),
        type_response=TypeResponse.UNDERSTOOD,
        knowledge_id=item_id,
        ask_feedback=main.ask_feedback,
        payload=payload,
        escalate="answer" if main.livechat else "",
        competency=main.livechat_competency,
        complements=shown_complements,
    )
