"""A file sent during live chat reaches the operator through the console's real path (the operators'
websocket on the real ASGI app): pushed at once as the visitor's message with its card, in the transcript
the console loads, and downloadable from the link it carries. chat/reading as CV5 sends it (§2.2 (17))."""

import base64

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.test import Client

from livechat.models import ChatUpload, LivechatRequest, Operator
from tests.chatbox_calls.conftest import cv5_answer, pdf, send_file
from tests.livechat.conftest import ConsoleSocket, team, visitor  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db(transaction=True)


def run(scenario):
    return async_to_sync(scenario)()


def held(chatbox) -> tuple[LivechatRequest, Operator]:
    request = chatbox.live_request()
    return request, Operator.objects.select_related("user").get(pk=request.operator_id)


def test_a_file_sent_in_live_chat_is_shown_to_the_operator_with_its_download(team, visitor, upload_dir):  # noqa: F811
    visitor.ask_for_human()
    request, operator = held(visitor)
    document = pdf()

    async def scenario():
        console = await ConsoleSocket(operator).open()
        await console.until("state")
        answer = await database_sync_to_async(send_file)(
            Client(), visitor.context_id, "relevé de compte.pdf", document, "application/pdf"
        )
        pushed = await console.until("message")
        opened = await console.act(action="open", dialog=request.pk)
        await console.close()
        return answer, pushed, opened

    answer, pushed, opened = run(scenario)
    assert cv5_answer(answer.content.decode())["params"]["status"] == "success"
    upload = ChatUpload.objects.get()
    card = {
        "id": upload.pk,
        "name": "relevé de compte.pdf",
        "size": len(document),
        "contentType": "application/pdf",
        "url": f"/livechat/uploads/{upload.pk}",
    }
    # Pushed to the operator who holds the dialog, as the visitor's next message.
    assert pushed["dialog"] == request.pk
    assert pushed["message"]["from"] == "visitor"
    assert pushed["message"]["user"] == "relevé de compte.pdf"
    assert pushed["message"]["file"] == card
    # The transcript the console loads has it too, after the bot conversation.
    assert opened["type"] == "transcript"
    assert opened["messages"][-1]["file"] == card
    # The visitor now waits for the operator (the operator's clock runs again).
    request.refresh_from_db()
    assert request.waiting_on == LivechatRequest.Waiting.OPERATOR
    # The link downloads the very bytes, for that operator.
    browser = Client()
    browser.force_login(operator.user)
    download = browser.get(card["url"])
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == document


def test_chat_reading_as_cv5_sends_it_tells_the_operator(team, visitor):  # noqa: F811
    visitor.ask_for_human()
    request, operator = held(visitor)
    form = {
        "reading": "true",
        "contextId": visitor.context_id,
        "solutionUsed": "LIVECHAT",
        "mode": base64.b64encode(b"polling").decode(),
    }

    async def scenario():
        console = await ConsoleSocket(operator).open()
        await console.until("state")
        answered = await database_sync_to_async(visitor.post)(f"chat/reading/{visitor.bot}/", form)
        read = await console.until("read")
        await console.close()
        return answered, read

    answered, read = run(scenario)
    assert (answered.status_code, answered.json()) == (200, {})
    assert read["dialog"] == request.pk
    assert read["at"]


def test_chat_reading_outside_live_chat_or_for_an_unknown_bot(visitor):  # noqa: F811
    visitor.talk("Bonjour")
    quiet = visitor.post(f"chat/reading/{visitor.bot}", {"reading": "true", "contextId": visitor.context_id})
    assert (quiet.status_code, quiet.json()) == (200, {})
    unknown = visitor.post("chat/reading/d3b0d3b0-0000-4000-8000-00000000ffff", {"reading": "true"})
    assert unknown.status_code == 404
    assert unknown.json()["code"] == "UNKNOWN_BOT"
