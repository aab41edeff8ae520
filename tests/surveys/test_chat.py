"""The chatbox's survey calls (client-contract.md §2.2 (19), (20), §3 `survey`): an answer carries the
survey, its configuration has the exact shape the chatbox reads, and answers in the chatbox's raw form
or the spec's form are checked (mandatory fields, options, lengths) and stored with the dialog."""

import base64
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dialogs.models import Dialog, Survey, SurveyAnswer, SurveyAnswerValue
from tests.conftest import decode

from .conftest import RAW_FORM, configuration, fields_by_label, raw_form

pytestmark = pytest.mark.django_db

FIELD_KEYS = {"id", "label", "type", "mandatory", "order", "children", "masterOf"}
TYPES = {"TITLE", "TEXT", "LONG_TEXT", "MULTIPLE_CHOICE", "SELECT", "SELECT_OPTION", "RADIO", "CHECKBOX"}


def is_b64(value) -> bool:
    try:
        base64.b64decode(value, validate=True).decode("utf-8")
    except (ValueError, TypeError):
        return False
    return True


def test_an_answer_carries_its_survey_and_costs_no_extra_query(chatbox, satisfaction):
    chatbox.talk("Bonjour")
    with CaptureQueriesContext(connection) as plain:
        chatbox.talk("Merci")
    with CaptureQueriesContext(connection) as surveyed:
        values = chatbox.talk("Je veux donner mon avis")
    assert values["typeResponse"] == "DMUnderstoodQuestion"
    assert values["survey"] == str(satisfaction.uuid)
    assert values["human"] is False and values["knowledgeId"] > 0  # what CV5 checks before fetching it
    assert len(surveyed.captured_queries) == len(plain.captured_queries)
    # An answer without a survey has no `survey` value.
    assert "survey" not in chatbox.talk("Merci")


def test_configuration_has_exactly_the_shape_the_chatbox_reads(client, chatbox, satisfaction):
    chatbox.talk("Je veux donner mon avis")
    response = client.post(
        f"/servlet/api/chat/survey/configuration/{chatbox.bot}",
        raw_form(
            [
                ("contextUuid", chatbox.context_id),
                ("solutionUsed", "ASSISTANT"),
                ("language", "fr"),
                ("surveyId", str(satisfaction.uuid)),
            ]
        ),
        content_type=RAW_FORM,
    )
    assert response.status_code == 200
    body = response.json()
    assert body["type"] == "surveyConfigurationResponse"
    raw = body["values"]
    assert set(raw) == {
        "surveyId",
        "name",
        "title",
        "submitValue",
        "requiredMessage",
        "contextId",
        "interactionSurvey",
        "fields",
    }
    for key in ("surveyId", "name", "title", "submitValue", "requiredMessage", "contextId"):
        assert is_b64(raw[key]), key
    assert raw["interactionSurvey"] is False

    def check(field, depth=0):
        assert set(field) == FIELD_KEYS
        assert isinstance(field["id"], int) and isinstance(field["order"], int)
        assert isinstance(field["mandatory"], bool)
        assert is_b64(field["label"]) and is_b64(field["type"])
        assert base64.b64decode(field["type"]).decode() in TYPES
        assert field["masterOf"] == []
        for child in field["children"]:
            check(child, depth + 1)

    for field in raw["fields"]:
        check(field)
    values = decode(raw)
    assert values["surveyId"] == str(satisfaction.uuid)
    assert values["contextId"] == chatbox.context_id
    assert (values["name"], values["title"], values["submitValue"]) == (
        "satisfaction",
        "Votre avis sur Clara",
        "Envoyer",
    )
    assert values["requiredMessage"] == "Merci de répondre à cette question."
    assert [f["type"] for f in values["fields"]] == [
        "TITLE",
        "MULTIPLE_CHOICE",
        "SELECT",
        "MULTIPLE_CHOICE",
        "LONG_TEXT",
    ]
    assert [f["order"] for f in values["fields"]] == [0, 1, 2, 3, 4]
    satisfied, heard, topics = values["fields"][1], values["fields"][2], values["fields"][3]
    assert satisfied["mandatory"] is True and heard["mandatory"] is False
    assert [c["type"] for c in satisfied["children"]] == ["RADIO"] * 4
    assert [c["label"] for c in satisfied["children"]] == [
        "Très satisfait",
        "Satisfait",
        "Peu satisfait",
        "Pas satisfait",
    ]
    assert {c["type"] for c in heard["children"]} == {"SELECT_OPTION"}
    assert {c["type"] for c in topics["children"]} == {"CHECKBOX"}
    ids = [f["id"] for f in values["fields"]] + [c["id"] for f in values["fields"] for c in f["children"]]
    assert len(set(ids)) == len(ids)


def test_configuration_of_a_survey_with_a_reword_and_for_operators(client, demo_bot):
    from dialogs.surveys.definitions import save_survey

    survey = save_survey(
        demo_bot, {"name": "op", "type": "operator", "reword": "Merci", "fields": [{"type": "TEXT", "label": "Note"}]}
    )
    values = configuration(client, str(demo_bot.uuid), str(survey.uuid))
    assert values["reword"] == "Merci" and values["interactionSurvey"] is True
    assert values["contextId"] == ""


@pytest.mark.parametrize("survey_id", ["", "not-a-uuid", "00000000-0000-4000-8000-000000000000"])
def test_configuration_of_an_unknown_survey(client, demo_bot, survey_id):
    response = client.post(f"/servlet/api/chat/survey/configuration/{demo_bot.uuid}", {"surveyId": survey_id})
    expected = (400, "MISSING_FIELD") if not survey_id else (404, "UNKNOWN_SURVEY")
    assert (response.status_code, response.json()["code"]) == expected


def test_a_survey_of_another_bot_is_unknown_here(client, demo_bot, satisfaction):
    from bots.models import Bot

    other = Bot.objects.create(name="Other", default_language="fr")
    response = client.post(f"/servlet/api/chat/survey/configuration/{other.uuid}", {"surveyId": str(satisfaction.uuid)})
    assert response.status_code == 404


def submit_raw(client, chatbox, fields, survey):
    body = raw_form([("ctx", chatbox.context_id), ("uuid", str(survey.uuid)), *fields])
    return client.post(f"/servlet/api/chat/survey/{chatbox.bot}", body, content_type=RAW_FORM)


def test_the_chatbox_raw_form_is_stored_with_the_dialog(client, chatbox, satisfaction):
    chatbox.talk("Je veux donner mon avis")
    config = configuration(client, chatbox.bot, str(satisfaction.uuid), chatbox.context_id)
    by_label = fields_by_label(config)
    satisfied = by_label["Êtes-vous satisfait de la réponse ?"]["id"]
    heard = by_label["Comment nous avez-vous connus ?"]["id"]
    topics = by_label["Sur quels sujets ?"]
    remark = by_label["Une remarque, une suggestion ?"]["id"]
    account_box = next(c["id"] for c in topics["children"] if c["label"] == "Compte")
    # Raw &, =, + and % inside an answer, accents, a check box answered on its own (field_<optionId>).
    text = "Rapide & clair, 100% = parfait + merci, l'équipe"
    response = submit_raw(
        client,
        chatbox,
        [
            (f"field_{satisfied}", "Très satisfait"),
            (f"field_{heard}", "Bouche à oreille"),
            (f"field_{topics['id']}", "Cartes"),
            (f"field_{account_box}", "Compte"),
            (f"field_{remark}", text),
        ],
        satisfaction,
    )
    assert response.status_code == 200, response.content
    values = decode(response.json()["values"])
    stored = SurveyAnswer.objects.get(pk=values["answerId"])
    assert stored.dialog == Dialog.objects.get(uuid=chatbox.context_id)
    assert stored.transport == "rest"
    assert list(stored.values.values_list("field_id", "value")) == [
        (satisfied, "Très satisfait"),
        (heard, "Bouche à oreille"),
        (topics["id"], "Cartes"),
        (topics["id"], "Compte"),
        (remark, text),
    ]


def test_the_spec_form_with_fields_as_json(client, chatbox, satisfaction):
    chatbox.talk("Bonjour")
    by_label = fields_by_label(configuration(client, chatbox.bot, str(satisfaction.uuid)))
    fields = {
        str(by_label["Êtes-vous satisfait de la réponse ?"]["id"]): "Satisfait",
        str(by_label["Sur quels sujets ?"]["id"]): ["Virements", "Agences"],
    }
    response = client.post(
        f"/servlet/api/chat/survey/{chatbox.bot}",
        {
            "contextUuid": chatbox.context_id,
            "solutionUsed": "ASSISTANT",
            "surveyId": str(satisfaction.uuid),
            "fields": json.dumps(fields),
        },
    )
    assert response.status_code == 200, response.content
    assert sorted(SurveyAnswerValue.objects.values_list("value", flat=True)) == ["Agences", "Satisfait", "Virements"]


@pytest.mark.parametrize(
    "case, code",
    [
        ("missing mandatory", "MISSING_FIELD"),
        ("wrong option", "INVALID_FIELD"),
        ("two radio options", "INVALID_FIELD"),
        ("too long", "INVALID_FIELD"),
        ("unknown field", "INVALID_FIELD"),
    ],
)
def test_refused_answers_name_the_field_and_store_nothing(client, chatbox, satisfaction, case, code):
    chatbox.talk("Bonjour")
    by_label = fields_by_label(configuration(client, chatbox.bot, str(satisfaction.uuid)))
    satisfied = by_label["Êtes-vous satisfait de la réponse ?"]["id"]
    remark = by_label["Une remarque, une suggestion ?"]["id"]
    fields, blamed = {
        "missing mandatory": ([(f"field_{remark}", "Rien à dire")], satisfied),
        "wrong option": ([(f"field_{satisfied}", "Enchanté")], satisfied),
        "two radio options": (
            [(f"field_{satisfied}", "Satisfait"), (f"field_{satisfied + 1}", "Satisfait")],
            satisfied,
        ),
        "too long": ([(f"field_{satisfied}", "Satisfait"), (f"field_{remark}", "x" * 1001)], remark),
        "unknown field": ([(f"field_{satisfied}", "Satisfait"), ("field_999999", "?")], 999999),
    }[case]
    if case == "two radio options":  # the first option answered on its own beside another one
        first = by_label["Êtes-vous satisfait de la réponse ?"]["children"][0]["id"]
        fields = [(f"field_{satisfied}", "Satisfait"), (f"field_{first}", "true")]
    response = submit_raw(client, chatbox, fields, satisfaction)
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert response.json()["field"] == f"field_{blamed}"
    assert SurveyAnswer.objects.count() == 0 and SurveyAnswerValue.objects.count() == 0


def test_an_answer_needs_a_known_context_and_survey(client, chatbox, satisfaction):
    chatbox.talk("Bonjour")
    url = f"/servlet/api/chat/survey/{chatbox.bot}"
    assert client.post(url, {"uuid": str(satisfaction.uuid)}).json()["code"] == "MISSING_FIELD"
    unknown_context = client.post(url, {"uuid": str(satisfaction.uuid), "ctx": "00000000-0000-4000-8000-000000000000"})
    assert (unknown_context.status_code, unknown_context.json()["code"]) == (404, "UNKNOWN_CONTEXT")
    unknown_survey = client.post(url, {"uuid": "00000000-0000-4000-8000-000000000000", "ctx": chatbox.context_id})
    assert (unknown_survey.status_code, unknown_survey.json()["code"]) == (404, "UNKNOWN_SURVEY")
    assert SurveyAnswer.objects.count() == 0


def test_a_deleted_survey_is_no_longer_offered(client, chatbox, satisfaction):
    from dialogs.surveys.definitions import delete_survey

    assert chatbox.talk("Je veux donner mon avis")["survey"] == str(satisfaction.uuid)
    delete_survey(satisfaction)
    assert "survey" not in chatbox.talk("Je veux donner mon avis")
    assert not Survey.objects.filter(pk=satisfaction.pk).exists()
