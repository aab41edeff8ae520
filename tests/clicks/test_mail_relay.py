"""Export by e-mail is no relay (issue 23): a new dialog costs nothing, so the mails a client address, a
recipient and a bot may send are counted apart from the dialog's, over REST, the websocket and /chatHttp
alike; the bot's daily cap is set in the back office (0: off); every refusal answers the visitor in their
language and logs one line; the mail carries the visitor's own words as text only, nothing else they typed."""

import json
import logging
import uuid
from html.parser import HTMLParser
from urllib.parse import quote

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.core import mail
from django.test import Client

from bots.models import BotLanguage, bump_knowledge_version
from bots.status import services
from config.asgi import application
from dialogs.transcript import mail_limits
from preferences.models import BotPreference, PreferenceChange
from tests.accounts.personas import make_persona
from tests.clicks.conftest import fresh_address, fresh_recipient, visitor
from tests.conftest import decode
from tests.faults.test_cache_fallback import RefusingCache
from tests.livechat.conftest import talk_frame
from tests.rich_answers.test_backoffice import FormFields

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mail_day")]

ATTACK = (
    'Gagnez un iPhone ! <a href="https://evil.example/win">cliquez ici</a>, ou https://evil.example/prize, '
    "www.evil.example, écrivez à gagnant@evil.example ou http://203.0.113.66/x"
)
REFUSALS = {
    "fr": {
        "client_limit": "Trop de conversations ont été envoyées par e-mail depuis votre connexion : "
        "réessayez dans une heure.",
        "recipient_limit": "Cette adresse a déjà reçu plusieurs conversations : réessayez dans une heure.",
        "bot_limit": "Plus aucune conversation ne peut être envoyée par e-mail aujourd'hui : réessayez demain.",
        "dialog_limit": "Cette conversation a déjà été envoyée 3 fois : réessayez plus tard.",
        "off": "L'envoi de la conversation par e-mail n'est pas proposé ici.",
    },
    "en": {
        "client_limit": "Too many conversations have been sent by e-mail from your connection: try again in an hour.",
        "recipient_limit": "This address has already received several conversations: try again in an hour.",
        "bot_limit": "No more conversations can be sent by e-mail today: try again tomorrow.",
        "dialog_limit": "This conversation has already been sent 3 times: try again later.",
        "off": "Sending the conversation by e-mail is not offered here.",
    },
}


def export_from_a_new_dialog(chatbox, recipient: str, text: str = ATTACK) -> dict:
    """What a relay would do: a new dialog with its text, then its transcript e-mailed."""
    chatbox.context_id = ""
    chatbox.talk(text)
    return chatbox.talk(f"#dydumailto:{chatbox.context_id}:{recipient}#")


def refusals(caplog, reason: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(f"Transcript mail refused ({reason})")]


def test_thirty_new_dialogs_from_one_address_send_the_address_s_allowance_only(demo_bot, caplog):
    attacker = visitor(demo_bot.uuid)
    recipients = [fresh_recipient("cible") for _ in range(30)]
    with caplog.at_level(logging.INFO, logger="dialogs.mailto"):
        answers = [export_from_a_new_dialog(attacker, recipient) for recipient in recipients]
    assert len(mail.outbox) == mail_limits.MAILS_PER_CLIENT_ADDRESS == 5
    assert [a["typeResponse"] for a in answers] == ["DMExportByMail"] * 5 + ["DMExportByMailRefused"] * 25
    assert {a["text"] for a in answers[5:]} == {REFUSALS["fr"]["client_limit"]}
    # one line per refusal, with its reason; the recipients are not written in clear
    logged = refusals(caplog, "client_limit")
    assert len(logged) == 25
    assert not any(recipient in line for line in "\n".join(logged).splitlines() for recipient in recipients)
    # another visitor is not held back by this one
    assert export_from_a_new_dialog(visitor(demo_bot.uuid), fresh_recipient())["typeResponse"] == "DMExportByMail"


def test_thirty_new_dialogs_from_thirty_addresses_to_one_mailbox_send_its_allowance_only(demo_bot):
    victim = fresh_recipient("victime")
    # case, spaces and a +tag do not make another mailbox
    spellings = [victim, victim.upper(), f"  {victim}  ", victim.replace("@", "+promo@"), victim.title()]
    answers = [export_from_a_new_dialog(visitor(demo_bot.uuid), spellings[n % len(spellings)]) for n in range(30)]
    assert len(mail.outbox) == mail_limits.MAILS_PER_RECIPIENT == 3
    assert [a["typeResponse"] for a in answers].count("DMExportByMailRefused") == 27
    assert {a["text"] for a in answers[3:]} == {REFUSALS["fr"]["recipient_limit"]}


# The back office, as an administrator uses it: the bot's page, its form as the browser posts it.


def bot_page(client, bot) -> str:
    return client.get(f"/admin/bots/bot/{bot.pk}/change/").content.decode()


def set_in_back_office(client, bot, value: str):
    fields = FormFields()
    fields.feed(bot_page(client, bot))
    data = {name: value for name, value in fields.fields.items() if not name.startswith("_")}
    data.update(mails_per_day=value, _save="Save")
    return client.post(f"/admin/bots/bot/{bot.pk}/change/", data)


@pytest.fixture
def administrator(client, demo_bot):
    user, _ = make_persona(demo_bot.account or "Account A", "administrator")
    if demo_bot.account_id is None:
        demo_bot.account = user.membership.account
        demo_bot.save(update_fields=["account"])
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    return user


def test_the_bot_page_shows_the_daily_cap_with_its_default_in_french(client, demo_bot, administrator):
    page = bot_page(client, demo_bot)
    assert "Export par e-mail" in page
    assert "Conversations envoyées par e-mail par jour" in page
    assert "0 désactive l’envoi par e-mail" in page  # the help text
    assert 'name="mails_per_day" value="50"' in page
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    assert "Conversations sent by e-mail per day" in bot_page(client, demo_bot)


def test_the_daily_cap_set_in_the_back_office_holds_across_addresses_and_recipients(client, demo_bot, administrator):
    assert set_in_back_office(client, demo_bot, "4").status_code == 302
    change = PreferenceChange.objects.get(bot=demo_bot, name="dialogs.mail.daily")
    assert (change.old_value, change.new_value, change.changed_by, change.via) == (
        None,
        "4",
        administrator,
        "back office",
    )
    answers = [export_from_a_new_dialog(visitor(demo_bot.uuid), fresh_recipient()) for _ in range(10)]
    assert len(mail.outbox) == 4
    assert {a["text"] for a in answers[4:]} == {REFUSALS["fr"]["bot_limit"]}
    # raised in the back office, the cap lets mails through at once (refusals used none of it)
    assert set_in_back_office(client, demo_bot, "6").status_code == 302
    more = [export_from_a_new_dialog(visitor(demo_bot.uuid), fresh_recipient())["typeResponse"] for _ in range(3)]
    assert more == ["DMExportByMail", "DMExportByMail", "DMExportByMailRefused"]
    assert len(mail.outbox) == 6


def test_zero_in_the_back_office_turns_export_by_e_mail_off_with_a_clear_answer(
    client, demo_bot, administrator, caplog
):
    assert set_in_back_office(client, demo_bot, "0").status_code == 302
    assert 'name="mails_per_day" value="0"' in bot_page(client, demo_bot)
    with caplog.at_level(logging.INFO, logger="dialogs.mailto"):
        french = export_from_a_new_dialog(visitor(demo_bot.uuid), fresh_recipient())
        english = export_from_a_new_dialog(visitor(demo_bot.uuid, language="en"), fresh_recipient())
    assert (french["typeResponse"], french["text"]) == ("DMExportByMailRefused", REFUSALS["fr"]["off"])
    assert english["text"] == REFUSALS["en"]["off"]
    assert mail.outbox == [] and len(refusals(caplog, "off")) == 2


@pytest.mark.parametrize("value", ["-1", "10001", "beaucoup", ""])
def test_a_bad_cap_in_the_back_office_is_refused_on_the_field_and_changes_nothing(
    client, demo_bot, administrator, value
):
    response = set_in_back_office(client, demo_bot, value)
    assert response.status_code == 200  # the form again, with the error on the field
    assert 'name="mails_per_day"' in response.content.decode()
    assert response.context["adminform"].form.errors["mails_per_day"]
    assert not BotPreference.objects.filter(bot=demo_bot, name="dialogs.mail.daily").exists()


def test_who_may_only_view_the_bot_sees_the_cap_and_cannot_change_it(client, demo_bot, administrator):
    editor, _ = make_persona(demo_bot.account, "editor")
    client.force_login(editor)
    page = bot_page(client, demo_bot)
    assert "Conversations envoyées par e-mail par jour" in page and 'name="mails_per_day"' not in page
    assert client.post(f"/admin/bots/bot/{demo_bot.pk}/change/", {"mails_per_day": "0"}).status_code == 403
    assert mail_limits.daily_cap(demo_bot) == 50


def test_the_cap_through_the_preferences_api_is_checked(client, demo_bot, administrator):
    _, token = make_persona(demo_bot.account, "administrator")
    url = f"/servlet/api/preferences/bot/{demo_bot.uuid}/dialogs.mail.daily"
    for bad in ("-1", "10001", "many"):
        response = client.put(f"{url}/{bad}", HTTP_AUTHORIZATION=token)
        assert response.status_code == 400 and response.json()["code"] == "INVALID_FIELD", response.content
    assert mail_limits.daily_cap(demo_bot) == 50
    assert client.put(f"{url}/2", HTTP_AUTHORIZATION=token).status_code == 200
    answers = [export_from_a_new_dialog(visitor(demo_bot.uuid), fresh_recipient()) for _ in range(3)]
    assert [a["typeResponse"] for a in answers] == ["DMExportByMail"] * 2 + ["DMExportByMailRefused"]


# Each refusal in the visitor's language.


def refused_for(demo_bot, reason: str, language: str) -> dict:
    """Brings a visitor talking `language` to the `reason` refusal, the way a visitor would meet it."""
    chatbox = visitor(demo_bot.uuid, language=language)
    if reason == "client_limit":
        for _ in range(mail_limits.MAILS_PER_CLIENT_ADDRESS):
            export_from_a_new_dialog(chatbox, fresh_recipient())
        return export_from_a_new_dialog(chatbox, fresh_recipient())
    if reason == "recipient_limit":
        recipient = fresh_recipient()
        for _ in range(mail_limits.MAILS_PER_RECIPIENT):
            export_from_a_new_dialog(visitor(demo_bot.uuid), recipient)
        return export_from_a_new_dialog(chatbox, recipient)
    if reason == "dialog_limit":
        export_from_a_new_dialog(chatbox, fresh_recipient())
        for _ in range(mail_limits.MAILS_PER_DIALOG - 1):
            chatbox.talk(f"#dydumailto:{chatbox.context_id}:{fresh_recipient()}#")
        return chatbox.talk(f"#dydumailto:{chatbox.context_id}:{fresh_recipient()}#")
    BotPreference.objects.create(bot=demo_bot, name="dialogs.mail.daily", value="1" if reason == "bot_limit" else "0")
    if reason == "bot_limit":
        export_from_a_new_dialog(visitor(demo_bot.uuid), fresh_recipient())
    return export_from_a_new_dialog(chatbox, fresh_recipient())


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("reason", ["client_limit", "recipient_limit", "dialog_limit", "bot_limit", "off"])
def test_each_refusal_answers_in_the_visitor_s_language(demo_bot, language, reason, caplog):
    with caplog.at_level(logging.INFO, logger="dialogs.mailto"):
        answer = refused_for(demo_bot, reason, language)
    assert (answer["typeResponse"], answer["text"]) == ("DMExportByMailRefused", REFUSALS[language][reason])
    assert len(refusals(caplog, reason)) == 1


def test_a_language_without_words_of_its_own_gets_the_english_ones(demo_bot):
    BotLanguage.objects.create(bot=demo_bot, code="nl")
    bump_knowledge_version(demo_bot.pk)
    answer = refused_for(demo_bot, "client_limit", "nl")
    assert answer["text"] == REFUSALS["en"]["client_limit"]


# What the mail carries.


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs.append(dict(attrs).get("href", ""))


def test_the_mail_carries_the_visitor_s_words_as_text_and_nothing_else_they_typed(demo_bot):
    BotPreference.objects.create(bot=demo_bot, name="bot.servicename", value="Banque Exemple")
    chatbox = visitor(demo_bot.uuid)
    chatbox.talk(ATTACK)
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    # earlier exports: a refused "address" of attacker text, and a mail to someone else
    invalid = chatbox.talk(f"#dydumailto:{chatbox.context_id}:Allez sur evil.example/gain !#")
    assert invalid["typeResponse"] == "DMExportByMailRefused"
    first = fresh_recipient("premier")
    chatbox.talk(f"#dydumailto:{chatbox.context_id}:{first}#")
    chatbox.talk(f"#dydumailto:{chatbox.context_id}:{fresh_recipient()}#")
    message = mail.outbox[1]
    html, kind = message.alternatives[0]
    assert kind == "text/html"
    assert message.subject == "Votre conversation avec Banque Exemple"
    for part in (message.body, html):
        assert "evil.example" not in part and "203.0.113.66" not in part  # every address defanged
        assert "Allez sur" not in part and first not in part and "dydumailto" not in part
        assert "mardi au samedi" in part  # the bot's answer is there
    assert "https[:]//evil[.]example/prize" in message.body and "gagnant@evil[.]example" in message.body
    assert '<a href="https[:]//evil[.]example/win">cliquez ici</a>' in message.body  # as typed, as text
    assert "&lt;a href=&quot;https[:]//evil[.]example/win&quot;&gt;cliquez ici&lt;/a&gt;" in html
    assert "www[.]evil[.]example" in html and "http[:]//203[.]0[.]113[.]66/x" in html
    links = Links()
    links.feed(html)
    assert not any("evil" in href or "203.0.113" in href for href in links.hrefs)


def test_the_limits_hold_while_the_shared_cache_is_down(demo_bot, monkeypatch):
    monkeypatch.setattr(services, "cache", RefusingCache())
    monkeypatch.setattr(services, "_cache_last_failure", 0.0)
    mail_limits.cache.local.clear()
    try:
        attacker = visitor(demo_bot.uuid)
        answers = [export_from_a_new_dialog(attacker, fresh_recipient()) for _ in range(8)]
        assert len(mail.outbox) == mail_limits.MAILS_PER_CLIENT_ADDRESS
        assert answers[-1]["text"] == REFUSALS["fr"]["client_limit"]
    finally:
        mail_limits.cache.local.clear()


# The websocket and /chatHttp count the same client address as REST: one pipeline.


def mailto_frame(bot_uuid: str, context_id: str, recipient: str) -> dict:
    return talk_frame(bot_uuid, f"#dydumailto:{context_id}:{recipient}#", context_id)


@pytest.mark.django_db(transaction=True)
def test_the_limits_hold_over_the_websocket_and_chathttp_for_the_same_address(demo_bot):
    bot, address = str(demo_bot.uuid), fresh_address()

    async def relay_over_the_websocket(dialogs: int) -> list[dict]:
        communicator = WebsocketCommunicator(application, "/servlet//chatWs")
        communicator.scope["client"] = (address, 50123)
        assert (await communicator.connect())[0]
        answers = []
        try:
            for _ in range(dialogs):
                await communicator.send_to(text_data=json.dumps(talk_frame(bot, ATTACK)))
                context_id = decode(json.loads(await communicator.receive_from(timeout=10))["values"])["contextId"]
                await communicator.send_to(text_data=json.dumps(mailto_frame(bot, context_id, fresh_recipient())))
                answers.append(decode(json.loads(await communicator.receive_from(timeout=10))["values"]))
        finally:
            await communicator.disconnect()
        return answers

    answers = async_to_sync(relay_over_the_websocket)(8)
    assert [a["typeResponse"] for a in answers] == ["DMExportByMail"] * 5 + ["DMExportByMailRefused"] * 3
    assert answers[-1]["text"] == REFUSALS["fr"]["client_limit"]
    assert len(mail.outbox) == mail_limits.MAILS_PER_CLIENT_ADDRESS

    # the same address over /chatHttp and REST is refused too; another address over the websocket is not
    polling = Client(REMOTE_ADDR=address)
    frame = talk_frame(bot, ATTACK)
    context_id = decode(polling.get(f"/servlet/chatHttp?data={quote(json.dumps(frame))}").json()["values"])["contextId"]
    frame = mailto_frame(bot, context_id, fresh_recipient())
    over_polling = decode(polling.get(f"/servlet/chatHttp?data={quote(json.dumps(frame))}").json()["values"])
    assert over_polling["text"] == REFUSALS["fr"]["client_limit"]
    assert export_from_a_new_dialog(visitor(demo_bot.uuid, address), fresh_recipient())["typeResponse"] == (
        "DMExportByMailRefused"
    )
    address = fresh_address()
    assert [a["typeResponse"] for a in async_to_sync(relay_over_the_websocket)(1)] == ["DMExportByMail"]
    assert len(mail.outbox) == mail_limits.MAILS_PER_CLIENT_ADDRESS + 1


def test_an_ipv6_client_counts_as_its_network_of_64_addresses(demo_bot):
    part = uuid.uuid4().int
    site, subnet = part % 0xFFFF, part // 0xFFFF % 0xFFFE
    answers = [
        export_from_a_new_dialog(visitor(demo_bot.uuid, f"2001:db8:{site:x}:{subnet:x}::{host:x}"), fresh_recipient())
        for host in range(1, 8)
    ]
    assert [a["typeResponse"] for a in answers] == ["DMExportByMail"] * 5 + ["DMExportByMailRefused"] * 2
    neighbour = visitor(demo_bot.uuid, f"2001:db8:{site:x}:{subnet + 1:x}::1")  # the next /64
    assert export_from_a_new_dialog(neighbour, fresh_recipient())["typeResponse"] == "DMExportByMail"
