"""Fixtures of the Dialogs group tests: the personas, a set of dialogs of the demo bot with every
kind the filters tell apart (and one of another bot that must never show), and an exporter that
reads the export as an API client does."""

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pytest

from bots.models import Bot
from dialogs.handover import Code
from dialogs.models import Dialog, Interaction
from tests.accounts.personas import personas  # noqa: F401

ROOT = "/servlet/api/dialogs"


def at(day: str, hour: int = 10) -> datetime:
    return datetime.fromisoformat(day).replace(hour=hour, tzinfo=UTC)


def make_dialog(bot, started: datetime, *, exchanges=(), **fields) -> Dialog:
    """A stored dialog with one interaction per (user input, answer, interaction fields) exchange, a
    minute apart."""
    dialog = Dialog.objects.create(bot=bot, first_activity=started, last_activity=started, **fields)
    for minute, (user_input, answer, extra) in enumerate(exchanges):
        Interaction.objects.create(
            dialog=dialog,
            bot=bot,
            counted=not dialog.qualification_mode,
            created_at=started + timedelta(minutes=minute),
            user_input=user_input,
            answer=answer,
            type_response=extra.pop("type_response", "DMUnderstoodQuestion"),
            language=dialog.language,
            space=dialog.space,
            **extra,
        )
    if exchanges:
        Dialog.objects.filter(pk=dialog.pk).update(last_activity=started + timedelta(minutes=len(exchanges)))
    return dialog


class DialogSet:
    """The demo bot's dialogs of the tests, by what sets each apart."""

    def __init__(self, bot):
        self.bot = bot
        self.fr_positive = make_dialog(
            bot,
            at("2025-10-05"),
            language="fr",
            space="Defaut",
            client_id="visitor-1",
            browser="Firefox 140",
            exchanges=[
                ("Bonjour", "<p>Bonjour !</p>", {}),
                ("horaires", "Du lundi au vendredi", {"ask_feedback": True, "feedback": "positive"}),
            ],
        )
        self.en_test_negative = make_dialog(
            bot,
            at("2025-10-10"),
            language="en",
            space="Pro",
            qualification_mode=True,
            exchanges=[("=SUM(A1:A9)", "I did not understand", {"feedback": "negative", "feedback_comment": "bad"})],
        )
        self.fr_livechat = make_dialog(
            bot,
            at("2025-10-20"),
            language="fr",
            space="Defaut",
            exchanges=[
                (
                    "Je veux parler à un conseiller",
                    "Je vous passe un conseiller",
                    {"type_response": Code.CONNECTION_SUCCEED},
                ),
                (
                    "",
                    'Bonjour, "Marie" à votre écoute,\nque puis-je faire ?',
                    {"human": True, "type_response": Code.OPERATOR_ANSWER},
                ),
            ],
        )
        self.fr_pro_quiet = make_dialog(
            bot,
            at("2025-11-02", 23),
            language="fr",
            space="Pro",
            exchanges=[("Combien coûte le compte ?", "5 € par mois", {"knowledge_item": None})],
        )
        other = Bot.objects.create(name="Another bot", default_language="fr")
        self.other_bot = make_dialog(other, at("2025-10-06"), language="fr", exchanges=[("secret", "hidden", {})])

    @property
    def all(self) -> list[Dialog]:
        return [self.fr_positive, self.en_test_negative, self.fr_livechat, self.fr_pro_quiet]


@pytest.fixture
def dialog_set(demo_bot) -> DialogSet:
    return DialogSet(demo_bot)


class Exporter:
    """GET dialogs/export/{botUUID} as a client does, the body read to its end and parsed back."""

    def __init__(self, client, bot_uuid: str, prefix: str = "/servlet/api"):
        self.client = client
        self.url = f"{prefix}/dialogs/export/{bot_uuid}"

    def get(self, persona=None, **fields):
        headers = persona.auth if persona is not None else {}
        return self.client.get(self.url, fields, **headers)

    def rows(self, persona, **fields) -> list[dict]:
        response = self.get(persona, **fields)
        assert response.status_code == 200, response.content
        body = b"".join(response.streaming_content).decode("utf-8")
        if fields.get("format") == "csv":
            assert response["Content-Type"] == "text/csv; charset=utf-8"
            return list(csv.DictReader(io.StringIO(body, newline="")))
        assert response["Content-Type"] == "application/x-ndjson; charset=utf-8"
        return [json.loads(line) for line in body.splitlines()]

    def contexts(self, persona, **fields) -> list[str]:
        """The context ids exported, each once, in the order they come."""
        return list(dict.fromkeys(row["contextId"] for row in self.rows(persona, **fields)))


@pytest.fixture
def exporter(client, demo_bot):
    return Exporter(client, str(demo_bot.uuid))


def ids(*dialogs: Dialog) -> list[str]:
    return [str(dialog.uuid) for dialog in dialogs]
