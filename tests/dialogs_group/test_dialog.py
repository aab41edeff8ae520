"""GET dialogs/{botUUID}/{contextId}: one dialog with its interactions, and who may read it."""

import pytest

from accounts.models import Role
from tests.accounts.personas import make_persona


def url(bot, context_id) -> str:
    return f"/servlet/api/dialogs/{bot.uuid}/{context_id}"


def test_one_dialog_with_its_interactions(client, demo_bot, dialog_set, personas):
    dialog = dialog_set.fr_livechat
    response = client.get(url(demo_bot, dialog.uuid), **personas.alice.auth)
    assert response.status_code == 200
    body = response.json()
    assert body["contextId"] == str(dialog.uuid) and body["botUUID"] == str(demo_bot.uuid)
    assert body["livechat"] is True and body["qualificationMode"] is False and body["archived"] is False
    assert body["dialogStart"] == "2025-10-20T10:00:00+00:00"
    assert [(i["userInput"], i["human"], i["typeResponse"]) for i in body["interactions"]] == [
        ("Je veux parler à un conseiller", False, "DMLiveChatConnectionSucceed"),
        ("", True, "OPRegularOperatorAnswer"),
    ]
    assert set(body["interactions"][0]) == {
        "time", "userInput", "answer", "typeResponse", "knowledgeId", "human", "origin", "askFeedback", "feedback",
        "feedbackComment",
    }  # fmt: skip


def test_the_visitor_id_is_for_administrators(client, demo_bot, dialog_set, personas):
    dialog = dialog_set.fr_positive
    assert client.get(url(demo_bot, dialog.uuid), **personas.alice.auth).json()["clientId"] == "visitor-1"
    assert client.get(url(demo_bot, dialog.uuid), **personas.bob.auth).json()["clientId"] == ""
    _, reader = make_persona(personas.account, Role.READER)
    read = client.get(url(demo_bot, dialog.uuid), HTTP_AUTHORIZATION=reader)
    assert read.status_code == 200 and read.json()["clientId"] == ""


def test_an_archived_dialog_is_still_read(client, demo_bot, dialog_set, personas):
    from django.utils import timezone

    dialog = dialog_set.fr_pro_quiet
    type(dialog).objects.filter(pk=dialog.pk).update(archived_at=timezone.now())
    body = client.get(url(demo_bot, dialog.uuid), **personas.alice.auth).json()
    assert body["archived"] is True and len(body["interactions"]) == 1


def test_without_a_token_it_is_401(client, demo_bot, dialog_set):
    response = client.get(url(demo_bot, dialog_set.fr_positive.uuid))
    assert response.status_code == 401 and response.json()["code"] == "MISSING_CREDENTIALS"


def test_a_bot_of_another_account_is_403(client, demo_bot, dialog_set, personas):
    response = client.get(url(demo_bot, dialog_set.fr_positive.uuid), **personas.charlie.auth)
    assert response.status_code == 403 and response.json()["code"] == "FORBIDDEN"


@pytest.mark.parametrize("context_id", ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "other-bot"])
def test_an_unknown_dialog_is_404(client, demo_bot, dialog_set, personas, context_id):
    if context_id == "other-bot":  # a real dialog, of another bot: unknown to this one
        context_id = dialog_set.other_bot.uuid
    response = client.get(url(demo_bot, context_id), **personas.alice.auth)
    assert response.status_code == 404 and response.json()["code"] == "UNKNOWN_CONTEXT"


def test_an_unknown_bot_is_404(client, dialog_set, personas):
    response = client.get(
        f"/servlet/api/dialogs/00000000-0000-4000-8000-000000000000/{dialog_set.fr_positive.uuid}",
        **personas.alice.auth,
    )
    assert response.status_code == 404 and response.json()["code"] == "UNKNOWN_BOT"
