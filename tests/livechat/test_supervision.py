"""Supervision and private notes at the console's action level (livechat/console.py act, the services the
websocket runs): each right and each refusal. With the bot preference livechat.createmonitoreddialogs on, a
supervisor (an administrator, or an operator given the right) reads any dialog of the account along, whispers
to its operator, joins it or takes it over; the operator holding a dialog writes private notes on it; every
operator has the All view and the search. Another account's dialogs are 404, a missing right 403, a dialog in
the wrong state 409, and a refused action changes nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Membership
from bots.servlet.errors import ServletError
from dialogs.models import Dialog
from dialogs.notes import DialogNote
from livechat import console, presence, supervisors
from livechat.models import LivechatEvent, LivechatRequest, Operator
from preferences.models import BotPreference
from tests.accounts.personas import make_persona
from tests.livechat.conftest import make_operator

pytestmark = pytest.mark.django_db
MONITORED = "livechat.createmonitoreddialogs"


@pytest.fixture(autouse=True)
def fresh_memo(demo_bot):
    """The monitored flag is kept in the cache across tests that reuse the demo bot's id."""
    supervisors.forget(demo_bot.pk)
    yield
    supervisors.forget(demo_bot.pk)


@pytest.fixture
def monitored(demo_bot):
    BotPreference.objects.create(bot=demo_bot, name=MONITORED, value="true")
    return demo_bot


@pytest.fixture
def sophie(team):
    """An operator given the supervisor right."""
    operator = make_operator(team.account, "sophie", "Sophie")
    Membership.objects.filter(user=operator.user).update(supervisor=True)
    return operator


@pytest.fixture
def alice(team):
    """An administrator: a supervisor by her role."""
    user, _ = make_persona(team.account, "administrator", login="alice")
    user.first_name = "Alice"
    user.save(update_fields=["first_name"])
    operator = presence.operator_for(user)
    Operator.objects.filter(pk=operator.pk).update(status="busy", last_seen_at=timezone.now())
    operator.refresh_from_db()
    return operator


@pytest.fixture
def outsider(team):
    """A supervisor of another account."""
    operator = make_operator("Another account", "zoe", "Zoé")
    Membership.objects.filter(user=operator.user).update(supervisor=True)
    return operator


def act(operator, **action) -> dict:
    return console.act(operator.pk, action)


def refused(operator, **action) -> ServletError:
    with pytest.raises(ServletError) as caught:
        act(operator, **action)
    return caught.value


def live_with_lea(team, visitor) -> LivechatRequest:
    visitor.ask_for_human()
    request = visitor.live_request()
    assert (request.status, request.operator_id) == ("assigned", team.lea.pk)
    return request


def snapshot(request: LivechatRequest) -> tuple:
    request.refresh_from_db()
    return (
        request.status,
        request.operator_id,
        DialogNote.objects.count(),
        LivechatEvent.objects.filter(request=request).count(),
    )


# ---------------------------------------------------------------------------------------------- rights


def test_a_plain_operator_reads_but_may_not_supervise_and_nothing_changes(team, monitored, visitor):
    request = live_with_lea(team, visitor)
    dialog_id = request.dialog_id
    before = snapshot(request)
    read = act(team.marc, action="read", conversation=dialog_id)
    assert read["type"] == "conversation" and read["live"] is False  # a snapshot, not reading along
    assert read["conversation"]["operator"] == "Léa" and read["conversation"]["state"] == "operator"
    for action, code in [("join", "NOT_A_SUPERVISOR"), ("takeover", "NOT_A_SUPERVISOR")]:
        error = refused(team.marc, action=action, conversation=dialog_id)
        assert (error.status, error.code) == (403, code)
    for note in [{"conversation": dialog_id}, {"dialog": request.pk}]:
        error = refused(team.marc, action="note", text="Elle a l'air pressée", **note)
        assert (error.status, error.code) == (403, "NOT_YOUR_DIALOG")
    assert snapshot(request) == before


@pytest.mark.parametrize("who", ["sophie", "alice"])
def test_supervisors_operators_given_the_right_and_administrators_whisper_join_and_take_over(
    who, team, monitored, visitor, sophie, alice
):
    supervisor = {"sophie": sophie, "alice": alice}[who]
    request = live_with_lea(team, visitor)
    whisper = act(supervisor, action="note", conversation=request.dialog_id, text="Propose-lui la carte Or")
    assert whisper["note"]["kind"] == "whisper" and whisper["note"]["to"] == "Léa"
    joined = act(supervisor, action="join", conversation=request.dialog_id)
    assert joined["type"] == "joined" and joined["dialog"] == request.pk
    taken = act(supervisor, action="takeover", conversation=request.dialog_id)
    assert taken["type"] == "takenover" and taken["conversation"]["mine"] is True
    request.refresh_from_db()
    assert request.operator_id == supervisor.pk and request.status == "assigned"
    team.lea.refresh_from_db()
    assert team.lea.active_dialogs == 0  # her slot is free again


def test_another_accounts_dialogs_are_not_found_and_nothing_changes(team, monitored, visitor, outsider):
    request = live_with_lea(team, visitor)
    before = snapshot(request)
    for action in [
        {"action": "read"},
        {"action": "join"},
        {"action": "takeover"},
        {"action": "note", "text": "intrus"},
    ]:
        error = refused(outsider, conversation=request.dialog_id, **action)
        assert (error.status, error.code) == (404, "UNKNOWN_DIALOG"), action
    error = refused(outsider, action="note", dialog=request.pk, text="intrus")
    assert (error.status, error.code) == (404, "UNKNOWN_DIALOG")
    assert snapshot(request) == before
    everything = act(outsider, action="all")
    assert everything["conversations"] == []
    assert act(outsider, action="search", text="conseiller")["results"] == []


def test_without_the_preference_a_supervisor_may_not_supervise_the_bots_dialogs(team, demo_bot, visitor, sophie):
    request = live_with_lea(team, visitor)
    before = snapshot(request)
    for action in ["join", "takeover"]:
        error = refused(sophie, action=action, conversation=request.dialog_id)
        assert (error.status, error.code) == (403, "NOT_MONITORED")
    error = refused(sophie, action="note", conversation=request.dialog_id, text="psst")
    assert (error.status, error.code) == (403, "NOT_MONITORED")
    assert act(sophie, action="read", conversation=request.dialog_id)["live"] is False
    assert snapshot(request) == before


def test_bad_input_gets_a_clear_error(team, monitored, visitor, sophie):
    request = live_with_lea(team, visitor)
    before = snapshot(request)
    cases = [
        ({"action": "read", "conversation": "abc"}, (400, "INVALID_FIELD")),
        ({"action": "read"}, (400, "INVALID_FIELD")),
        ({"action": "read", "conversation": 10**9}, (404, "UNKNOWN_DIALOG")),
        ({"action": "note", "conversation": request.dialog_id, "text": "   "}, (400, "MISSING_FIELD")),
        ({"action": "note", "conversation": request.dialog_id, "text": "x" * 4001}, (400, "INVALID_FIELD")),
        ({"action": "note", "conversation": request.dialog_id, "text": ["a"]}, (400, "INVALID_FIELD")),
        ({"action": "search", "from": "hier"}, (400, "INVALID_FIELD")),
        ({"action": "search", "from": "2026-05-02", "to": "2026-05-01"}, (400, "INVALID_FIELD")),
        ({"action": "search", "text": {"$ne": 1}}, (400, "INVALID_FIELD")),
        ({"action": "search", "visitor": "v" * 201}, (400, "INVALID_FIELD")),
    ]
    for action, expected in cases:
        error = refused(sophie, **action)
        assert (error.status, error.code) == expected, action
    assert snapshot(request) == before


def test_the_right_is_the_memberships_and_counts_at_once(team, monitored, visitor, sophie):
    request = live_with_lea(team, visitor)
    Membership.objects.filter(user=sophie.user).update(supervisor=False)
    assert refused(sophie, action="join", conversation=request.dialog_id).code == "NOT_A_SUPERVISOR"
    Membership.objects.filter(user=sophie.user).update(supervisor=True)
    assert act(sophie, action="join", conversation=request.dialog_id)["type"] == "joined"


def test_the_right_is_given_by_administrators_only_through_the_api(client, team):
    url = "/servlet/api/operators/availability/marc"
    admin = {"HTTP_AUTHORIZATION": make_persona(team.account, "administrator", login="ada")[1]}
    refused_self = client.post(url, {"supervisor": "true"}, HTTP_AUTHORIZATION=team.marc.token)
    assert (refused_self.status_code, refused_self.json()["code"]) == (403, "FORBIDDEN")
    assert not Membership.objects.get(user=team.marc.user).supervisor
    bad = client.post(url, {"supervisor": "maybe"}, **admin)
    assert (bad.status_code, bad.json()["code"]) == (400, "INVALID_FIELD")
    assert not Membership.objects.get(user=team.marc.user).supervisor
    given = client.post(url, {"supervisor": "true"}, **admin)
    assert given.status_code == 200 and given.json()["supervisor"] is True
    assert Membership.objects.get(user=team.marc.user).supervisor
    assert client.get(url, **admin).json()["supervisor"] is True
    assert client.post(url, {"supervisor": "false"}, **admin).json()["supervisor"] is False
    assert not Membership.objects.get(user=team.marc.user).supervisor


# ------------------------------------------------------------------------------------------- the views


def test_the_all_view_a_plain_operator_sees_live_dialogs_a_supervisor_the_bots_dialogs_too(
    team, monitored, visitor, new_visitor, sophie
):
    request = live_with_lea(team, visitor)
    with_the_bot = new_visitor()
    with_the_bot.talk("Quels sont vos horaires d'ouverture ?")
    bot_dialog = Dialog.objects.get(uuid=with_the_bot.context_id)
    plain = act(team.marc, action="all")
    assert plain["supervisor"] is False
    assert [(c["id"], c["state"], c["operator"]) for c in plain["conversations"]] == [
        (request.dialog_id, "operator", "Léa")
    ]
    supervised = act(sophie, action="all")
    assert supervised["supervisor"] is True
    by_id = {c["id"]: c for c in supervised["conversations"]}
    assert set(by_id) == {request.dialog_id, bot_dialog.pk}
    assert by_id[bot_dialog.pk]["state"] == "bot" and by_id[bot_dialog.pk]["monitored"] is True
    assert by_id[bot_dialog.pk]["preview"] == "Quels sont vos horaires d'ouverture ?"
    assert by_id[request.dialog_id]["mine"] is False
    # A dialog idle for longer than a context lives is not shown any more.
    Dialog.objects.filter(pk=bot_dialog.pk).update(last_activity=timezone.now() - timedelta(hours=1))
    assert bot_dialog.pk not in {c["id"] for c in act(sophie, action="all")["conversations"]}


def test_the_search_finds_dialogs_by_visitor_text_and_date(team, monitored, visitor, new_visitor):
    request = live_with_lea(team, visitor)
    Dialog.objects.filter(pk=request.dialog_id).update(variables={"name": "Chloé Martin"})
    other = new_visitor()
    other.talk("Comment faire opposition sur ma carte ?")
    other_dialog = Dialog.objects.get(uuid=other.context_id)
    act(team.lea, action="note", dialog=request.pk, text="Rappeler pour le découvert")

    def ids(**fields):
        return [result["id"] for result in act(team.marc, action="search", **fields)["results"]]

    assert ids(visitor="chloé") == [request.dialog_id]
    assert ids(visitor=visitor.context_id) == [request.dialog_id]
    assert ids(text="opposition") == [other_dialog.pk]
    assert ids(text="découvert") == [request.dialog_id]  # a staff note matches for staff
    found = act(team.marc, action="search", text="opposition")["results"][0]
    assert "opposition" in found["excerpt"] and found["state"] == "bot"
    today = timezone.localdate().isoformat()
    assert set(ids(**{"from": today, "to": today})) == {request.dialog_id, other_dialog.pk}
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()
    assert ids(**{"from": tomorrow}) == []
    # The visitor's id is personal data: an operator does not find dialogs by it.
    assert ids(visitor=visitor.client_id) == []


# ------------------------------------------------------------------------------------------ the actions


def test_the_operator_writes_private_notes_on_the_dialog_they_hold_and_after_it_ended(team, visitor):
    request = live_with_lea(team, visitor)
    events = LivechatEvent.objects.filter(request=request).count()
    noted = act(team.lea, action="note", dialog=request.pk, text="Client fidèle, geste commercial possible")
    assert noted["note"]["kind"] == "note" and noted["note"]["from"] == "note"
    assert LivechatEvent.objects.filter(request=request).count() == events  # nothing for the visitor
    opened = act(team.lea, action="open", dialog=request.pk)
    assert [m["text"] for m in opened["messages"] if m["from"] == "note"] == [
        "Client fidèle, geste commercial possible"
    ]
    act(team.lea, action="end", dialog=request.pk)
    after = act(team.lea, action="note", dialog=request.pk, text="Résolu : carte renvoyée")
    assert after["note"]["kind"] == "note"
    assert refused(team.marc, action="note", dialog=request.pk, text="moi aussi").code == "NOT_YOUR_DIALOG"


def test_a_whisper_goes_to_the_operator_never_to_the_visitor(team, monitored, visitor, sophie):
    request = live_with_lea(team, visitor)
    visitor.poll_all()
    act(sophie, action="note", conversation=request.dialog_id, text="Psst : propose la carte Or")
    assert visitor.poll_all() == []
    note = DialogNote.objects.get()
    assert (note.kind, note.author_name, note.to_name) == ("whisper", "Sophie", "Léa")
    lea_reads = act(team.lea, action="open", dialog=request.pk)["messages"]
    assert [(m["from"], m["kind"], m["operator"]) for m in lea_reads if m["from"] == "note"] == [
        ("note", "whisper", "Sophie")
    ]


def test_a_supervisor_who_joined_writes_to_the_visitor_beside_the_operator(team, monitored, visitor, sophie):
    request = live_with_lea(team, visitor)
    visitor.poll_all()
    before_join = refused(sophie, action="send", dialog=request.pk, text="Bonjour")
    assert (before_join.status, before_join.code) == (403, "NOT_YOUR_DIALOG")
    act(sophie, action="join", conversation=request.dialog_id)
    [told] = visitor.poll_all()
    assert told["code"] == "OperatorConnected" and told["text"] == "Sophie a rejoint la conversation."
    assert "fromDetail" not in told  # a notice, never drawn as a message (client-contract.md §4.3)
    again = act(sophie, action="join", conversation=request.dialog_id)  # joining twice tells nobody twice
    assert again["type"] == "joined" and visitor.poll_all() == []
    sent = act(sophie, action="send", dialog=request.pk, text="Je complète la réponse de Léa.")
    [message] = visitor.poll_all()
    assert (message["text"], message["fromDetail"], message["human"]) == (
        "Je complète la réponse de Léa.",
        "Sophie",
        True,
    )
    assert sent["message"]["operator"] == "Sophie"
    request.refresh_from_db()
    assert request.operator_id == team.lea.pk  # still Léa's dialog


def test_taking_over_from_the_queue_and_from_the_bot(team, monitored, visitor, new_visitor, sophie):
    for operator in (team.lea, team.marc):
        Operator.objects.filter(pk=operator.pk).update(status="busy")
    Operator.objects.filter(pk=sophie.pk).update(status="busy")
    # Nobody available: the visitor is not queued; a supervisor takes a dialog still with the bot.
    with_the_bot = new_visitor()
    with_the_bot.talk("Quels sont vos horaires d'ouverture ?")
    with_the_bot.last_poll = with_the_bot.talk("Et le samedi ?")["serverTime"]
    dialog = Dialog.objects.get(uuid=with_the_bot.context_id)
    taken = act(sophie, action="takeover", conversation=dialog.pk)
    assert taken["conversation"]["state"] == "operator" and taken["dialog"]["operatorId"] == sophie.pk
    [told] = with_the_bot.poll_all()
    assert told["code"] == "DialogAddedOperatorPanel" and "Sophie" in told["text"]
    dialog.refresh_from_db()
    assert dialog.livechat == "operator"
    act(sophie, action="send", dialog=taken["dialog"]["id"], text="Bonjour, je prends le relais.")
    assert with_the_bot.poll_all()[0]["text"] == "Bonjour, je prends le relais."
    again = refused(sophie, action="takeover", conversation=dialog.pk)
    assert (again.status, again.code) == (409, "ALREADY_YOURS")
    # A dialog in the queue: Léa is available again but full; the supervisor takes it.
    Operator.objects.filter(pk=team.lea.pk).update(status="available", max_dialogs=1, active_dialogs=1)
    queued_visitor = new_visitor()
    queued_visitor.ask_for_human()
    queued = queued_visitor.live_request()
    assert queued.status == "queued"
    act(sophie, action="takeover", conversation=queued.dialog_id)
    queued.refresh_from_db()
    assert (queued.status, queued.operator_id) == ("assigned", sophie.pk)


def test_take_over_refusals_change_nothing(team, monitored, visitor, new_visitor, sophie):
    request = live_with_lea(team, visitor)
    Operator.objects.filter(pk=sophie.pk).update(status="offline")
    error = refused(sophie, action="takeover", conversation=request.dialog_id)
    assert (error.status, error.code) == (409, "OPERATOR_OFFLINE")
    Operator.objects.filter(pk=sophie.pk).update(status="busy", max_dialogs=1, active_dialogs=1)
    before = snapshot(request)
    error = refused(sophie, action="takeover", conversation=request.dialog_id)
    assert (error.status, error.code) == (409, "OPERATOR_FULL")
    assert snapshot(request) == before
    # A dialog whose visitor left long ago cannot be taken.
    Operator.objects.filter(pk=sophie.pk).update(active_dialogs=0)
    gone = new_visitor()
    gone.talk("Bonjour")
    Dialog.objects.filter(uuid=gone.context_id).update(last_activity=timezone.now() - timedelta(hours=2))
    error = refused(sophie, action="takeover", conversation=Dialog.objects.get(uuid=gone.context_id).pk)
    assert (error.status, error.code) == (409, "DIALOG_OVER")
    # Joining a dialog nobody holds: take it over instead.
    fresh = new_visitor()
    fresh.talk("Bonjour")
    error = refused(sophie, action="join", conversation=Dialog.objects.get(uuid=fresh.context_id).pk)
    assert (error.status, error.code) == (409, "NOT_WITH_AN_OPERATOR")
    assert not LivechatRequest.objects.filter(dialog__uuid__in=[gone.context_id, fresh.context_id]).exists()
