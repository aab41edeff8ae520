"""Every kind of rich answer through chat/talk, in the exact shape the chatbox reads
(client-contract.md §3): every string under values base64 of its UTF-8 bytes, nested ones too; the
template data a JSON string the chatbox JSON.parses; steps chained as nextStepResponse."""

import base64
import json

import pytest

from knowledge.models import Answer, KnowledgeItem
from knowledge.rich_answers import PRODUCT_FIELDS

from ..conftest import decode

pytestmark = pytest.mark.django_db


def raw_talk(chatbox, text: str) -> dict:
    """The talk's `values` as they travel, not decoded."""
    path = f"chat/talk/{chatbox.bot}" + (f"/{chatbox.context_id}" if chatbox.context_id else "")
    response = chatbox.post(path, {"userInput": text, "language": chatbox.language, "space": chatbox.space})
    assert response.status_code == 200, response.content
    values = response.json()["values"]
    chatbox.context_id = decode(values["contextId"])
    return values


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def item_of(demo_bot, label: str) -> KnowledgeItem:
    return KnowledgeItem.objects.get(bot=demo_bot, label=label)


def test_quick_replies_arrive_as_the_template_the_chatbox_parses(chatbox, demo_bot):
    raw = raw_talk(chatbox, "Quelles cartes proposez-vous ?")
    assert raw["templateName"] == b64("dydu_quick_reply_001")
    values = decode(raw)
    assert values["knowledgeId"] == item_of(demo_bot, "Card range (quick replies)").pk
    assert values["typeResponse"] == "DMUnderstoodQuestion"
    assert values["text"] == "Nous avons une carte pour chaque usage. Que voulez-vous voir ?"
    buttons = json.loads(values["templateData"])  # what CV5's DialogContext does with it
    assert sorted(buttons) == ["button1", "button2", "button3"]
    assert "reword('La carte Visa Premier',{'type':'redirection_knowledge'})" in buttons["button1"]
    # Each button asks a question the bot answers.
    for question in ("La carte Visa Premier", "Nos offres de compte", "J'ai perdu ma carte"):
        assert (
            chatbox.talk(question, extra='{"type":"redirection_knowledge"}')["typeResponse"]
            != "GBMisunderstoodQuestion"
        )


def test_a_product_card_holds_exactly_the_product_fields(chatbox, demo_bot):
    values = chatbox.talk("Présentez-moi la carte Visa Premier")
    assert values["templateName"] == "dydu_product_001"
    product = json.loads(values["templateData"])
    assert set(product) <= set(PRODUCT_FIELDS)
    assert product["title"] == "Visa Premier" and product["numeric"] == "12,50 € / mois"
    assert product["imageLink"].startswith("data:image/svg+xml;base64,")
    assert "Je veux parler à un conseiller" in product["buttonA"]


def test_a_carousel_numbers_the_product_fields_of_each_card(chatbox):
    values = chatbox.talk("Quelles sont vos offres de compte ?")
    assert values["templateName"] == "dydu_carousel_001"
    cards = json.loads(values["templateData"])
    # CV5 builds one card per number 1..5 from buttonA<n> … title<n> (src/components/Interaction).
    titles = [cards.get(f"title{n}") for n in range(1, 6)]
    assert titles == ["Compte Essentiel", "Compte Confort", "Compte Premium", None, None]
    for n in (1, 2, 3):
        assert {f"{field}{n}" for field in PRODUCT_FIELDS} - set(cards) == {f"buttonB{n}", f"buttonC{n}"}


def test_a_sidebar_is_an_object_of_base64_strings(chatbox):
    raw = raw_talk(chatbox, "Quels documents pour ouvrir un compte ?")
    assert set(raw["sidebar"]) == {"title", "content"}
    assert raw["sidebar"]["title"] == b64("Documents à fournir")
    assert "Un justificatif de domicile" in decode(raw["sidebar"]["content"])


def test_a_gui_action_names_a_window_function_of_the_chatbox(chatbox):
    raw = raw_talk(chatbox, "Je veux faire une réclamation")
    assert raw["guiAction"] == b64("javascript:dyduCustomPlaceHolder('Décrivez votre réclamation…')")


def test_a_url_redirection_sends_the_host_page_elsewhere(chatbox):
    raw = raw_talk(chatbox, "Je suis un professionnel")
    assert raw["urlRedirect"] == b64("/demo/?space=Pro")
    assert decode(raw["text"]) == "Je vous emmène sur la page des professionnels."


def test_steps_chain_as_next_step_responses_each_with_its_text_and_sidebar(chatbox):
    raw = raw_talk(chatbox, "Comment activer le paiement sans contact ?")
    second = raw["nextStepResponse"]
    third = second["nextStepResponse"]
    assert "nextStepResponse" not in third and "sidebar" not in second
    assert second["text"] == b64("<b>Étape 2</b> : choisissez votre carte, puis Paramètres.")
    assert third["sidebar"] == {"title": b64("Plafonds"), "content": b64("<p>50 € par paiement, 150 € cumulés.</p>")}
    # What CV5's flattenSteps(response).map(({text}) => text) shows, one bubble a step.
    values, texts = decode(raw), []
    step = values
    while step:
        texts.append(step["text"])
        step = step.get("nextStepResponse")
    assert [text.split("</b>")[0] for text in texts] == ["<b>Étape 1", "<b>Étape 2", "<b>Étape 3"]


def test_hr_stays_in_the_text_where_the_chatbox_splits_bubbles(chatbox):
    # CV5 splits sanitize(text) at every <hr…> (client-contract.md §3): the server sends the HTML as written.
    text = chatbox.talk("Comment sécuriser mon compte ?")["text"]
    assert text.count("<hr/>") == 3
    assert [part.split(".")[0] for part in text.split("<hr/>")] == ["Trois bons réflexes :", "1", "2", "3"]


def test_non_ascii_template_data_survives_the_base64_round_trip(chatbox, demo_bot):
    fields = {
        "title": "Carte « Éclat » — 𝒱isa",
        "subtitle": 'Plafond 3 000 € ; 日本語 ; emoji 💳 ; guillemets "doubles" et \\ barre',
        "numeric": "9,90 €",
        "buttonA": '<a href="#" onclick="reword(\'Où ?\')">Où ?</a>',
    }
    item = item_of(demo_bot, "Visa Premier card (product card)")
    Answer.objects.filter(item=item, language="fr").update(template_data=json.dumps(fields, ensure_ascii=False))
    item.save()  # a knowledge write: every worker sees it on its next request
    raw = raw_talk(chatbox, "Présentez-moi la carte Visa Premier")
    # Standard base64 of the UTF-8 bytes (what js-base64's Base64.decode reads), then JSON.parse.
    data = base64.b64decode(raw["templateData"], validate=True).decode("utf-8")
    assert json.loads(data) == fields


def test_template_data_gets_the_dialogs_variables_without_breaking_its_json(chatbox, demo_bot):
    item = item_of(demo_bot, "Visa Premier card (product card)")
    data = json.dumps({"title": "Pour ${capture.nom}", "subtitle": "${ville}"})
    Answer.objects.filter(item=item, language="fr").update(template_data=data)
    item.save()
    values = chatbox.talk("Présentez-moi la carte Visa Premier", variables=json.dumps({"nom": 'Zoé "Z" \\o/'}))
    assert json.loads(values["templateData"]) == {"title": "Pour Zoé &quot;Z&quot; \\o/", "subtitle": ""}


def test_a_plain_answer_carries_no_rich_field(chatbox):
    values = chatbox.talk("Comment faire un virement ?")
    rich = {"sidebar", "templateName", "templateData", "guiAction", "urlRedirect", "nextStepResponse"}
    assert rich.isdisjoint(values)


def test_a_rich_answer_costs_the_statements_of_any_talk(chatbox):
    from tests.speed.test_talk_queries import RUNNING, statements_of

    chatbox.talk("Bonjour")
    chatbox.talk("Comment activer le paiement sans contact ?")  # its answer is read once per knowledge version
    for question in (
        "Comment activer le paiement sans contact ?",
        "Nos offres de compte",
        "Comment faire un virement ?",
    ):
        chatbox.talk(question)
        assert statements_of(chatbox, question) == RUNNING


def test_history_shows_the_steps_and_templates_again_but_never_reruns_an_action(chatbox):
    """After a reload the chatbox rebuilds the dialog from chat/history: the steps come back as they were
    answered; a GUI action or a URL redirection does not (it would run a second time)."""
    steps = raw_talk(chatbox, "Comment activer le paiement sans contact ?")
    raw_talk(chatbox, "Je veux faire une réclamation")
    raw_talk(chatbox, "Je suis un professionnel")
    history = chatbox.values(chatbox.post(f"chat/history/{chatbox.bot}", {"contextUuid": chatbox.context_id}))
    replayed = history["interactions"]
    assert len(replayed) == 3
    assert replayed[0]["nextStepResponse"] == decode(steps)["nextStepResponse"]
    assert all("guiAction" not in one and "urlRedirect" not in one for one in replayed)
