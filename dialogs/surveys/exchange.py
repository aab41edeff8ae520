"""A bot's surveys in its knowledge-base file: written after the matching groups (only when the bot has
some, so files of bots without surveys are unchanged), and on import updated in place or created.

A survey is matched by its uuid in this bot, else by its name and language (a file from another bot);
its fields are synced position by position (dialogs.surveys.definitions.sync_fields), so answers already
stored keep their fields. Surveys the file does not name stay, with their answers: surveys belong to the
bot (product-behaviour.md §3: bot preferences), the knowledge only links to them.
Dialogs registers this part with the exchange (knowledge/exchange/survey_part.py) from dialogs/apps.py."""

import uuid as uuid_module

from knowledge.exchange.rows import uuid_value
from knowledge.xml import surveys as xml_surveys

from .definitions import FieldSpec, ordered_fields, sync_fields
from .models import Survey


def write_surveys(writer, bot) -> None:
    rows = list(Survey.objects.filter(bot=bot).order_by("name", "language", "uuid"))
    if not rows:
        return
    writer.open_section("surveys")
    for survey in rows:
        fields = [
            xml_surveys.SurveyField(
                kind=item.kind,
                label=item.label,
                mandatory=item.mandatory,
                multiple=item.multiple,
                max_length=item.max_length,
                options=[option.label for option in item.options],
            )
            for item in ordered_fields(survey)
        ]
        writer.survey(
            xml_surveys.Survey(
                uuid=str(survey.uuid),
                name=survey.name,
                language=survey.language,
                kind=survey.kind,
                title=survey.title,
                submit_value=survey.submit_value,
                required_message=survey.required_message,
                reword=survey.reword,
                fields=fields,
            )
        )
    writer.close_section()


class SurveyLoader:
    """Import side: each survey record written at once (answers that name it come later in the file)."""

    def __init__(self, bot):
        self.bot = bot
        self.uuids: dict[str, str] = {}  # the file's uuid → the stored survey's

    def add(self, record: xml_surveys.Survey) -> None:
        survey = (
            Survey.objects.filter(bot=self.bot, uuid=record.uuid).first()
            or Survey.objects.filter(bot=self.bot, name=record.name, language=record.language).first()
        )
        if survey is None:
            taken = Survey.objects.filter(uuid=record.uuid).exists()  # by another bot
            survey = Survey(bot=self.bot, uuid=uuid_module.uuid4() if taken else uuid_module.UUID(record.uuid))
        survey.name, survey.language, survey.kind = record.name, record.language, record.kind
        defaults = {field.name: field.default for field in Survey._meta.fields}
        survey.title = record.title or record.name
        survey.submit_value = record.submit_value or defaults["submit_value"]
        survey.required_message = record.required_message or defaults["required_message"]
        survey.reword = record.reword
        survey.save()
        sync_fields(
            survey,
            [
                FieldSpec(
                    kind=item.kind,
                    label=item.label,
                    mandatory=item.mandatory and item.kind != "TITLE",
                    multiple=item.multiple and item.kind == "MULTIPLE_CHOICE",
                    max_length=item.max_length,
                    options=[option.strip() for option in item.options],
                )
                for item in record.fields
            ],
        )
        self.uuids[record.uuid] = str(survey.uuid)

    def answer_value(self, survey_uuid: str):
        """The answer row's survey column: the stored survey's uuid, or None."""
        if not survey_uuid:
            return None
        return uuid_value(self.uuids.get(survey_uuid, survey_uuid))
