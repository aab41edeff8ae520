"""The API console runs on the first try (issue 25 item 6), in Debian's chromium at 1366 px, in English and
French: the talk call's example executed as it comes answers 200 and the page shows its values decoded under
the raw base64 answer; the talk went out as a test dialog (qualificationMode=true, whatever body the console
sends: form, multipart, JSON or the query string of a GET), so the dialog it made counts nowhere in analytics;
and the knowledge base export without its optional {exclude_gallery} runs without a value to pick.
Screenshots go to test-results/api-console/."""

import base64
import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from accounts.models import ApiToken
from dialogs.models import Dialog, Interaction
from tests.analytics.test_talks import recent
from tests.backoffice.test_api_console import Console, administrator  # noqa: F401 (fixture)
from tests.browser import back_office_context, screenshots
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser
expect.set_options(timeout=15_000)
shot = screenshots("api-console")
TALK = ("Chat", "servlet_api_chat_talk_bot_uuid_create")
TITLE = {"en": "Decoded values", "fr": "Valeurs décodées"}
TEST_NOTE = {"en": "Sent as a test dialog", "fr": "Envoyé comme dialogue de test"}


@pytest.fixture(params=["en", "fr"])
def language(request):
    return request.param


@pytest.fixture
def page(browser, live_server, language):  # noqa: F811 (fixture)
    context = back_office_context(browser, timeout=15_000)
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    yield context.new_page()
    context.close()


def decoded_panel(block):
    panel = block.locator(".api-console-decoded")
    expect(panel).to_be_visible()
    return panel, json.loads(panel.locator("pre").inner_text())


def sent_fields(console) -> dict:
    """The fields of the last servlet request the console sent, from its query string and its body."""
    sent = console.sent[-1]
    fields = {name: values[-1] for name, values in parse_qs(urlsplit(sent["url"]).query).items()}
    body = sent["body"] or ""
    if body.startswith("{"):
        fields |= {
            name: str(value).lower() if isinstance(value, bool) else value for name, value in json.loads(body).items()
        }
    elif body.startswith("--"):  # multipart: each part's name, a blank line, its value, the next boundary
        fields |= dict(re.findall(r'name="([^"]+)"\r\n\r\n(.*?)\r\n--', body, re.S))
    else:
        fields |= {name: values[-1] for name, values in parse_qs(body).items()}
    return fields


def test_the_talk_example_answers_200_with_its_values_decoded_and_counts_nowhere(
    page,
    live_server,
    language,
    demo_bot_live,  # noqa: F811 (fixture)
):
    console = Console(page, live_server.url + "/servlet/api/doc/")
    page.goto(console.url)
    expect(page.locator("html")).to_have_attribute("lang", language)
    talk = console.operation(*TALK)
    status, body = console.execute(talk)  # the example as it comes: nothing typed, nothing picked
    assert status == 200, body
    raw = json.loads(body)
    panel, shown = decoded_panel(talk)
    expect(panel.locator("h4")).to_have_text(TITLE[language])
    # Every string of the raw answer's values, decoded; the answer itself is the knowledge's, in French.
    assert shown["type"] == raw["type"] == "talkResponse"
    for name, value in raw["values"].items():
        if isinstance(value, str):
            assert shown["values"][name] == base64.b64decode(value).decode(), name
    assert "€" in shown["values"]["text"] and shown["values"]["language"] == "fr"
    assert shown["values"]["knowledgeId"] == raw["values"]["knowledgeId"] > 0
    expect(talk.locator(".api-console-test-dialog")).to_contain_text(TEST_NOTE[language])
    expect(talk.locator(".api-console-test-dialog")).to_contain_text("qualificationMode=true")
    # The request itself carried the field (the curl line shows it too); the dialog is a test dialog.
    assert sent_fields(console)["qualificationMode"] == "true"
    expect(talk.locator(".curl-command")).to_contain_text("qualificationMode=true")
    dialog = Dialog.objects.get(uuid=shown["values"]["contextId"])
    assert dialog.qualification_mode
    assert Interaction.objects.filter(dialog=dialog).count() == 1
    assert recent(demo_bot_live).total_dialogs == recent(demo_bot_live).total_interactions == 0
    panel.scroll_into_view_if_needed()
    shot(page, f"talk-decoded-{language}")


@pytest.mark.parametrize("language", ["en"])
def test_every_way_the_console_sends_a_talk_is_a_test_dialog(page, live_server, demo_bot_live):  # noqa: F811
    console = Console(page, live_server.url + "/servlet/api/doc/")
    page.goto(console.url)
    talk = console.operation(*TALK)
    media = talk.locator(".opblock-section-request-body select.content-type")
    contexts = []
    for media_type in ("application/x-www-form-urlencoded", "multipart/form-data", "application/json"):
        media.select_option(media_type)
        status, body = console.execute(talk)
        assert status == 200, (media_type, body)
        assert sent_fields(console)["qualificationMode"] == "true", media_type
        contexts.append(decoded_panel(talk)[1]["values"]["contextId"])
    get = console.operation("Chat", "servlet_api_chat_talk_bot_uuid_retrieve")
    status, body = console.execute(get)
    assert status == 200, body
    assert parse_qs(urlsplit(console.sent[-1]["url"]).query)["qualificationMode"] == ["true"]
    contexts.append(decoded_panel(get)[1]["values"]["contextId"])
    get.locator(".api-console-decoded").scroll_into_view_if_needed()
    shot(page, "talk-get-decoded-en")
    # Other chat calls go as they are: the server status is no dialog.
    status_call = console.operation("Server status", "servlet_api_serverstatus_retrieve")
    console.execute(status_call)
    assert "qualificationMode" not in console.sent[-1]["url"]
    expect(status_call.locator(".api-console-test-dialog")).to_have_count(0)
    assert Dialog.objects.filter(uuid__in=contexts, qualification_mode=True).count() == 4
    assert recent(demo_bot_live).total_dialogs == 0


def test_the_export_without_its_optional_flag_runs_at_once(
    page,
    live_server,
    administrator,  # noqa: F811 (fixture)
    language,
    demo_bot_live,  # noqa: F811 (fixture)
):
    console = Console(page, live_server.url + "/servlet/api/doc/")
    page.goto(console.url)
    _, token = ApiToken.issue(administrator)
    page.locator(".auth-wrapper .authorize").click()
    dialog = page.locator(".dialog-ux .modal-ux")
    dialog.locator("input").fill(token)
    dialog.locator(".auth-btn-wrapper .authorize").click()
    dialog.locator(".btn-done").click()
    export = console.operation("Knowledge base", "servlet_api_bot_knowledgebase_export_bot_uuid_retrieve")
    expect(export.locator("tr[data-param-name='exclude_gallery']")).to_have_count(0)
    status, _ = console.execute(export)
    assert status == 200
    assert console.sent[-1]["url"].rstrip("/").endswith(f"/bot/knowledgebase/export/{demo_bot_live.uuid}")
    shot(page, f"export-without-flag-{language}")


@pytest.mark.parametrize("language", ["en"])
def test_a_call_that_needs_a_talk_says_so_and_runs_with_the_talk_s_context(page, live_server, demo_bot_live):  # noqa: F811
    console = Console(page, live_server.url + "/servlet/api/doc/")
    page.goto(console.url)
    expect(page.locator(".swagger-ui .information-container")).to_contain_text("test dialogs")
    feedback = console.operation("Chat", "servlet_api_chat_feedback_bot_uuid_create")
    expect(feedback.locator(".opblock-description-wrapper").first).to_contain_text(
        "Try it out: Needs the contextId of a talk: run Chat › talk first and copy its decoded values.contextId "
        "here. As it comes, the example answers 400 MISSING_FIELD."
    )
    # As it comes, the console asks for the context id (its field is required) and sends nothing.
    sent = len(console.sent)
    feedback.locator("button.execute").click()
    context_field = feedback.locator("tr[data-property-name='contextId'] input")
    expect(context_field).to_have_class(re.compile("invalid"))
    assert len(console.sent) == sent
    shot(page, "feedback-asks-for-a-context-en")
    # The talk's decoded contextId, pasted: the vote is stored on that test dialog's answer.
    talk = console.operation(*TALK)
    console.execute(talk)
    context_id = decoded_panel(talk)[1]["values"]["contextId"]
    context_field.fill(context_id)
    status, body = console.execute(feedback)
    assert status == 200, body
    voted = Interaction.objects.get(dialog__uuid=context_id)
    assert voted.feedback == Interaction.Feedback.POSITIVE
    feedback.locator(".live-responses-table").scroll_into_view_if_needed()
    shot(page, "feedback-with-the-talk-context-en")
