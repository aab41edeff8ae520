"""chat/talk as the chatbox sends it (client-contract.md §2.2 (8)) and reads it (§3)."""

import re

import pytest

from dialogs.models import Dialog, Interaction

pytestmark = pytest.mark.django_db

REWORD_LINK = re.compile(
    r"<a href=\"#\" class=\"reword\" onclick=\"try \{reword\('(?P<q>(?:[^'\\]|\\.)*)',\{'type':'reword_auto'\}\); "
    r"return false;\}catch\(e\)\{\}\">(?P<text>[^<]*)</a>"
)


def test_first_talk_without_context_returns_a_new_context_and_every_field_the_chatbox_reads(chatbox, demo_bot):
    response = chatbox.post(
        f"chat/talk/{chatbox.bot}",
        {"userInput": "Comment faire un virement ?", "language": "fr", "space": "Defaut", "solutionUsed": "ASSISTANT"},
    )
    body = response.json()
    assert body["type"] == "talkResponse"
    values = chatbox.values(response)
    assert values["typeResponse"] == "DMUnderstoodQuestion"
    assert "Nouveau virement" in values["text"]
    assert values["language"] == "fr"
    assert values["botId"] == chatbox.bot
    assert Dialog.objects.filter(uuid=values["contextId"], bot=demo_bot).exists()
    assert isinstance(values["knowledgeId"], int) and values["knowledgeId"] > 0
    assert isinstance(values["serverTime"], int)
    for flag in ("hasProfilePicture", "startLivechat", "keepPopinMinimized", "human", "askFeedback"):
        assert values[flag] is False


def test_talk_with_a_context_in_the_path_groups_interactions(chatbox):
    chatbox.talk("Bonjour")
    first = chatbox.context_id
    chatbox.talk("Comment faire un virement ?")
    assert chatbox.context_id == first
    dialog = Dialog.objects.get(uuid=first)
    assert [i.user_input for i in dialog.interactions.all()] == ["Bonjour", "Comment faire un virement ?"]


def test_the_html_escaped_input_of_the_chatbox_is_unescaped(chatbox):
    chatbox.talk("a &lt; b &amp; c")
    assert Interaction.objects.get().user_input == "a < b & c"


def test_only_the_first_600_characters_are_used(chatbox):
    chatbox.talk("horaires " + "x" * 2000)
    assert len(Interaction.objects.get().user_input) == 600


def test_an_answer_that_asks_for_feedback_carries_the_feedback_wording(chatbox):
    values = chatbox.talk("Combien coûte le compte ?")
    assert values["askFeedback"] is True
    wording = values["feedbackWording"]
    assert set(wording) == {
        "choiceIntroduction",
        "choice0",
        "choice1",
        "choice2",
        "commentLabel",
        "commentPlaceholder",
        "commentSend",
        "commentEnd",
    }
    assert all(wording.values())


def test_an_ambiguous_input_gets_rewording_links_the_chatbox_can_click(chatbox):
    values = chatbox.talk("carte")
    assert re.fullmatch(r"RW\w+Reword(s?)", values["typeResponse"])
    links = REWORD_LINK.findall(values["text"])
    assert 1 <= len(links) <= 3
    question = links[0][0].replace("\\'", "'")
    # Clicking sends the question back with extraParameters {"type":"reword_auto"}
    clicked = chatbox.talk(question, extra='{"type":"reword_auto"}')
    assert clicked["typeResponse"] == "DMRewordClickedAuto"
    assert clicked["knowledgeId"] > 0
    assert Interaction.objects.filter(origin="reword_auto").count() == 1


def test_an_input_nobody_understands_gets_the_misunderstood_sentence(chatbox):
    values = chatbox.talk("xyzzy plugh frobozz")
    assert values["typeResponse"] == "GBMisunderstoodQuestion"
    assert "pas compris" in values["text"]
    assert values["knowledgeId"] == 0


def test_after_three_misunderstood_inputs_in_a_row_the_too_many_sentence(chatbox):
    types = [chatbox.talk(text)["typeResponse"] for text in ("xyzzy", "plugh frobozz", "zzqv wkkx")]
    assert types == ["GBMisunderstoodQuestion", "GBMisunderstoodQuestion", "GBTooManyMisunderstoodQuestions"]


def test_an_empty_input_gets_the_empty_sentence(chatbox):
    values = chatbox.talk("   ")
    assert values["typeResponse"] == "GBEmptySentence"
    assert "vide" in values["text"]


def test_do_not_register_keeps_the_interaction_out_of_history(chatbox):
    chatbox.talk("#welcome#", hidden=True)
    chatbox.talk("Bonjour")
    history = chatbox.values(chatbox.post(f"chat/history/{chatbox.bot}", {"contextUuid": chatbox.context_id}))
    assert [i["user"] for i in history["interactions"]] == ["Bonjour"]


def test_reset_starts_a_new_dialog_and_archives_the_old_one(chatbox):
    chatbox.talk("Bonjour")
    old = chatbox.context_id
    values = chatbox.talk("#reset#")
    assert values["contextId"] != old
    assert Dialog.objects.get(uuid=old).archived_at is not None
    assert "Clara" in values["text"]


def test_the_space_is_matched_without_regard_to_case_and_falls_back_to_the_default(chatbox):
    pro = chatbox.talk("Combien coûte le compte ?", space="pro")
    assert "12 €" in pro["text"]
    default = chatbox.talk("Combien coûte le compte ?", space="Default")
    assert "2 €" in default["text"] and "12 €" not in default["text"]
    # No Pro answer for transfers: the default space's answer is used
    fallback = chatbox.talk("Comment faire un virement ?", space="PRO")
    assert "Nouveau virement" in fallback["text"]


def test_the_language_field_chooses_the_answer_language(chatbox):
    chatbox.language = "en"
    values = chatbox.talk("What are your opening hours?")
    assert values["language"] == "en"
    assert "Tuesday to Saturday" in values["text"]


def test_language_may_be_given_as_a_name(chatbox):
    values = chatbox.talk("What are your opening hours?", language="English")
    assert values["language"] == "en"


def test_variables_are_kept_on_the_dialog(chatbox):
    chatbox.talk("Bonjour", variables='{"customer": "Alice", "plan": "gold"}')
    assert Dialog.objects.get(uuid=chatbox.context_id).variables == {"customer": "Alice", "plan": "gold"}


def test_the_decision_tree_follow_up_matches_the_children_first(chatbox):
    root = chatbox.talk("J'ai perdu ma carte")
    assert "volée" in root["text"]
    child = chatbox.talk("oui")
    assert "opposition tout de suite" in child["text"]


def test_get_is_accepted_like_post(chatbox, client):
    response = client.get(f"/servlet/api/chat/talk/{chatbox.bot}", {"userInput": "Bonjour", "language": "fr"})
    assert chatbox.values(response)["typeResponse"] == "DMUnderstoodQuestion"


@pytest.mark.parametrize("prefix", ["/servlet/api", "/api"])
@pytest.mark.parametrize("slash", ["", "/"])
def test_both_prefixes_and_an_optional_trailing_slash_answer_without_redirect(client, demo_bot, prefix, slash):
    response = client.post(f"{prefix}/chat/talk/{demo_bot.uuid}{slash}", {"userInput": "Bonjour", "language": "fr"})
    assert response.status_code == 200
    assert response.json()["type"] == "talkResponse"


def test_cors_lets_the_chatbox_call_from_another_site(client, demo_bot):
    response = client.post(
        f"/servlet/api/chat/talk/{demo_bot.uuid}", {"userInput": "Bonjour"}, HTTP_ORIGIN="https://shop.example"
    )
    assert response["Access-Control-Allow-Origin"] in ("*", "https://shop.example")


def test_a_question_clearly_in_another_bot_language_is_answered_in_it(chatbox):
    values = chatbox.talk("What are your opening hours?")  # the chatbox says language=fr
    assert values["language"] == "en"
    assert "Tuesday to Saturday" in values["text"]


def test_a_short_input_keeps_the_requested_language(chatbox):
    assert chatbox.talk("hello")["language"] == "fr"


def test_language_detection_can_be_switched_off_by_the_request(chatbox):
    values = chatbox.talk("What are your opening hours?", disableLanguageDetection="true")
    assert values["language"] == "fr"


def test_rewordings_never_show_matching_group_syntax(chatbox, demo_bot):
    from knowledge.models import Formulation

    Formulation.objects.filter(item__bot=demo_bot).filter(text__contains="{").update(rewordable=True)
    for text in ("carte", "ma carte", "card"):
        chatbox.context_id = ""
        values = chatbox.talk(text)
        for question, shown in REWORD_LINK.findall(values["text"]):
            assert "{" not in question and "{" not in shown, values["text"]
