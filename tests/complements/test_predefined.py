"""Predefined answers: never matched from a visitor's question; offered to operators as the console's
canned answers, searched through the console's real websocket (/servlet/operator/ws on the ASGI app),
scoped to the dialog's bot, language and space and to the operator's account."""

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Account
from bots.models import Bot, Space
from dialogs.models import Dialog
from knowledge.models import Answer, Formulation, KnowledgeItem, Tag
from livechat import canned
from livechat.models import LivechatRequest, Operator
from tests.livechat.conftest import ConsoleSocket

pytestmark = pytest.mark.django_db(transaction=True)

DEMO_CANNED = ["Accueil du visiteur", "Vérification d'identité", "Carte mise en opposition", "Clôture"]


def predefined(bot, label: str, texts: dict, *, status="published", tag=None, space=None, position=10):
    item = KnowledgeItem.objects.create(
        bot=bot, kind=KnowledgeItem.Kind.PREDEFINED, status=status, label=label, tag=tag, position=position
    )
    for language, text in texts.items():
        Answer.objects.create(item=item, language=language, space=space or bot.default_space(), text=text)
    return item


def search(operator, dialog, *queries) -> list:
    """What the console gets for each search, in turn, over one websocket."""

    async def scenario():
        console = await ConsoleSocket(operator).open()
        await console.until("state")
        replies = []
        for query in queries:
            await console.send({"action": "canned", "dialog": dialog, "q": query, "ref": len(replies)})
            reply = await console.receive()
            while reply.get("type") not in ("canned", "error"):
                reply = await console.receive()
            replies.append(reply)
        await console.close()
        return replies

    return async_to_sync(scenario)()


@pytest.fixture
def live(team, visitor):
    """A visitor of the demo bot in live chat with one of the team."""
    visitor.ask_for_human()
    request = visitor.live_request()
    return request, Operator.objects.select_related("user").get(pk=request.operator_id)


def test_a_predefined_answer_is_never_matched_from_a_question(chatbox, demo_bot):
    item = predefined(demo_bot, "Délai de virement", {"fr": "Un virement arrive en un jour ouvré."})
    Formulation.objects.create(item=item, language="fr", text="Quel est le délai d'un virement ?")
    for question in ("Quel est le délai d'un virement ?", "Délai de virement"):
        values = chatbox.talk(question, qualificationMode="true")
        assert values["knowledgeId"] != item.pk and "un jour ouvré" not in values["text"]
        chatbox.context_id = ""
    # The same item as a question is answered: only its kind kept it out of matching.
    item.kind = KnowledgeItem.Kind.QUESTION
    item.save()
    assert chatbox.talk("Quel est le délai d'un virement ?")["knowledgeId"] == item.pk


def test_the_console_lists_the_bots_published_predefined_answers_with_their_theme(live):
    request, operator = live
    (reply,) = search(operator, request.pk, "")
    assert reply["type"] == "canned"
    assert [answer["label"] for answer in reply["answers"]] == DEMO_CANNED
    card = reply["answers"][2]
    assert card["theme"] == "Cartes"
    assert card["text"].startswith("C'est fait : votre carte est en opposition.")
    assert {answer["theme"] for answer in reply["answers"][:2]} == {""}


def test_the_search_looks_in_label_answer_and_theme_without_case_or_accents(live):
    request, operator = live
    by_label, no_accent, by_text, by_theme, nothing = search(
        operator, request.pk, "CLÔTURE", "cloture", "date de naissance", "cartes", "zzz"
    )
    assert [answer["label"] for answer in by_label["answers"]] == ["Clôture"]
    assert no_accent["answers"] == by_label["answers"]
    assert [answer["label"] for answer in by_text["answers"]] == ["Vérification d'identité"]
    assert [answer["label"] for answer in by_theme["answers"]] == ["Carte mise en opposition"]
    assert nothing["answers"] == []


def test_only_this_bots_published_answers_in_the_dialogs_language(live, demo_bot):
    request, operator = live
    predefined(demo_bot, "Brouillon", {"fr": "Pas encore prêt."}, status="draft")
    predefined(demo_bot, "Désactivée", {"fr": "Plus utilisée."}, status="disabled")
    predefined(demo_bot, "English only", {"en": "Only in English."})
    sister = Bot.objects.create(name="Autre bot", account=demo_bot.account, default_language="fr")
    Space.objects.create(bot=sister, name="Defaut", is_default=True)
    predefined(sister, "Autre bot", {"fr": "Réponse d'un autre bot."})
    (reply,) = search(operator, request.pk, "")
    assert [answer["label"] for answer in reply["answers"]] == DEMO_CANNED
    # The dialog in English gets the English answers.
    Dialog.objects.filter(pk=request.dialog_id).update(language="en")
    (english,) = search(operator, request.pk, "")
    assert [answer["label"] for answer in english["answers"]] == [*DEMO_CANNED, "English only"]
    assert english["answers"][0]["text"].startswith("Hello, I am your advisor")


def test_the_dialogs_space_answer_wins_over_the_default_one(live, demo_bot):
    request, operator = live
    pro = Space.objects.get(bot=demo_bot, name="Pro")
    tag = Tag.objects.create(bot=demo_bot, name="Entreprises")
    item = predefined(demo_bot, "Conseiller dédié", {"fr": "Un conseiller vous rappelle."}, tag=tag)
    Answer.objects.create(item=item, language="fr", space=pro, text="Votre <b>chargé d'affaires</b> vous rappelle.")
    (default,) = search(operator, request.pk, "conseiller dédié")
    Dialog.objects.filter(pk=request.dialog_id).update(space="Pro")
    (in_pro,) = search(operator, request.pk, "conseiller dédié")
    assert [a["text"] for a in default["answers"]] == ["Un conseiller vous rappelle."]
    assert [a["text"] for a in in_pro["answers"]] == ["Votre chargé d'affaires vous rappelle."]
    assert in_pro["answers"][0]["theme"] == "Entreprises"


def test_another_accounts_dialog_is_not_searched(live):
    _, operator = live
    other = Account.objects.create(name="Concurrent")
    bot = Bot.objects.create(name="Leur bot", account=other, default_language="fr")
    Space.objects.create(bot=bot, name="Defaut", is_default=True)
    predefined(bot, "Secret", {"fr": "Leur réponse."})
    dialog = Dialog.objects.create(bot=bot, language="fr", space="Defaut")
    theirs = LivechatRequest.objects.create(dialog=dialog, bot=bot, account=other)
    (unknown,), (malformed,) = search(operator, theirs.pk, ""), search(operator, "abc", "")
    assert (unknown["type"], unknown["code"]) == ("error", "UNKNOWN_DIALOG")
    assert "Leur réponse" not in str(unknown)
    assert (malformed["type"], malformed["code"]) == ("error", "INVALID_FIELD")


def test_searching_again_reads_no_knowledge(live):
    request, _ = live
    request = LivechatRequest.objects.select_related("dialog__bot").get(pk=request.pk)
    with CaptureQueriesContext(connection) as first:
        canned.search(request, "opposition")
    with CaptureQueriesContext(connection) as again:
        assert [answer["label"] for answer in canned.search(request, "bonjour")] == ["Accueil du visiteur"]
    # The bot's predefined answers are read once per knowledge version.
    assert len(first.captured_queries) <= 1 and len(again.captured_queries) == 0
