"""The Surveys servlet group: create, edit, list, read, delete and results, with a token and the right
to the bot (any role reads, editors and administrators write); refusals change nothing."""

import json

import pytest

from dialogs.models import Dialog, Survey, SurveyField
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db

BASE = "/servlet/api/surveys/bot"
NEW_SURVEY = {
    "name": "après-vente",
    "title": "Votre avis sur le SAV",
    "type": "visitor",
    "language": "en",
    "submitValue": "Send",
    "requiredMessage": "Required.",
    "fields": [
        {"type": "TITLE", "label": "Two questions"},
        {"type": "TEXT", "label": "Your name", "maxLength": 50},
        {"type": "MULTIPLE_CHOICE", "label": "Rating", "mandatory": True, "options": ["Good", "Bad"]},
        {"type": "SELECT", "label": "Channel", "options": ["Web", "Phone"]},
        {"type": "CHECKBOX", "label": "I agree to be contacted"},
    ],
}


def post_json(client, url, data, persona):
    return client.post(url, json.dumps(data), content_type="application/json", **persona.auth)


def put_json(client, url, data, persona):
    return client.put(url, json.dumps(data), content_type="application/json", **persona.auth)


def test_create_read_list_edit_delete(client, demo_bot, personas):
    bob = personas.bob  # an editor
    created = post_json(client, f"{BASE}/{demo_bot.uuid}", NEW_SURVEY, bob)
    assert created.status_code == 201, created.content
    survey = created.json()
    assert survey["name"] == "après-vente" and survey["type"] == "visitor" and survey["language"] == "en"
    assert [f["type"] for f in survey["fields"]] == ["TITLE", "TEXT", "MULTIPLE_CHOICE", "SELECT", "CHECKBOX"]
    assert survey["fields"][1]["maxLength"] == 50
    assert [o["label"] for o in survey["fields"][2]["options"]] == ["Good", "Bad"]
    url = f"{BASE}/{demo_bot.uuid}/{survey['surveyId']}"

    assert client.get(url, **bob.auth).json() == survey
    listed = client.get(f"{BASE}/{demo_bot.uuid}", **bob.auth).json()
    assert {s["name"] for s in listed["surveys"]} == {"satisfaction", "après-vente"}

    # An edit keeps each field's id at its position; the options of a choice field too.
    changed = dict(NEW_SURVEY, title="New title")
    changed["fields"] = [
        {"type": "TEXT", "label": "Your name"},
        {"type": "LONG_TEXT", "label": "Comment"},
        {"type": "MULTIPLE_CHOICE", "label": "Rating", "multiple": True, "options": ["Good", "Bad", "Ugly"]},
    ]
    edited = put_json(client, url, changed, bob)
    assert edited.status_code == 200, edited.content
    after = edited.json()
    assert after["title"] == "New title"
    assert [f["id"] for f in after["fields"]] == [f["id"] for f in survey["fields"][:3]]
    assert [o["id"] for o in after["fields"][2]["options"]][:2] == [o["id"] for o in survey["fields"][2]["options"]]
    assert after["fields"][2]["multiple"] is True
    assert SurveyField.objects.filter(survey__uuid=survey["surveyId"]).count() == 6  # 3 fields, 3 options
    assert set(
        SurveyField.objects.filter(parent__isnull=False, survey__uuid=survey["surveyId"]).values_list("kind", flat=True)
    ) == {"CHECKBOX"}

    # A partial edit changes only what it names.
    assert put_json(client, url, {"title": "Only the title"}, bob).json()["fields"] == after["fields"]

    deleted = client.delete(url, **bob.auth)
    assert deleted.json() == {"surveyId": survey["surveyId"], "deleted": True}
    assert client.get(url, **bob.auth).status_code == 404


def test_a_form_body_works_too(client, demo_bot, personas):
    response = client.post(
        f"{BASE}/{demo_bot.uuid}",
        {"name": "form", "fields": json.dumps([{"type": "TEXT", "label": "Q"}])},
        **personas.alice.auth,
    )
    assert response.status_code == 201, response.content
    assert response.json()["language"] == "fr"  # the bot's default


def test_who_may_do_what(client, demo_bot, personas):
    reader = make_persona(personas.account, "reader")[1]
    operator = make_persona(personas.account, "operator")[1]
    survey = Survey.objects.get(bot=demo_bot, name="satisfaction", language="fr")
    one = f"{BASE}/{demo_bot.uuid}/{survey.uuid}"
    every = f"{BASE}/{demo_bot.uuid}"
    before = list(Survey.objects.values_list("id", "title"))

    assert client.get(every).json()["code"] == "MISSING_CREDENTIALS"
    assert client.get(every, HTTP_AUTHORIZATION="dyt_nope").status_code == 401
    assert client.get(one, HTTP_AUTHORIZATION=personas.charlie.token).status_code == 403  # another account
    for token in (reader, operator):
        assert client.get(one, HTTP_AUTHORIZATION=token).status_code == 200
        assert client.get(f"{one}/results", HTTP_AUTHORIZATION=token).status_code == 200
        assert (
            client.put(
                one, json.dumps({"title": "x"}), content_type="application/json", HTTP_AUTHORIZATION=token
            ).status_code
            == 403
        )
        assert client.delete(one, HTTP_AUTHORIZATION=token).status_code == 403
        assert (
            client.post(
                every, json.dumps(NEW_SURVEY), content_type="application/json", HTTP_AUTHORIZATION=token
            ).status_code
            == 403
        )
    assert (
        client.post(
            every, json.dumps(NEW_SURVEY), content_type="application/json", HTTP_AUTHORIZATION=personas.charlie.token
        ).status_code
        == 403
    )
    assert client.get(f"{BASE}/00000000-0000-4000-8000-000000000000", **personas.alice.auth).status_code == 404
    unknown = client.get(f"{BASE}/{demo_bot.uuid}/00000000-0000-4000-8000-000000000000", **personas.alice.auth)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "UNKNOWN_SURVEY")
    assert list(Survey.objects.values_list("id", "title")) == before


@pytest.mark.parametrize(
    "change, field",
    [
        ({"name": ""}, "name"),
        ({"type": "robot"}, "type"),
        ({"language": "de"}, "language"),
        ({"fields": {"a": 1}}, "fields"),
        ({"fields": [{"type": "PARAGRAPH"}]}, "fields[0].type"),
        ({"fields": [{"type": "SELECT", "label": "x", "options": []}]}, "fields[0].options"),
        ({"fields": [{"type": "SELECT", "label": "x", "options": ["a", "a"]}]}, "fields[0].options"),
        ({"fields": [{"type": "TEXT", "label": "x", "options": ["a"]}]}, "fields[0].options"),
        ({"fields": [{"type": "TEXT", "label": "x", "maxLength": 0}]}, "fields[0].maxLength"),
        ({"fields": [{"type": "TEXT", "label": "x" * 501}]}, "fields[0].label"),
        ({"fields": [{"type": "TEXT", "mandatory": "perhaps"}]}, "fields[0].mandatory"),
    ],
)
def test_bad_surveys_are_refused_and_change_nothing(client, demo_bot, personas, change, field):
    survey = Survey.objects.get(bot=demo_bot, name="satisfaction", language="fr")
    fields_before = list(SurveyField.objects.order_by("id").values_list("id", "kind", "label"))
    created = post_json(client, f"{BASE}/{demo_bot.uuid}", {**NEW_SURVEY, **change}, personas.alice)
    edited = put_json(client, f"{BASE}/{demo_bot.uuid}/{survey.uuid}", change, personas.alice)
    for response in (created, edited):
        assert response.status_code == 400, response.content
        assert response.json()["field"] == field
    assert Survey.objects.count() == 2
    assert list(SurveyField.objects.order_by("id").values_list("id", "kind", "label")) == fields_before


def test_a_name_is_unique_per_language(client, demo_bot, personas):
    clash = post_json(
        client, f"{BASE}/{demo_bot.uuid}", {**NEW_SURVEY, "name": "satisfaction", "language": "fr"}, personas.alice
    )
    assert (clash.status_code, clash.json()["code"]) == (409, "SURVEY_EXISTS")


def test_results_count_options_and_list_texts(client, chatbox, personas, satisfaction):
    from dialogs.surveys import answers
    from dialogs.surveys.definitions import ordered_fields

    chatbox.talk("Bonjour")
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    title, satisfied, _heard, topics, remark = ordered_fields(satisfaction)
    for rating, chosen, text in [
        ("Satisfait", ["Cartes"], "Bien"),
        ("Satisfait", ["Cartes", "Compte"], ""),
        ("Pas satisfait", [], "Trop long"),
    ]:
        given = {satisfied.pk: [rating], topics.pk: chosen}
        if text:
            given[remark.pk] = [text]
        answers.submit(satisfaction, dialog, given, transport="rest")
    found = client.get(f"{BASE}/{chatbox.bot}/{satisfaction.uuid}/results", **personas.bob.auth).json()
    assert found["answers"] == 3
    by_id = {field["id"]: field for field in found["fields"]}
    assert {c["option"]: c["count"] for c in by_id[satisfied.pk]["counts"]} == {
        "Très satisfait": 0,
        "Satisfait": 2,
        "Peu satisfait": 0,
        "Pas satisfait": 1,
    }
    assert {c["option"]: c["count"] for c in by_id[topics.pk]["counts"]}["Cartes"] == 2
    assert by_id[remark.pk]["texts"] == ["Trop long", "Bien"]
    assert title.pk not in by_id
