"""Our chatbox (static/chatbox/chatbox.js on the demo page /demo/) in Debian's chromium shows a survey an
answer carries (client-contract.md §2.2 (19)), checks its mandatory fields, posts the answers as CV5 does
(§2.2 (20): ctx, uuid, field_<id>=value, not percent-encoded), thanks the visitor, and after a reload shows
the survey as sent. Screenshots go to test-results/surveys/."""

import re

import pytest
from playwright.sync_api import expect

from dialogs.models import Dialog, Survey, SurveyAnswer, SurveyField
from dialogs.surveys.definitions import ordered_fields
from tests.browser import screenshots
from tests.e2e.conftest import browser, chat_page, demo_bot_live  # noqa: F401 (fixtures)
from tests.e2e.test_demo_chat import ask

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)

shot = screenshots("surveys")  # shot(page, name, shown): with `shown` scrolled whole into the chat's view
ANSWERS = ".dcb-row-bot:not(.dcb-typing)"
REMARK = "Rapide & clair, 100% = parfait + merci <b>l'équipe</b>"


def survey_posts(chat) -> list[str]:
    return [path for method, path, _ in chat.api.calls if method == "POST" and re.match(r"chat/survey/[^c]", path)]


def test_the_chatbox_shows_checks_and_sends_a_survey(chat_page, demo_bot_live):  # noqa: F811
    page = chat_page.page
    survey = Survey.objects.get(bot=demo_bot_live, name="satisfaction", language="fr")
    fields = {item.label: item for item in ordered_fields(survey)}
    bodies: list[str] = []
    page.on(
        "request",
        lambda request: (
            bodies.append(request.post_data or "") if re.search(r"/chat/survey/[0-9a-f-]+$", request.url) else None
        ),
    )
    page.goto(chat_page.url)
    answers = page.locator(ANSWERS)
    expect(answers.first).to_contain_text("je suis Clara")

    ask(page, "Je veux donner mon avis")
    expect(answers).to_have_count(2)
    box = answers.last.get_by_test_id("survey")
    form = box.locator("form")
    expect(form.locator(".dcb-survey-title")).to_have_text("Votre avis sur Clara")
    expect(form.locator(".dcb-survey-heading")).to_have_text("Trois questions, moins d'une minute.")
    satisfied = form.get_by_role("group", name=re.compile("Êtes-vous satisfait de la réponse"))
    expect(satisfied.get_by_role("radio")).to_have_count(4)
    expect(satisfied.locator(".dcb-survey-mark")).to_have_count(1)  # the mandatory mark
    topics = form.get_by_role("group", name="Sur quels sujets ?")
    expect(topics.get_by_role("checkbox")).to_have_count(4)
    heard = form.get_by_label("Comment nous avez-vous connus ?")
    expect(heard.locator("option")).to_have_text(["Choisir…", "Site web", "Agence", "Bouche à oreille", "Autre"])
    remark = form.get_by_label("Une remarque, une suggestion ?")
    expect(remark).to_be_visible()
    send = form.get_by_role("button", name="Envoyer")
    # The configuration call CV5 makes: surveyId, contextUuid, language, solutionUsed.
    configuration = [f for m, p, f in chat_page.api.calls if p.startswith("chat/survey/configuration/")]
    assert configuration and configuration[0]["surveyId"] == str(survey.uuid)
    assert configuration[0]["language"] == "fr" and configuration[0]["solutionUsed"] == "ASSISTANT"
    box.evaluate(
        "element => { element.scrollIntoView({block: 'start', behavior: 'instant'});"
        " element.closest('.dcb-log').scrollBy(0, -100); }"
    )
    shot(page, "chatbox-1-form-top")
    shot(page, "chatbox-1-form", box)

    # The mandatory question left empty: the survey's message under it, nothing sent.
    topics.get_by_label("Cartes").check()
    send.click()
    error = satisfied.locator(".dcb-survey-field-error")
    expect(error).to_have_text("Merci de répondre à cette question.")
    expect(satisfied).to_have_attribute("aria-invalid", "true")
    assert survey_posts(chat_page) == []
    assert not SurveyAnswer.objects.exists()
    shot(page, "chatbox-2-mandatory", box)

    # Filled in: sent, thanked, stored with the dialog.
    satisfied.get_by_label("Satisfait", exact=True).check()
    expect(error).to_be_hidden()  # answered: its message goes
    expect(satisfied).not_to_have_attribute("aria-invalid", "true")
    heard.select_option("Bouche à oreille")
    topics.get_by_label("Compte").check()
    remark.fill(REMARK)
    shot(page, "chatbox-3-filled", box)
    send.click()
    expect(box.locator(".dcb-survey-done")).to_have_text("Merci, vos réponses ont été envoyées.")
    expect(box.locator("form")).to_have_count(0)
    shot(page, "chatbox-4-sent", box)

    stored = SurveyAnswer.objects.get()
    assert stored.survey == survey
    assert stored.dialog == Dialog.objects.get()
    assert list(stored.values.values_list("field_id", "value")) == [
        (fields["Êtes-vous satisfait de la réponse ?"].pk, "Satisfait"),
        (fields["Comment nous avez-vous connus ?"].pk, "Bouche à oreille"),
        (fields["Sur quels sujets ?"].pk, "Cartes"),
        (fields["Sur quels sujets ?"].pk, "Compte"),
        (fields["Une remarque, une suggestion ?"].pk, REMARK),
    ]
    # CV5's raw form: ctx, uuid, then field_<id>=value, nothing percent-encoded.
    assert len(bodies) == 1
    assert bodies[0].startswith(f"ctx={stored.dialog.uuid}&uuid={survey.uuid}&field_")
    assert f"field_{fields['Une remarque, une suggestion ?'].pk}={REMARK}" in bodies[0]

    # After a reload the conversation comes back (history), the answer without its form: the history's
    # interactions do not carry the survey, and one that did would show as sent (answered from here).
    page.reload()
    expect(page.locator(".dcb-row-user")).to_have_text([re.compile("Je veux donner mon avis")])
    expect(page.locator(ANSWERS).last).to_contain_text("Merci de prendre une minute")
    expect(page.locator(".dcb-survey-form")).to_have_count(0)
    page.wait_for_timeout(600)  # the restored bubbles fade in
    shot(page, "chatbox-5-after-reload")
    assert chat_page.errors == []


def test_a_survey_shows_server_text_as_text_and_the_server_s_400(chat_page, demo_bot_live):  # noqa: F811
    page = chat_page.page
    survey = Survey.objects.get(bot=demo_bot_live, name="satisfaction", language="fr")
    Survey.objects.filter(pk=survey.pk).update(title='<img src=x onerror="window.hacked=1">Avis')
    page.goto(chat_page.url)
    expect(page.locator(ANSWERS).first).to_contain_text("je suis Clara")
    ask(page, "Je veux donner mon avis")
    form = page.get_by_test_id("survey").locator("form")
    expect(form.locator(".dcb-survey-title")).to_have_text('<img src=x onerror="window.hacked=1">Avis')
    assert form.locator("img").count() == 0
    # An option removed meanwhile: the server refuses the answer (400 naming the field); its error is
    # shown under that field, the form stays, nothing is stored.
    SurveyField.objects.filter(survey=survey, parent__isnull=False, label="Satisfait").delete()
    satisfied = form.get_by_role("group", name=re.compile("Êtes-vous satisfait de la réponse"))
    satisfied.get_by_role("radio", name="Satisfait", exact=True).check()
    form.get_by_role("button", name="Envoyer").click()
    expect(satisfied.locator(".dcb-survey-field-error")).to_have_text(
        re.compile(r"The field 'field_\d+' is invalid: 'Satisfait' is not one of its options")
    )
    expect(form.locator(".dcb-survey-error")).to_have_text("Vos réponses n'ont pas pu être envoyées.")
    expect(satisfied).to_have_attribute("aria-invalid", "true")
    expect(form.get_by_role("button", name="Envoyer")).to_be_enabled()
    assert not SurveyAnswer.objects.exists()
    shot(page, "chatbox-6-server-error", form)
    assert page.evaluate("window.hacked") is None
    assert chat_page.errors == []


def test_every_field_type_is_shown_and_answered(chat_page, demo_bot_live):  # noqa: F811
    """A survey with each kind of field (TEXT, a lone CHECKBOX and RADIO, SELECT, RADIO choices)
    replaces the demo's on the item that carries it."""
    from dialogs.surveys.definitions import save_survey
    from knowledge.models import Answer

    page = chat_page.page
    demo = Survey.objects.get(bot=demo_bot_live, name="satisfaction", language="fr")
    survey = save_survey(
        demo_bot_live,
        {
            "name": "every-kind",
            "language": "fr",
            "title": "Tous les champs",
            "submitValue": "Valider",
            "requiredMessage": "Obligatoire.",
            "fields": [
                {"type": "TITLE", "label": "Un titre"},
                {"type": "TEXT", "label": "Votre nom", "mandatory": True},
                {"type": "CHECKBOX", "label": "J'accepte d'être recontacté", "mandatory": True},
                {"type": "RADIO", "label": "Je suis client"},
                {"type": "SELECT", "label": "Votre agence", "options": ["Paris", "Lyon"]},
                {"type": "MULTIPLE_CHOICE", "label": "Note", "options": ["1", "2", "3"]},
            ],
        },
    )
    Answer.objects.filter(survey=demo.uuid).update(survey=survey.uuid)
    fields = {item.label: item for item in ordered_fields(survey)}
    page.goto(chat_page.url)
    expect(page.locator(ANSWERS).first).to_contain_text("je suis Clara")
    ask(page, "Je veux donner mon avis")
    form = page.get_by_test_id("survey").locator("form")
    expect(form.locator(".dcb-survey-title")).to_have_text("Tous les champs")
    expect(form.locator(".dcb-survey-heading")).to_have_text("Un titre")
    name = form.get_by_role("textbox", name=re.compile("Votre nom"))
    consent = form.get_by_role("checkbox", name=re.compile("J'accepte d'être recontacté"))
    client = form.get_by_role("radio", name="Je suis client")
    agency = form.get_by_label("Votre agence")
    note = form.get_by_role("group", name="Note")
    expect(note.get_by_role("radio")).to_have_count(3)
    form.get_by_role("button", name="Valider").click()
    expect(form.locator(".dcb-survey-field-error:visible")).to_have_text(["Obligatoire.", "Obligatoire."])
    shot(page, "chatbox-7-every-kind", form)
    name.fill("Camille & co")
    consent.check()
    client.check()
    agency.select_option("Lyon")
    note.get_by_role("radio", name="3").check()
    form.get_by_role("button", name="Valider").click()
    expect(page.get_by_test_id("survey").locator(".dcb-survey-done")).to_be_visible()
    stored = SurveyAnswer.objects.get(survey=survey)
    assert list(stored.values.values_list("field_id", "value")) == [
        (fields["Votre nom"].pk, "Camille & co"),
        (fields["J'accepte d'être recontacté"].pk, "J'accepte d'être recontacté"),
        (fields["Je suis client"].pk, "Je suis client"),
        (fields["Votre agence"].pk, "Lyon"),
        (fields["Note"].pk, "3"),
    ]
    assert chat_page.errors == []
