"""The learning page's content and actions through Django's test client: groups with counts and the
closest items, a formulation that makes the bot answer, a new draft item, ignoring with a reason, bad
input refused in words, a reader who cannot act, another account's bot out of reach."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from dialogs.learning import page
from dialogs.models import Interaction
from knowledge.demo.seed import BOT_UUID
from knowledge.learning.models import IgnoredGroup
from knowledge.matching import normalise
from knowledge.models import Formulation, KnowledgeItem
from tests.accounts.personas import make_persona

from .conftest import BITCOIN, EDITOR, LIFE_INSURANCE, READER, REWORDED, staff, talk_once

pytestmark = pytest.mark.django_db
PAGE = reverse("admin:knowledge_misunderstoodinput_changelist")


def act_url(bot):
    return reverse("admin:knowledge_misunderstoodinput_act", args=[bot.pk])


def group_of(learning, text):
    key = normalise(text, "fr")
    return next(g for g in learning.groups if any(m.key == key for m in g.members))


def messages_of(response):
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_inputs_are_grouped_with_their_counts_and_closest_items(seeded):
    learning = page.build(seeded)
    insurance, bitcoin = group_of(learning, "assurance vie"), group_of(learning, "bitcoin")
    assert insurance is not bitcoin
    # Every misunderstood or reworded talk counts once; the qualification-mode one does not.
    asked = Interaction.objects.filter(bot=seeded, user_input__in=LIFE_INSURANCE, counted=True)
    assert insurance.count == asked.exclude(type_response="DMUnderstoodQuestion").count() == len(LIFE_INSURANCE)
    assert insurance.leader.key == "assurance vie"  # the most asked wording leads
    assert {m.key for m in insurance.members} >= {"assurance vie", "je cherche une assurance vie pour mes enfants"}
    assert {m.key for m in bitcoin.members} == {normalise(t, "fr") for t in BITCOIN} and bitcoin.count == len(BITCOIN)
    # An understood question is not there; the groups are most asked first.
    assert not any(m.text.startswith("Quels sont vos horaires") for g in learning.groups for m in g.members)
    assert [g.count for g in learning.groups] == sorted((g.count for g in learning.groups), reverse=True)
    assert learning.read == len(LIFE_INSURANCE) + len(BITCOIN) + 1 and learning.mode == {"fr": "lexical"}
    # The closest items come from the matcher's ranking, best first, with the formulation that matched.
    # The bot offered a rewording for REWORDED: that item is among its group's closest, best first.
    reworded = group_of(learning, REWORDED)
    assert (reworded.reworded, reworded.misunderstood) == (1, 0)
    offered = Interaction.objects.get(bot=seeded, user_input=REWORDED).reworded_items
    assert offered and set(offered) <= {s.item_id for s in reworded.suggestions}
    scores = [s.score for s in reworded.suggestions]
    assert scores == sorted(scores, reverse=True) and all(s.formulation and s.label for s in reworded.suggestions)


def test_a_formulation_added_from_the_page_makes_the_bot_answer(seeded, client):
    editor = staff(seeded, "editor", EDITOR)
    client.force_login(editor)
    savings = KnowledgeItem.objects.get(bot=seeded, label="Savings rates")
    assert talk_once(BOT_UUID, "assurance vie")["typeResponse"] == "GBMisunderstoodQuestion"

    response = client.post(act_url(seeded), {"add_to": savings.pk, "text": "assurance vie", "language": "fr"})
    assert response.status_code == 302
    assert any("the bot now answers it with this item" in m for m in messages_of(response)), messages_of(response)
    assert Formulation.objects.filter(item=savings, language="fr", text="assurance vie").count() == 1

    answer = talk_once(BOT_UUID, "assurance vie")
    assert (answer["typeResponse"], answer["knowledgeId"]) == ("DMUnderstoodQuestion", savings.pk)
    # That wording left the page (it is a formulation now); its neighbours stay to be reviewed.
    learning = page.build(seeded)
    assert not any(m.key == "assurance vie" for g in learning.groups for m in g.members)
    assert any(m.key == "je cherche une assurance vie pour mes enfants" for g in learning.groups for m in g.members)
    # The same formulation twice is refused in words.
    again = client.post(act_url(seeded), {"add_to": savings.pk, "text": "Assurance vie", "language": "fr"})
    assert any("already has this formulation" in m for m in messages_of(again))


def test_a_new_draft_item_is_made_from_an_input(seeded, client):
    client.force_login(staff(seeded, "editor", EDITOR))
    response = client.post(act_url(seeded), {"action": "new_item", "text": "bitcoin", "language": "fr"})
    item = KnowledgeItem.objects.get(bot=seeded, label="bitcoin")
    assert response.status_code == 302 and response["Location"].endswith(f"/knowledgeitem/{item.pk}/change/")
    assert (item.status, item.kind) == ("draft", "question")
    assert list(item.formulations.values_list("language", "text")) == [("fr", "bitcoin")]
    # A draft is not answered to visitors: the bot still does not understand it, and an editor writes the answer.
    assert talk_once(BOT_UUID, "bitcoin")["typeResponse"] != "DMUnderstoodQuestion"


def test_an_ignored_group_does_not_come_back_and_is_listed_with_its_reason(seeded, client):
    editor = staff(seeded, "editor", EDITOR)
    client.force_login(editor)
    bitcoin = group_of(page.build(seeded), "bitcoin")
    response = client.post(
        act_url(seeded),
        {
            "action": "ignore",
            "label": bitcoin.leader.text,
            "texts": bitcoin.texts,
            "count": bitcoin.count,
            "reason": "We do not sell crypto-assets",
            "language": "fr",
        },
    )
    assert response.status_code == 302
    ignored = IgnoredGroup.objects.get(bot=seeded)
    assert (ignored.label, ignored.count, ignored.reason, ignored.ignored_by) == (
        "bitcoin",
        len(BITCOIN),
        "We do not sell crypto-assets",
        editor,
    )
    talk_once(BOT_UUID, "Bitcoin !")  # asked again later, in another form of the same words
    talk_once(BOT_UUID, "le bitcoin")  # and in other words close to them: it joins the ignored group
    learning = page.build(seeded)
    assert not any(m.key in [*bitcoin.texts, "le bitcoin"] for g in learning.groups for m in g.members)
    assert learning.hidden == len(BITCOIN) + 2  # every interaction of the ignored group, old and new
    listed = client.get(reverse("admin:knowledge_ignoredgroup_changelist"))
    assert listed.status_code == 200 and "We do not sell crypto-assets" in listed.content.decode()
    # Deleting the ignored group brings its inputs back.
    ignored.delete()
    assert group_of(page.build(seeded), "bitcoin").count == len(BITCOIN) + 2


@pytest.mark.parametrize(
    "fields, error",
    [
        ({"add_to": "999999", "text": "assurance vie", "language": "fr"}, "Choose one of this bot's knowledge items"),
        ({"add_to": "abc", "text": "assurance vie", "language": "fr"}, "Choose one of this bot's knowledge items"),
        ({"add_to": "{savings}", "text": "   ", "language": "fr"}, "The input is empty"),
        ({"add_to": "{savings}", "text": "x" * 1001, "language": "fr"}, "longer than 1000"),
        ({"add_to": "{savings}", "text": "assurance vie", "language": "de"}, "does not speak the language"),
        ({"action": "other", "other_item": "", "text": "assurance vie", "language": "fr"}, "Choose one of this bot"),
        ({"action": "ignore", "label": "bitcoin", "texts": ["bitcoin"], "reason": " ", "language": "fr"}, "Say why"),
        ({"action": "ignore", "label": "bitcoin", "texts": [], "reason": "spam", "language": "fr"}, "no input"),
        ({"action": "ignore", "label": "b", "texts": ["b"], "reason": "r", "count": "9" * 30, "language": "fr"}, ""),
        ({"action": "launch"}, "Choose what to do"),
    ],
)
def test_bad_input_is_refused_in_words(seeded, client, fields, error):
    client.force_login(staff(seeded, "editor", EDITOR))
    savings = KnowledgeItem.objects.get(bot=seeded, label="Savings rates")
    fields = {k: (v.format(savings=savings.pk) if isinstance(v, str) else v) for k, v in fields.items()}
    before = (Formulation.objects.count(), KnowledgeItem.objects.count())
    response = client.post(act_url(seeded), fields)
    assert response.status_code == 302
    if error:
        assert any(error in m for m in messages_of(response)), messages_of(response)
        assert (Formulation.objects.count(), KnowledgeItem.objects.count(), IgnoredGroup.objects.count()) == (
            *before,
            0,
        )
    else:  # an absurd count is bounded, not an error
        assert IgnoredGroup.objects.get().count == 2**31 - 1


def test_a_reader_sees_the_groups_but_cannot_act(seeded, client):
    client.force_login(staff(seeded, "reader", READER))
    shown = client.get(PAGE)
    html = shown.content.decode()
    assert shown.status_code == 200 and "assurance vie" in html
    assert 'data-testid="add-to"' not in html and 'data-testid="ignore"' not in html
    savings = KnowledgeItem.objects.get(bot=seeded, label="Savings rates")
    for fields in (
        {"add_to": savings.pk, "text": "assurance vie", "language": "fr"},
        {"action": "new_item", "text": "bitcoin", "language": "fr"},
        {"action": "ignore", "label": "bitcoin", "texts": ["bitcoin"], "reason": "no", "language": "fr"},
    ):
        assert client.post(act_url(seeded), fields).status_code == 403
    assert not Formulation.objects.filter(text="assurance vie").exists() and not IgnoredGroup.objects.exists()


def test_another_accounts_bot_is_out_of_reach(seeded, client):
    outsider, _ = make_persona("Account B", "editor")
    client.force_login(outsider)
    assert client.get(PAGE, {"bot": seeded.pk}).status_code == 404
    shown = client.get(PAGE)  # no bot of their own: nothing of the demo bot shows
    assert shown.status_code == 200 and "assurance vie" not in shown.content.decode()
    savings = KnowledgeItem.objects.get(bot=seeded, label="Savings rates")
    refused = client.post(act_url(seeded), {"add_to": savings.pk, "text": "assurance vie", "language": "fr"})
    assert refused.status_code == 404 and not Formulation.objects.filter(text="assurance vie").exists()


def test_without_the_permission_the_page_is_forbidden(seeded, client):
    # Staff without any role of the account's (so without the page's permission).
    user = get_user_model().objects.create_user("nobody", "nobody@example.org", is_staff=True)
    client.force_login(user)
    assert client.get(PAGE).status_code == 403
    assert client.post(act_url(seeded), {"action": "ignore"}).status_code == 403


def test_the_page_costs_the_same_statements_whatever_the_number_of_groups(seeded, client):
    client.force_login(staff(seeded, "editor", EDITOR))
    client.get(PAGE)  # builds the snapshot and its matcher once, as the first talk did
    with CaptureQueriesContext(connection) as few:
        assert client.get(PAGE).status_code == 200
    for n in range(12):
        talk_once(BOT_UUID, f"zorglub {n} xylophone{n}")  # twelve more groups
    client.get(PAGE)  # the new talks made no knowledge change: nothing rebuilds
    with CaptureQueriesContext(connection) as many:
        assert client.get(PAGE).status_code == 200
    assert len(page.build(seeded).groups) >= 14
    assert len(many.captured_queries) == len(few.captured_queries) <= 20


def test_a_formulation_added_to_a_draft_is_answered_once_published(seeded, client):
    client.force_login(staff(seeded, "editor", EDITOR))
    draft = KnowledgeItem.objects.get(bot=seeded, label="Draft: new premium card")
    response = client.post(act_url(seeded), {"add_to": draft.pk, "text": "bitcoin", "language": "fr"})
    assert any("the bot will answer it once it is published" in m for m in messages_of(response)), messages_of(response)
    assert talk_once(BOT_UUID, "bitcoin")["typeResponse"] != "DMUnderstoodQuestion"  # a draft: not yet
    assert talk_once(BOT_UUID, "bitcoin", qualificationMode="true")["knowledgeId"] == draft.pk
