"""Hostile input is refused where every request is read (bots/servlet/params.py), with a 400 naming the
field, and nothing is stored: a NUL byte anywhere, a lone surrogate, JSON nested too deep, a multipart
body without a boundary or otherwise broken. A talk stores its new dialog only with its first
interaction, in one transaction. Found by fuzzing (issue 14); run on SQLite and PostgreSQL."""

import base64
import json
from contextlib import contextmanager

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test import AsyncClient

from dialogs.models import ClientError, Dialog, GdprRequest, Interaction, Visit
from livechat import frames
from tests.accounts.personas import personas  # noqa: F401 (a fixture)

from .test_bad_input import assert_json_error

pytestmark = pytest.mark.django_db

DEEP = 5000


def stored() -> tuple:
    return tuple(model.objects.count() for model in (Dialog, Interaction, Visit, ClientError, GdprRequest))


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.fixture
def talked(chatbox):
    """A chatbox with one exchange behind it (so feedback, variables, typing have a dialog)."""
    chatbox.talk("Combien coûte le compte ?")
    return chatbox


def fill(fields: dict, chatbox) -> dict:
    return {key: value.replace("{ctx}", chatbox.context_id) for key, value in fields.items()}


# One call per chat operation that reads text, with the field a NUL goes into.
NUL_CASES = [
    ("chat/talk/{bot}", {"userInput": "carte\x00perdue"}, "userInput"),
    ("chat/talk/{bot}", {"userInput": "Bonjour", "clientId": "abc\x00"}, "clientId"),
    ("chat/talk/{bot}", {"userInput": "Bonjour", "variables": '{"nom": "Al\\u0000ice"}'}, "variables"),
    ("chat/talk/{bot}", {"userInput": "Bonjour", "extraParameters": '{"type": "\\u0000"}'}, "extraParameters"),
    ("chat/talk/{bot}/{ctx}", {"userInput": "Bonjour", "language": "f\x00r"}, "language"),
    ("chat/welcomecall/{bot}", {"contextId": "{ctx}", "space": "\x00"}, "space"),
    ("chat/context/{bot}", {"clientId": "\x00"}, "clientId"),
    ("chat/feedback/comment/{bot}", {"contextUUID": "{ctx}", "comment": "nul\x00"}, "comment"),
    ("chat/variable/{bot}", {"contextUuid": "{ctx}", "name": "x", "value": "a\x00b"}, "value"),
    ("chat/gdpr/{bot}", {"clientId": "abc\x00", "object": "Get"}, "clientId"),
    ("chat/typing/{bot}", {"contextId": "{ctx}", "content": "\x00"}, "content"),
    ("chat/error/{bot}", {"error": "TypeError", "message": "boom\x00"}, "message"),
    ("chat/dialog/previous/{bot}", {"clientId": "\x00"}, "clientId"),
    ("chat/search/{bot}", {"search": "carte\x00"}, "search"),
    ("chat/history/{bot}", {"contextUuid": "{ctx}\x00"}, "contextUuid"),
]


@pytest.mark.parametrize("path,fields,field", NUL_CASES)
def test_a_nul_byte_in_a_form_field_is_a_400_naming_it_and_stores_nothing(talked, path, fields, field):
    before = stored()
    response = talked.post(path.format(bot=talked.bot, ctx=talked.context_id), fill(fields, talked))
    assert_json_error(response, 400, "INVALID_FIELD", field)
    assert "NUL" in response.json()["error"]
    assert stored() == before


def test_a_nul_byte_in_the_query_string_or_a_json_body_is_refused_too(client, demo_bot):
    before = stored()
    url = f"/servlet/api/chat/talk/{demo_bot.uuid}"
    assert_json_error(client.get(url + "?userInput=carte%00perdue"), 400, "INVALID_FIELD", "userInput")
    as_json = client.post(url, {"userInput": "carte\x00perdue"}, content_type="application/json")
    assert_json_error(as_json, 400, "INVALID_FIELD", "userInput")
    raw = client.generic("POST", url, "userInput=carte%00perdue", content_type="application/x-www-form-urlencoded")
    assert_json_error(raw, 400, "INVALID_FIELD", "userInput")
    assert stored() == before


def test_a_nul_byte_in_a_field_name_is_named_readably(client, demo_bot):
    response = client.post(f"/servlet/api/chat/talk/{demo_bot.uuid}", {"user\x00Input": "Bonjour"})
    assert_json_error(response, 400, "INVALID_FIELD", "user\\x00Input")
    assert stored() == (0, 0, 0, 0, 0)


@pytest.mark.parametrize(
    "body,field",
    [
        ('{"userInput": "\\ud800 carte"}', "userInput"),
        ('{"userInput": "carte", "clientId": "\\udfff"}', "clientId"),
        ('{"userInput": "carte", "\\ud800": "x"}', "\\ud800"),
        ('{"userInput": "carte", "variables": {"nom": "\\ud83d"}}', "variables"),
        ('{"userInput": "carte", "variables": "{\\"nom\\": \\"\\\\ud83d\\"}"}', "variables"),
    ],
)
def test_a_lone_surrogate_is_a_400_naming_the_field(client, demo_bot, body, field):
    response = client.post(f"/servlet/api/chat/talk/{demo_bot.uuid}", body, content_type="application/json")
    assert_json_error(response, 400, "INVALID_FIELD", field)
    assert "surrogate" in response.json()["error"]
    assert stored() == (0, 0, 0, 0, 0)


def test_a_surrogate_pair_is_an_ordinary_character(client, demo_bot):
    response = client.post(
        f"/servlet/api/chat/talk/{demo_bot.uuid}",
        '{"userInput": "carte \\ud83d\\ude00"}',
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert Interaction.objects.get().user_input == "carte 😀"


@pytest.mark.parametrize("depth", [40, DEEP])
@pytest.mark.parametrize("field", ["variables", "extraParameters"])
def test_json_nested_too_deep_in_a_form_field_is_a_400_naming_it(client, demo_bot, field, depth):
    data = {"userInput": "Bonjour", field: nested(depth)}
    response = client.post(f"/servlet/api/chat/talk/{demo_bot.uuid}", data)
    assert_json_error(response, 400, "INVALID_FIELD", field)
    assert "nested deeper" in response.json()["error"]
    assert stored() == (0, 0, 0, 0, 0)


@pytest.mark.parametrize("depth", [40, DEEP])
@pytest.mark.parametrize("field", ["variables", "extraParameters"])
def test_json_nested_too_deep_in_a_json_body_is_a_400_naming_the_field(client, demo_bot, field, depth):
    body = '{"userInput": "Bonjour", "' + field + '": ' + nested(depth) + "}"
    response = client.post(f"/servlet/api/chat/talk/{demo_bot.uuid}", body, content_type="application/json")
    assert_json_error(response, 400, "INVALID_FIELD", field)
    assert stored() == (0, 0, 0, 0, 0)


def test_a_json_body_that_is_only_depth_is_a_400_on_the_body(client, demo_bot):
    body = "[" * DEEP + "]" * DEEP
    response = client.post(f"/servlet/api/chat/talk/{demo_bot.uuid}", body, content_type="application/json")
    assert_json_error(response, 400, "INVALID_FIELD", "body")
    assert stored() == (0, 0, 0, 0, 0)


def test_ordinary_nesting_is_still_accepted(chatbox):
    variables = {"panier": {"articles": [{"nom": "carte", "options": {"couleur": "bleue"}}]}}
    values = chatbox.talk("Bonjour", variables=json.dumps(variables))
    assert values["contextId"]
    assert "panier" in Dialog.objects.get().variables


# The eight calls that answered 500 to multipart/form-data without a boundary (issue 14).
MULTIPART_CALLS = [
    "chat/talk/{bot}",
    "chat/talk/{bot}/{ctx}",
    "chat/availablecontext/{bot}",
    "chat/context/{bot}",
    "chat/reading/{bot}",
    "chat/status/{bot}",
    "chat/topknowledge/{bot}",
    "chat/welcomecall/{bot}",
]


@pytest.mark.parametrize("path", MULTIPART_CALLS)
def test_multipart_without_a_boundary_is_a_400_on_the_body_and_stores_nothing(talked, path):
    before = stored()
    response = talked.client.generic(
        "POST",
        "/servlet/api/" + path.format(bot=talked.bot, ctx=talked.context_id),
        b"userInput=Bonjour",
        content_type="multipart/form-data",
    )
    assert_json_error(response, 400, "INVALID_FIELD", "body")
    assert "multipart" in response.json()["error"]
    assert stored() == before


@pytest.mark.parametrize(
    "content_type,body",
    [
        ("multipart/form-data; boundary=", b"--\r\n"),
        ("multipart/form-data; boundary=\x00", b"--\x00\r\n"),
        # Django cut the body at "--xyz" inside "---xyz" and dropped the nameless part: a talk without input.
        ("multipart/form-data; boundary=xyz", b"---xyz\r\nContent-Disposition: form-data\r\n\r\nBonjour\r\n--xyz--"),
        ("multipart/form-data; boundary=xyz", b"--xyz\r\nContent-Disposition: form-data\r\n\r\nBonjour\r\n--xyz--"),
        ("multipart/form-data; boundary=xyz", b'--xyz\r\nContent-Disposition: form-data; name="userInput"\r\n\r\nBon'),
        (
            "multipart/form-data; boundary=xyz",
            b'--xyz Content-Disposition: form-data; name="userInput"\r\n\r\nA\r\n--xyz--',
        ),
        ("multipart/form-data; boundary=xyz", b"--xyz\r\nuserInput=Bonjour\r\n--xyz--"),
        ("multipart/form-data; boundary=xyz", b"userInput=Bonjour"),
    ],
)
def test_broken_multipart_bodies_are_400s_and_store_nothing(client, demo_bot, content_type, body):
    response = client.generic("POST", f"/servlet/api/chat/talk/{demo_bot.uuid}", body, content_type=content_type)
    assert response.status_code == 400, response.content
    assert response.json()["field"]
    assert stored() == (0, 0, 0, 0, 0)


def test_a_well_formed_multipart_talk_still_works(client, demo_bot):
    response = client.post(f"/servlet/api/chat/talk/{demo_bot.uuid}", {"userInput": "Bonjour"})  # multipart
    assert response.status_code == 200, response.content
    assert stored()[:2] == (1, 1)


@pytest.mark.parametrize(
    "body",
    [
        # What browsers send: a preamble-free body, CRLF line ends, an epilogue after the closing line.
        b'--xyz\r\nContent-Disposition: form-data; name="userInput"\r\n\r\nBonjour\r\n--xyz--\r\n',
        # RFC 2046 allows a preamble, transport padding after a boundary and a part with more headers.
        b"preamble\r\n--xyz  \r\nContent-Type: text/plain; charset=utf-8\r\ncontent-disposition: form-data; "
        b'name="userInput"\r\n\r\nBonjour\r\n--xyz\r\nContent-Disposition: form-data; name="f"; filename="a.txt"'
        b"\r\n\r\n---xy---\r\n--xyz--",
    ],
)
def test_multipart_bodies_the_standard_allows_are_read(client, demo_bot, body):
    url = f"/servlet/api/chat/talk/{demo_bot.uuid}"
    response = client.generic("POST", url, body, content_type="multipart/form-data; boundary=xyz")
    assert response.status_code == 200, response.content
    assert Interaction.objects.get().user_input == "Bonjour"


def test_a_json_body_that_is_not_utf8_is_a_400(client, demo_bot):
    response = client.post(
        f"/servlet/api/chat/talk/{demo_bot.uuid}", b'{"userInput": "\xff"}', content_type="application/json"
    )
    assert_json_error(response, 400, "INVALID_FIELD", "body")


def test_a_nul_byte_in_a_path_segment_is_a_400_naming_it(client, personas):  # noqa: F811
    response = client.get("/servlet/api/bousers/ali%00ce", **personas.alice.auth)
    assert_json_error(response, 400, "INVALID_FIELD", "login")
    response = client.get("/servlet/api/competencies/x%00/operators", **personas.alice.auth)
    assert_json_error(response, 400, "INVALID_FIELD", "name")


def test_a_websocket_frame_is_read_by_the_same_rules(demo_bot):
    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    frame = {"type": "talk", "parameters": {"botId": b64(str(demo_bot.uuid)), "userInput": b64("carte\x00perdue")}}
    with pytest.raises(Exception) as refused:
        frames.handle(frame, "websocket")
    assert refused.value.status == 400 and refused.value.extra["field"] == "userInput"
    deep = {"type": "talk", "parameters": {"botId": b64(str(demo_bot.uuid)), "extraParameters": {"a": nested(40)}}}
    frames.handle(deep, "websocket")  # a deep string is only text: the talk goes on
    assert stored()[:2] == (1, 1)


def test_pure_live_chat_that_is_not_a_boolean_is_a_400_and_opens_no_context(chatbox):
    response = chatbox.post(f"chat/context/{chatbox.bot}", {"language": "fr", "pureLiveChat": "maybe"})
    assert_json_error(response, 400, "INVALID_FIELD", "pureLiveChat")
    assert stored() == (0, 0, 0, 0, 0)
    opened = chatbox.values(chatbox.post(f"chat/context/{chatbox.bot}", {"language": "fr", "pureLiveChat": "true"}))
    assert Dialog.objects.get().uuid.hex == opened["contextId"].replace("-", "")


@contextmanager
def refusing_interactions():
    """The database itself refuses every interaction insert (a trigger), whatever statement carries it:
    on PostgreSQL a plain talk writes its dialog and its interaction in one statement
    (dialogs/statements.store_talk), on SQLite in one transaction."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "CREATE FUNCTION refuse_interaction() RETURNS trigger LANGUAGE plpgsql AS "
                "$$ BEGIN RAISE EXCEPTION 'the database refused'; END $$"
            )
            cursor.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON dialogs_interaction "
                "FOR EACH ROW EXECUTE FUNCTION refuse_interaction()"
            )
        else:
            cursor.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON dialogs_interaction "
                "BEGIN SELECT RAISE(ABORT, 'the database refused'); END"
            )
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(
                "DROP TRIGGER refuse" + (" ON dialogs_interaction" if connection.vendor == "postgresql" else "")
            )
            if connection.vendor == "postgresql":
                cursor.execute("DROP FUNCTION refuse_interaction()")


def test_a_new_dialog_is_stored_only_with_its_first_interaction(client, demo_bot):
    """A talk that fails after the answer is chosen leaves no dialog behind (its insert is rolled back
    with the interaction's)."""
    url = f"/servlet/api/chat/talk/{demo_bot.uuid}"
    with refusing_interactions():
        response = client.post(url, {"userInput": "Bonjour"})
    assert response.status_code == 500
    assert stored() == (0, 0, 0, 0, 0)
    ok = client.post(url, {"userInput": "Bonjour"})
    assert ok.status_code == 200
    assert stored()[:2] == (1, 1)


def test_a_failed_talk_in_a_running_dialog_changes_nothing(chatbox):
    chatbox.talk("Bonjour")
    before = stored(), list(Dialog.objects.values_list("last_activity", "misunderstood_streak"))
    with refusing_interactions():
        response = chatbox.post(f"chat/talk/{chatbox.bot}/{chatbox.context_id}", {"userInput": "blablabla zzz"})
    assert response.status_code == 500
    assert (stored(), list(Dialog.objects.values_list("last_activity", "misunderstood_streak"))) == before


@pytest.mark.parametrize("tag", ["³", "١٢", "²5"])
def test_a_tag_id_of_digits_that_are_not_ascii_is_an_unknown_tag(chatbox, tag):
    """str.isdigit() holds for "³" and Arabic-Indic digits, which int() refuses: it answered 500
    (found by the fuzzer, tests/fuzz)."""
    response = chatbox.post(f"chat/topknowledge/{chatbox.bot}", {"tagID": tag})
    assert_json_error(response, 404, "UNKNOWN_TAG")


# Bytes that are not UTF-8 in a form: refused like a lone surrogate in JSON, never stored as U+FFFD.
NOT_UTF8 = [b"%ED%A0%80", b"%FF", b"carte%C3", b"%C3%28"]


@pytest.mark.parametrize("value", NOT_UTF8)
def test_a_form_field_that_is_not_utf8_is_a_400_naming_it_and_stores_nothing(client, demo_bot, value):
    body = b"userInput=carte&clientId=" + value + b"&language=fr"
    url = f"/servlet/api/chat/talk/{demo_bot.uuid}"
    response = client.generic("POST", url, body, content_type="application/x-www-form-urlencoded")
    assert_json_error(response, 400, "INVALID_FIELD", "clientId")
    assert "not UTF-8" in response.json()["error"]
    assert stored() == (0, 0, 0, 0, 0)


def test_raw_bytes_that_are_not_utf8_in_an_unencoded_form_are_refused_too(client, demo_bot):
    """CV5 sends some forms without percent-encoding (client-contract.md §1.4): raw bytes are checked too."""
    url = f"/servlet/api/chat/talk/{demo_bot.uuid}"
    response = client.generic("POST", url, b"userInput=carte \xff perdue&language=fr", content_type="")
    assert_json_error(response, 400, "INVALID_FIELD", "userInput")
    assert stored() == (0, 0, 0, 0, 0)
    accepted = client.generic("POST", url, "userInput=carte égarée ?&language=fr".encode(), content_type="")
    assert accepted.status_code == 200, accepted.content


@pytest.mark.parametrize("value", ["%FF", "%ED%A0%80"])
def test_a_query_string_that_is_not_utf8_is_a_400_naming_the_field(client, demo_bot, value):
    response = client.get(f"/servlet/api/chat/talk/{demo_bot.uuid}?userInput={value}")
    assert_json_error(response, 400, "INVALID_FIELD", "userInput")
    assert "not UTF-8" in response.json()["error"]
    assert stored() == (0, 0, 0, 0, 0)


def test_a_field_name_that_is_not_utf8_is_named_readably(client, demo_bot):
    url = f"/servlet/api/chat/talk/{demo_bot.uuid}"
    response = client.generic(
        "POST", url, b"userInput=carte&nom%FF=x", content_type="application/x-www-form-urlencoded"
    )
    assert_json_error(response, 400, "INVALID_FIELD", "nom\\udcff")
    assert stored() == (0, 0, 0, 0, 0)


def test_a_multipart_field_that_is_not_utf8_is_a_400_naming_it_but_a_file_may_hold_any_byte(client, demo_bot):
    url = f"/servlet/api/chat/talk/{demo_bot.uuid}"
    content_type = "multipart/form-data; boundary=xyz"

    def body(user_input: bytes) -> bytes:
        return (
            b'--xyz\r\nContent-Disposition: form-data; name="userInput"\r\n\r\n' + user_input + b"\r\n"
            b'--xyz\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\n\xff\xfe\x00\r\n--xyz--\r\n'
        )

    response = client.generic("POST", url, body(b"carte \xed\xa0\x80"), content_type=content_type)
    assert_json_error(response, 400, "INVALID_FIELD", "userInput")
    assert stored() == (0, 0, 0, 0, 0)
    response = client.generic("POST", url, body("Combien coûte le compte ?".encode()), content_type=content_type)
    assert response.status_code == 200, response.content
    assert Interaction.objects.get().user_input == "Combien coûte le compte ?"


@pytest.mark.parametrize(
    "path,fields,field",
    [
        ("chat/feedback/comment/{bot}", b"contextUUID={ctx}&comment=tr%E8s%20bien", "comment"),
        ("chat/search/{bot}", b"search=carte%FF", "search"),
        ("chat/variable/{bot}", b"contextUuid={ctx}&name=x&value=%80", "value"),
        ("chat/typing/{bot}", b"contextId={ctx}&content=%C3", "content"),
    ],
)
def test_other_chat_calls_refuse_form_bytes_that_are_not_utf8(talked, path, fields, field):
    """Latin-1 "très" (%E8) is what a page in the wrong charset sends: refused, not stored as "tr�s"."""
    before = stored()
    url = "/servlet/api/" + path.format(bot=talked.bot)
    body = fields.replace(b"{ctx}", talked.context_id.encode())
    response = talked.client.generic("POST", url, body, content_type="application/x-www-form-urlencoded")
    assert_json_error(response, 400, "INVALID_FIELD", field)
    assert stored() == before


def test_utf8_forms_and_query_strings_are_read_as_before(chatbox):
    values = chatbox.talk("Combien coûte le compte ?")  # percent-encoded UTF-8, as browsers send it
    assert values["contextId"]
    url = f"/servlet/api/chat/search/{chatbox.bot}?search=co%C3%BBte&language=fr"
    assert chatbox.client.get(url).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_under_asgi_a_form_or_query_that_is_not_utf8_is_refused_the_same_way(demo_bot):
    url = f"/servlet/api/chat/talk/{demo_bot.uuid}"

    async def send():
        client = AsyncClient()
        form = await client.generic(
            "POST", url, b"userInput=%ED%A0%80", content_type="application/x-www-form-urlencoded"
        )
        query = await client.get(url + "?userInput=carte%FF")
        return form, query

    form, query = async_to_sync(send)()
    assert_json_error(form, 400, "INVALID_FIELD", "userInput")
    assert_json_error(query, 400, "INVALID_FIELD", "userInput")
    assert stored() == (0, 0, 0, 0, 0)
