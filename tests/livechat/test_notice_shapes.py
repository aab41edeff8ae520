"""The chatbox contract for every live-chat event, on both transports (issue 24 item 1; client-contract.md
§4.2 and §4.3): CV5's polling shows as an operator's bubble anything that carries both `text` and
`fromDetail` (an empty `text` counts as present), so a notice must carry neither `fromDetail` nor an empty
`text`, and a message must carry both with `human`. Each event below is read twice: pushed to the visitor's
websocket (the real ASGI app) and polled over REST (`chat/poll/last`); both give the same values. The
transcript the chatbox replays (`chat/history`) names operators the same way."""

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from livechat import operating
from livechat.models import LivechatRequest, Operator
from livechat.timers import sweep
from tests.livechat.conftest import ChatboxSocket
from tests.livechat.test_timers import everyone_here, later

pytestmark = pytest.mark.django_db(transaction=True)
R = LivechatRequest.Status
# The moment, and the frame's type the socket helper adds beside the values (the poll has no frame).
MOMENT_KEYS = ("pollUpdatedInteractionDate", "serverTime", "type")


def assert_notice(values: dict, code: str):
    assert values.get("code") == code or values.get("typeResponse") == code, values
    assert "fromDetail" not in values, values  # else CV5's polling draws it as the operator's message
    assert values.get("text") != "", values  # an empty text counts as present for CV5
    assert values.get("human") is not True, values


def assert_message(values: dict, name: str, text: str):
    assert (values["text"], values["fromDetail"], values["human"]) == (text, name, True), values
    assert values["typeResponse"] == "OPRegularOperatorAnswer"


def without_moment(values: dict) -> dict:
    return {key: value for key, value in values.items() if key not in MOMENT_KEYS}


def both_transports(visitor, steps) -> list[tuple[dict, dict]]:
    """Run each step (a sync action that stores one event for the visitor) and read its event twice: the
    frame pushed to the visitor's socket, and the REST poll's answer."""

    async def scenario():
        socket = await ChatboxSocket(visitor.bot).open()
        await socket.follow(visitor.context_id)
        seen = []
        for step in steps:
            await database_sync_to_async(step)()
            pushed = await socket.frame()
            polled = await database_sync_to_async(visitor.poll)()
            seen.append((pushed, polled))
        assert await socket.nothing(0.3)
        await socket.close()
        return seen

    return async_to_sync(scenario)()


def test_every_notice_and_message_of_a_live_dialog_on_the_socket_and_the_poll(team, visitor):
    visitor.ask_for_human()
    request = visitor.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)
    other = team.marc if operator.pk == team.lea.pk else team.lea
    steps = [
        lambda: operating.open_dialog(operator, request.pk),
        lambda: operating.set_typing(operator, request.pk, True),
        lambda: operating.set_typing(operator, request.pk, False),
        lambda: operating.send_message(operator, request.pk, "Bonjour, je regarde."),
        lambda: operating.transfer(operator, request.pk, to_login=other.user.username),
        lambda: operating.open_dialog(other, request.pk),
        lambda: operating.send_message(other, request.pk, "Je prends la suite."),
        lambda: (everyone_here(later(245)), sweep(later(245))),  # the visitor is silent: warned
        lambda: operating.end(other, request.pk),
    ]
    seen = both_transports(visitor, steps)
    (
        joined,
        typing,
        stopped,
        message,
        transferred,
        rejoined,
        second,
        warned,
        ended,
    ) = seen

    for pushed, polled in (joined, rejoined):
        for values in (pushed, polled):
            assert_notice(values, "OperatorConnected")
            assert values["operatorName"] in values["text"]
    assert joined[0]["operatorName"] == operator.user.first_name
    assert rejoined[0]["operatorName"] == other.user.first_name

    for values in typing:
        assert_notice(values, "OperatorWritingStatus")
        assert values["text"] == f"{operator.user.first_name} …"
    # Stopped typing: the socket is told (no text at all); the poll has nothing to show, only moves on.
    assert_notice(stopped[0], "OperatorWritingStatus")
    assert "text" not in stopped[0]
    assert "code" not in stopped[1] and "text" not in stopped[1] and "fromDetail" not in stopped[1]
    assert stopped[1]["pollUpdatedInteractionDate"] == stopped[0]["pollUpdatedInteractionDate"]

    for values in message:
        assert_message(values, operator.user.first_name, "Bonjour, je regarde.")
    for values in second:
        assert_message(values, other.user.first_name, "Je prends la suite.")

    for values in transferred:
        assert_notice(values, "DialogTransferredManually")
        assert values["operatorName"] == other.user.first_name
    for values in warned:
        assert_notice(values, "AlmostTimedOut")
    for values in ended:
        assert_notice(values, "OPLiveChatEndByOperator")

    # The socket and the poll carry the same event (the stopped-typing cursor aside).
    for pushed, polled in (joined, typing, message, transferred, rejoined, second, warned, ended):
        assert without_moment(pushed) == without_moment(polled)
        assert pushed["pollUpdatedInteractionDate"] == polled["pollUpdatedInteractionDate"]


def test_a_queued_visitor_taken_and_a_silent_one_closed_on_both_transports(team, new_visitor):
    # Everybody busy: the visitor waits, then is taken when a slot frees.
    Operator.objects.filter(pk__in=[team.lea.pk, team.marc.pk]).update(max_dialogs=1)
    first, second, waiting = new_visitor(), new_visitor(), new_visitor()
    first.ask_for_human()
    second.ask_for_human()
    waiting.ask_for_human()
    assert waiting.live_request().status == R.QUEUED
    held = first.live_request()
    holder = Operator.objects.select_related("user").get(pk=held.operator_id)

    [(taken_pushed, taken_polled)] = both_transports(waiting, [lambda: operating.end(holder, held.pk)])
    for values in (taken_pushed, taken_polled):
        assert_notice(values, "DialogAddedOperatorPanel")
        assert values["operatorName"] == holder.user.first_name
    assert without_moment(taken_pushed) == without_moment(taken_polled)

    # Taken, then silent after the operator's message: warned, then closed.
    request = waiting.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)
    closed = both_transports(
        waiting,
        [
            lambda: operating.send_message(operator, request.pk, "Votre numéro de client ?"),
            lambda: (everyone_here(later(245)), sweep(later(245))),
            lambda: (everyone_here(later(301)), sweep(later(301))),
        ],
    )
    assert_message(closed[0][1], operator.user.first_name, "Votre numéro de client ?")
    for values in closed[1]:
        assert_notice(values, "AlmostTimedOut")
    for values in closed[2]:
        assert_notice(values, "NAAutoCloseDialog")
    assert waiting.live_request().status == R.ENDED


def test_the_replayed_history_names_the_operator_without_making_notices_messages(team, visitor):
    visitor.ask_for_human()
    request = visitor.live_request()
    operator = Operator.objects.select_related("user").get(pk=request.operator_id)
    operating.open_dialog(operator, request.pk)
    operating.send_message(operator, request.pk, "Bonjour.")
    history = visitor.values(visitor.post(f"chat/history/{visitor.bot}", {"contextUuid": visitor.context_id}))
    start, message = history["interactions"]
    assert start["type"] == "DMLiveChatConnectionSucceed"
    assert start["operatorName"] == operator.user.first_name and "fromDetail" not in start
    assert (message["text"], message["type"], message["human"], message["fromDetail"]) == (
        "Bonjour.",
        "OPRegularOperatorAnswer",
        True,
        operator.user.first_name,
    )
