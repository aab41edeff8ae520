"""The rule every server applies (bots/servlet/limits.py): which limit a URL has, which Content-Length
counts, and the CORS header of the 413 when the deployment lists the chatbox's origins."""

import json

import pytest

from bots.servlet.limits import declared_length, limit_for, refusal, without_root
from tests.limits.conftest import CHAT_LIMIT, MB, OTHER_LIMIT

BOT = "d3b0d3b0-0000-4000-8000-000000000001"


@pytest.mark.parametrize(
    "path",
    [
        f"/servlet/api/chat/talk/{BOT}",
        f"/api/chat/talk/{BOT}/some-context",
        f"/servlet/api/chat/error/{BOT}",
        "/servlet/chatHttp",
        "/chatHttp/",
    ],
)
def test_chat_calls_have_the_chat_limit(path):
    assert (limit_for(path).max_bytes, limit_for(path).setting) == (CHAT_LIMIT, "CHAT_BODY_MAX_BYTES")


@pytest.mark.parametrize("kind", ["knowledgebase", "data", "gallery"])
@pytest.mark.parametrize("prefix", ["/servlet/api", "/api"])
def test_imports_have_the_upload_limit(kind, prefix, settings):
    settings.KB_UPLOAD_MAX_BYTES = 7 * MB
    limit = limit_for(f"{prefix}/bot/{kind}/import/{BOT}")
    assert (limit.max_bytes, limit.setting) == (7 * MB, "KB_UPLOAD_MAX_BYTES")


def test_the_back_office_s_import_page_has_the_upload_limit(settings):
    """The import of knowledge/backoffice/exchange.py: its page and other admin forms keep the form limit."""
    settings.KB_UPLOAD_MAX_BYTES = 7 * MB
    limit = limit_for("/admin/knowledge/exchange/12/import/")
    assert (limit.max_bytes, limit.setting) == (7 * MB, "KB_UPLOAD_MAX_BYTES")
    for path in ("/admin/knowledge/exchange/12/", "/admin/knowledge/exchange/12/delete/"):
        assert limit_for(path).setting == "DATA_UPLOAD_MAX_MEMORY_SIZE"


@pytest.mark.parametrize(
    "path",
    ["/admin/login/", "/no/such/page", f"/servlet/api/bot/knowledgebase/export/{BOT}", "/servlet/api/bousers"],
)
def test_everything_else_has_django_s_form_limit(path):
    assert (limit_for(path).max_bytes, limit_for(path).setting) == (OTHER_LIMIT, "DATA_UPLOAD_MAX_MEMORY_SIZE")


def test_the_chat_limit_is_a_setting(settings):
    settings.CHAT_BODY_MAX_BYTES = 8 * 1024
    assert limit_for(f"/servlet/api/chat/talk/{BOT}").max_bytes == 8 * 1024


def test_a_root_path_is_not_part_of_the_url_that_decides():
    assert without_root(f"/bots/servlet/api/chat/talk/{BOT}", "/bots") == f"/servlet/api/chat/talk/{BOT}"
    assert without_root("/bots", "/bots/") == "/"
    assert without_root("/botsy/chatHttp", "/bots") == "/botsy/chatHttp"  # not under the root
    assert without_root("/chatHttp", "") == "/chatHttp"


@pytest.mark.parametrize(
    ("header", "length"),
    [(b"1024", 1024), (" 12 ", 12), (None, None), (b"", None), (b"-1", None), (b"1e6", None), ("²", None)],
)
def test_only_a_plain_decimal_content_length_counts(header, length):
    """Anything else is left to the server, which refuses a malformed Content-Length itself."""
    assert declared_length(header) == length


def test_the_413_names_the_limit_in_the_servlet_error_shape():
    headers, body = refusal(limit_for(f"/servlet/api/chat/talk/{BOT}"), f"/servlet/api/chat/talk/{BOT}", None)
    assert json.loads(body) == {
        "error": "The request body is larger than this server accepts for a chat call "
        "(64 KB, setting CHAT_BODY_MAX_BYTES).",
        "code": "TOO_LARGE",
        "maxBytes": CHAT_LIMIT,
    }
    assert dict(headers)[b"content-length"] == str(len(body)).encode()
    assert dict(headers)[b"connection"] == b"close"


def test_with_listed_origins_only_those_read_the_413(settings):
    settings.CORS_ALLOW_ALL_ORIGINS = False
    settings.CORS_ALLOWED_ORIGINS = ["https://shop.example"]
    path = f"/servlet/api/chat/talk/{BOT}"
    limit = limit_for(path)
    listed = dict(refusal(limit, path, b"https://shop.example")[0])
    assert listed[b"access-control-allow-origin"] == b"https://shop.example"
    assert listed[b"vary"] == b"origin"
    assert b"access-control-allow-origin" not in dict(refusal(limit, path, b"https://elsewhere.example")[0])
    # The back office is not a CORS URL: no origin reads its answers.
    assert b"access-control-allow-origin" not in dict(
        refusal(limit_for("/admin/"), "/admin/", b"https://shop.example")[0]
    )
