"""Complementary answers through the talk endpoint (and one through the websocket talk frame): where their
text goes, what they target, their conditions and their activation frequency counted per dialog."""

import pytest
from asgiref.sync import async_to_sync

from dialogs.activations import ComplementActivation
from knowledge.models import Formulation, KnowledgeItem
from tests.livechat.conftest import ChatboxSocket

from .conftest import F, P, make_complement, make_item

pytestmark = pytest.mark.django_db

FUNERAL = "Proposez-vous une assurance obsèques ?"
LOMBARD = "Faites-vous du crédit lombard ?"
SAFE = "Puis-je louer un coffre-fort ?"
PROMO = "<b>Offre du mois</b> : frais offerts."


def test_instead_replaces_the_answer_and_keeps_the_item(chatbox, demo_bot, wealth):
    make_complement(demo_bot, "Service suspendu cet été.", where=P.INSTEAD, items=[wealth.safe])
    values = chatbox.talk(SAFE)
    assert (values["knowledgeId"], values["text"]) == (wealth.safe.pk, "Service suspendu cet été.")
    assert values["typeResponse"] == "DMUnderstoodQuestion"


def test_before_and_after_surround_the_answer_in_bubbles_of_their_own(chatbox, demo_bot, wealth):
    make_complement(demo_bot, "Après.", where=P.AFTER, items=[wealth.funeral])
    make_complement(demo_bot, "Avant.", where=P.BEFORE, items=[wealth.funeral])
    assert chatbox.talk(FUNERAL)["text"] == "Avant.<hr/>Oui, dès 9 € par mois.<hr/>Après."


def test_only_the_first_instead_in_knowledge_order_is_used_and_after_still_applies(chatbox, demo_bot, wealth):
    make_complement(demo_bot, "Second.", where=P.INSTEAD, items=[wealth.safe], position=2)
    make_complement(demo_bot, "Premier.", where=P.INSTEAD, items=[wealth.safe], position=1)
    make_complement(demo_bot, PROMO, where=P.AFTER, items=[wealth.safe])
    assert chatbox.talk(SAFE)["text"] == f"Premier.<hr/>{PROMO}"


def test_targets_a_tag_with_its_sub_tags_items_or_the_whole_knowledge_base(chatbox, demo_bot, wealth):
    make_complement(demo_bot, "Tag.", tags=[wealth.tag])
    make_complement(demo_bot, "Item.", items=[wealth.safe])
    make_complement(demo_bot, "Tout.", whole=True)
    assert chatbox.talk(FUNERAL)["text"] == "Oui, dès 9 € par mois.<hr/>Tag.<hr/>Tout."
    assert chatbox.talk(LOMBARD)["text"] == "Oui, adossé à vos placements.<hr/>Tag.<hr/>Tout."  # sub-tag
    assert chatbox.talk(SAFE)["text"] == "Oui, en agence.<hr/>Item.<hr/>Tout."
    transfer = chatbox.talk("Comment faire un virement ?")
    assert transfer["text"].endswith("<hr/>Tout.") and "Tag." not in transfer["text"]


def test_a_draft_or_disabled_complement_is_not_used_outside_qualification(chatbox, demo_bot, wealth):
    make_complement(demo_bot, "Brouillon.", items=[wealth.safe], status="draft")
    make_complement(demo_bot, "Désactivé.", items=[wealth.safe], status="disabled")
    assert chatbox.talk(SAFE)["text"] == "Oui, en agence."
    chatbox.context_id = ""
    assert chatbox.talk(SAFE, qualificationMode="true")["text"] == "Oui, en agence.<hr/>Brouillon."


def test_once_per_dialog_asked_twice(chatbox, demo_bot, wealth):
    make_complement(demo_bot, PROMO, items=[wealth.safe], complement_frequency=F.ONCE_PER_DIALOG)
    assert chatbox.talk(SAFE)["text"] == f"Oui, en agence.<hr/>{PROMO}"
    assert chatbox.talk(SAFE)["text"] == "Oui, en agence."
    assert chatbox.talk(SAFE)["text"] == "Oui, en agence."
    chatbox.context_id = ""  # a new dialog counts from zero
    assert chatbox.talk(SAFE)["text"] == f"Oui, en agence.<hr/>{PROMO}"


def test_the_demo_card_reminder_comes_once_per_dialog(chatbox):
    reminder = "ne vous demandera jamais votre code"
    first = chatbox.talk("Comment activer ma carte ?")
    assert reminder in first["text"]
    again = chatbox.talk("Comment activer ma carte ?")
    assert (again["knowledgeId"], reminder in again["text"]) == (first["knowledgeId"], False)
    assert first["text"].startswith(again["text"] + "<hr/>")


def test_once_every_n_interactions_counts_every_interaction_of_the_dialog(chatbox, demo_bot, wealth):
    make_complement(demo_bot, PROMO, items=[wealth.safe], complement_frequency=F.EVERY_N_INTERACTIONS, complement_n=3)
    shown = []
    for question in (SAFE, SAFE, "Comment faire un virement ?", SAFE, SAFE, SAFE, SAFE):
        values = chatbox.talk(question)
        shown.append(PROMO in values["text"])
    # Interactions 1 and 4 (3 later), then 7; the virement in between counts as an interaction.
    assert shown == [True, False, False, True, False, False, True]


def test_at_most_n_times_per_dialog(chatbox, demo_bot, wealth):
    make_complement(demo_bot, PROMO, items=[wealth.safe], complement_frequency=F.N_PER_DIALOG, complement_n=2)
    assert [PROMO in chatbox.talk(SAFE)["text"] for _ in range(4)] == [True, True, False, False]
    row = ComplementActivation.objects.get()
    assert (row.times, str(row.dialog.uuid)) == (2, chatbox.context_id)


def test_a_condition_that_does_not_hold_blocks_the_complement_and_uses_none_of_its_frequency(chatbox, demo_bot, wealth):
    make_complement(
        demo_bot,
        "Votre conseiller pro vous rappelle.",
        items=[wealth.safe],
        complement_frequency=F.ONCE_PER_DIALOG,
        complement_conditions=[{"variable": "client_type", "operator": "is", "value": "pro"}],
    )
    assert chatbox.talk(SAFE)["text"] == "Oui, en agence."
    assert chatbox.talk(SAFE, variables='{"client_type": "particulier"}')["text"] == "Oui, en agence."
    assert not ComplementActivation.objects.exists()
    # Now it holds (values compare without case): shown once, then the frequency says no more.
    pro = chatbox.talk(SAFE, variables='{"client_type": "PRO"}')
    assert pro["text"] == "Oui, en agence.<hr/>Votre conseiller pro vous rappelle."
    assert chatbox.talk(SAFE)["text"] == "Oui, en agence."


def test_conditions_all_hold_with_numbers_compared_as_numbers(chatbox, demo_bot, wealth):
    make_complement(
        demo_bot,
        "Pensez au plan retraite.",
        items=[wealth.funeral],
        complement_conditions=[
            {"variable": "age", "operator": "greater", "value": "50"},
            {"variable": "client_type", "operator": "defined", "value": ""},
        ],
    )
    assert "retraite" not in chatbox.talk(FUNERAL, variables='{"age": "9", "client_type": "pro"}')["text"]
    assert "retraite" not in chatbox.talk(FUNERAL, variables='{"age": "62", "client_type": ""}')["text"]
    assert "retraite" in chatbox.talk(FUNERAL, variables='{"age": "62", "client_type": "pro"}')["text"]


def test_a_complement_answers_with_the_dialogs_variables_filled_in(chatbox, demo_bot, wealth):
    make_complement(demo_bot, "Votre agence : ${agence}.", items=[wealth.safe])
    assert chatbox.talk(SAFE, variables='{"agence": "Lille"}')["text"] == "Oui, en agence.<hr/>Votre agence : Lille."


def test_a_hidden_talk_still_counts_the_complement_it_showed(chatbox, demo_bot, wealth):
    make_complement(demo_bot, PROMO, items=[wealth.safe], complement_frequency=F.ONCE_PER_DIALOG)
    chatbox.talk("Bonjour")
    assert PROMO in chatbox.talk(SAFE, hidden=True)["text"]
    assert PROMO not in chatbox.talk(SAFE)["text"]


def test_once_per_dialog_over_the_websocket_talk_frame(transactional_db, demo_bot):
    safe = make_item(demo_bot, SAFE, "Oui, en agence.")
    make_complement(demo_bot, PROMO, items=[safe], complement_frequency=F.ONCE_PER_DIALOG)

    async def scenario():
        socket = await ChatboxSocket(str(demo_bot.uuid)).open()
        await socket.talk(SAFE)
        first = await socket.frame()
        socket.context_id = first["contextId"]
        await socket.talk(SAFE)
        second = await socket.frame()
        await socket.close()
        return first, second

    first, second = async_to_sync(scenario)()
    assert first["type"] == "talkResponse"
    assert (first["knowledgeId"], first["text"]) == (safe.pk, f"Oui, en agence.<hr/>{PROMO}")
    assert (second["contextId"], second["text"]) == (first["contextId"], "Oui, en agence.")


def test_a_complement_is_never_matched_itself(chatbox, demo_bot, wealth):
    complement = make_complement(demo_bot, "Parrainez un ami : 50 € offerts.", items=[wealth.safe])
    Formulation.objects.create(item=complement, language="fr", text="Offre spéciale parrainage")
    values = chatbox.talk("Offre spéciale parrainage")
    assert values["knowledgeId"] != complement.pk and "50 €" not in values["text"]
    # The same formulation on a question is answered: it was the kind that kept it out.
    KnowledgeItem.objects.filter(pk=complement.pk).update(kind=KnowledgeItem.Kind.QUESTION)
    KnowledgeItem.objects.get(pk=complement.pk).save()  # a save bumps the knowledge version
    chatbox.context_id = ""
    assert chatbox.talk("Offre spéciale parrainage")["knowledgeId"] == complement.pk
