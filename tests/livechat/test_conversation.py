"""A live conversation over REST polling (client-contract.md §4.3): the operator's messages and
notifications reach the visitor one per poll, stored first, each with its pollUpdatedInteractionDate;
history replays them; transfers and ends; an operator acting on what is not theirs changes nothing."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.servlet.errors import ServletError
from dialogs.models import Interaction
from livechat import operating
from livechat.models import LivechatEvent, LivechatRequest, Operator

R = LivechatRequest.Status


@pytest.fixture
def live(team, visitor):
    visitor.ask_for_human()
    request = visitor.live_request()
    operator = team.lea if request.operator_id == team.lea.pk else team.marc
    other = team.marc if operator is team.lea else team.lea
    return visitor, request, operator, other


def test_operator_messages_reach_the_polling_visitor_one_at_a_time_in_order(live):
    visitor, request, operator, _ = live
    assert visitor.poll() == {}

    operating.send_message(operator, request.pk, "Bonjour, je suis là.")
    operating.send_message(operator, request.pk, "Que se passe-t-il avec votre carte ?\nDites-moi tout.")

    first = visitor.poll()
    assert first["text"] == "Bonjour, je suis là."
    assert first["fromDetail"] == operator.name
    assert first["human"] is True
    assert first["typeResponse"] == "OPRegularOperatorAnswer"
    assert first["pollUpdatedInteractionDate"] > request.last_event_ms
    second = visitor.poll()
    assert second["text"] == "Que se passe-t-il avec votre carte ?<br>Dites-moi tout."
    assert second["pollUpdatedInteractionDate"] > first["pollUpdatedInteractionDate"]
    assert visitor.poll() == {}


def test_an_operator_message_is_escaped_and_its_links_clickable(live):
    visitor, request, operator, _ = live
    operating.send_message(operator, request.pk, "<script>x()</script> voir https://banque.example/aide")
    text = visitor.poll()["text"]
    assert "<script>" not in text
    assert "&lt;script&gt;" in text
    assert '<a href="https://banque.example/aide" target="_blank" rel="noopener">' in text


def test_a_stale_typing_notice_is_skipped_when_a_message_follows(live):
    visitor, request, operator, _ = live
    operating.set_typing(operator, request.pk, True)
    only_typing = visitor.poll(advance=False)
    assert (only_typing["code"], only_typing["text"]) == ("OperatorWritingStatus", f"{operator.name} …")
    operating.send_message(operator, request.pk, "Voilà.")
    assert visitor.poll()["text"] == "Voilà."


def test_history_replays_the_live_conversation_with_the_operator_named(live):
    visitor, request, operator, _ = live
    visitor.write("Ma carte est bloquée")
    operating.send_message(operator, request.pk, "Je regarde.")
    operating.send_message(operator, request.pk, "C'est débloqué.")

    history = visitor.values(visitor.post(f"chat/history/{visitor.bot}", {"contextUuid": visitor.context_id}))
    rows = [(i["user"], i["text"], i["type"], i["human"], i.get("fromDetail")) for i in history["interactions"]]
    assert rows[0][2] == "DMLiveChatConnectionSucceed"
    assert rows[1:] == [
        ("Ma carte est bloquée", "Je regarde.", "OPRegularOperatorAnswer", True, operator.name),
        ("", "C'est débloqué.", "OPRegularOperatorAnswer", True, operator.name),
    ]
    # A chatbox that reloads polls on from the last replayed message: nothing comes twice.
    visitor.last_poll = history["interactions"][-1]["pollUpdatedInteractionDate"]
    assert visitor.poll() == {}


def test_a_message_sent_while_the_visitor_is_away_is_waiting_when_they_poll_again(live):
    visitor, request, operator, _ = live
    before = visitor.last_poll
    operating.send_message(operator, request.pk, "Êtes-vous toujours là ?")
    # The visitor's page was closed; it comes back with the last poll time it had.
    visitor.last_poll = before
    assert visitor.poll()["text"] == "Êtes-vous toujours là ?"


def test_the_operator_ends_the_dialog_and_the_bot_answers_again(live):
    visitor, request, operator, _ = live
    operating.end(operator, request.pk)

    end = visitor.poll()
    assert end["typeResponse"] == "OPLiveChatEndByOperator"
    assert operator.name in end["text"]
    request.refresh_from_db()
    assert (request.status, request.end_reason) == (R.ENDED, "operator")
    assert Operator.objects.get(pk=operator.pk).active_dialogs == 0
    assert visitor.talk("Quels sont vos horaires d'ouverture ?")["typeResponse"] == "DMUnderstoodQuestion"
    # In the history, live chat is over (a reloading chatbox does not reopen it).
    history = visitor.values(visitor.post(f"chat/history/{visitor.bot}", {"contextUuid": visitor.context_id}))
    assert [i["type"] for i in history["interactions"]][-2] == "OPLiveChatEndByOperator"


def test_a_manual_transfer_to_another_operator(live):
    visitor, request, operator, other = live
    card = operating.transfer(operator, request.pk, to_login=other.user.username)

    assert card["operator"] == other.name
    notice = visitor.poll()
    assert notice["code"] == "DialogTransferredManually"
    assert other.name in notice["text"]
    request.refresh_from_db()
    assert (request.operator_id, request.transfers) == (other.pk, 1)
    assert Operator.objects.get(pk=operator.pk).active_dialogs == 0
    assert Operator.objects.get(pk=other.pk).active_dialogs == 1
    # The new operator writes; the old one may not any more.
    operating.send_message(other, request.pk, "Je prends le relais.")
    with pytest.raises(ServletError) as refused:
        operating.send_message(operator, request.pk, "Encore moi")
    assert refused.value.code == "NOT_YOUR_DIALOG"


def test_a_transfer_to_a_competency_goes_to_an_operator_who_has_it(team, live):
    _visitor, request, operator, _other = live
    if operator == team.lea:  # make Marc the holder so the transfer must go to Léa (Cartes)
        operating.transfer(operator, request.pk, to_login="marc")
        operator = team.marc
    card = operating.transfer(operator, request.pk, to_competency="Cartes")
    assert card["operator"] == "Léa"
    assert card["competency"] == "Cartes"


def test_a_transfer_to_a_competency_whose_operators_are_all_busy_waits_in_the_queue(team, live):
    visitor, request, operator, _other = live
    Operator.objects.filter(pk=team.sam.pk).update(status="available")  # Sam (Crédits), online but full
    Operator.objects.filter(pk=team.sam.pk).update(max_dialogs=1, active_dialogs=1)
    team.sam.refresh_from_db()
    operating.transfer(operator, request.pk, to_competency="Crédits")
    request.refresh_from_db()
    assert (request.status, request.operator_id, request.competency) == (R.QUEUED, None, team.loans)
    assert visitor.poll_all()[-1]["queuePosition"] == 1


def test_refused_transfers_change_nothing(team, live):
    visitor, request, operator, _other = live
    before = visitor.live_request()
    for target, code in [
        ({"to_competency": "Assurances"}, "UNKNOWN_COMPETENCY"),
        ({"to_login": "nobody"}, "UNKNOWN_OPERATOR"),
        ({"to_login": "sam"}, "OPERATOR_UNAVAILABLE"),
        ({"to_competency": "Crédits"}, "NOBODY_AVAILABLE"),  # only Sam has it, and he is offline
        ({}, "TRANSFER_TARGET"),
    ]:
        with pytest.raises(ServletError) as refused:
            operating.transfer(operator, request.pk, **target)
        assert refused.value.code == code
    team.loans.operators.clear()
    with pytest.raises(ServletError) as refused:
        operating.transfer(operator, request.pk, to_competency="Crédits")
    assert refused.value.code == "NOBODY_COMPETENT"
    after = visitor.live_request()
    assert (after.operator_id, after.status, after.transfers) == (before.operator_id, before.status, 0)
    assert visitor.poll() == {}


def test_an_operator_cannot_act_on_a_dialog_that_is_not_theirs(live):
    _visitor, request, operator, other = live
    events = LivechatEvent.objects.count()
    for act in (
        lambda: operating.send_message(other, request.pk, "Bonjour"),
        lambda: operating.end(other, request.pk),
        lambda: operating.set_typing(other, request.pk, True),
        lambda: operating.transfer(other, request.pk, to_login=operator.user.username),
    ):
        with pytest.raises(ServletError) as refused:
            act()
        assert refused.value.status == 403
    request.refresh_from_db()
    assert (request.status, request.operator_id) == (R.ASSIGNED, operator.pk)
    assert LivechatEvent.objects.count() == events
    assert not Interaction.objects.filter(human=True).exists()


def test_a_dialog_of_another_account_is_unknown(live, team):
    from tests.livechat.conftest import make_operator

    _visitor, request, _, _ = live
    outsider = make_operator("Other bank", "olivia", "Olivia")
    with pytest.raises(ServletError) as refused:
        operating.send_message(outsider, request.pk, "Bonjour")
    assert (refused.value.status, refused.value.code) == (404, "UNKNOWN_DIALOG")


def test_an_ended_dialog_takes_no_more_messages(live):
    _visitor, request, operator, _ = live
    operating.end(operator, request.pk)
    with pytest.raises(ServletError) as refused:
        operating.send_message(operator, request.pk, "Encore une chose")
    assert (refused.value.status, refused.value.code) == (409, "DIALOG_NOT_LIVE")


def test_an_operator_takes_a_queued_dialog_from_the_queue(team, new_visitor):
    Operator.objects.filter(pk=team.marc.pk).update(status="busy")
    Operator.objects.filter(pk=team.lea.pk).update(max_dialogs=1)
    first, waiting = new_visitor(), new_visitor()
    first.ask_for_human()
    waiting.ask_for_human()
    request = waiting.live_request()

    with pytest.raises(ServletError) as full:
        operating.take(team.lea, request.pk)
    assert full.value.code == "OPERATOR_FULL"

    Operator.objects.filter(pk=team.marc.pk).update(status="available")
    card = operating.take(team.marc, request.pk)
    assert card["operator"] == "Marc"
    assert [e["code"] for e in waiting.poll_all() if "code" in e][-1] == "DialogAddedOperatorPanel"
    with pytest.raises(ServletError) as gone:
        operating.take(team.marc, request.pk)
    assert gone.value.code == "NOT_IN_QUEUE"


def test_a_poll_for_an_unknown_context_is_a_clear_error(visitor, demo_bot):
    for context in ("0f1e2d3c-0000-4000-8000-00000000abcd", "not-a-uuid"):
        response = visitor.post(f"chat/poll/last/{demo_bot.uuid}", {"contextUuid": context, "lastPoll": "0"})
        assert response.status_code == 404
        assert response.json()["code"] == "UNKNOWN_CONTEXT"
    response = visitor.post(f"chat/poll/last/{demo_bot.uuid}", {"lastPoll": "0"})
    assert (response.status_code, response.json()["code"]) == (400, "MISSING_FIELD")


def test_a_bad_last_poll_is_a_clear_error(live):
    visitor, *_ = live
    response = visitor.post(f"chat/poll/last/{visitor.bot}", {"contextUuid": visitor.context_id, "lastPoll": "soon"})
    assert (response.status_code, response.json()["field"]) == (400, "lastPoll")


def test_the_cv5_poll_body_is_read_even_without_percent_encoding(live):
    visitor, request, operator, _ = live
    operating.send_message(operator, request.pk, "Bonjour")
    body = (
        f"solutionUsed=LIVECHAT&format=JSon&space=Defaut&contextUuid={visitor.context_id}"
        f"&language=fr&lastPoll={visitor.last_poll}"
    )
    response = visitor.client.post(
        f"/servlet/api/chat/poll/last/{visitor.bot}", body, content_type="application/x-www-form-urlencoded"
    )
    assert response.json()["type"] == "talkResponse"


def test_a_poll_costs_three_queries(live):
    visitor, request, operator, _ = live
    operating.send_message(operator, request.pk, "Bonjour")
    with CaptureQueriesContext(connection) as queries:
        assert visitor.poll()["text"] == "Bonjour"
        assert visitor.poll() == {}
    # the bot, the dialog, its events: three queries a poll; and the visitor's presence, written by the
    # first poll only (at most once in visitors.SEEN_WRITE_SECONDS per dialog and process)
    assert len(queries) == 7
    assert sum(query["sql"].startswith("UPDATE") for query in queries.captured_queries) == 1


def test_visitor_typing_is_kept_on_the_dialog(live):
    visitor, request, *_ = live
    import base64

    content = base64.b64encode(b"ma carte est").decode()
    response = visitor.post(
        f"chat/typing/{visitor.bot}",
        {"typing": "true", "content": content, "contextId": visitor.context_id, "solutionUsed": "ASSISTANT"},
    )
    assert response.status_code == 200
    request.dialog.refresh_from_db()
    assert (request.dialog.user_typing, request.dialog.typing_content) == (True, "ma carte est")


def test_the_visitor_learns_when_the_operator_opens_the_dialog(live):
    visitor, request, operator, other = live
    card = operating.open_dialog(operator, request.pk)
    assert card["dialog"]["contextId"] == visitor.context_id
    joined = visitor.poll()
    assert (joined["code"], joined["operatorName"]) == ("OperatorConnected", operator.name)
    assert "fromDetail" not in joined  # else CV5's polling shows it as the operator's message
    assert joined["text"] == f"{operator.name} a rejoint la conversation."
    operating.open_dialog(operator, request.pk)
    assert visitor.poll() == {}  # once per operator
    operating.transfer(operator, request.pk, to_login=other.user.username)
    visitor.poll_all()
    operating.open_dialog(other, request.pk)
    assert visitor.poll()["operatorName"] == other.name


def test_a_dialog_sent_to_a_competency_is_not_handed_straight_back(team, live):
    _visitor, request, operator, _other = live
    operator.competencies.add(team.loans)  # the sender has the competency too, with room
    Operator.objects.filter(pk=team.sam.pk).update(status="available", max_dialogs=1, active_dialogs=1)
    operating.transfer(operator, request.pk, to_competency="Crédits")
    from livechat.assignment import dispatch

    dispatch(team.account.pk)
    request.refresh_from_db()
    assert (request.status, request.operator_id) == (R.QUEUED, None)


def test_an_offline_operator_cannot_take_from_the_queue(team, new_visitor):
    Operator.objects.filter(pk=team.marc.pk).update(status="busy")
    Operator.objects.filter(pk=team.lea.pk).update(max_dialogs=1)
    new_visitor().ask_for_human()
    waiting = new_visitor()
    waiting.ask_for_human()
    Operator.objects.filter(pk=team.sam.pk).update(status="offline")
    team.sam.refresh_from_db()
    with pytest.raises(ServletError) as refused:
        operating.take(team.sam, waiting.live_request().pk)
    assert refused.value.code == "OPERATOR_OFFLINE"
    assert waiting.live_request().status == R.QUEUED
