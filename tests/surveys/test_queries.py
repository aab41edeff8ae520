"""What the chatbox's survey calls cost, statement by statement: the configuration reads the bot, the
survey, its fields and the dialog; an answer adds one transaction of two inserts, whatever its size."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from .conftest import RAW_FORM, configuration, fields_by_label, raw_form

pytestmark = pytest.mark.django_db


def statements(captured) -> list[str]:
    """Each statement's verb and first table, as tests/speed names them."""
    found = []
    for query in captured.captured_queries:
        sql = query["sql"].replace('"', "")
        verb = sql.split()[0].upper()
        if verb in ("SAVEPOINT", "RELEASE", "BEGIN", "COMMIT"):
            continue
        marker = {"SELECT": " FROM ", "INSERT": " INTO ", "UPDATE": "UPDATE "}[verb]
        table = sql.split(marker, 1)[1].split()[0]
        found.append(f"{verb} {table}")
    return found


def test_configuration_and_answer_statements(client, chatbox, satisfaction):
    chatbox.talk("Je veux donner mon avis")
    with CaptureQueriesContext(connection) as read:
        config = configuration(client, chatbox.bot, str(satisfaction.uuid), chatbox.context_id)
    assert statements(read) == [
        "SELECT bots_bot",
        "SELECT dialogs_survey",
        "SELECT dialogs_dialog",
        "SELECT dialogs_surveyfield",
    ]
    by_label = fields_by_label(config)
    topics = by_label["Sur quels sujets ?"]
    fields = [(f"field_{by_label['Êtes-vous satisfait de la réponse ?']['id']}", "Satisfait")]
    fields += [(f"field_{child['id']}", child["label"]) for child in topics["children"]]
    fields.append((f"field_{by_label['Une remarque, une suggestion ?']['id']}", "Très bien"))
    body = raw_form([("ctx", chatbox.context_id), ("uuid", str(satisfaction.uuid)), *fields])
    with CaptureQueriesContext(connection) as write:
        response = client.post(f"/servlet/api/chat/survey/{chatbox.bot}", body, content_type=RAW_FORM)
    assert response.status_code == 200
    assert statements(write) == [
        "SELECT bots_bot",
        "SELECT dialogs_survey",
        "SELECT dialogs_dialog",
        "SELECT dialogs_surveyfield",
        "INSERT dialogs_surveyanswer",
        "INSERT dialogs_surveyanswervalue",  # the six values in one statement
    ]
