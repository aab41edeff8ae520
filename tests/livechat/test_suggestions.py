"""Answers suggested to the operator (livechat/suggestions.py) through the console's websocket on the real ASGI
app: the bot's best answers to the visitor's last message, in the dialog's language and space, as plain text;
nothing stored by suggesting; the suggestion a sent message came from (and whether it was edited) and the
visitor's message it answers kept with the operator's interaction; bad suggestions refused, changing nothing."""

import asyncio

import pytest
from asgiref.sync import async_to_sync

from dialogs.handover import Code
from dialogs.models import Dialog, Interaction
from knowledge.matching import Matcher
from knowledge.models import KnowledgeItem
from livechat import suggestions
from livechat.models import LivechatEvent, Operator
from tests.livechat.conftest import ConsoleSocket

pytestmark = pytest.mark.django_db(transaction=True)

NOT_ARRIVED = "Une carte arrive sous 7 jours ouvrés après la commande. Passé ce délai, appelez-nous."


@pytest.fixture(autouse=True)
def lexical(settings):
    """The lexical matcher: the same suggestions on any machine, without building sentence vectors per test."""
    settings.MATCHING_EMBEDDINGS = False


def live(visitor, first_message: str):
    visitor.ask_for_human()
    visitor.write(first_message)
    request = visitor.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)
    return request, operator


def console(operator, *actions) -> list[dict]:
    """The console's replies to `actions`, in order (pushes in between skipped)."""

    async def scenario():
        socket = await ConsoleSocket(operator).open()
        await socket.until("state")
        replies = []
        for ref, action in enumerate(actions, start=1):
            await socket.send({**action, "ref": ref})
            while True:
                reply = await socket.receive()
                if reply.get("ref") == ref:
                    replies.append(reply)
                    break
        await socket.close()
        return replies

    return async_to_sync(scenario)()


def test_the_console_is_suggested_the_bots_answers_to_the_visitors_last_message(team, visitor):
    request, operator = live(visitor, "Je n'ai toujours pas reçu ma nouvelle carte")
    asked = Interaction.objects.filter(dialog=request.dialog).order_by("pk").last()
    stored = (Dialog.objects.count(), Interaction.objects.count(), LivechatEvent.objects.count())

    (reply,) = console(operator, {"action": "suggest", "dialog": request.pk})

    assert reply["type"] == "suggestions" and reply["dialog"] == request.pk
    assert (reply["for"], reply["question"]) == (asked.pk, "Je n'ai toujours pas reçu ma nouvelle carte")
    best = reply["suggestions"][0]
    # The item's answer as the operator writes it: plain text, the HTML's bold gone.
    assert (best["label"], best["text"]) == ("Card not arrived", NOT_ARRIVED)
    assert best["item"] == KnowledgeItem.objects.get(bot=request.bot, label="Card not arrived").pk
    assert 0 < best["score"] <= 1 and best["formulation"]
    assert len(reply["suggestions"]) <= suggestions.SHOWN
    # Suggesting is not a talk: no dialog, interaction or event for the visitor.
    assert (Dialog.objects.count(), Interaction.objects.count(), LivechatEvent.objects.count()) == stored
    assert visitor.poll() == {}


def test_suggestions_follow_the_dialogs_space_and_language(team, new_visitor):
    pro = new_visitor()
    pro.space = "Pro"
    request, operator = live(pro, "Combien coûte le compte ?")
    (reply,) = console(operator, {"action": "suggest", "dialog": request.pk})
    assert reply["suggestions"][0]["text"] == "Le compte professionnel est à 12 € par mois, deux cartes comprises."

    english = new_visitor()
    english.language = "en"
    english.ask_for_human("I want to talk to an advisor")
    english.write("How much does the account cost?")
    request = english.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)
    (reply,) = console(operator, {"action": "suggest", "dialog": request.pk})
    assert reply["suggestions"][0]["text"] == "The account costs €2 a month, card included."


def test_an_item_that_hands_over_to_a_human_is_never_suggested(team, visitor):
    request, operator = live(visitor, "Je veux parler à un conseiller")
    handover = KnowledgeItem.objects.get(bot=request.bot, label="Talk to an advisor")
    (reply,) = console(operator, {"action": "suggest", "dialog": request.pk})
    assert handover.pk not in [s["item"] for s in reply["suggestions"]]


def test_a_sent_suggestion_is_recorded_with_the_question_it_answers(team, visitor):
    request, operator = live(visitor, "Je n'ai toujours pas reçu ma nouvelle carte")
    question = Interaction.objects.filter(dialog=request.dialog).order_by("pk").last()
    item = KnowledgeItem.objects.get(bot=request.bot, label="Card not arrived")

    suggested, sent, edited = console(
        operator,
        {"action": "suggest", "dialog": request.pk},
        {"action": "send", "dialog": request.pk, "text": NOT_ARRIVED, "suggestion": item.pk},
        {"action": "send", "dialog": request.pk, "text": NOT_ARRIVED + " Bonne journée !", "suggestion": item.pk},
    )

    assert suggested["suggestions"][0]["item"] == item.pk
    assert sent["type"] == "sent"
    assert sent["message"]["suggestion"] == {"item": item.pk, "label": "Card not arrived", "edited": False}
    assert edited["message"]["suggestion"]["edited"] is True
    first, second = Interaction.objects.filter(dialog=request.dialog, human=True).order_by("pk")
    # The first reply answers the visitor's message; the second answers nothing new.
    assert first.payload["question"] == question.pk and "question" not in second.payload
    assert first.payload["suggestion"]["item"] == second.payload["suggestion"]["item"] == item.pk
    # The visitor gets the text, as any operator message.
    assert visitor.poll()["text"] == NOT_ARRIVED


def test_a_message_written_without_a_suggestion_records_none(team, visitor):
    request, operator = live(visitor, "Avez-vous une assurance pour mon chien ?")
    (sent,) = console(operator, {"action": "send", "dialog": request.pk, "text": "Pas encore, hélas."})
    assert sent["message"]["suggestion"] is None
    reply = Interaction.objects.get(dialog=request.dialog, human=True)
    assert "suggestion" not in reply.payload
    assert (
        reply.payload["question"]
        == Interaction.objects.get(dialog=request.dialog, type_response=Code.VISITOR_MESSAGE).pk
    )


@pytest.mark.parametrize(
    "suggestion, error",
    [("not a number", "the id of the suggested knowledge item"), (10**9, "no knowledge item 1000000000")],
)
def test_a_bad_suggestion_is_refused_and_nothing_is_sent(team, visitor, suggestion, error):
    request, operator = live(visitor, "Je n'ai toujours pas reçu ma nouvelle carte")
    stored = (Interaction.objects.count(), LivechatEvent.objects.count())
    (reply,) = console(operator, {"action": "send", "dialog": request.pk, "text": "Bonjour", "suggestion": suggestion})
    assert (reply["type"], reply["code"]) == ("error", "INVALID_FIELD")
    assert "suggestion" in reply["error"] and error in reply["error"]
    assert (Interaction.objects.count(), LivechatEvent.objects.count()) == stored
    assert visitor.poll() == {}


def test_another_bots_item_is_not_a_suggestion(team, visitor, demo_bot):
    from bots.models import Bot

    other = Bot.objects.create(name="Another bot", account=demo_bot.account)
    foreign = KnowledgeItem.objects.create(bot=other, label="Another bot's item")
    request, operator = live(visitor, "Bonjour")
    (reply,) = console(operator, {"action": "send", "dialog": request.pk, "text": "Bonjour", "suggestion": foreign.pk})
    assert reply["code"] == "INVALID_FIELD"
    assert not Interaction.objects.filter(dialog=request.dialog, human=True).exists()


def test_suggestions_for_a_dialog_that_is_not_of_the_account_are_refused(team, visitor):
    request, operator = live(visitor, "Bonjour")
    unknown, bad = console(
        operator, {"action": "suggest", "dialog": request.pk + 1000}, {"action": "suggest", "dialog": "x"}
    )
    assert (unknown["type"], unknown["code"]) == ("error", "UNKNOWN_DIALOG")
    assert (bad["type"], bad["code"]) == ("error", "INVALID_FIELD")


def test_the_matcher_runs_off_the_event_loop_and_once_per_message(team, visitor, monkeypatch):
    request, operator = live(visitor, "Je n'ai toujours pas reçu ma nouvelle carte")
    ranked = []
    rank = Matcher.rank

    def counted(self, *args, **kwargs):
        try:
            asyncio.get_running_loop()
            ranked.append("on the event loop")
        except RuntimeError:  # no loop in this thread: a worker thread's
            ranked.append("in a thread")
        return rank(self, *args, **kwargs)

    monkeypatch.setattr(Matcher, "rank", counted)
    first, again = console(
        operator, {"action": "suggest", "dialog": request.pk}, {"action": "suggest", "dialog": request.pk}
    )
    assert first["suggestions"] == again["suggestions"] and first["suggestions"]
    # Asked again (a reload, a colleague), the same message's ranking is not computed twice.
    assert ranked == ["in a thread"]
