"""#dydumailto:{ctx}:{email}# through the talk endpoint: the dialog's transcript goes to that address
(Django's e-mail backend; the locmem outbox in tests), escaped; an invalid address or an unknown dialog
sends nothing; one dialog's transcript goes out a few times at most."""

import logging

import pytest
from django.core import mail

from bots.status import services
from dialogs.models import Dialog, Interaction
from dialogs.transcript import mail_limits
from preferences.models import BotPreference
from tests.clicks.conftest import fresh_recipient, visitor
from tests.faults.test_cache_fallback import RefusingCache

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mail_day")]


@pytest.fixture
def chatbox(demo_bot):
    return visitor(demo_bot.uuid)


HOSTILE = "<script>alert('x')</script> & co"


def a_short_dialog(chatbox) -> str:
    chatbox.talk("Quels sont vos horaires d'ouverture ?")
    assert chatbox.talk(HOSTILE)["typeResponse"] == "GBMisunderstoodQuestion"
    return chatbox.context_id


def test_the_transcript_goes_to_the_address_escaped_and_the_bot_says_so(chatbox, demo_bot):
    BotPreference.objects.create(bot=demo_bot, name="bot.servicename", value="Service Client Exemple")
    context_id = a_short_dialog(chatbox)
    address = fresh_recipient()
    values = chatbox.talk(f"#dydumailto:{context_id}:{address}#")
    assert values["typeResponse"] == "DMExportByMail"
    assert values["text"] == f"La conversation a été envoyée à {address}."
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [address]
    assert message.subject == "Votre conversation avec Service Client Exemple"
    assert "Voici votre conversation avec Service Client Exemple." in message.body
    assert HOSTILE in message.body  # the plain-text part holds the words as typed
    assert "mardi au samedi" in message.body and "<b>" not in message.body
    html, kind = message.alternatives[0]
    assert kind == "text/html"
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; co" in html
    assert "<b>mardi au samedi, de 9 h à 17 h 30</b>" in html
    # the export is recorded, out of analytics, and leaves the misunderstood streak alone
    interaction = Interaction.objects.filter(dialog__uuid=context_id).order_by("-id").first()
    assert (interaction.type_response, interaction.counted) == ("DMExportByMail", False)


def test_without_a_service_name_the_mail_names_the_bot(chatbox, demo_bot):
    context_id = a_short_dialog(chatbox)
    chatbox.talk(f"#dydumailto:{context_id}:{fresh_recipient()}#")
    assert mail.outbox[0].subject == f"Votre conversation avec {demo_bot.name}"


@pytest.mark.parametrize(
    "address",
    [
        "pas-une-adresse",
        "a@b",
        "",
        "x@example.org\nBcc: everyone@example.org",
        "<b>x</b>@example.org",
        "a" * 250 + "@x.org",
    ],
)
def test_an_invalid_address_is_refused_and_nothing_is_sent(chatbox, address):
    context_id = a_short_dialog(chatbox)
    values = chatbox.talk(f"#dydumailto:{context_id}:{address}#")
    assert values["typeResponse"] == "DMExportByMailRefused"
    assert "n'est pas une adresse e-mail valide" in values["text"]
    assert "<b>" not in values["text"]  # the address is shown escaped
    assert mail.outbox == []


def test_an_unknown_or_foreign_dialog_is_refused(chatbox, client):
    values = chatbox.talk("#dydumailto:not-a-context:a@example.org#")
    assert (values["typeResponse"], mail.outbox) == ("DMExportByMailRefused", [])
    values = chatbox.talk("#dydumailto:3f2c1d7e-0000-4000-8000-000000000000:a@example.org#")
    assert "Je ne trouve pas cette conversation" in values["text"] and mail.outbox == []


def test_another_dialog_of_the_bot_is_sent_by_its_id(chatbox, client, demo_bot):
    first = a_short_dialog(chatbox)
    chatbox.context_id = ""
    chatbox.talk("Bonjour")
    assert chatbox.context_id != first
    chatbox.talk(f"#dydumailto:{first}:{fresh_recipient()}#")
    assert len(mail.outbox) == 1 and "mardi au samedi" in mail.outbox[0].body


def test_one_dialog_is_sent_a_few_times_at_most(chatbox):
    context_id = a_short_dialog(chatbox)
    for _ in range(mail_limits.MAILS_PER_DIALOG):
        assert chatbox.talk(f"#dydumailto:{context_id}:{fresh_recipient()}#")["typeResponse"] == "DMExportByMail"
    values = chatbox.talk(f"#dydumailto:{context_id}:{fresh_recipient()}#")
    assert values["typeResponse"] == "DMExportByMailRefused"
    assert "déjà été envoyée 3 fois" in values["text"]
    assert len(mail.outbox) == mail_limits.MAILS_PER_DIALOG
    # another dialog has its own allowance
    chatbox.context_id = ""
    other = a_short_dialog(chatbox)
    assert chatbox.talk(f"#dydumailto:{other}:{fresh_recipient()}#")["typeResponse"] == "DMExportByMail"
    assert Dialog.objects.get(uuid=context_id).misunderstood_streak == 1  # HOSTILE's, untouched by the exports


def test_a_mail_server_that_fails_is_said_and_the_talk_answers(chatbox, settings, caplog):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2  # nothing listens there
    context_id = a_short_dialog(chatbox)
    recipient = fresh_recipient()
    with caplog.at_level(logging.INFO, logger="dialogs.mailto"):
        values = chatbox.talk(f"#dydumailto:{context_id}:{recipient}#")
    assert (values["typeResponse"], values["text"]) == (
        "DMExportByMailRefused",
        "L'e-mail n'a pas pu partir. Réessayez plus tard.",
    )
    # one line with the mail server's error (no traceback), the recipient not in clear
    (record,) = [r for r in caplog.records if r.name == "dialogs.mailto"]
    assert record.getMessage().startswith("Transcript mail refused (failed)") and "ConnectionRefusedError" in (
        record.getMessage()
    )
    assert record.exc_info is None and recipient not in record.getMessage()


def test_the_limit_holds_and_the_talk_answers_while_the_shared_cache_is_down(chatbox, monkeypatch):
    refusing = RefusingCache()
    monkeypatch.setattr(services, "cache", refusing)
    monkeypatch.setattr(services, "_cache_last_failure", 0.0)
    mail_limits.cache.local.clear()
    context_id = a_short_dialog(chatbox)
    sent = [chatbox.talk(f"#dydumailto:{context_id}:{fresh_recipient()}#")["typeResponse"] for _ in range(4)]
    assert sent == ["DMExportByMail"] * 3 + ["DMExportByMailRefused"]
    assert len(mail.outbox) == 3 and refusing.calls >= 1
    mail_limits.cache.local.clear()
