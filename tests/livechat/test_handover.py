"""Handover from the bot to a human (client-contract.md §4.1, §4.3): an operator with room takes the
dialog, else the queue (place, estimated wait, leaving it), else the bot says nobody is available;
while a human holds the dialog the bot stays silent."""

from bots.models import bump_knowledge_version
from livechat import operating
from livechat.models import LivechatRequest, LivechatSettings, Operator
from tests.livechat.conftest import ADVISOR

R = LivechatRequest.Status


def test_the_demo_bot_hands_the_dialog_to_an_available_operator(team, visitor):
    values = visitor.ask_for_human()

    assert values["typeResponse"] == "DMLiveChatConnectionSucceed"
    assert values["specialAction"] == "StartPolling"
    assert values["startLivechat"] is True
    assert "Je vous mets en relation avec un conseiller." in values["text"]
    live = visitor.live_request()
    assert live.status == R.ASSIGNED
    # Léa and Marc are both free: the one assigned least recently (never) and first takes it.
    assert live.operator.name in values["text"]
    # A notice names its operator in operatorName: fromDetail would make it a message (notices.py).
    assert values["operatorName"] == live.operator.name and "fromDetail" not in values
    assert live.dialog.livechat == "operator"
    assert Operator.objects.get(pk=live.operator_id).active_dialogs == 1


def test_the_english_formulation_escalates_too(team, visitor):
    visitor.language = "en"
    values = visitor.ask_for_human("I want to talk to someone")
    assert values["typeResponse"] == "DMLiveChatConnectionSucceed"
    assert values["language"] == "en"
    assert "You are now talking to" in values["text"]


def test_with_nobody_available_the_bot_says_so_and_keeps_the_dialog(demo_bot, visitor):
    values = visitor.ask_for_human()

    assert values["typeResponse"] == "DMUnderstoodQuestion"
    assert "specialAction" not in values
    assert values["startLivechat"] is False
    assert "Aucun conseiller n'est disponible" in values["text"]
    # The request is counted as missed (analytics), ended at once: nobody holds the dialog.
    missed = LivechatRequest.objects.get()
    assert (missed.status, missed.end_reason, missed.assigned_at) == (R.ENDED, "nobody_available", None)
    assert missed.dialog.livechat == ""
    # The bot still answers the next question.
    assert visitor.talk("Quels sont vos horaires d'ouverture ?")["typeResponse"] == "DMUnderstoodQuestion"


def test_an_operator_whose_console_is_closed_is_not_available(team, visitor):
    Operator.objects.update(last_seen_at=None)
    values = visitor.ask_for_human()
    assert "Aucun conseiller n'est disponible" in values["text"]


def test_full_operators_queue_visitors_in_order_with_their_place_and_wait(team, new_visitor):
    Operator.objects.filter(pk=team.marc.pk).update(status="busy")
    Operator.objects.filter(pk=team.lea.pk).update(max_dialogs=1)
    first, second, third = new_visitor(), new_visitor(), new_visitor()

    assert first.ask_for_human()["typeResponse"] == "DMLiveChatConnectionSucceed"
    queued = second.ask_for_human()
    also_queued = third.ask_for_human()

    assert queued["specialAction"] == "StartWaitingQueue"
    assert queued["startLivechat"] is True
    assert (queued["queuePosition"], also_queued["queuePosition"]) == (1, 2)
    assert 0 < queued["estimatedWaitingDuration"] < also_queued["estimatedWaitingDuration"]
    assert "position 1" in queued["text"]
    assert second.live_request().status == R.QUEUED
    # The chatbox's waiting-queue status call (GET chat/status) says so too.
    status = second.values(second.client.get(second.url(f"chat/status/{second.bot}/{second.context_id}")))
    assert status["waitingQueueStatusResponse"] is True
    assert status["queuePosition"] == 1


def test_a_full_queue_means_nobody_is_available(team, new_visitor, demo_bot):
    LivechatSettings.objects.filter(bot=demo_bot).update(queue_per_operator=1)
    Operator.objects.filter(pk=team.marc.pk).update(status="away")
    Operator.objects.filter(pk=team.lea.pk).update(max_dialogs=1)
    first, second, third = new_visitor(), new_visitor(), new_visitor()
    first.ask_for_human()
    assert second.ask_for_human()["specialAction"] == "StartWaitingQueue"

    refused = third.ask_for_human()
    assert "Aucun conseiller n'est disponible" in refused["text"]
    assert (third.live_request().status, third.live_request().end_reason) == (R.ENDED, "nobody_available")


def test_leaving_the_queue_moves_the_others_up(team, new_visitor):
    Operator.objects.filter(pk=team.marc.pk).update(status="busy")
    Operator.objects.filter(pk=team.lea.pk).update(max_dialogs=1)
    first, second, third = new_visitor(), new_visitor(), new_visitor()
    first.ask_for_human()
    second.ask_for_human()
    third.ask_for_human()

    left = second.talk("#livechatleavequeue#")

    assert left["typeResponse"] == "DMLiveChatLeaveQueue"
    assert left["specialAction"] == "LeaveWaitingQueue"
    assert "quitté la file" in left["text"]
    assert second.live_request().status == R.ENDED
    assert second.live_request().end_reason == "left_queue"
    # The poll confirms it too and stops polling.
    assert second.poll()["specialAction"] == "EndPolling"
    # The visitor behind moves up: the poll brings the new place.
    update = third.poll()
    assert (update["code"], update["queuePosition"]) == ("NAWaitingForOperator", 1)
    assert update["specialAction"] == "StartWaitingQueue"
    # Back with the bot.
    assert second.talk("Quels sont vos horaires d'ouverture ?")["typeResponse"] == "DMUnderstoodQuestion"


def test_while_a_human_holds_the_dialog_the_bot_stays_silent(team, visitor):
    visitor.ask_for_human()

    reply = visitor.write("Combien coûte le compte ?")

    # The question would have been answered by the bot; it goes to the operator instead.
    assert reply["typeResponse"] == "LCVisitorMessage"
    assert reply["text"] == ""
    assert "knowledgeId" not in reply or reply["knowledgeId"] == 0
    stored = visitor.live_request().dialog.interactions.order_by("-pk").first()
    assert (stored.user_input, stored.answer, stored.type_response) == (
        "Combien coûte le compte ?",
        "",
        "LCVisitorMessage",
    )


def test_a_chatbox_that_forgot_it_is_in_live_chat_is_told_again(team, visitor):
    visitor.ask_for_human()
    reply = visitor.talk("Vous êtes là ?")  # mode Synchron: the chatbox thinks it talks to the bot
    assert reply["typeResponse"] == "DMLiveChatConnectionSucceed"
    assert reply["specialAction"] == "StartPolling"
    assert visitor.live_request().dialog.interactions.filter(type_response="LCVisitorMessage").count() == 1


def test_the_talk_competency_routes_to_an_operator_who_has_it(team, visitor):
    Operator.objects.filter(pk=team.lea.pk).update(active_dialogs=2)  # Marc would be chosen otherwise
    Operator.objects.filter(pk=team.marc.pk).update(active_dialogs=0)
    visitor.ask_for_human(competency="cartes")
    assert visitor.live_request().operator_id == team.lea.pk
    assert visitor.live_request().competency == team.cards


def test_the_item_competency_routes_when_the_talk_names_none(team, visitor, demo_bot):
    from knowledge.models import Answer

    Answer.objects.filter(item__label="Talk to an advisor").update(livechat_competency="Cartes")
    bump_knowledge_version(demo_bot.pk)
    visitor.ask_for_human()
    assert visitor.live_request().operator_id == team.lea.pk


def test_a_competency_nobody_online_has_means_nobody_is_available(team, visitor):
    values = visitor.ask_for_human(competency="Crédits")  # only Sam has it, and he is offline
    assert "Aucun conseiller n'est disponible" in values["text"]
    missed = visitor.live_request()
    assert (missed.status, missed.end_reason, missed.competency) == (R.ENDED, "nobody_available", team.loans)


def test_too_many_misunderstood_hands_over_only_where_the_bot_enables_it(team, new_visitor, demo_bot):
    lost = new_visitor()
    for _ in range(3):
        values = lost.talk("zorglub blip blop")
    assert values["typeResponse"] == "GBTooManyMisunderstoodQuestions"
    assert lost.live_request() is None

    LivechatSettings.objects.filter(bot=demo_bot).update(handover_on_too_many_misunderstood=True)
    helped = new_visitor()
    for _ in range(3):
        values = helped.talk("zorglub blip blop")
    assert values["typeResponse"] == "DMLiveChatConnectionSucceed"
    assert helped.live_request().status == R.ASSIGNED


def test_live_chat_switched_off_for_the_bot_leaves_the_bot_answer(team, visitor, demo_bot):
    LivechatSettings.objects.filter(bot=demo_bot).update(enabled=False)
    values = visitor.ask_for_human()
    assert values["text"] == "Je vous mets en relation avec un conseiller."
    assert visitor.live_request() is None


def test_a_new_dialog_ends_the_live_chat_of_the_old_one(team, visitor):
    visitor.ask_for_human()
    live = visitor.live_request()
    visitor.talk("#reset#", hidden=True)
    live.refresh_from_db()
    assert (live.status, live.end_reason) == (R.ENDED, "new_dialog")
    assert Operator.objects.get(pk=live.operator_id).active_dialogs == 0


def test_a_live_dialog_is_not_revoked_for_idleness(team, visitor):
    from datetime import timedelta

    from dialogs.contexts import revoke_idle_dialogs
    from dialogs.models import Dialog

    visitor.ask_for_human()
    Dialog.objects.update(last_activity=Dialog.objects.get().last_activity - timedelta(minutes=30))
    assert revoke_idle_dialogs() == 0
    assert visitor.write("Toujours là ?")["contextId"] == visitor.context_id


def test_the_operator_slot_count_holds_with_several_escalations(team, new_visitor):
    Operator.objects.filter(pk=team.marc.pk).update(status="busy")
    visitors = [new_visitor() for _ in range(5)]
    for one in visitors:
        one.ask_for_human()
    statuses = [one.live_request().status for one in visitors]
    assert statuses == [R.ASSIGNED] * 3 + [R.QUEUED] * 2
    assert Operator.objects.get(pk=team.lea.pk).active_dialogs == 3
    # Ending one frees a slot: the first queued visitor is assigned (DialogAddedOperatorPanel).
    operating.end(team.lea, visitors[0].live_request().pk)
    assert visitors[3].live_request().status == R.ASSIGNED
    assert visitors[4].live_request().status == R.QUEUED
    added = [event for event in visitors[3].poll_all() if event.get("code") == "DialogAddedOperatorPanel"]
    assert added and "Léa" in added[0]["text"]


def test_asking_again_while_live_does_not_open_a_second_request(team, visitor):
    visitor.ask_for_human()
    visitor.write(ADVISOR)
    assert LivechatRequest.objects.filter(dialog__uuid=visitor.context_id).count() == 1


def test_the_chatbox_s_own_inputs_are_not_relayed_to_the_operator(team, visitor):
    visitor.ask_for_human()
    welcome = visitor.talk("#welcome#", hidden=True)  # a chatbox reloading without its cached welcome
    assert "Clara" in welcome["text"]
    relayed = visitor.live_request().dialog.interactions.filter(type_response="LCVisitorMessage")
    assert not relayed.exists()
    assert visitor.live_request().status == R.ASSIGNED
