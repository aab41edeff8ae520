"""Surveys tests: the demo bot's satisfaction survey, people with each role, the chatbox's raw form."""

import pytest

from dialogs.models import Survey
from tests.accounts.personas import make_persona, personas  # noqa: F401 (personas is a fixture)
from tests.conftest import decode

RAW_FORM = "application/x-www-form-urlencoded; charset=utf-8"


def raw_form(fields: list[tuple[str, str]]) -> str:
    """What CV5's toFormUrlEncoded sends: key=value joined by &, nothing percent-encoded."""
    return "&".join(f"{key}={value}" for key, value in fields)


@pytest.fixture
def satisfaction(demo_bot):
    """The demo's French satisfaction survey and its configuration as the chatbox reads it."""
    return Survey.objects.get(bot=demo_bot, name="satisfaction", language="fr")


def configuration(client, bot_uuid: str, survey_id: str, context_id: str = "") -> dict:
    response = client.post(
        f"/servlet/api/chat/survey/configuration/{bot_uuid}",
        raw_form(
            [
                ("contextUuid", context_id or "null"),
                ("solutionUsed", "ASSISTANT"),
                ("language", "fr"),
                ("surveyId", survey_id),
            ]
        ),
        content_type=RAW_FORM,
    )
    assert response.status_code == 200, response.content
    return decode(response.json()["values"])


def fields_by_label(config: dict) -> dict[str, dict]:
    return {field["label"]: field for field in config["fields"]}
