"""Staff notes never reach the visitor, on any transport: an operator's private note, a supervisor's whisper
and the record of a supervisor joining are absent from the REST poll, the chatbox's websocket, the history
(REST and chatHttp), the chatHttp talk, the visitor's printable transcript, the transcript the visitor has
mailed, and the GDPR data export; while the console, the back office's dialog page and its printable
transcript show them, marked as notes."""

import json
from urllib.parse import quote

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.core import mail
from django.test import Client

from accounts.models import Membership
from dialogs.gdpr import data
from dialogs.models import GdprRequest
from livechat import console, supervisors
from preferences.models import BotPreference
from tests.accounts.personas import make_persona
from tests.clicks.conftest import fresh_address, fresh_recipient, mail_day  # noqa: F401 (mail_day: a fixture)
from tests.livechat.conftest import ChatboxSocket, Visitor, b64, common, make_operator

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("mail_day")]
NOTE, WHISPER, LATE_NOTE = "NOTE-ALPHA client fidèle", "WHISPER-BRAVO propose la carte Or", "NOTE-CHARLIE résolu"
SECRETS = ("NOTE-ALPHA", "WHISPER-BRAVO", "NOTE-CHARLIE", "Supervisor joined", "staff")


def act(operator, **action):
    return console.act(operator.pk, action)


def clean(text: str) -> bool:
    return not any(secret in text for secret in SECRETS)


@pytest.fixture
def sophie(team, demo_bot):
    supervisors.forget(demo_bot.pk)
    BotPreference.objects.create(bot=demo_bot, name="livechat.createmonitoreddialogs", value="true")
    operator = make_operator(team.account, "sophie", "Sophie", status="busy")
    Membership.objects.filter(user=operator.user).update(supervisor=True)
    yield operator
    supervisors.forget(demo_bot.pk)


def test_notes_reach_staff_and_never_the_visitor(team, demo_bot, sophie):
    visitor = Visitor(Client(REMOTE_ADDR=fresh_address()), str(demo_bot.uuid))
    visitor.ask_for_human()
    request = visitor.live_request()
    visitor.poll_all()

    async def on_the_socket():
        chatbox = await ChatboxSocket(visitor.bot).open()
        await chatbox.follow(visitor.context_id)
        await database_sync_to_async(act)(team.lea, action="note", dialog=request.pk, text=NOTE)
        await database_sync_to_async(act)(sophie, action="note", conversation=request.dialog_id, text=WHISPER)
        await database_sync_to_async(act)(sophie, action="join", conversation=request.dialog_id)
        await database_sync_to_async(act)(team.lea, action="send", dialog=request.pk, text="Message visible")
        frames = []
        while not frames or frames[-1].get("text") != "Message visible":
            frames.append(await chatbox.frame())
        await chatbox.close()
        return frames

    frames = async_to_sync(on_the_socket)()
    # The socket got the join's notice (the visitor is told who joined) and the message, nothing else.
    assert [frame.get("code") or frame.get("typeResponse") for frame in frames] == [
        "OperatorConnected",
        "OPRegularOperatorAnswer",
    ]
    assert clean(json.dumps(frames, ensure_ascii=False))
    polled = visitor.poll_all()
    assert [event.get("code") or event.get("typeResponse") for event in polled] == [
        "OperatorConnected",
        "OPRegularOperatorAnswer",
    ]
    assert clean(json.dumps(polled, ensure_ascii=False))
    history = visitor.values(visitor.post(f"chat/history/{visitor.bot}", {"contextUuid": visitor.context_id}))
    assert "Message visible" in json.dumps(history, ensure_ascii=False)
    assert clean(json.dumps(history, ensure_ascii=False))
    history_frame = {"type": "history", "parameters": common(visitor.bot, visitor.context_id)}
    over_chat_http = visitor.client.get(f"/servlet/chatHttp?data={quote(json.dumps(history_frame))}")
    assert over_chat_http.status_code == 200 and clean(over_chat_http.content.decode())
    talk_frame = {"type": "talk", "parameters": common(visitor.bot, visitor.context_id) | {"userInput": b64("Merci")}}
    talked = visitor.client.get(f"/servlet/chatHttp?data={quote(json.dumps(talk_frame))}")
    assert talked.status_code == 200 and clean(talked.content.decode())

    act(team.lea, action="end", dialog=request.pk)
    act(team.lea, action="note", dialog=request.pk, text=LATE_NOTE)
    printed = visitor.client.get(f"/servlet/history?context={visitor.context_id}&format=html")
    assert printed.status_code == 200 and "Message visible" in printed.content.decode()
    assert clean(printed.content.decode())
    printed_api = visitor.client.get(f"/servlet/api/chat/print/{visitor.bot}?contextUuid={visitor.context_id}")
    assert printed_api.status_code == 200 and clean(printed_api.content.decode())
    address = fresh_recipient()
    assert visitor.talk(f"#dydumailto:{visitor.context_id}:{address}#")["typeResponse"] == "DMExportByMail"
    [message] = mail.outbox
    assert "Message visible" in message.body
    assert clean(message.body) and clean(message.alternatives[0][0])
    wanted = GdprRequest.objects.create(bot=demo_bot, client_id=visitor.client_id, object="Get")
    exported, _ = data.export(wanted, "Banque Exemple")
    assert "Message visible" in json.dumps(exported, ensure_ascii=False)
    assert clean(json.dumps(exported, ensure_ascii=False))

    # Staff: the console's transcript, the back office's page and its printable transcript.
    shown = act(team.lea, action="open", dialog=request.pk)["messages"]
    notes = [(line["kind"], line["text"]) for line in shown if line["from"] == "note"]
    assert notes == [("note", NOTE), ("whisper", WHISPER), ("joined", ""), ("note", LATE_NOTE)]
    admin, _ = make_persona(team.account, "administrator", login="ada")
    staff = Client()
    staff.force_login(admin)
    page = staff.get(f"/admin/dialogs/dialog/{request.dialog_id}/change/").content.decode()
    assert page.count('data-testid="staff-note"') == 4
    assert NOTE in page and WHISPER in page and "Whisper to Léa" in page and "Supervisor joined" in page
    sheet = staff.get(f"/admin/dialogs/dialog/{request.dialog_id}/print/")
    assert sheet.status_code == 200
    body = sheet.content.decode()
    assert body.count('data-side="note"') == 4 and NOTE in body and LATE_NOTE in body
    assert "private notes the visitor never saw" in body
    # The staff's print is the back office's: another account's administrator does not get it.
    outsider, _ = make_persona("Another account", "administrator", login="olga")
    other = Client()
    other.force_login(outsider)
    assert other.get(f"/admin/dialogs/dialog/{request.dialog_id}/print/").status_code == 404
