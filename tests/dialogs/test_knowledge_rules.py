"""The rules of the product, through the talk endpoint: publication status and qualification mode,
space reachability, decision trees with direct access, event-triggered items, complementary answers
and variables in answers."""

import pytest

from bots.models import Space
from knowledge.models import Answer, Formulation, KnowledgeItem

pytestmark = pytest.mark.django_db


def make_item(bot, question: str, answer: str, *, status="published", space=None, parent=None, **fields):
    item = KnowledgeItem.objects.create(bot=bot, status=status, parent=parent, label=question, **fields)
    Formulation.objects.create(item=item, language="fr", text=question)
    Answer.objects.create(item=item, language="fr", space=space or bot.default_space(), text=answer)
    return item


def test_a_disabled_item_never_matches_nor_appears_as_a_rewording(chatbox, demo_bot):
    item = make_item(demo_bot, "Quelle est la météo à Lille ?", "Il pleut.", status="disabled")
    for text in ("Quelle est la météo à Lille ?", "météo"):
        values = chatbox.talk(text)
        assert values["knowledgeId"] != item.pk
        assert "Lille" not in values["text"]
        chatbox.context_id = ""
    assert chatbox.talk("Quelle est la météo à Lille ?", qualificationMode="true")["knowledgeId"] != item.pk
    # The same item, published, is answered: it was the status that kept it out.
    item.status = "published"
    item.save()
    chatbox.context_id = ""
    assert chatbox.talk("Quelle est la météo à Lille ?")["knowledgeId"] == item.pk


def test_a_draft_is_used_only_in_qualification_mode(chatbox, demo_bot):
    draft = KnowledgeItem.objects.get(bot=demo_bot, label="Draft: new premium card")
    assert chatbox.talk("Parlez-moi de la nouvelle carte premium")["knowledgeId"] != draft.pk
    chatbox.context_id = ""
    assert chatbox.talk("Parlez-moi de la nouvelle carte premium", qualificationMode="true")["knowledgeId"] == draft.pk


def test_an_item_without_a_default_space_answer_is_reachable_only_in_its_space(chatbox, demo_bot):
    pro = Space.objects.get(bot=demo_bot, name="Pro")
    item = make_item(demo_bot, "Comment déclarer la TVA de ma société ?", "Depuis l'espace pro.", space=pro)
    assert chatbox.talk("Comment déclarer la TVA de ma société ?")["knowledgeId"] != item.pk
    chatbox.context_id = ""
    values = chatbox.talk("Comment déclarer la TVA de ma société ?", space="pro")
    assert (values["knowledgeId"], values["text"]) == (item.pk, "Depuis l'espace pro.")


def test_a_tree_child_is_matched_only_after_its_parent_unless_it_has_direct_access(chatbox, demo_bot):
    parent = make_item(demo_bot, "Je veux un nouveau produit", "Lequel ? Assurance ou placement ?")
    child = make_item(demo_bot, "Assurance habitation", "Voici nos assurances.", parent=parent)
    direct = make_item(demo_bot, "Placement boursier", "Voici nos placements.", parent=parent, direct_access=True)
    assert chatbox.talk("Assurance habitation")["knowledgeId"] != child.pk
    chatbox.context_id = ""
    assert chatbox.talk("Placement boursier")["knowledgeId"] == direct.pk
    chatbox.context_id = ""
    assert chatbox.talk("Je veux un nouveau produit")["knowledgeId"] == parent.pk
    assert chatbox.talk("Assurance habitation")["knowledgeId"] == child.pk


def test_the_follow_up_does_not_hide_the_rest_of_the_knowledge(chatbox):
    chatbox.talk("J'ai perdu ma carte")
    values = chatbox.talk("Comment faire un virement ?")
    assert "Nouveau virement" in values["text"]


def test_an_event_triggered_item_answers_its_push_condition(chatbox, demo_bot):
    event = make_item(demo_bot, "Besoin d'aide ?", "Je suis là si vous avez une question.", kind="event")
    values = chatbox.talk(f"_pushcondition_:{event.pk}")
    assert (values["typeResponse"], values["knowledgeId"]) == ("DMClientPush", event.pk)
    # an event item is pushed, never matched from what a user types
    chatbox.context_id = ""
    assert chatbox.talk("Besoin d'aide ?")["knowledgeId"] != event.pk


def test_a_complementary_answer_follows_every_answer_of_its_tag(chatbox):
    card = chatbox.talk("Comment activer ma carte ?")
    assert "ne vous demandera jamais votre code" in card["text"]
    assert "<hr/>" in card["text"]  # its own bubble
    transfer = chatbox.talk("Comment faire un virement ?")
    assert "ne vous demandera jamais" not in transfer["text"]


def test_variables_and_captures_fill_the_answer(chatbox, demo_bot):
    item = make_item(demo_bot, "Quel est mon conseiller ?", "Votre conseiller à ${city} est ${capture.advisor}.")
    values = chatbox.talk("Quel est mon conseiller ?", variables='{"city": "Lille", "advisor": "<b>Léa</b>"}')
    assert values["knowledgeId"] == item.pk
    assert values["text"] == "Votre conseiller à Lille est &lt;b&gt;Léa&lt;/b&gt;."
