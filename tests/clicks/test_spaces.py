"""Space redirection through the talk endpoint and the websocket talk frame: a question answered only in
another consultation space gets a link offering that space; the link's click (extraParameters
redirection_consultation_space) moves the dialog there, answers in it and tells the chatbox (guiCSName)."""

import json
import re

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from config.asgi import application
from dialogs.models import Dialog, Interaction
from knowledge.models import KnowledgeItem
from tests.conftest import decode
from tests.livechat.conftest import b64, talk_frame

TERMINAL = "Comment obtenir un terminal de paiement ?"
SPACE_LINK = re.compile(
    r"reword\('(?P<q>(?:[^'\\]|\\.)*)',\{'type':'redirection_consultation_space',"
    r"'space':'(?P<space>[^']*)','knowledgeId':'(?P<id>\d+)'\}\)"
)


def clicked(link: re.Match) -> tuple[str, str]:
    """What the chatbox sends for the link: its question and the options object as extraParameters."""
    options = {"type": "redirection_consultation_space", "space": link["space"], "knowledgeId": link["id"]}
    return link["q"].replace("\\'", "'"), json.dumps(options)


@pytest.mark.django_db
def test_a_question_answered_only_in_another_space_offers_it_and_the_click_answers_there(chatbox, demo_bot):
    terminal = KnowledgeItem.objects.get(bot=demo_bot, label="Payment terminal")
    chatbox.talk("Bonjour")
    for _ in range(2):
        chatbox.talk("xyzzy plugh frobozz")
    offer = chatbox.talk(TERMINAL)
    assert offer["typeResponse"] == "DMSpaceRedirection"
    assert "l'espace « Defaut », mais l'espace « Pro » en a une" in offer["text"]
    assert offer["knowledgeId"] == 0 and "guiCSName" not in offer
    link = SPACE_LINK.search(offer["text"])
    assert (link["q"], link["space"], int(link["id"])) == (TERMINAL, "Pro", terminal.pk)
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    assert (dialog.space, dialog.misunderstood_streak) == ("Defaut", 0)  # the bot knew the answer

    question, extra = clicked(link)
    answer = chatbox.talk(question, extra=extra)  # the chatbox still says space=Defaut
    assert (answer["typeResponse"], answer["knowledgeId"]) == ("DMUnderstoodQuestion", terminal.pk)
    assert "terminal de paiement" in answer["text"] and "sous 5 jours" in answer["text"]
    assert answer["guiCSName"] == "Pro"  # the chatbox switches its space
    dialog.refresh_from_db()
    assert dialog.space == "Pro"
    interaction = Interaction.objects.filter(dialog=dialog).order_by("-id").first()
    assert (interaction.origin, interaction.space, interaction.counted) == (
        "redirection_consultation_space",
        "Pro",
        True,
    )
    # From then on the chatbox sends space=Pro: the space's own answers
    chatbox.space = "Pro"
    assert "du lundi au vendredi, de 8 h à 19 h" in chatbox.talk("Quels sont vos horaires d'ouverture ?")["text"]


@pytest.mark.django_db
def test_a_question_answered_here_is_never_redirected_and_nonsense_stays_misunderstood(chatbox, demo_bot):
    chatbox.space = "Pro"
    assert chatbox.talk(TERMINAL)["typeResponse"] == "DMUnderstoodQuestion"
    chatbox.space = "Defaut"
    hours = chatbox.talk("Quels sont vos horaires d'ouverture ?")
    assert hours["typeResponse"] == "DMUnderstoodQuestion" and "mardi au samedi" in hours["text"]
    assert chatbox.talk("xyzzy plugh frobozz")["typeResponse"] == "GBMisunderstoodQuestion"


@pytest.mark.django_db
def test_a_click_naming_an_unknown_space_stays_in_the_dialogs_space(chatbox):
    extra = json.dumps({"type": "redirection_consultation_space", "space": "Nowhere"})
    values = chatbox.talk(TERMINAL, extra=extra)
    assert "guiCSName" not in values
    assert values["typeResponse"] == "DMSpaceRedirection"  # still only answered in Pro: offered again
    assert Dialog.objects.get(uuid=chatbox.context_id).space == "Defaut"


@pytest.mark.django_db(transaction=True)
def test_space_redirection_over_the_websocket_talk_frame(demo_bot):
    bot = str(demo_bot.uuid)

    async def scenario():
        communicator = WebsocketCommunicator(application, "/servlet//chatWs")
        assert (await communicator.connect())[0]
        try:
            await communicator.send_to(text_data=json.dumps(talk_frame(bot, TERMINAL)))
            offer = decode(json.loads(await communicator.receive_from(timeout=10))["values"])
            question, extra = clicked(SPACE_LINK.search(offer["text"]))
            frame = talk_frame(bot, question, offer["contextId"])
            # Over the websocket the chatbox sends extraParameters as an object of btoa'd values.
            frame["parameters"]["extraParameters"] = {key: b64(value) for key, value in json.loads(extra).items()}
            await communicator.send_to(text_data=json.dumps(frame))
            answer = decode(json.loads(await communicator.receive_from(timeout=10))["values"])
            return offer, answer
        finally:
            await communicator.disconnect()

    offer, answer = async_to_sync(scenario)()
    assert offer["typeResponse"] == "DMSpaceRedirection"
    assert (answer["typeResponse"], answer["guiCSName"]) == ("DMUnderstoodQuestion", "Pro")
    assert "terminal de paiement" in answer["text"]
    assert Dialog.objects.get(uuid=answer["contextId"]).space == "Pro"


@pytest.mark.django_db
@pytest.mark.parametrize("text", [TERMINAL, "xyzzy plugh frobozz"])
def test_the_offer_reads_the_input_once(chatbox, demo_bot, monkeypatch, text):
    """Looking for another space reuses what the talk's matching read of the input: with embeddings,
    reading it is the models' time, and a question the bot does not know used to pay it twice."""
    from knowledge.matching.matcher import Matcher

    reads = []
    real = Matcher.components
    monkeypatch.setattr(Matcher, "components", lambda self, *a, **k: reads.append(a[0]) or real(self, *a, **k))
    chatbox.talk("Bonjour")
    reads.clear()
    answer = chatbox.talk(text)
    assert answer["typeResponse"] in ("DMSpaceRedirection", "GBMisunderstoodQuestion"), answer["typeResponse"]
    assert reads == [text]
