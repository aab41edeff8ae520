"""The "test the bot" box on the bot's page: a talk in qualification mode through the chat's own
pipeline (dialogs/engine.py; such dialogs never count in analytics), and why the bot answered so."""

from dataclasses import replace

from django.http import JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.lockout import client_address
from bots.servlet.errors import ServletError, error_response
from bots.servlet.params import ServletParams
from dialogs.engine import TypeResponse, talk
from dialogs.requests import talk_request_from_params
from knowledge.answer_html import clean
from knowledge.models import KnowledgeItem
from knowledge.snapshot import snapshot_for

DIRECT = {TypeResponse.UNDERSTOOD, TypeResponse.REWORD_CLICKED, TypeResponse.CLIENT_PUSH}
REWORD = {TypeResponse.ONE_REWORD, TypeResponse.SEVERAL_REWORDS}
MISUNDERSTOOD = {TypeResponse.MISUNDERSTOOD, TypeResponse.TOO_MANY_MISUNDERSTOOD}
RUNNERS_UP = 4
BROWSER = "back office: test the bot"


def outcome_of(type_response: str) -> str:
    if type_response in DIRECT:
        return "direct"
    if type_response in REWORD:
        return "reword"
    if type_response in MISUNDERSTOOD:
        return "misunderstood"
    return "other"


def _item(item_id: int, labels: dict[int, str]) -> dict:
    return {
        "id": item_id,
        "label": labels.get(item_id) or f"Knowledge {item_id}",
        "url": reverse("admin:knowledge_knowledgeitem_change", args=[item_id]),
    }


def explain(bot, text: str, language: str, space_name: str) -> dict:
    """What the matcher says of `text` where the test dialog stands: its decision, the best item's score
    and formulation, and the runners-up (the same allowed items as the talk: drafts included)."""
    snapshot = snapshot_for(bot)
    space_id = snapshot.space_id(space_name)
    if space_id is None:
        space_id = snapshot.default_space_id
    matcher = snapshot.matcher(language)
    result = matcher.match(text, allowed=snapshot.allowed_items(language, space_id, True))
    ranked = matcher.rank(text, allowed=snapshot.allowed_items(language, space_id, True), k=RUNNERS_UP + 1)
    labels = dict(KnowledgeItem.objects.filter(pk__in=[c.item_id for c in ranked]).values_list("pk", "label"))
    candidates = [{**_item(c.item_id, labels), "score": c.score, "formulation": c.formulation_text} for c in ranked]
    return {
        "decision": result.outcome,
        "best": candidates[0] if candidates else None,
        "runnersUp": candidates[1:],
        "thresholds": {"direct": round(matcher.thresholds.direct, 3), "reword": round(matcher.thresholds.reword, 3)},
    }


def box_view(model_admin):
    """POST userInput, language, space, contextId → the answer and why, as JSON."""

    @require_POST
    def view(request, object_id):
        bot = get_object_or_404(model_admin.get_queryset(request), pk=object_id)
        if not model_admin.has_view_permission(request, bot):
            return error_response(403, "FORBIDDEN", _("You may not test this bot."))
        try:
            # The box's form read by the chat's own rules (the REST talk's fields and checks), then made a
            # test: qualification mode, language detection only when no language is chosen.
            wanted = talk_request_from_params(
                ServletParams(request.POST.dict()), client_address=client_address(request)
            )
        except ServletError as error:
            return error.response()
        language, space = wanted.language, wanted.space
        if language and language not in bot.language_codes():
            return error_response(
                400, "UNKNOWN_LANGUAGE", _("“%(l)s” is not a language of this bot.") % {"l": language}
            )
        if space and bot.find_space(space) is None:
            return error_response(400, "UNKNOWN_SPACE", _("“%(s)s” is not a space of this bot.") % {"s": space})
        wanted = replace(wanted, qualification_mode=True, language_detection=not language, browser=BROWSER)
        response = talk(bot, wanted)
        text = wanted.user_input
        labels = {}
        if response.knowledge_id:
            labels = dict(KnowledgeItem.objects.filter(pk=response.knowledge_id).values_list("pk", "label"))
        body = {
            "contextId": str(response.dialog.uuid),
            "text": clean(response.text),
            "typeResponse": response.type_response,
            "outcome": outcome_of(response.type_response),
            "language": response.language,
            "space": response.dialog.space or "",
            "item": _item(response.knowledge_id, labels) if response.knowledge_id else None,
            "why": explain(bot, text, response.language, response.dialog.space) if text.strip() else None,
        }
        return JsonResponse(body)

    return view
