"""GET dialogs/export/{botUUID}: who may, bad input, every filter, and both formats parsed back."""

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient

from accounts.models import Role
from tests.accounts.personas import make_persona

from .conftest import ids


def test_without_a_token_it_is_401(exporter, dialog_set):
    response = exporter.get()
    assert response.status_code == 401
    assert response.json()["code"] == "MISSING_CREDENTIALS"


def test_a_bot_of_another_account_is_403(exporter, dialog_set, personas):
    response = exporter.get(personas.charlie)
    assert response.status_code == 403
    assert response.json()["code"] == "FORBIDDEN"


def test_an_unknown_bot_is_404(client, personas):
    response = client.get("/servlet/api/dialogs/export/00000000-0000-4000-8000-000000000000", **personas.alice.auth)
    assert response.status_code == 404
    assert response.json()["code"] == "UNKNOWN_BOT"


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"from": "yesterday"}, "from"),
        ({"to": "2025-13-01"}, "to"),
        ({"from": "2025-10-02T25:00:00"}, "from"),
        ({"from": "99999999999999999"}, "from"),
        ({"from": "2025-11-01", "to": "2025-10-01"}, "to"),
        ({"from": "2025-10-05T12:00:00Z", "to": "2025-10-05T11:00:00Z"}, "to"),
        ({"format": "xml"}, "format"),
        ({"feedback": "great"}, "feedback"),
        ({"qualificationMode": "maybe"}, "qualificationMode"),
        ({"livechat": "2"}, "livechat"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(exporter, dialog_set, personas, fields, field):
    response = exporter.get(personas.alice, **fields)
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == "INVALID_FIELD"
    assert response.json()["field"] == field


def test_every_interaction_of_the_bot_in_the_order_dialogs_started(exporter, dialog_set, personas):
    rows = exporter.rows(personas.alice)
    assert [row["contextId"] for row in rows] == ids(
        dialog_set.fr_positive, dialog_set.fr_positive, dialog_set.en_test_negative, *[dialog_set.fr_livechat] * 2,
        dialog_set.fr_pro_quiet,
    )  # fmt: skip
    assert str(dialog_set.other_bot.uuid) not in {row["contextId"] for row in rows}
    assert rows[1] == {
        "contextId": str(dialog_set.fr_positive.uuid),
        "dialogStart": "2025-10-05T10:00:00+00:00",
        "language": "fr",
        "space": "Defaut",
        "qualificationMode": False,
        "livechat": False,
        "clientId": "visitor-1",
        "browser": "Firefox 140",
        "os": "",
        "userUrl": "",
        "time": "2025-10-05T10:01:00+00:00",
        "userInput": "horaires",
        "answer": "Du lundi au vendredi",
        "typeResponse": "DMUnderstoodQuestion",
        "knowledgeId": None,
        "human": False,
        "origin": "",
        "askFeedback": True,
        "feedback": "positive",
        "feedbackComment": "",
    }
    operator = rows[4]
    assert operator["human"] is True and operator["livechat"] is True
    assert operator["answer"] == 'Bonjour, "Marie" à votre écoute,\nque puis-je faire ?'


def test_csv_has_the_same_rows_as_json_lines(exporter, dialog_set, personas):
    lines = exporter.rows(personas.alice)
    table = exporter.rows(personas.alice, format="csv")
    assert len(table) == len(lines) == 6
    assert list(table[0]) == list(lines[0])
    for row, line in zip(table, lines, strict=True):
        for key, value in line.items():
            expected = (
                {True: "true", False: "false", None: ""}.get(value, value) if not isinstance(value, str) else value
            )
            if key == "userInput" and value.startswith("="):
                expected = "'" + value  # a spreadsheet must not run a visitor's formula
            assert row[key] == expected, key
    assert table[4]["answer"] == 'Bonjour, "Marie" à votre écoute,\nque puis-je faire ?'


def test_the_download_is_named_after_the_bot(exporter, dialog_set, personas):
    response = exporter.get(personas.alice, format="csv")
    assert response["Content-Disposition"].startswith('attachment; filename="Clara - Banque Exemple - dialogs - ')
    assert response["Content-Disposition"].split(";")[1].endswith('.csv"')


def test_a_reader_may_export_without_the_visitors_ids(exporter, dialog_set, personas):
    _, token = make_persona(personas.account, Role.READER)
    response = exporter.client.get(exporter.url, HTTP_AUTHORIZATION=token)
    assert response.status_code == 200
    assert b"visitor-1" not in b"".join(response.streaming_content)
    editor_rows = exporter.rows(personas.bob)
    assert len(editor_rows) == 6 and {row["clientId"] for row in editor_rows} == {""}


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({"space": "Pro"}, ["en_test_negative", "fr_pro_quiet"]),
        ({"language": "EN"}, ["en_test_negative"]),
        ({"qualificationMode": "true"}, ["en_test_negative"]),
        ({"qualificationMode": "false"}, ["fr_positive", "fr_livechat", "fr_pro_quiet"]),
        ({"livechat": "true"}, ["fr_livechat"]),
        ({"livechat": "false"}, ["fr_positive", "en_test_negative", "fr_pro_quiet"]),
        ({"feedback": "positive"}, ["fr_positive"]),
        ({"feedback": "negative"}, ["en_test_negative"]),
        ({"feedback": "withoutAnswer"}, []),
        ({"feedback": "any"}, ["fr_positive", "en_test_negative"]),
        ({"feedback": "none"}, ["fr_livechat", "fr_pro_quiet"]),
        ({"from": "2025-10-06", "to": "2025-10-20"}, ["en_test_negative", "fr_livechat"]),
        ({"to": "2025-11-02"}, ["fr_positive", "en_test_negative", "fr_livechat", "fr_pro_quiet"]),
        ({"to": "2025-11-01"}, ["fr_positive", "en_test_negative", "fr_livechat"]),
        ({"from": "2025-10-20T10:00:00+00:00"}, ["fr_livechat", "fr_pro_quiet"]),
        ({"from": "2025-10-20T12:00:01+02:00", "to": "2025-11-02T23:00:00Z"}, []),
        ({"startDate": str(1760004000000), "endDate": str(1760954400000)}, ["en_test_negative"]),
        ({"space": "Defaut", "livechat": "false", "feedback": "positive"}, ["fr_positive"]),
    ],
)
def test_each_filter(exporter, dialog_set, personas, fields, expected):
    wanted = [str(getattr(dialog_set, name).uuid) for name in expected]
    assert exporter.contexts(personas.alice, **fields) == wanted
    assert exporter.contexts(personas.alice, format="csv", **fields) == wanted


def test_the_api_prefix_serves_it_too(client, demo_bot, dialog_set, personas):
    response = client.get(f"/api/dialogs/export/{demo_bot.uuid}/", {"space": "Pro"}, **personas.alice.auth)
    assert response.status_code == 200
    assert len(b"".join(response.streaming_content).splitlines()) == 2


def test_a_dialog_held_by_the_chat_pipeline_is_exported(chatbox, exporter, personas):
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    chatbox.talk("carte")
    rows = exporter.rows(personas.alice)
    assert [row["userInput"] for row in rows] == ["Quels sont vos horaires d'ouverture ?", "carte"]
    assert {row["contextId"] for row in rows} == {chatbox.context_id}


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_export_streams_chunk_by_chunk(demo_bot, dialog_set, personas):
    """The real ASGI handler: the synchronous rows go out one chunk at a time (AsyncChunks)."""

    async def export():
        response = await AsyncClient().get(
            f"/servlet/api/dialogs/export/{demo_bot.uuid}",
            {"format": "csv"},
            headers={"Authorization": personas.alice.token},
        )
        chunks = [chunk async for chunk in response.streaming_content]
        return response, b"".join(chunks).decode()

    response, body = async_to_sync(export)()
    assert response.status_code == 200 and response.is_async
    lines = body.splitlines()
    assert lines[0].startswith("contextId,dialogStart,language")
    assert len(lines) == 1 + 6 + 1  # the header, six rows, and the operator's answer's second line
