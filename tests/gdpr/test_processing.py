"""GDPR requests processed from the back office: the data sent by e-mail (to a real SMTP server), the data
erased for real (rows and files gone, other visitors untouched), a request ignored with a reason; each
action logged and shown; refusals said on the page, never a 500; administrators only. A mail only written
by a development backend (console, memory, file) is said so, never "sent"; a mail server that fails or
refuses leaves the request pending with its error."""

import io
import json

import pytest
from django.core import mail

from dialogs.models import ClientError, Dialog, GdprAction, GdprRequest, Interaction, Visit
from dialogs.surveys.models import Survey, SurveyAnswer, SurveyAnswerValue
from livechat.models import Callback, ChatUpload, LivechatEvent, LivechatRequest
from livechat.uploads import storage
from preferences.services import Owner, set_preference

from ..dialogs_reading.seed import dialog, say
from ..mail_server import free_port

pytestmark = pytest.mark.django_db
VISITOR = "visitor-failed-22"


def request_for(bot, what, client_id=VISITOR, mail_to="marie@example.org", language="fr"):
    return GdprRequest.objects.create(bot=bot, client_id=client_id, object=what, mail=mail_to, language=language)


def act(client, gdpr_request, **fields):
    response = client.post(f"/admin/dialogs/gdprrequest/{gdpr_request.pk}/change/", fields)
    assert response.status_code in (200, 302), response.content[:300]
    gdpr_request.refresh_from_db()
    return response


def body(message) -> str:
    return message.get_body(("plain",)).get_content()


def test_the_requested_data_is_e_mailed_with_the_service_name(client, bot, seeded, as_role, mail_server):
    set_preference(Owner(bot=bot), "bot.servicename", "Banque Exemple")
    admin = as_role("administrator")
    wanted = request_for(bot, "Get")
    other_visit = dialog(bot, 9, client_id="someone-else")
    say(other_visit, 0, "secret de quelqu'un d'autre", "DMUnderstoodQuestion", "<p>ok</p>")
    page = client.get(f"/admin/dialogs/gdprrequest/{wanted.pk}/change/").content.decode()
    assert 'data-testid="held-dialogs">1<' in page and 'data-testid="held-interactions">2<' in page

    response = act(client, wanted, action="send")
    assert wanted.status == "sent"
    [message] = mail_server.messages
    assert mail_server.envelopes[0][1] == ["marie@example.org"] and message["To"] == "marie@example.org"
    assert message["Subject"] == "Vos données chez Banque Exemple"
    text = body(message)
    assert "Banque Exemple" in text and "1 conversation(s), 2 échange(s)" in text
    assert "Vous : xyzzy plugh" in text and "Je n'ai pas compris." in text
    [attached] = message.iter_attachments()
    assert (attached.get_filename(), attached.get_content_type()) == ("data.json", "application/json")
    content = attached.get_content().decode()
    data = json.loads(content)
    assert data["service"] == "Banque Exemple" and data["clientId"] == VISITOR
    [sent] = data["dialogs"]
    assert sent["contextId"] == str(seeded["failed"].uuid)
    assert [row["question"] for row in sent["interactions"]] == ["Quels sont vos horaires ?", "xyzzy plugh"]
    assert sent["interactions"][1]["answer"] == "Je n'ai pas compris."
    assert "secret de quelqu'un d'autre" not in content
    [logged] = GdprAction.objects.filter(request=wanted)
    assert (logged.kind, logged.user, logged.note) == ("sent", admin, "marie@example.org")
    assert logged.counts == {"dialogs": 1, "interactions": 2, "files": 0, "surveys": 0}
    page = client.get(response.url).content.decode()
    assert "The data was sent to marie@example.org." in page
    assert "Data sent" in page and admin.username in page and 'data-testid="gdpr-send"' not in page
    listing = client.get("/admin/dialogs/gdprrequest/").content.decode()
    assert f"Data sent by {admin.username}" in listing


def test_an_english_visitor_gets_english_and_the_bots_name_without_the_preference(
    client, bot, seeded, as_role, mail_server
):
    as_role("administrator")
    wanted = request_for(bot, "Get", client_id="visitor-recovered-91", language="en")
    act(client, wanted, action="send")
    assert mail_server.messages[0]["Subject"] == "Your data held by Banque Demo"
    assert "Lost card" in body(mail_server.messages[0])


@pytest.mark.parametrize(
    "backend, said",
    [
        ("console.EmailBackend", "was written to the server's log, not sent."),
        ("locmem.EmailBackend", "was kept in the server's memory (Django's test backend), not sent."),
        ("filebased.EmailBackend", "was written to a file in {path}, not sent."),
        ("dummy.EmailBackend", "was dropped, not sent."),
    ],
)
def test_a_development_mail_backend_is_never_called_sending(
    client, bot, seeded, as_role, settings, tmp_path, capsys, backend, said
):
    """No mail server configured (make run's console backend): the page says where the mail went instead,
    the request stays pending and can be sent again once a server is configured."""
    settings.EMAIL_BACKEND = f"django.core.mail.backends.{backend}"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    as_role("administrator")
    wanted = request_for(bot, "Get")
    text = act(client, wanted, action="send").content.decode()  # the page again, with what happened
    said = said.format(path=tmp_path)
    assert f"No mail server is configured: the message to marie@example.org {said}".replace("'", "&#x27;") in text
    assert "The request stays pending: configure a mail server (EMAIL_HOST), then send the data again." in text
    assert "The data was sent to" not in text
    assert wanted.status == "pending" and 'data-testid="gdpr-send"' in text
    [logged] = GdprAction.objects.filter(request=wanted)
    assert logged.kind == "failed" and said in logged.note
    later = client.get(f"/admin/dialogs/gdprrequest/{wanted.pk}/change/").content.decode()
    assert "Sending failed" in later and said.replace("'", "&#x27;") in later
    # What each backend did with it, for real.
    if backend.startswith("console"):
        assert "Subject: =?utf-8?" in capsys.readouterr().out
    elif backend.startswith("locmem"):
        assert mail.outbox[0].to == ["marie@example.org"]
    elif backend.startswith("filebased"):
        assert "marie@example.org" in next(tmp_path.iterdir()).read_text()


def test_a_french_administrator_reads_it_in_french(client, bot, seeded, as_role, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    as_role("administrator")
    client.cookies["django_language"] = "fr"
    wanted = request_for(bot, "Get")
    text = act(client, wanted, action="send").content.decode()
    assert "Aucun serveur de courrier n&#x27;est configuré" in text and "marie@example.org" in text
    assert "La demande reste en attente" in text


def test_a_mail_server_that_fails_leaves_the_request_pending_and_logged(client, bot, seeded, as_role, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", free_port(), 2  # nothing listens
    as_role("administrator")
    wanted = request_for(bot, "Get")
    response = act(client, wanted, action="send")
    assert wanted.status == "pending"
    text = response.content.decode()
    assert "could not be sent (" in text and "Connection refused" in text and "was sent" not in text
    assert list(GdprAction.objects.filter(request=wanted).values_list("kind", flat=True)) == ["failed"]
    assert Dialog.objects.filter(client_id=VISITOR).exists()


def test_a_mail_server_that_refuses_the_message_is_said_with_its_answer(client, bot, seeded, as_role, mail_server):
    mail_server.refuse = True
    as_role("administrator")
    wanted = request_for(bot, "Get")
    text = act(client, wanted, action="send").content.decode()
    assert wanted.status == "pending" and not mail_server.messages
    assert "could not be sent (" in text and "Message refused by the test server" in text
    [logged] = GdprAction.objects.filter(request=wanted)
    assert logged.kind == "failed" and "554" in logged.note


def test_a_request_without_address_cannot_be_sent(client, bot, seeded, as_role):
    as_role("administrator")
    wanted = request_for(bot, "Get", mail_to="")
    response = act(client, wanted, action="send")
    assert "no e-mail address" in response.content.decode()
    assert wanted.status == "pending" and not mail.outbox and not GdprAction.objects.exists()


def test_deleting_erases_the_visitor_for_real(
    client, bot, seeded, as_role, settings, tmp_path, django_capture_on_commit_callbacks, mail_server
):
    settings.CHAT_UPLOAD_DIR = str(tmp_path)
    as_role("administrator")
    failed = seeded["failed"]
    # Everything that hangs on the visitor's dialog: a file (row and bytes), a survey answer, live chat's
    # request and event, a call-back request, its visit and a client error by its context id.
    stored_name, size, sha = storage.save(io.BytesIO(b"%PDF-1.4 invoice"))
    upload = ChatUpload.objects.create(
        dialog=failed, bot=bot, name="facture.pdf", stored_name=stored_name, content_type="application/pdf",
        size=size, sha256=sha,
    )  # fmt: skip
    survey = Survey.objects.create(bot=bot, name="Satisfaction", title="Votre avis", language="fr")
    answer = SurveyAnswer.objects.create(survey=survey, dialog=failed)
    SurveyAnswerValue.objects.create(answer=answer, label="Note", value="2")
    livechat = LivechatRequest.objects.create(dialog=failed, bot=bot, account=bot.account)
    LivechatEvent.objects.create(dialog=failed, request=livechat, at_ms=1, frame_type="talkResponse", values={})
    Callback.objects.create(bot=bot, dialog=failed, phone="+33 6 12 34 56 78")
    Visit.objects.create(bot=bot, context_id=str(failed.uuid))
    ClientError.objects.create(bot=bot, context_id=str(failed.uuid), error="TypeError", message="x")
    kept = {name: seeded[name].pk for name in ("direct", "recovered", "livechat", "test")}
    kept_interactions = Interaction.objects.exclude(dialog=failed).count()
    anonymous = dialog(bot, 8, client_id="")  # a dialog without visitor id is nobody's data here
    wanted = request_for(bot, "Delete")

    with django_capture_on_commit_callbacks(execute=True):
        response = act(client, wanted, action="delete", confirm="yes")

    assert wanted.status == "deleted"
    assert not Dialog.objects.filter(pk=failed.pk).exists()
    assert not Interaction.objects.filter(dialog_id=failed.pk).exists()
    assert not ChatUpload.objects.filter(pk=upload.pk).exists() and not storage.path_of(stored_name).exists()
    assert not SurveyAnswer.objects.exists() and not SurveyAnswerValue.objects.exists()
    assert not LivechatRequest.objects.exists() and not LivechatEvent.objects.exists()
    assert not Callback.objects.exists() and not Visit.objects.exists() and not ClientError.objects.exists()
    # Everybody else's dialogs are untouched.
    assert set(Dialog.objects.values_list("pk", flat=True)) == {*kept.values(), anonymous.pk}
    assert Interaction.objects.count() == kept_interactions
    [logged] = GdprAction.objects.filter(request=wanted)
    assert logged.kind == "deleted" and logged.counts["dialogs"] == 1 and logged.counts["interactions"] == 2
    assert logged.note == "Confirmation sent to marie@example.org."
    [message] = mail_server.messages
    assert message["Subject"].strip() == "Vos données chez Banque Demo ont été effacées"  # a folded header
    page = client.get(response.url).content.decode()
    assert "The visitor&#x27;s data was erased: 1 dialog(s), 2 interaction(s). Confirmation sent to" in page
    assert "Data deleted" in page and "files sent by the visitor: 1" in page and "callbacks: 1" in page
    assert 'data-testid="held-dialogs">0<' in page


def test_deleting_without_a_mail_server_says_the_confirmation_was_only_written(client, bot, seeded, as_role, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    as_role("administrator")
    wanted = request_for(bot, "Delete")
    response = act(client, wanted, action="delete", confirm="yes")
    assert wanted.status == "deleted" and not Dialog.objects.filter(client_id=VISITOR).exists()
    note = "No mail server is configured: the message to marie@example.org was written to the server's log, not sent."
    assert GdprAction.objects.get(request=wanted).note == note
    page = client.get(response.url).content.decode()
    assert note.replace("'", "&#x27;") in page and "Confirmation sent" not in page


def test_a_failed_confirmation_is_said_and_the_data_is_erased_all_the_same(client, bot, seeded, as_role, mail_server):
    mail_server.refuse = True
    as_role("administrator")
    wanted = request_for(bot, "Delete")
    response = act(client, wanted, action="delete", confirm="yes")
    assert wanted.status == "deleted" and not Dialog.objects.filter(client_id=VISITOR).exists()
    note = GdprAction.objects.get(request=wanted).note
    assert note.startswith("The confirmation e-mail could not be sent: ") and "Message refused" in note
    page = client.get(response.url).content.decode()
    assert "The confirmation e-mail could not be sent" in page and "Confirmation sent" not in page


def test_deleting_needs_the_confirmation_box(client, bot, seeded, as_role):
    as_role("administrator")
    wanted = request_for(bot, "Delete")
    response = act(client, wanted, action="delete")
    assert "Tick the box to confirm" in response.content.decode()
    assert wanted.status == "pending" and Dialog.objects.filter(client_id=VISITOR).exists()


def test_a_request_without_visitor_id_erases_nothing(client, bot, seeded, as_role):
    as_role("administrator")
    anonymous = dialog(bot, 8, client_id="")
    wanted = request_for(bot, "Delete", client_id="  ")
    response = act(client, wanted, action="delete", confirm="yes")
    assert "names no visitor id" in response.content.decode()
    assert wanted.status == "pending" and Dialog.objects.filter(pk=anonymous.pk).exists()


def test_ignoring_needs_a_reason_and_tells_nobody(client, bot, seeded, as_role):
    admin = as_role("administrator")
    wanted = request_for(bot, "Delete")
    response = act(client, wanted, action="ignore", reason="   ")
    assert "Give the internal reason" in response.content.decode() and wanted.status == "pending"
    act(client, wanted, action="ignore", reason="Test request from our QA team")
    assert (wanted.status, wanted.reason) == ("ignored", "Test request from our QA team")
    assert not mail.outbox
    [logged] = GdprAction.objects.filter(request=wanted)
    assert (logged.kind, logged.user, logged.note) == ("ignored", admin, "Test request from our QA team")
    assert Dialog.objects.filter(client_id=VISITOR).exists()
    # Processed once: it cannot be processed again.
    response = act(client, wanted, action="ignore", reason="again")
    assert 'data-testid="gdpr-ignore"' not in response.content.decode()
    assert GdprAction.objects.filter(request=wanted).count() == 1


def test_the_wrong_action_for_the_request_is_refused(client, bot, seeded, as_role):
    as_role("administrator")
    get = request_for(bot, "Get")
    act(client, get, action="delete", confirm="yes")
    assert get.status == "pending" and Dialog.objects.filter(client_id=VISITOR).exists()
    delete = request_for(bot, "Delete")
    act(client, delete, action="send")
    assert delete.status == "pending" and not mail.outbox
    act(client, delete, action="launch the rockets")
    assert delete.status == "pending"


@pytest.mark.parametrize("role", ["editor", "operator", "reader"])
def test_gdpr_requests_are_for_administrators_only(client, bot, seeded, as_role, role):
    wanted = request_for(bot, "Delete")
    as_role(role)
    assert client.get("/admin/dialogs/gdprrequest/").status_code == 403
    assert client.get(f"/admin/dialogs/gdprrequest/{wanted.pk}/change/").status_code == 403
    client.post(f"/admin/dialogs/gdprrequest/{wanted.pk}/change/", {"action": "delete", "confirm": "yes"})
    assert Dialog.objects.filter(client_id=VISITOR).exists()


def test_another_accounts_requests_are_not_reachable(client, bot, seeded, as_role):
    from accounts.models import Account
    from bots.models import Bot

    other = Bot.objects.create(name="Other bank", account=Account.objects.create(name="Other"))
    foreign = request_for(other, "Delete")
    as_role("administrator")
    assert foreign.mail not in client.get("/admin/dialogs/gdprrequest/").content.decode()
    assert client.get(f"/admin/dialogs/gdprrequest/{foreign.pk}/change/").status_code == 404
