"""The printable transcript CV5 opens (`/servlet/history?context=…&format=html&userLabel=Moi&botLabel=Chatbot`,
client-contract.md §2.2 (23)) and chat/print/{bot}: every exchange in order, the visitor's words as text,
answers cleaned of anything that runs, the chatbox's labels, a 404 page for an unknown context."""

import uuid
from urllib.parse import urlencode

import lxml.html
import pytest
from django.utils import timezone

from dialogs.models import Dialog, Interaction
from tests.chatbox_calls.conftest import png, send_file

pytestmark = pytest.mark.django_db

HOSTILE_QUESTION = "<script>alert('x')</script> Quels sont vos horaires d'ouverture ?"


def history_url(context_id: str, prefix: str = "/servlet", **labels) -> str:
    query = {"context": context_id, "format": "html", "userLabel": "Moi", "botLabel": "Chatbot", **labels}
    return f"{prefix}/history?{urlencode(query)}"


def lines_of(page: bytes) -> list[tuple[str, str, str]]:
    """(side, author, text) of each line of the page, as a reader sees them."""
    tree = lxml.html.fromstring(page)
    return [
        (
            item.get("data-side"),
            item.find_class("who")[0].text_content().strip(),
            item.find_class("what")[0].text_content().strip(),
        )
        for item in tree.xpath('//li[@data-testid="line"]')
    ]


def test_the_page_shows_the_dialog_in_order_with_the_chatbox_labels(client, chatbox):
    chatbox.talk(HOSTILE_QUESTION)
    chatbox.talk("carte")
    response = client.get(history_url(chatbox.context_id))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    lines = lines_of(response.content)
    stored = list(Interaction.objects.filter(dialog__uuid=chatbox.context_id).order_by("created_at", "id"))
    assert [side for side, _, _ in lines] == ["visitor", "bot"] * len(stored)
    assert {author for side, author, _ in lines if side == "visitor"} == {"Moi"}
    assert {author for side, author, _ in lines if side == "bot"} == {"Chatbot"}
    # The visitor's words exactly as typed, as text: the <script> stays visible characters.
    assert lines[0][2] == HOSTILE_QUESTION
    assert lines[2][2] == "carte"
    assert "horaires" in lines[1][2].lower() or "ouvert" in lines[1][2].lower()
    page = response.content.decode()
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "<script" not in page
    # Nothing runs there, and it is not framed by another site.
    policy = response["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy and "frame-ancestors 'none'" in policy
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "@media print" in page


def test_answer_html_is_cleaned_as_the_console_cleans_it(client, chatbox):
    chatbox.talk("Bonjour")
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    Interaction.objects.create(
        dialog=dialog,
        bot=dialog.bot,
        user_input="Et ensuite ?",
        answer=(
            '<p onclick="steal()">Voici <b>la suite</b><script>alert(1)</script>'
            '<a href="javascript:alert(2)">piège</a> <a href="https://banque.example/aide">aide</a>'
            '<img src="x" onerror="alert(3)"><iframe src="https://evil.example"></iframe>'
            "<style>body{display:none}</style></p>"
        ),
        type_response="DMAnswer",
        language="fr",
    )
    page = client.get(history_url(chatbox.context_id)).content.decode()
    for forbidden in ("onclick", "<script", "javascript:", "onerror", "<iframe", "<style>body", "steal()"):
        assert forbidden not in page
    assert "Voici <b>la suite</b>" in page
    assert 'href="https://banque.example/aide"' in page
    assert 'rel="noopener noreferrer nofollow"' in page


def test_labels_are_text_and_bounded(client, chatbox):
    chatbox.talk("Bonjour")
    response = client.get(history_url(chatbox.context_id, userLabel="<b>Jean</b>", botLabel="B" * 300))
    page = response.content.decode()
    assert "&lt;b&gt;Jean&lt;/b&gt;" in page and "<b>Jean" not in page
    assert "B" * 41 not in page
    defaults = client.get(f"/servlet/history?context={chatbox.context_id}")
    assert {author for _, author, _ in lines_of(defaults.content)} == {"Moi", "Chatbot"}


def test_operator_lines_and_files_appear_as_such(client, chatbox, settings, tmp_path):
    settings.CHAT_UPLOAD_DIR = tmp_path
    chatbox.talk("Bonjour")
    send_file(client, chatbox.context_id, "relevé <mars>.png", png(), "image/png")
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    Interaction.objects.create(
        dialog=dialog,
        bot=dialog.bot,
        answer="Merci, je regarde votre relevé.",
        type_response="OPRegularOperatorAnswer",
        language="fr",
        human=True,
        payload={"fromDetail": "Léa"},
        created_at=timezone.now(),
    )
    lines = lines_of(client.get(history_url(chatbox.context_id)).content)
    assert lines[-2][0:2] == ("visitor", "Moi")
    assert lines[-2][2] == f"relevé <mars>.png {len(png())} o"
    assert lines[-1] == ("operator", "Léa", "Merci, je regarde votre relevé.")


@pytest.mark.parametrize("context_id", ["7313462b-c6a0-44ca-a149-69c4e6f1df51", "pas-un-identifiant", ""])
def test_an_unknown_context_gets_a_404_page(client, demo_bot, context_id):
    response = client.get(history_url(context_id))
    assert response.status_code == 404
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "Conversation introuvable" in response.content.decode()


def test_a_revoked_context_is_not_printed(client, chatbox):
    chatbox.talk("Bonjour")
    Dialog.objects.filter(uuid=chatbox.context_id).update(archived_at=timezone.now())
    assert client.get(history_url(chatbox.context_id)).status_code == 404


def test_only_html_is_offered(client, chatbox):
    chatbox.talk("Bonjour")
    response = client.get(history_url(chatbox.context_id, format="pdf"))
    assert response.status_code == 400
    assert "html" in response.content.decode()
    assert client.get(history_url(chatbox.context_id, format="HTML")).status_code == 200


def test_the_path_without_servlet_serves_the_same_page(client, chatbox):
    chatbox.talk("Bonjour")
    with_servlet = client.get(history_url(chatbox.context_id))
    without = client.get(history_url(chatbox.context_id, prefix=""))
    assert without.status_code == 200
    assert lines_of(without.content) == lines_of(with_servlet.content)


def test_the_page_costs_two_queries_whatever_the_length(client, chatbox, django_assert_num_queries):
    for text in ("Bonjour", "carte", "Quels sont vos horaires d'ouverture ?", "merci"):
        chatbox.talk(text)
    # The dialog with its bot, then its interactions.
    with django_assert_num_queries(2):
        response = client.get(history_url(chatbox.context_id))
    assert len(lines_of(response.content)) == 8


# ------------------------------------------------------------------------------------------ chat/print


def test_chat_print_serves_the_same_page_for_the_bots_dialog(client, chatbox):
    chatbox.talk(HOSTILE_QUESTION)
    page = client.get(history_url(chatbox.context_id))
    for prefix in ("/servlet/api", "/api"):
        printed = client.post(
            f"{prefix}/chat/print/{chatbox.bot}/",
            {"contextUuid": chatbox.context_id, "userLabel": "Moi", "botLabel": "Chatbot", "solutionUsed": "ASSISTANT"},
        )
        assert printed.status_code == 200
        assert lines_of(printed.content) == lines_of(page.content)
    by_get = client.get(f"/servlet/api/chat/print/{chatbox.bot}?contextId={chatbox.context_id}")
    assert lines_of(by_get.content) == lines_of(page.content)


def test_chat_print_refuses_an_unknown_bot_or_another_bots_context(client, chatbox):
    chatbox.talk("Bonjour")
    unknown_bot = client.post(f"/servlet/api/chat/print/{uuid.uuid4()}", {"contextUuid": chatbox.context_id})
    assert unknown_bot.status_code == 404
    assert unknown_bot.json()["code"] == "UNKNOWN_BOT"
    from bots.models import Bot

    other = Bot.objects.create(name="Autre banque")
    elsewhere = client.post(f"/servlet/api/chat/print/{other.uuid}", {"contextUuid": chatbox.context_id})
    assert elsewhere.status_code == 404
    assert "Conversation introuvable" in elsewhere.content.decode()
    missing = client.post(f"/servlet/api/chat/print/{chatbox.bot}", {})
    assert missing.status_code == 404
