"""Reading along over the real websockets (channels.testing on config.asgi.application): a supervisor's console
is sent each new line of the monitored bot's dialogs as it happens, with the bot or with an operator; a plain
operator's console is not; a whisper reaches the operator's console and never the visitor's socket; giving or
taking back the right changes an open console at once."""

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from accounts.models import Membership
from livechat import console, supervisors
from livechat.models import Operator
from preferences.models import BotPreference
from tests.livechat.conftest import ChatboxSocket, ConsoleSocket, make_operator

pytestmark = pytest.mark.django_db(transaction=True)


def run(scenario):
    return async_to_sync(scenario)()


@pytest.fixture
def monitored(demo_bot):
    supervisors.forget(demo_bot.pk)
    BotPreference.objects.create(bot=demo_bot, name="livechat.createmonitoreddialogs", value="true")
    yield demo_bot
    supervisors.forget(demo_bot.pk)


@pytest.fixture
def sophie(team):
    operator = make_operator(team.account, "sophie", "Sophie", status="busy")
    Membership.objects.filter(user=operator.user).update(supervisor=True)
    return operator


async def until(socket, kind: str, seen: list) -> dict:
    """The next message of that type; every message on the way is kept in `seen`."""
    while True:
        message = await socket.receive()
        seen.append(message)
        if message.get("type") == kind:
            return message


async def acted(operator, **action):
    return await database_sync_to_async(console.act)(operator.pk, action)


def test_a_supervisor_reads_along_and_a_plain_operator_does_not(team, monitored, visitor, sophie):
    async def scenario():
        supervisor = await ConsoleSocket(sophie).open()
        plain = await ConsoleSocket(team.marc).open()
        state = await supervisor.until("state")
        await plain.until("state")
        await database_sync_to_async(visitor.talk)("Quels sont vos horaires d'ouverture ?")
        with_the_bot = await supervisor.until("watch")
        await database_sync_to_async(visitor.ask_for_human)()
        handed = await supervisor.until("watch")
        request = await database_sync_to_async(visitor.live_request)()
        await acted(team.lea, action="send", dialog=request.pk, text="Bonjour, Léa à votre écoute.")
        answered = await supervisor.until("watch")
        # Whatever reached the plain operator's console before their own status change came in order.
        seen = []
        await plain.send({"action": "status", "status": "busy", "ref": 1})
        await until(plain, "operator", seen)
        await supervisor.close()
        await plain.close()
        return state, with_the_bot, handed, answered, seen

    state, with_the_bot, handed, answered, seen = run(scenario)
    assert state["supervisor"] is True
    assert with_the_bot["conversation"]["state"] == "bot"
    assert with_the_bot["conversation"]["contextId"] == visitor.context_id
    assert with_the_bot["message"]["user"] == "Quels sont vos horaires d'ouverture ?"
    assert with_the_bot["message"]["from"] == "bot" and with_the_bot["message"]["text"]
    assert handed["conversation"]["state"] == "operator"
    assert (answered["message"]["from"], answered["message"]["operator"]) == ("operator", "Léa")
    assert [message for message in seen if message.get("type") == "watch"] == []


def test_a_whisper_reaches_the_operators_console_and_never_the_visitors_socket(team, monitored, visitor, sophie):
    visitor.ask_for_human()
    request = visitor.live_request()

    async def scenario():
        chatbox = await ChatboxSocket(visitor.bot).open()
        await chatbox.follow(visitor.context_id)
        lea = await ConsoleSocket(team.lea).open()
        supervisor = await ConsoleSocket(sophie).open()
        await lea.until("state")
        await supervisor.until("state")
        noted = await supervisor.act(action="note", conversation=request.dialog_id, text="Psst, carte Or", ref=3)
        whispered = await lea.until("message")
        await acted(team.lea, action="send", dialog=request.pk, text="Je vous propose notre carte Or.")
        first_frame = await chatbox.frame()
        await chatbox.close()
        await lea.close()
        await supervisor.close()
        return noted, whispered, first_frame

    noted, whispered, first_frame = run(scenario)
    assert noted["type"] == "noted" and noted["ref"] == 3
    assert whispered["dialog"] == request.pk
    assert whispered["message"]["from"] == "note" and whispered["message"]["kind"] == "whisper"
    assert whispered["message"]["text"] == "Psst, carte Or"
    # The visitor's socket got the operator's message first: the whisper was never sent to it.
    assert first_frame["type"] == "talkResponse"
    assert first_frame["text"] == "Je vous propose notre carte Or."


def test_the_right_given_or_taken_back_changes_an_open_console_at_once(team, monitored, visitor):
    async def scenario():
        marc = await ConsoleSocket(team.marc).open()
        before = await marc.until("state")
        membership = await database_sync_to_async(Membership.objects.get)(user=team.marc.user)
        membership.supervisor = True
        await database_sync_to_async(membership.save)()
        after = await marc.until("state")
        await database_sync_to_async(visitor.talk)("Bonjour")
        watched = await marc.until("watch")
        membership.supervisor = False
        await database_sync_to_async(membership.save)()
        revoked = await marc.until("state")
        await database_sync_to_async(visitor.talk)("Quels sont vos horaires d'ouverture ?")
        seen = []
        await marc.send({"action": "status", "status": "away", "ref": 2})
        await until(marc, "operator", seen)
        await marc.close()
        return before, after, watched, revoked, seen

    before, after, watched, revoked, seen = run(scenario)
    assert (before["supervisor"], after["supervisor"], revoked["supervisor"]) == (False, True, False)
    assert watched["message"]["user"] == "Bonjour"
    assert [message for message in seen if message.get("type") == "watch"] == []
    assert Operator.objects.get(pk=team.marc.pk).status == "away"
