"""GDPR requests in a real browser (Debian's chromium, 1366 px wide), as an administrator: the list, a Get
request whose data is sent (to a real SMTP server), a Delete request refused without the confirmation box
then erased (the rows are gone), a request ignored with a reason; the log on each page. Without a mail
server (make run's console backend) the page says the mail was only written to the log, in English and
French. An editor is refused. Screenshots go to test-results/gdpr/."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from dialogs.models import Dialog, GdprAction, GdprRequest, Interaction
from tests.dialogs_reading.test_browser import live_bot, log_in, page  # noqa: F401 (fixtures)
from tests.e2e.conftest import browser  # noqa: F401 (fixture)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "gdpr"


def shot(page, name: str) -> None:  # noqa: F811
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_an_administrator_sends_erases_and_ignores(page, live_server, live_bot, mail_server):  # noqa: F811
    bot, dialogs = live_bot
    GdprRequest.objects.create(
        bot=bot, client_id="visitor-direct-7f3a", object="Get", mail="paul@example.org", language="fr",
        requester_ip="203.0.113.7",
    )  # fmt: skip
    delete = GdprRequest.objects.create(
        bot=bot, client_id="visitor-failed-22", object="Delete", mail="marie@example.org", language="fr"
    )
    spam = GdprRequest.objects.create(bot=bot, client_id="bot-tester", object="Delete", mail="x@example.org")
    admin = log_in(page, live_server, bot, "administrator")

    page.goto(live_server.url + "/admin/dialogs/gdprrequest/")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.locator('[data-status="pending"]')).to_have_count(3)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    shot(page, "01-requests")

    rows.filter(has_text="paul@example.org").locator("a").first.click()
    expect(page.locator('[data-testid="held-dialogs"]')).to_have_text("1")
    shot(page, "02-get-request")
    page.locator('[data-testid="gdpr-send"] button').click()
    expect(page.locator('[data-testid="gdpr-status"]')).to_have_text("Sent")
    expect(page.get_by_text("The data was sent to paul@example.org.")).to_be_visible()
    expect(page.locator('[data-testid="gdpr-log"]')).to_contain_text("Data sent")
    expect(page.locator('[data-testid="gdpr-log"]')).to_contain_text(admin.username)
    shot(page, "03-get-request-sent")
    [message] = mail_server.messages
    assert message["To"] == "paul@example.org"
    assert "Quels sont vos horaires ?" in message.get_body(("plain",)).get_content()
    assert [part.get_filename() for part in message.iter_attachments()] == ["data.json"]

    page.goto(live_server.url + f"/admin/dialogs/gdprrequest/{delete.pk}/change/")
    expect(page.locator('[data-testid="held-interactions"]')).to_have_text("2")
    page.locator('[data-testid="gdpr-delete"] button').click()
    expect(page.locator(".gdpr-error")).to_contain_text("Tick the box to confirm")
    assert Dialog.objects.filter(pk=dialogs["failed"].pk).exists()
    shot(page, "04-delete-needs-confirmation")
    page.locator('[data-testid="confirm-delete"]').check()
    page.locator('[data-testid="gdpr-delete"] button').click()
    expect(page.locator('[data-testid="gdpr-status"]')).to_have_text("Data deleted")
    expect(page.locator('[data-testid="held-dialogs"]')).to_have_text("0")
    expect(page.locator('[data-testid="gdpr-log"]')).to_contain_text("Confirmation sent to marie@example.org.")
    shot(page, "05-delete-request-done")
    assert not Dialog.objects.filter(pk=dialogs["failed"].pk).exists()
    assert not Interaction.objects.filter(dialog_id=dialogs["failed"].pk).exists()
    assert Dialog.objects.filter(pk=dialogs["direct"].pk).exists()

    page.goto(live_server.url + f"/admin/dialogs/gdprrequest/{spam.pk}/change/")
    page.locator('[data-testid="gdpr-ignore"] textarea').fill("Sent by our own test robot")
    page.locator('[data-testid="gdpr-ignore"] button').click()
    expect(page.locator('[data-testid="gdpr-status"]')).to_have_text("Ignored")
    expect(page.locator('[data-testid="gdpr-log"]')).to_contain_text("Sent by our own test robot")
    shot(page, "06-request-ignored")
    assert len(mail_server.messages) == 2  # the data, the deletion's confirmation; nothing for the ignored one

    page.goto(live_server.url + "/admin/dialogs/gdprrequest/")
    expect(rows.locator('[data-status="pending"]')).to_have_count(0)
    expect(page.locator("#result_list")).to_contain_text(f"Ignored by {admin.username}")
    shot(page, "07-requests-processed")
    assert GdprAction.objects.count() == 3


def test_an_editor_has_no_gdpr_page(page, live_server, live_bot):  # noqa: F811
    bot, _ = live_bot
    log_in(page, live_server, bot, "editor")
    response = page.goto(live_server.url + "/admin/dialogs/gdprrequest/")
    assert response.status == 403
    page.goto(live_server.url + "/admin/")
    expect(page.get_by_role("link", name="GDPR requests")).to_have_count(0)
    shot(page, "08-editor-index")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_without_a_mail_server_the_page_says_where_the_mail_went(page, live_server, live_bot, settings, language):  # noqa: F811
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"  # make run's default
    bot, _ = live_bot
    wanted = GdprRequest.objects.create(
        bot=bot, client_id="visitor-direct-7f3a", object="Get", mail="paul@example.org", language="fr"
    )
    log_in(page, live_server, bot, "administrator")
    page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page.goto(live_server.url + f"/admin/dialogs/gdprrequest/{wanted.pk}/change/")
    page.locator('[data-testid="gdpr-send"] button').click()
    said = {
        "en": "No mail server is configured: the message to paul@example.org was written to the server's log, "
        "not sent.",
        "fr": "Aucun serveur de courrier n'est configuré : le message pour paul@example.org a été écrit dans le "
        "journal du serveur, pas envoyé.",
    }[language]
    expect(page.locator(".gdpr-error")).to_contain_text(said)
    expect(page.locator('[data-testid="gdpr-log"] tr[data-kind="failed"]')).to_contain_text(said)
    expect(page.locator('[data-testid="gdpr-send"]')).to_be_visible()  # still pending: it may be sent again
    assert "was sent to" not in page.content() and "ont été envoyées à" not in page.content()
    shot(page, f"09-no-mail-server-{language}")
    wanted.refresh_from_db()
    assert wanted.status == "pending"
