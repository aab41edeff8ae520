"""Legitimate bodies under their limits still work under each server: a talk (also sent chunked, without
Content-Length), chat/error with a 20,000-character stack trace, and a real knowledge-base import (the
demo bot's own export sent back, as a multipart upload and as an XML body, each with its length and chunked)."""

import urllib.parse

from tests.conftest import decode
from tests.limits import wire
from tests.limits.conftest import CHAT_LIMIT, FORM, IMPORT_LIMIT, TALK_PATH, talk, talk_body
from tests.servers import BOT_UUID, Browser

STACK_LINE = "    at Object.sendRequest (https://cdn.shop.example/chatbox/js/chatbox.min.js?v=5.4.2:1:23456)\n"


def test_a_talk_is_answered(server):
    values = talk(server, "Bonjour")
    assert values["contextId"]
    assert values["text"]


def test_a_chunked_talk_is_answered(server):
    """No Content-Length: counted while it streams, and handed to Django whole (under WSGI too)."""
    answer = wire.send(
        server.port, TALK_PATH, 0, chunked=True, body=talk_body("Bonjour"), content_type=FORM["Content-Type"]
    )
    assert answer.status == 200, answer
    values = decode(answer.json()["values"])
    assert values["contextId"] and values["text"]


def test_a_client_error_with_a_20000_character_stack_trace_is_kept(server):
    fields = {
        "contextUuid": "",
        "solutionUsed": "ASSISTANT",
        "error": "TypeError",
        "message": ("TypeError: Cannot read properties of undefined (reading 'contextId') " * 200)[:10_000],
        "stackTrace": (STACK_LINE * 400)[:20_000],
        "browser": "Chrome 156.0.0.0",
        "os": "Linux undefined",
        "userUrl": "https://shop.example/page",
    }
    body = urllib.parse.urlencode(fields).encode()
    assert 32_000 < len(body) < CHAT_LIMIT  # the largest chat call the chatbox makes, form-encoded
    status, answer = Browser(server).request("POST", f"/servlet/api/chat/error/{BOT_UUID}", body, FORM)
    assert (status, answer) == (200, b"{}")


def exported_knowledge_base(platform, token: str) -> bytes:
    status, body = Browser(platform.servers[0]).request(
        "GET", f"/servlet/api/bot/knowledgebase/export/{BOT_UUID}", headers={"Authorization": token}
    )
    assert status == 200, body[:300]
    return body


def test_a_knowledge_base_import_under_its_limit_is_taken(server, platform):
    """With its Content-Length or chunked without one (then read up to the limit and handed to Django
    with its length: Django reads a multipart body without one as empty)."""
    token = platform.admin_token()
    exported = exported_knowledge_base(platform, token)
    assert 10_000 < len(exported) < IMPORT_LIMIT
    head, tail = wire.multipart_parts(len(exported), filename="knowledge.xml")
    path = f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}"
    for body, content_type in (
        (head + exported + tail, f"multipart/form-data; boundary={wire.BOUNDARY}"),
        (exported, "application/xml"),
    ):
        for chunked in (False, True):
            answer = wire.send(
                server.port,
                path,
                0,
                body=body,
                chunked=chunked,
                content_type=content_type,
                headers={"Authorization": token},
            )
            assert answer.status == 200, (content_type, chunked, answer)
            assert answer.json()["imported"]["knowledgeItems"]["total"] > 0
    # The bot still knows what it knew.
    assert exported_knowledge_base(platform, token) == exported
