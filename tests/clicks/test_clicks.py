"""Talks that come from a click (servlet-api.md's extraParameters table), through the talk endpoint: each
is recorded with its origin, none is ever "misunderstood" nor counted against the bot; a link to an item
answers that item; push rules on goal pages; a plain talk still costs its 3 statements."""

import json
import re

import pytest

from dialogs.models import Dialog, Interaction
from knowledge.models import KnowledgeItem
from tests.dialogs.test_knowledge_rules import make_item
from tests.speed.test_talk_queries import RUNNING, statements_of

pytestmark = pytest.mark.django_db

# servlet-api.md's table, and the one the chatbox sends for a redirection link that is not a URL.
PAGE_LINKS = ["redirection", "redirection_newpage", "redirection_javascript", "redirection_invalidlink"]
UNDESCRIBED = ["redirection_personnality", "before_close_dialog", "reword_teaser", "exportable_faq", "reword_feedback"]
QUESTION_LINKS = ["reword_auto", "redirection_knowledge", "redirection_consultation_space"]
EVERY_VALUE = PAGE_LINKS + QUESTION_LINKS + UNDESCRIBED
OPENING_HOURS = "Quels sont vos horaires d'ouverture ?"
KNOWLEDGE_LINK = re.compile(r"reword\('((?:[^'\\]|\\.)*)',\{'type':'redirection_knowledge'\}\)")


def misunderstood_twice(chatbox) -> Dialog:
    for _ in range(2):
        assert chatbox.talk("xyzzy plugh frobozz")["typeResponse"] == "GBMisunderstoodQuestion"
    dialog = Dialog.objects.get(uuid=chatbox.context_id)
    assert dialog.misunderstood_streak == 2
    return dialog


def last_interaction(chatbox) -> Interaction:
    return Interaction.objects.filter(dialog__uuid=chatbox.context_id).order_by("-id").first()


@pytest.mark.parametrize("origin", EVERY_VALUE)
@pytest.mark.parametrize("form", ["json", "enum"])
def test_every_click_is_recorded_with_its_origin_and_never_counted_against_the_bot(chatbox, origin, form):
    dialog = misunderstood_twice(chatbox)
    extra = json.dumps({"type": origin, "botsource": 795}) if form == "json" else origin
    # What a click sends is a page's address or a question nobody asked for: never "misunderstood".
    values = chatbox.talk("https://example.net/xyzzy/plugh?frobozz=1&q=é", extra=extra)
    assert not values["typeResponse"].startswith("GB")
    assert values["typeResponse"] == "DMLinkClicked"
    assert values["text"] == "" and values["knowledgeId"] == 0
    interaction = last_interaction(chatbox)
    assert (interaction.origin, interaction.type_response, interaction.counted) == (origin, "DMLinkClicked", False)
    assert interaction.user_input == "https://example.net/xyzzy/plugh?frobozz=1&q=é"
    dialog.refresh_from_db()
    assert dialog.misunderstood_streak == 2  # the third misunderstood input would have said "too many"
    assert chatbox.talk("xyzzy plugh frobozz")["typeResponse"] == "GBTooManyMisunderstoodQuestions"


@pytest.mark.parametrize("origin", [*QUESTION_LINKS, "redirection_personnality", "reword_teaser", "exportable_faq"])
def test_a_click_that_sends_a_question_is_answered_and_leaves_the_streak_alone(chatbox, demo_bot, origin):
    dialog = misunderstood_twice(chatbox)
    values = chatbox.talk(OPENING_HOURS, extra=json.dumps({"type": origin}))
    hours = KnowledgeItem.objects.get(bot=demo_bot, label="Opening hours")
    assert values["knowledgeId"] == hours.pk and "mardi au samedi" in values["text"]
    interaction = last_interaction(chatbox)
    assert (interaction.origin, interaction.knowledge_item_id) == (origin, hours.pk)
    dialog.refresh_from_db()
    assert dialog.misunderstood_streak == 2


@pytest.mark.parametrize("origin", ["redirection_newpage", "redirection_javascript", "redirection"])
def test_a_page_link_answers_nothing_visible_even_when_its_text_is_a_question(chatbox, origin):
    values = chatbox.talk(OPENING_HOURS, extra=json.dumps({"type": origin}))
    assert (values["typeResponse"], values["text"], values["knowledgeId"]) == ("DMLinkClicked", "", 0)


def test_the_link_in_an_answer_to_another_item_answers_that_item(chatbox, demo_bot):
    branches = chatbox.talk("Où se trouve l'agence la plus proche ?")
    question = KNOWLEDGE_LINK.search(branches["text"]).group(1).replace("\\'", "'")
    assert question == OPENING_HOURS
    values = chatbox.talk(question, extra='{"type":"redirection_knowledge"}')
    hours = KnowledgeItem.objects.get(bot=demo_bot, label="Opening hours")
    assert (values["typeResponse"], values["knowledgeId"]) == ("DMUnderstoodQuestion", hours.pk)
    assert last_interaction(chatbox).counted  # the visitor read that answer: knowledge usage counts it


def test_a_knowledge_link_naming_its_item_answers_it_whatever_its_text(chatbox, demo_bot):
    item = make_item(demo_bot, "Quels documents pour un prêt ?", "Trois bulletins de salaire.")
    extra = json.dumps({"type": "redirection_knowledge", "knowledgeId": item.pk})
    values = chatbox.talk("voir les pièces", extra=extra)
    assert (values["knowledgeId"], values["text"]) == (item.pk, "Trois bulletins de salaire.")
    # … but never an item the visitor may not reach (a draft): then nothing visible, never misunderstood
    draft = KnowledgeItem.objects.get(bot=demo_bot, label="Draft: new premium card")
    refused = chatbox.talk(
        "xyzzy plugh", extra=json.dumps({"type": "redirection_knowledge", "knowledgeId": str(draft.pk)})
    )
    assert (refused["typeResponse"], refused["knowledgeId"], refused["text"]) == ("DMLinkClicked", 0, "")


def test_a_decision_tree_link_answers_the_child_and_keeps_the_tree(chatbox, demo_bot):
    lost = chatbox.talk("J'ai perdu ma carte")
    assert "Oui, elle a été volée" in lost["text"]
    stolen = chatbox.talk("Oui, elle a été volée", extra='{"type":"redirection_knowledge"}')
    child = KnowledgeItem.objects.get(pk=stolen["knowledgeId"])
    assert child.parent_id == lost["knowledgeId"]


def test_a_top_knowledge_click_without_an_id_is_found_by_its_question(chatbox, demo_bot):
    values = chatbox.talk("quels SONT vos horaires d'ouverture", extra='{"type":"redirection_knowledge"}')
    assert values["knowledgeId"] == KnowledgeItem.objects.get(bot=demo_bot, label="Opening hours").pk


def test_a_goal_page_push_answers_its_event_item_and_an_unpublished_one_is_refused(chatbox, demo_bot):
    event = make_item(demo_bot, "Besoin d'aide pour votre prêt ?", "Un conseiller peut vous rappeler.", kind="event")
    values = chatbox.talk(f"_goalpage_:{event.pk}")
    assert (values["typeResponse"], values["knowledgeId"]) == ("DMClientPush", event.pk)
    draft = make_item(demo_bot, "Offre de bienvenue", "Votre offre.", kind="event", status="draft")
    for text in (f"_goalpage_:{draft.pk}", f"_pushcondition_:{draft.pk}", "_goalpage_:999999999"):
        refused = chatbox.talk(text)
        assert (refused["typeResponse"], refused["knowledgeId"], refused["text"]) == ("DMLinkClicked", 0, "")
        assert last_interaction(chatbox).counted is False
    assert Dialog.objects.get(uuid=chatbox.context_id).misunderstood_streak == 0
    # in qualification mode (the test bot) a draft may be pushed
    assert chatbox.talk(f"_goalpage_:{draft.pk}", qualificationMode="true")["knowledgeId"] == draft.pk


def test_a_plain_talk_still_costs_three_statements(chatbox):
    chatbox.talk("Comment faire un virement ?")
    assert statements_of(chatbox, "Comment faire un virement ?") == RUNNING
    # a click on a page link costs no more
    assert statements_of(chatbox, "https://example.org/", extraParameters='{"type":"redirection_newpage"}') == [
        statement for statement in RUNNING if "knowledge_answer" not in statement
    ]


PAGE_LINK_CLICK = re.compile(r"reword\('(https://[^']*)',\{'type':'redirection_newpage'\}\);\}catch")


def test_an_answers_page_link_logs_its_click_and_history_hides_it(chatbox):
    branches = chatbox.talk("Où se trouve l'agence la plus proche ?")
    assert '<a href="https://example.org/agences" target="_blank" onclick="try {reword(' in branches["text"]
    url = PAGE_LINK_CLICK.search(branches["text"]).group(1)
    assert url == "https://example.org/agences"
    values = chatbox.talk(url, extra='{"type":"redirection_newpage"}')
    assert (values["typeResponse"], values["text"]) == ("DMLinkClicked", "")
    history = chatbox.values(chatbox.post(f"chat/history/{chatbox.bot}", {"contextUuid": chatbox.context_id}))
    replayed = [(i["user"], i["hideRequest"]) for i in history["interactions"]]
    assert replayed == [("Où se trouve l'agence la plus proche ?", False), (url, True)]
