"""Surveys in the back office, in a real browser (Debian's chromium): an editor lists the surveys, edits
one with its fields inline (a new drop-down list with its options), reads its results (counts per option,
the text answers) and downloads them as CSV; a reader sees the results but cannot change the survey.
Screenshots go to test-results/surveys/."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from dialogs import contexts
from dialogs.models import Survey, SurveyField
from dialogs.surveys import answers
from dialogs.surveys.definitions import ordered_fields
from tests.accounts.personas import PASSWORD, make_persona
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "surveys"


@pytest.fixture
def page(browser, live_server, demo_bot_live):  # noqa: F811
    # An English browser: the back office follows Accept-Language, and these checks read its English messages.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", accept_downloads=True)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def answered(demo_bot_live):  # noqa: F811
    """The demo's French survey with three visitors' answers, stored the way chat/survey stores them."""
    bot = demo_bot_live
    survey = Survey.objects.get(bot=bot, name="satisfaction", language="fr")
    _, satisfied, heard, topics, remark = ordered_fields(survey)
    for rating, source, chosen, text in [
        ("Très satisfait", "Agence", ["Cartes", "Compte"], "Réponse claire & rapide"),
        ("Satisfait", "Site web", ["Cartes"], ""),
        ("Très satisfait", "", [], "Merci Clara"),
    ]:
        dialog = contexts.open_dialog(bot, language="fr", space="Defaut")
        given = {satisfied.pk: [rating], topics.pk: chosen}
        if source:
            given[heard.pk] = [source]
        if text:
            given[remark.pk] = [text]
        answers.submit(survey, dialog, given, transport="rest")
    return survey


def logged_in(page, server, bot, role, login):
    """A back-office user of the bot's account with that role, logged in on the page."""
    user, _ = make_persona(bot.account, role, login=login)
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    page.goto(server.url + "/admin/login/")
    page.fill("#id_username", login)
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    expect(page.get_by_role("link", name="Bot platform")).to_be_visible()


def test_an_editor_edits_a_survey_and_reads_its_results(page, live_server, demo_bot_live, answered):  # noqa: F811
    survey = answered
    logged_in(page, live_server, demo_bot_live, "editor", "eddie")

    page.goto(live_server.url + "/admin/dialogs/survey/")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("#result_list")).to_contain_text("satisfaction")
    shot(page, "01-survey-list")

    page.goto(live_server.url + f"/admin/dialogs/survey/{survey.pk}/change/")
    expect(page.locator("#id_title")).to_have_value("Votre avis sur Clara")
    options = page.locator("textarea[name$='-options']")
    expect(options.nth(1)).to_have_value("Très satisfait\nSatisfait\nPeu satisfait\nPas satisfait")
    shot(page, "02-survey-fields")

    # A new drop-down list at the end (the inline's empty form after the five fields), three options, mandatory.
    page.locator("input[name='fields-5-position']").fill("9")
    page.locator("select[name='fields-5-kind']").select_option("SELECT")
    page.locator("input[name='fields-5-label']").fill("Votre agence ?")
    page.locator("input[name='fields-5-mandatory']").check()
    page.locator("textarea[name='fields-5-options']").fill("Paris\nLyon\nLille")
    page.click("[name='_continue']")
    expect(page.locator("body")).to_contain_text("was changed successfully")
    added = SurveyField.objects.get(survey=survey, label="Votre agence ?")
    assert added.kind == "SELECT" and added.mandatory
    assert list(added.children.values_list("kind", "label")) == [
        ("SELECT_OPTION", "Paris"),
        ("SELECT_OPTION", "Lyon"),
        ("SELECT_OPTION", "Lille"),
    ]
    shot(page, "03-survey-saved")

    # A choice field without options (the empty form after the six fields) is refused with a message under it.
    page.locator("select[name='fields-6-kind']").select_option("MULTIPLE_CHOICE")
    page.locator("input[name='fields-6-label']").fill("Sans options")
    page.click("[name='_continue']")
    expect(page.locator("body")).to_contain_text("at least one option")
    assert not SurveyField.objects.filter(label="Sans options").exists()
    shot(page, "04-survey-refused")

    page.goto(live_server.url + f"/admin/dialogs/survey/{survey.pk}/results/")
    results = page.get_by_test_id("survey-results")
    expect(page.get_by_test_id("survey-total")).to_have_text("3")
    satisfied = page.get_by_test_id(f"survey-field-{ordered_fields(survey)[1].pk}")
    expect(satisfied.locator("tr", has_text="Très satisfait").get_by_test_id("count")).to_have_text("2 (67 %)")
    expect(satisfied.locator("tr", has_text="Pas satisfait").get_by_test_id("count")).to_have_text("0 (0 %)")
    expect(results).to_contain_text("Réponse claire & rapide")
    expect(results).to_contain_text("Merci Clara")
    shot(page, "05-survey-results")

    with page.expect_download() as download:
        page.get_by_test_id("survey-csv").click()
    csv_text = Path(download.value.path()).read_text(encoding="utf-8")
    lines = csv_text.strip().splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("date,contextId,transport,Êtes-vous satisfait de la réponse ?")
    assert "Cartes | Compte" in csv_text and "Réponse claire & rapide" in csv_text


def test_a_reader_sees_results_but_cannot_change_a_survey(page, live_server, demo_bot_live, answered):  # noqa: F811
    survey = answered
    logged_in(page, live_server, demo_bot_live, "reader", "rita")
    page.goto(live_server.url + f"/admin/dialogs/survey/{survey.pk}/change/")
    expect(page.locator("[name='_save']")).to_have_count(0)
    expect(page.locator("div.readonly").first).to_be_visible()
    shot(page, "06-reader-survey")
    page.goto(live_server.url + f"/admin/dialogs/survey/{survey.pk}/results/")
    expect(page.get_by_test_id("survey-total")).to_have_text("3")
    refused = page.goto(live_server.url + "/admin/dialogs/survey/add/")
    assert refused.status == 403
