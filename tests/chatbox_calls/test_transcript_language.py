"""The visitor's copies of a transcript speak the dialog's language: the printable page CV5 opens
(/servlet/history and chat/print/{bot}) and the transcript e-mailed with #dydumailto#, labels, dates and the
operator's default name included; a page without a dialog speaks the browser's language (French when it says
nothing). Plain-text copies keep the space between two sentences an answer joined with <br> (the dialogs page's
notices, the e-mailed transcript, the GDPR export): "conseiller. Tous", never "conseiller.Tous"."""

from datetime import timedelta

import lxml.html
import pytest
from django.core import mail

from dialogs.gdpr.data import export
from dialogs.models import Dialog, GdprRequest, Interaction
from tests.accounts.personas import make_persona
from tests.chatbox_calls.test_transcript import history_url, lines_of
from tests.clicks.conftest import fresh_address, fresh_recipient, mail_day  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db
JOINED = "Je vous mets en relation avec un conseiller.<br>Tous nos conseillers sont occupés."


def page_of(response) -> lxml.html.HtmlElement:
    assert response.status_code == 200, response.content[:300]
    return lxml.html.fromstring(response.content)


def with_an_operator_line(chatbox):
    """A message of an operator whose name was not kept (the transcript's default name then)."""
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    last = Interaction.objects.filter(dialog=dialog).latest("created_at")
    Interaction.objects.create(
        dialog=dialog, bot_id=dialog.bot_id, created_at=last.created_at + timedelta(seconds=1), user_input="",
        answer="<p>Bonjour, je regarde.</p>", type_response="OPLiveChatAnswer", language=dialog.language,
        space=dialog.space, human=True,
    )  # fmt: skip


@pytest.mark.parametrize(
    "language, question, words",
    [
        ("fr", "Quels sont vos horaires d'ouverture ?", ("Conversation avec Chatbot", "Moi", "Conseiller", "Début")),
        ("en", "What are your opening hours?", ("Conversation with Chatbot", "Me", "Adviser", "Started")),
    ],
)
def test_the_printable_page_speaks_the_dialogs_language(client, chatbox, language, question, words):
    heading, me, adviser, started = words
    chatbox.language = language
    chatbox.talk(question)
    with_an_operator_line(chatbox)
    # Both doors, without the labels CV5 may send: the defaults in the dialog's language.
    for url in (
        f"/servlet/history?context={chatbox.context_id}&format=html",
        f"/servlet/api/chat/print/{chatbox.bot}?contextUuid={chatbox.context_id}",
    ):
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="de" if language == "fr" else "fr")  # never the browser's
        tree = page_of(response)
        assert tree.get("lang") == language
        assert tree.xpath("string(//h1)") == heading
        assert started in tree.xpath("string(//dl)")
        lines = lines_of(response.content)
        assert [(side, author) for side, author, _ in lines] == [
            ("visitor", me),
            ("bot", "Chatbot"),
            ("operator", adviser),
        ]
        printed = tree.xpath("string(//footer/span[1])")
        assert printed.startswith({"fr": "Imprimé le ", "en": "Printed on "}[language])


def test_the_labels_cv5_sends_are_kept(client, chatbox):
    chatbox.language = "en"
    chatbox.talk("What are your opening hours?")
    lines = lines_of(client.get(history_url(chatbox.context_id, userLabel="Moi", botLabel="Clara")).content)
    assert [author for _, author, _ in lines] == ["Moi", "Clara"]


def test_a_page_without_a_dialog_speaks_the_browsers_language(client, demo_bot):
    missing = "/servlet/history?context=6f1b8f40-0000-4000-8000-000000000000&format=html"
    english = client.get(missing, HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")
    assert english.status_code == 404
    tree = lxml.html.fromstring(english.content)
    assert (tree.get("lang"), tree.xpath("string(//h1)")) == ("en", "Conversation not found")
    assert "This conversation does not exist or is no longer available." in english.content.decode()
    french = client.get(missing)  # a browser that says nothing: French, as before
    assert lxml.html.fromstring(french.content).xpath("string(//h1)") == "Conversation introuvable"
    wrong_format = client.get(missing.replace("format=html", "format=pdf"), HTTP_ACCEPT_LANGUAGE="en")
    assert wrong_format.status_code == 400
    assert "Cannot print" in wrong_format.content.decode()
    assert "Only the html format is available." in wrong_format.content.decode()


def mail_transcript(chatbox) -> None:
    """#dydumailto# from a client address and to a recipient of this test's own: the mail allowances count
    in the shared cache (Redis in CI, kept between runs), where a fixed address runs out after 3 mails an hour."""
    chatbox.client.defaults["REMOTE_ADDR"] = fresh_address()
    chatbox.talk(f"#dydumailto:{chatbox.context_id}:{fresh_recipient('paul')}#")


def test_the_e_mailed_transcript_speaks_the_dialogs_language(chatbox, mail_day):  # noqa: F811
    chatbox.language = "en"
    chatbox.talk("What are your opening hours?")
    with_an_operator_line(chatbox)
    mail_transcript(chatbox)
    [sent] = mail.outbox
    assert "Me : What are your opening hours?" in sent.body and "Adviser : Bonjour, je regarde." in sent.body
    html, _ = sent.alternatives[0]
    tree = lxml.html.fromstring(html)
    assert tree.get("lang") == "en" and tree.xpath("string(//h1)").startswith("Conversation with")


def test_sentences_joined_by_a_line_break_keep_their_space_in_plain_text(client, chatbox, mail_day):  # noqa: F811
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    Interaction.objects.create(
        dialog=dialog, bot_id=dialog.bot_id, created_at=dialog.last_activity + timedelta(seconds=1),
        user_input="Je veux parler à un conseiller", answer=JOINED, type_response="NAWaitingForOperator",
        language="fr", space=dialog.space,
    )  # fmt: skip
    glued, spaced = "conseiller.Tous", "conseiller. Tous nos conseillers sont occupés."

    # The dialogs page: the live-chat notice, in the staff's language, its sentences apart.
    staff, _ = make_persona(dialog.bot.account, "administrator")
    client.force_login(staff)
    page = client.get(f"/admin/dialogs/dialog/{dialog.pk}/change/").content.decode()
    assert f"Waiting for an operator: Je vous mets en relation avec un {spaced}" in page and glued not in page
    client.cookies["django_language"] = "fr"
    page = client.get(f"/admin/dialogs/dialog/{dialog.pk}/change/").content.decode()
    assert spaced in page and glued not in page and "Waiting for an operator" not in page

    # The transcript e-mailed to the visitor.
    mail_transcript(chatbox)
    [sent] = mail.outbox
    assert spaced in sent.body and glued not in sent.body

    # The GDPR export of the visitor's data.
    data, _ = export(GdprRequest(bot=dialog.bot, client_id=chatbox.client_id, object="Get"), "Banque")
    answers = [row["answer"] for entry in data["dialogs"] for row in entry["interactions"]]
    assert f"Je vous mets en relation avec un {spaced}" in answers
