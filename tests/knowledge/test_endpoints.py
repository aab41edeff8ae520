"""Every call of the Knowledge base, Transfer Bot Data and Matching groups groups refuses the same way:
401 without valid credentials, 404 for an unknown bot, 403 for another account's bot, and the
uploads refuse malformed, hostile and oversized files; nothing changes after any refusal."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import ApiToken

from .conftest import attack, upload, whole_knowledge_base

pytestmark = pytest.mark.django_db

UNKNOWN = "0b9e1f43-2c1c-4c43-9a57-4e0b7c0e0d11"
READS = [
    "bot/knowledgebase/export/{bot}/false",
    "bot/gallery/export/{bot}",
    "bot/data/export/{bot}/false",
    "bot/matchinggroups/{bot}",
]
UPLOADS = ["bot/knowledgebase/import/{bot}", "bot/gallery/import/{bot}", "bot/data/import/{bot}"]
DELETE = "bot/knowledgebase/delete/{bot}/false"


def call(client, path: str, bot: str, token: str | None, content: bytes = b"<knowledgeBase/>"):
    url = "/servlet/api/" + path.format(bot=bot)
    auth = {"HTTP_AUTHORIZATION": token} if token else {}
    if path in UPLOADS:
        return upload(client, url, content, token) if token else client.post(url)
    if path == DELETE:
        return client.delete(url, **auth)
    return client.get(url, **auth)


@pytest.mark.parametrize("path", [*READS, *UPLOADS, DELETE])
def test_every_call_checks_who_asks_and_which_bot(client, rich_bot, personas, path):
    before = whole_knowledge_base(rich_bot)
    bot = str(rich_bot.uuid)
    expired_user, expired = personas.bob.user, personas.bob.token
    ApiToken.objects.filter(user=expired_user).update(expires_at=timezone.now() - timedelta(seconds=1))
    cases = [
        (None, bot, 401, "MISSING_CREDENTIALS"),
        ("dyt_" + "x" * 43, bot, 401, "INVALID_CREDENTIALS"),
        (expired, bot, 401, "TOKEN_EXPIRED"),
        (personas.charlie.token, bot, 403, "FORBIDDEN"),
        (personas.alice.token, UNKNOWN, 404, "UNKNOWN_BOT"),
    ]
    for token, target, status, code in cases:
        response = call(client, path, target, token)
        assert (response.status_code, response.json()["code"]) == (status, code), (path, token)
        assert response.json()["error"]
    assert whole_knowledge_base(rich_bot) == before


@pytest.mark.parametrize("path", UPLOADS)
def test_every_upload_refuses_bad_files_and_changes_nothing(client, rich_bot, personas, path):
    before = whole_knowledge_base(rich_bot)
    bot = str(rich_bot.uuid)
    token = personas.alice.token
    invalid = (
        b"<gallery formatVersion='1'>\n<image/></gallery>"
        if "gallery" in path
        else b"<knowledgeBase formatVersion='1'>\n<spaces><space/></spaces></knowledgeBase>"
    )
    for content, code in [
        (b"<?xml version='1.0'?>\n<<not xml", "MALFORMED_XML"),
        (attack("billion_laughs.xml"), "FORBIDDEN_XML"),
        (attack("xxe_file.xml"), "FORBIDDEN_XML"),
        (invalid, "SCHEMA_VIOLATION"),
    ]:
        response = call(client, path, bot, token, content)
        assert (response.status_code, response.json()["code"]) == (400, code), (path, content[:40])
        assert response.json()["line"] >= 1 and response.json()["column"] >= 1
    with override_settings(KB_UPLOAD_MAX_BYTES=64):
        response = call(
            client, path, bot, token, b"<knowledgeBase formatVersion='1'>" + b" " * 100 + b"</knowledgeBase>"
        )
        assert (response.status_code, response.json()["code"]) == (413, "TOO_LARGE")
    assert whole_knowledge_base(rich_bot) == before


@pytest.mark.parametrize("path", ["bot/knowledgebase/export/{bot}/{flag}", "bot/data/export/{bot}/{flag}", DELETE])
def test_a_bad_boolean_path_segment_is_400(client, rich_bot, personas, path):
    before = whole_knowledge_base(rich_bot)
    url = "/servlet/api/" + path.replace("/false", "/{flag}").format(bot=rich_bot.uuid, flag="oui-non")
    response = (
        client.delete(url, HTTP_AUTHORIZATION=personas.alice.token)
        if path == DELETE
        else client.get(url, HTTP_AUTHORIZATION=personas.alice.token)
    )
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_FIELD")
    assert whole_knowledge_base(rich_bot) == before


def test_the_api_console_lists_the_three_groups(client):
    response = client.get("/servlet/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = response.content.decode()
    for fragment in (
        "/servlet/api/bot/knowledgebase/import/{bot_uuid}",
        "Knowledge base",
        "Transfer Bot Data",
        "Matching groups",
    ):
        assert fragment in schema
