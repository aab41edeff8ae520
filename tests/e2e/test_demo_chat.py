"""The demo chat page in a real browser: our chatbox holds a conversation with the demo bot over the
servlet API (welcome, answer, rewording, feedback, history after a reload, language that continues the
conversation, a new conversation from the menu, errors)."""

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from dialogs.models import Dialog, Interaction
from knowledge.demo.seed import BOT_UUID
from tests.conftest import decode

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)

CONTEXT_KEY = f"dydu.chatbox.context_{BOT_UUID}"
ANSWERS = ".dcb-row-bot:not(.dcb-typing)"
BUBBLES = ".dcb-row:not(.dcb-typing) .dcb-bubble"


def ask(page, text: str):
    box = page.get_by_role("textbox", name=re.compile("Votre question|Your question"))
    box.fill(text)
    box.press("Enter")


def stored_context(page) -> str:
    return page.evaluate(f"localStorage.getItem('{CONTEXT_KEY}')")


def one_question_answered(chat_page, question: str = "Quels sont vos horaires d'ouverture ?"):
    """The demo page after one question and its answer: the page, its answers and the dialog's context."""
    page = chat_page.page
    page.goto(chat_page.url)
    answers = page.locator(ANSWERS)
    expect(answers.first).to_contain_text("je suis Clara")
    ask(page, question)
    expect(answers).to_have_count(2)
    return page, answers, stored_context(page)


def test_a_conversation_with_the_demo_bot(chat_page):
    page, api = chat_page.page, chat_page.api
    page.goto(chat_page.url)
    answers = page.locator(ANSWERS)

    # The welcome opens the conversation; the page asked the server in the chatbox's startup order.
    expect(answers.first).to_contain_text("je suis Clara")
    expect(page.get_by_text("En ligne")).to_be_visible()
    assert api.paths()[:2] == ["GET serverstatus", f"POST chat/welcomecall/{BOT_UUID}"]
    startup = [path for path in api.paths() if "welcomecall" not in path]
    assert startup[1:] == [
        "GET account/dydubox/bots/language",
        f"POST chat/topknowledge/{BOT_UUID}",
        f"POST chat/talk/{BOT_UUID}",
        f"POST chat/history/{BOT_UUID}",
    ]
    welcome = api.talks()[0]
    assert welcome["userInput"] == "#welcome#"
    assert welcome["doNotRegisterInteraction"] == "true"
    assert welcome["solutionUsed"] == "ASSISTANT" and welcome["space"] == "Defaut" and welcome["language"] == "fr"
    assert re.fullmatch(r"[0-9a-f]{15}", welcome["clientId"])
    context_id = stored_context(page)
    assert Dialog.objects.filter(uuid=context_id, bot__uuid=BOT_UUID).exists()

    # A question gets its answer, sent on the stored context.
    ask(page, "Quels sont vos horaires d'ouverture ?")
    expect(page.locator(".dcb-row-user .dcb-text").last).to_have_text("Quels sont vos horaires d'ouverture ?")
    expect(answers).to_have_count(2)
    expect(answers.last).to_contain_text("mardi au samedi")
    assert api.calls[-1][1] == f"chat/talk/{BOT_UUID}/{context_id}"

    # An ambiguous word gets rewording links; clicking one asks that question.
    ask(page, "carte")
    expect(answers).to_have_count(3)
    rewording = answers.last
    expect(rewording).to_have_attribute("data-type", re.compile(r"^RW\w+Rewords?$"))
    # "Quelles cartes proposez-vous ?" is offered too (the demo's quick replies): the lost card is clicked.
    link = rewording.locator("a.reword", has_text="J'ai perdu ma carte")
    question = link.inner_text()
    link.click()
    expect(page.locator(".dcb-row-user .dcb-text").last).to_have_text(question)
    expect(answers).to_have_count(4)
    expect(answers.last).to_contain_text("faire opposition")
    expect(answers.last).not_to_have_attribute("data-type", re.compile("^RW"))
    expect(answers.last.locator(".dcb-bubble")).to_have_count(2)  # the answer's <hr/> splits it in two
    clicked = api.talks()[-1]
    assert clicked["userInput"] == question
    assert json.loads(clicked["extraParameters"]) == {"type": "reword_auto"}
    reworded = Interaction.objects.get(dialog__uuid=context_id, user_input=question)
    assert reworded.origin == "reword_auto" and reworded.knowledge_item_id is not None

    # Feedback on an answer that asks for it: thumbs down, a reason, a comment.
    ask(page, "Combien coûte le compte ?")
    expect(answers).to_have_count(5)
    expect(answers.last).to_contain_text("2 € par mois")
    # Only the latest answer asking for feedback offers it: the server rates that one.
    expect(page.locator(".dcb-feedback")).to_have_count(1)
    answers.last.get_by_role("button", name="Non, cette réponse ne m'a pas aidé").click()
    expect(answers.last).to_contain_text("Pourquoi cette réponse ne vous convient-elle pas ?")
    answers.last.get_by_role("button", name="Elle n'est pas claire").click()
    answers.last.get_by_role("textbox", name="Un commentaire ?").fill("Le prix de la carte n'est pas clair.")
    answers.last.get_by_role("button", name="Envoyer").click()
    expect(answers.last).to_contain_text("Merci pour votre retour !")
    feedback_calls = [(path, fields) for _, path, fields in api.calls if path.startswith("chat/feedback")]
    assert [path for path, _ in feedback_calls] == [
        f"chat/feedback/{BOT_UUID}",
        f"chat/feedback/insatisfaction/{BOT_UUID}",
        f"chat/feedback/comment/{BOT_UUID}",
    ]
    assert all(fields["contextUUID"] == context_id for _, fields in feedback_calls)
    rated = Interaction.objects.get(dialog__uuid=context_id, user_input="Combien coûte le compte ?")
    assert rated.feedback == Interaction.Feedback.NEGATIVE
    assert rated.feedback_choice_key == 1
    assert rated.feedback_comment == "Le prix de la carte n'est pas clair."
    assert Interaction.objects.filter(dialog__uuid=context_id).exclude(pk=rated.pk).filter(feedback="").count() == 3

    # Every call the page made went to the servlet API, and nothing failed in the page.
    assert {method for method, _, _ in api.calls} <= {"GET", "POST"}
    assert chat_page.errors == []

    # A reload restores the same conversation from the history, with the welcome once.
    before = page.locator(BUBBLES).all_inner_texts()
    api.clear()
    page.reload()
    expect(page.locator(BUBBLES)).to_have_count(len(before))
    assert page.locator(BUBBLES).all_inner_texts() == before
    expect(page.locator(BUBBLES).filter(has_text="je suis Clara")).to_have_count(1)
    expect(page.locator(".dcb-feedback")).to_have_count(0)  # already rated
    assert f"POST chat/availablecontext/{BOT_UUID}/{context_id}" in api.paths()
    assert f"POST chat/history/{BOT_UUID}" in api.paths()
    assert api.talks() == [], "the welcome comes from the browser's cache after a reload"

    # The questions asked now show up as top questions; one click asks again.
    chip = page.locator(".dcb-chip").filter(has_text="Quels sont vos horaires d'ouverture ?")
    expect(chip).to_be_visible()
    chip.click()
    expect(answers).to_have_count(6)
    expect(answers.last).to_contain_text("mardi au samedi")
    assert json.loads(api.talks()[-1]["extraParameters"]) == {"type": "redirection_knowledge"}
    assert chat_page.errors == []


def test_a_language_switch_during_the_start_up_keeps_the_conversation(chat_page):
    """The start-up reads the conversation's history after showing the welcome; a visitor who switches
    language before that answer arrives keeps the same conversation: the history is still replayed, then the
    start screen speaks the new language, and the next question goes to the same dialog."""
    api = chat_page.api
    page, answers, first_context = one_question_answered(chat_page)

    # The server answers the history at once; the browser gets that answer only when the test lets it go.
    held = []
    page.route("**/chat/history/**", lambda route: held.append((route, route.fetch())))
    page.reload()
    expect(answers.first).to_contain_text("je suis Clara")
    for _ in range(200):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the start-up never asked for the history"
    route, answer = held[0]
    old = decode(json.loads(answer.text())["values"])
    assert old["contextId"] == first_context and old["interactions"]  # the conversation, with its question

    page.get_by_role("group", name="Langue de la discussion").get_by_role("button", name="EN").click()
    route.fulfill(response=answer)
    expect(answers.first).to_contain_text("Hello, I am Clara")  # once the start-up is over
    expect(page.locator(".dcb-row-user .dcb-text")).to_have_text(["Quels sont vos horaires d'ouverture ?"])
    expect(answers).to_have_count(2)
    assert stored_context(page) == first_context

    ask(page, "What are your opening hours?")
    expect(answers.last).to_contain_text("Tuesday to Saturday")
    talks = [path for _, path, _ in api.calls if path.startswith("chat/talk/")]
    assert talks[-1].endswith(first_context)
    assert not [fields for fields in api.talks() if fields["userInput"] == "#reset#"]
    assert chat_page.errors == []


def test_switching_language_and_starting_over(chat_page):
    page, api = chat_page.page, chat_page.api
    page.goto(chat_page.url)
    answers = page.locator(ANSWERS)
    expect(answers.first).to_contain_text("je suis Clara")
    first_context = stored_context(page)

    page.get_by_role("group", name="Langue de la discussion").get_by_role("button", name="EN").click()
    expect(answers).to_have_count(1)
    expect(answers.first).to_contain_text("Hello, I am Clara")
    expect(page.get_by_role("textbox", name="Your question")).to_have_attribute("placeholder", "Ask your question…")
    # The same dialog goes on in English: the welcome tells the server, nothing is reset or archived.
    [welcome] = [fields for fields in api.talks() if fields["language"] == "en"]
    assert welcome["userInput"] == "#welcome#" and welcome["doNotRegisterInteraction"] == "true"
    assert stored_context(page) == first_context
    assert Dialog.objects.get(uuid=first_context).archived_at is None

    ask(page, "What are your opening hours?")
    expect(answers).to_have_count(2)
    expect(answers.last).to_contain_text("Tuesday to Saturday")

    # A new conversation is the menu's: #reset# names the old context, the server archives it.
    page.get_by_role("button", name="More options").click()
    page.get_by_role("menuitem", name="New conversation").click()
    expect(answers).to_have_count(1)
    expect(page.locator(".dcb-row-user")).to_have_count(0)
    expect(answers.first).to_contain_text("Hello, I am Clara")
    [(reset_path, reset)] = [(path, fields) for _, path, fields in api.calls if fields.get("userInput") == "#reset#"]
    assert reset_path == f"chat/talk/{BOT_UUID}/{first_context}" and reset["language"] == "en"
    assert stored_context(page) not in ("", first_context)
    assert Dialog.objects.get(uuid=first_context).archived_at is not None

    # Keyboard: Escape folds the panel back into its launcher, Enter opens it again.
    launcher = page.get_by_role("button", name="Open the chat with Clara")
    page.keyboard.press("Escape")
    expect(launcher).to_be_focused()
    expect(launcher).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_role("log")).to_be_hidden()
    page.keyboard.press("Enter")
    expect(launcher).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_role("textbox", name="Your question")).to_be_focused()
    assert chat_page.errors == []


def test_a_revoked_context_starts_a_fresh_conversation_on_reload(chat_page):
    api = chat_page.api
    page, answers, old_context = one_question_answered(chat_page)

    Dialog.objects.filter(uuid=old_context).update(last_activity=timezone.now() - timedelta(minutes=11))
    api.clear()
    page.reload()
    expect(answers.first).to_contain_text("je suis Clara")
    assert f"POST chat/availablecontext/{BOT_UUID}/{old_context}" in api.paths()
    # The old id is forgotten: a new welcome opens a new context and the old exchange is not shown.
    assert [talk["userInput"] for talk in api.talks()] == ["#welcome#"]
    expect(answers).to_have_count(1)
    expect(page.locator(".dcb-row-user")).to_have_count(0)
    assert stored_context(page) not in ("", old_context)
    assert chat_page.errors == []


def test_a_server_that_does_not_answer_gets_a_clear_message_and_a_retry(chat_page):
    page = chat_page.page
    page.route("**/servlet/api/serverstatus", lambda route: route.abort())
    page.goto(chat_page.url)
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Le service de discussion est momentanément indisponible.")
    expect(page.get_by_text("Hors ligne")).to_be_visible()

    page.unroute("**/servlet/api/serverstatus")
    alert.get_by_role("button", name="Réessayer").click()
    expect(page.locator(ANSWERS).first).to_contain_text("je suis Clara")
    expect(page.get_by_text("En ligne")).to_be_visible()

    # A question that cannot be sent says so, keeps the question, and can be sent again.
    page.route("**/servlet/api/chat/talk/**", lambda route: route.abort())
    ask(page, "Quels sont vos horaires d'ouverture ?")
    failure = page.locator(".dcb-row-error")
    expect(failure).to_contain_text("Votre message n'a pas pu être envoyé.")
    page.unroute("**/servlet/api/chat/talk/**")
    failure.get_by_role("button", name="Réessayer").click()
    expect(page.locator(ANSWERS).last).to_contain_text("mardi au samedi")
    expect(page.locator(".dcb-row-user")).to_have_count(1)
    assert chat_page.errors == []


def test_answer_html_is_sanitised_but_rewording_links_still_work(chat_page, demo_bot_live):
    from knowledge.models import Answer, Formulation, KnowledgeItem

    item = KnowledgeItem.objects.create(
        bot=demo_bot_live, status=KnowledgeItem.Status.PUBLISHED, label="Hostile answer (test)"
    )
    Formulation.objects.create(item=item, language="fr", text="Montre-moi la réponse piégée")
    Answer.objects.create(
        item=item,
        language="fr",
        space=demo_bot_live.default_space(),
        text=(
            "<p>Texte sûr</p><script>window.__pwned = 'script'</script>"
            '<img src="/missing.png" alt="image" onerror="window.__pwned = \'onerror\'">'
            '<a id="js-link" href="javascript:window.__pwned = \'href\'">lien</a>'
            "<hr/><p onmouseover=\"window.__pwned = 'hover'\">Deuxième bulle "
            '<a id="fake-reword" href="#" onclick="window.__pwned = \'onclick\'; return false;">faux</a> '
            '<a href="#" class="reword" onclick="try {reword(\'Quels sont vos horaires d\\\'ouverture ?\','
            "{'type':'reword_auto'}); return false;}catch(e){}\">horaires</a></p>"
        ),
    )
    page, answers, _ = one_question_answered(chat_page, "Montre-moi la réponse piégée")
    hostile = answers.last
    expect(hostile.locator(".dcb-bubble")).to_have_count(2)  # split at <hr/>
    expect(hostile).to_contain_text("Texte sûr")
    expect(hostile.locator("script")).to_have_count(0)
    expect(hostile.locator("img")).not_to_have_attribute("onerror", re.compile(".*"))
    expect(hostile.locator("#js-link")).not_to_have_attribute("href", re.compile(".*"))
    expect(hostile.locator("#fake-reword")).not_to_have_attribute("onclick", re.compile(".*"))
    hostile.locator("#js-link").click()
    hostile.locator("#fake-reword").click()
    hostile.get_by_text("Deuxième bulle").hover()
    assert page.evaluate("window.__pwned") is None
    assert page.url == chat_page.url

    hostile.locator("a.reword").click()
    expect(answers).to_have_count(3)
    expect(answers.last).to_contain_text("mardi au samedi")
    assert page.evaluate("window.__pwned") is None
    assert chat_page.errors == []


def test_answers_stay_under_their_question_when_asked_in_a_row(chat_page):
    page = chat_page.page
    page.goto(chat_page.url)
    expect(page.locator(ANSWERS).first).to_contain_text("je suis Clara")

    ask(page, "Quels sont vos horaires d'ouverture ?")
    ask(page, "Combien coûte le compte ?")  # before the first answer is shown
    expect(page.locator(ANSWERS)).to_have_count(3)
    rows = page.locator(".dcb-row:not(.dcb-typing)").all_inner_texts()
    assert [row.split(":", 1)[-1].strip()[:40] for row in rows[1:]] == [
        "Quels sont vos horaires d'ouverture ?",
        "Nos agences sont ouvertes du mardi au sa",
        "Combien coûte le compte ?",
        "Le compte est à 2 € par mois, carte comp",
    ]
