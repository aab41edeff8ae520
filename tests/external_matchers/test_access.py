"""Who may call the External matchers group: a token (or Basic) is needed; export and status need
knowledge.read (every role of the bot's account), import knowledge.edit (administrators and editors);
an unknown bot is a 404, another account's bot a 403; a refused import stores nothing."""

import pytest

from accounts.models import Role
from knowledge.models import KnowledgeItem
from tests.accounts.personas import Persona, basic, make_persona

from .conftest import BASE

NLU = 'version: "3.1"\nnlu:\n- intent: greet\n  examples: |\n    - bonjour\n'


def call(client, what: str, bot_uuid, auth: dict):
    url = f"{BASE}/{what}/{bot_uuid}"
    if what == "import":
        return client.post(url, NLU.encode(), content_type="application/yaml", **auth)
    return client.get(url, **auth)


@pytest.mark.parametrize("what", ["export", "status", "import"])
def test_no_or_bad_credentials_are_a_401(client, demo_bot, what):
    assert call(client, what, demo_bot.uuid, {}).json()["code"] == "MISSING_CREDENTIALS"
    bad = call(client, what, demo_bot.uuid, {"HTTP_AUTHORIZATION": "dyt_not-a-token"})
    assert bad.status_code == 401 and bad.json()["code"] == "INVALID_CREDENTIALS"
    # Credentials first: an unknown bot does not tell an anonymous caller it is unknown.
    assert call(client, what, "00000000-0000-4000-8000-000000000000", {}).status_code == 401


@pytest.mark.parametrize("what", ["export", "status", "import"])
@pytest.mark.parametrize("bot_uuid", ["00000000-0000-4000-8000-000000000000", "not-a-uuid"])
def test_an_unknown_bot_is_a_404(client, personas, what, bot_uuid):
    response = call(client, what, bot_uuid, personas.alice.auth)
    assert response.status_code == 404 and response.json()["code"] == "UNKNOWN_BOT"


@pytest.mark.parametrize("what", ["export", "status", "import"])
def test_another_accounts_bot_is_a_403(client, demo_bot, personas, what):
    count = KnowledgeItem.objects.count()
    response = call(client, what, demo_bot.uuid, personas.charlie.auth)
    assert response.status_code == 403 and response.json()["code"] == "FORBIDDEN"
    assert KnowledgeItem.objects.count() == count


@pytest.mark.parametrize(
    "role, may_read, may_import",
    [
        (Role.ADMINISTRATOR, True, True),
        (Role.EDITOR, True, True),
        (Role.OPERATOR, True, False),
        (Role.READER, True, False),
    ],
)
def test_rights_follow_the_role(client, demo_bot, personas, role, may_read, may_import):
    person = Persona(*make_persona(personas.account, role))
    for what in ("export", "status"):
        assert call(client, what, demo_bot.uuid, person.auth).status_code == (200 if may_read else 403)
    count = KnowledgeItem.objects.count()
    response = call(client, "import", demo_bot.uuid, person.auth)
    if may_import:
        assert response.status_code == 200 and response.json()["intents"]["created"] == 1
    else:
        assert response.status_code == 403 and "knowledge.edit" in response.json()["error"]
        assert KnowledgeItem.objects.count() == count


def test_basic_credentials_and_a_bearer_token_work_too(client, demo_bot, personas):
    assert call(client, "export", demo_bot.uuid, {"HTTP_AUTHORIZATION": basic(personas.bob.login)}).status_code == 200
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {personas.bob.token}"}
    assert call(client, "import", demo_bot.uuid, bearer).status_code == 200
