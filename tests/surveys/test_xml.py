"""Surveys travel with the knowledge base file: export → delete → import → export gives the same bytes,
the answers' links come back, answers already stored keep their fields; the file is checked (schema,
dangling survey, options) before anything is written; into another bot a survey gets its own uuid."""

import io

import pytest
from lxml import etree

from bots.models import Bot
from dialogs.models import Dialog, Survey, SurveyAnswer, SurveyField
from dialogs.surveys import answers
from dialogs.surveys.definitions import delete_survey, ordered_fields
from knowledge.exchange import delete_knowledge_base, export_knowledge_base, import_knowledge_base
from knowledge.models import Answer
from knowledge.xml import schema
from knowledge.xml.errors import InvalidKnowledgeBaseFile

pytestmark = pytest.mark.django_db


def export(bot) -> bytes:
    bot.refresh_from_db()
    return b"".join(export_knowledge_base(bot, gallery=True))


def test_the_demo_surveys_round_trip_byte_for_byte(chatbox, demo_bot, satisfaction):
    chatbox.talk("Bonjour")
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    satisfied = ordered_fields(satisfaction)[1]
    stored = answers.submit(satisfaction, dialog, {satisfied.pk: ["Satisfait"]}, transport="rest")
    field_ids = list(SurveyField.objects.filter(survey=satisfaction).order_by("id").values_list("id", flat=True))

    first = export(demo_bot)
    assert b"<surveys>" in first and f'survey="{satisfaction.uuid}"'.encode() in first
    schema().assertValid(etree.parse(io.BytesIO(first)))
    delete_knowledge_base(demo_bot, gallery=True)
    assert not Answer.objects.filter(item__bot=demo_bot).exists()
    import_knowledge_base(demo_bot, io.BytesIO(first))
    assert export(demo_bot) == first
    # The survey was updated in place: same fields, the answer keeps its values and their fields.
    assert (
        list(SurveyField.objects.filter(survey=satisfaction).order_by("id").values_list("id", flat=True)) == field_ids
    )
    assert list(stored.values.values_list("field_id", flat=True)) == [satisfied.pk]
    assert chatbox.talk("Je veux donner mon avis")["survey"] == str(satisfaction.uuid)

    # Surveys gone from the bot: the import makes them again, with the file's uuids.
    for survey in Survey.objects.filter(bot=demo_bot):
        delete_survey(survey)
    import_knowledge_base(demo_bot, io.BytesIO(first))
    assert export(demo_bot) == first
    assert SurveyAnswer.objects.count() == 0


def test_a_bot_without_surveys_exports_no_surveys_section(demo_bot):
    bot = Bot.objects.create(name="Plain", default_language="fr")
    assert b"surveys" not in export(bot)


def test_into_another_bot_the_survey_gets_its_own_uuid(demo_bot, satisfaction):
    other = Bot.objects.create(name="Other", default_language="fr", account=demo_bot.account)
    import_knowledge_base(other, io.BytesIO(export(demo_bot)))
    copy = Survey.objects.get(bot=other, name="satisfaction", language="fr")
    assert copy.uuid != satisfaction.uuid
    assert [f.label for f in ordered_fields(copy)] == [f.label for f in ordered_fields(satisfaction)]
    linked = Answer.objects.get(item__bot=other, item__label="Give your opinion", language="fr")
    assert linked.survey_id == copy.uuid


@pytest.mark.parametrize(
    "change, code",
    [
        (('survey="{uuid}"', 'survey="00000000-0000-4000-8000-000000000001"'), "DANGLING_REFERENCE"),
        (('type="SELECT"', 'type="PARAGRAPH"'), "SCHEMA_VIOLATION"),
    ],
)
def test_bad_surveys_in_a_file_are_refused_before_anything_changes(demo_bot, satisfaction, change, code):
    good = export(demo_bot).decode()
    old, new = change
    bad = good.replace(old.format(uuid=satisfaction.uuid), new, 1)
    assert bad != good
    with pytest.raises(InvalidKnowledgeBaseFile) as refused:
        import_knowledge_base(demo_bot, io.BytesIO(bad.encode()))
    assert refused.value.code == code
    assert export(demo_bot).decode() == good


def test_a_choice_field_without_options_is_refused(demo_bot, satisfaction):
    good = export(demo_bot).decode()
    start = good.index('<field type="SELECT"')
    end = good.index("</field>", start) + len("</field>")
    bad = good[:start] + '<field type="SELECT" label="Vide"/>' + good[end:]
    with pytest.raises(InvalidKnowledgeBaseFile) as refused:
        import_knowledge_base(demo_bot, io.BytesIO(bad.encode()))
    assert "option" in str(refused.value)
    assert export(demo_bot).decode() == good
