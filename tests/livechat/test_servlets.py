"""The Operators availability and Callback servlet groups, and live chat in the server status."""

import uuid

import pytest

from bots.status import report
from livechat.layer import record_layer_failure, socket_timeout_problem
from livechat.models import Callback, Operator
from tests.accounts.personas import make_persona

API = "/servlet/api"


@pytest.fixture
def client(client):
    """Each test's chatbox comes from an address of its own: the anonymous callback limit counts per
    address, in a cache other tests (and, with Redis, other test processes) share."""
    client.defaults["REMOTE_ADDR"] = f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"
    return client


def auth(operator_or_token) -> dict:
    token = getattr(operator_or_token, "token", operator_or_token)
    return {"HTTP_AUTHORIZATION": token}


# ------------------------------------------------------------------------------ Operators availability


def test_an_operator_lists_the_team_with_availability_and_competencies(client, team):
    body = client.get(f"{API}/operators/availability", **auth(team.lea)).json()
    by_login = {card["login"]: card for card in body["operators"]}
    assert set(by_login) == {"lea", "marc", "sam"}
    assert by_login["lea"]["status"] == "available"
    assert by_login["lea"]["competencies"] == ["Cartes"]
    assert by_login["sam"]["status"] == "offline"
    assert body["byCompetency"]["*"] == {"online": 2, "withRoom": 2}
    assert body["byCompetency"]["Cartes"] == {"online": 1, "withRoom": 1}
    assert body["byCompetency"]["Crédits"] == {"online": 0, "withRoom": 0}


def test_filters_by_competency_and_availability(client, team):
    cards = client.get(f"{API}/operators/availability?competency=cr%C3%A9dits", **auth(team.lea)).json()["operators"]
    assert [card["login"] for card in cards] == ["sam"]
    available = client.get(f"{API}/operators/availability?available=true", **auth(team.lea)).json()["operators"]
    assert sorted(card["login"] for card in available) == ["lea", "marc"]
    unknown = client.get(f"{API}/operators/availability?competency=Assurances", **auth(team.lea))
    assert (unknown.status_code, unknown.json()["code"]) == (404, "UNKNOWN_COMPETENCY")


def test_an_operator_sets_their_own_availability_but_not_others(client, team):
    mine = client.put(
        f"{API}/operators/availability/lea",
        "status=busy",
        content_type="application/x-www-form-urlencoded",
        **auth(team.lea),
    )
    assert (mine.status_code, mine.json()["status"]) == (200, "busy")
    other = client.put(
        f"{API}/operators/availability/marc",
        "status=away",
        content_type="application/x-www-form-urlencoded",
        **auth(team.lea),
    )
    assert other.status_code == 403
    limit = client.put(
        f"{API}/operators/availability/lea",
        "maxDialogs=5",
        content_type="application/x-www-form-urlencoded",
        **auth(team.lea),
    )
    assert limit.status_code == 403
    assert Operator.objects.get(pk=team.marc.pk).status == "available"
    assert Operator.objects.get(pk=team.lea.pk).max_dialogs == 3


def test_an_administrator_sets_anyone_s_availability_and_dialog_limit(client, team, demo_bot):
    _, admin = make_persona(demo_bot.account, "administrator", login="ada")
    changed = client.post(f"{API}/operators/availability/marc", {"status": "away", "maxDialogs": "7"}, **auth(admin))
    assert (changed.status_code, changed.json()["status"], changed.json()["maxDialogs"]) == (200, "away", 7)
    # A member who may operate but never opened the console gets a profile.
    make_persona(demo_bot.account, "operator", login="nina")
    created = client.post(f"{API}/operators/availability/nina", {"maxDialogs": "2"}, **auth(admin))
    assert (created.status_code, created.json()["maxDialogs"]) == (200, 2)


@pytest.mark.parametrize(
    "fields, code",
    [
        ({"status": "sleeping"}, "INVALID_FIELD"),
        ({"maxDialogs": "11"}, "INVALID_FIELD"),
        ({"maxDialogs": "0"}, "INVALID_FIELD"),
        ({}, "MISSING_FIELD"),
    ],
)
def test_bad_availability_is_refused_and_changes_nothing(client, team, demo_bot, fields, code):
    _, admin = make_persona(demo_bot.account, "administrator", login="ada")
    response = client.post(f"{API}/operators/availability/marc", fields, **auth(admin))
    assert (response.status_code, response.json()["code"]) == (400, code)
    marc = Operator.objects.get(pk=team.marc.pk)
    assert (marc.status, marc.max_dialogs) == ("available", 3)


def test_availability_needs_credentials_and_the_right_role(client, team, demo_bot):
    assert client.get(f"{API}/operators/availability").status_code == 401
    _, reader = make_persona(demo_bot.account, "reader", login="rita")
    assert client.get(f"{API}/operators/availability", **auth(reader)).status_code == 403
    _, outsider = make_persona("Other bank", "operator", login="olga")
    cards = client.get(f"{API}/operators/availability", **auth(outsider)).json()["operators"]
    assert cards == []  # another account's operators are not shown
    assert client.get(f"{API}/operators/availability/lea", **auth(outsider)).status_code == 404


def test_anyone_may_ask_whether_a_bot_s_visitors_can_reach_a_human(client, team, demo_bot):
    open_now = client.get(f"{API}/operators/available/{demo_bot.uuid}").json()
    assert open_now["available"] is True
    assert open_now["byCompetency"]["Cartes"]["online"] == 1
    Operator.objects.update(status="offline")
    assert client.get(f"{API}/operators/available/{demo_bot.uuid}").json()["available"] is False
    assert client.get(f"{API}/operators/available/not-a-bot").status_code == 404


# ------------------------------------------------------------------------------------------- Callback


def test_a_visitor_asks_to_be_called_back_and_an_operator_takes_and_closes_it(client, team, demo_bot, visitor):
    visitor.talk("Bonjour")
    asked = client.post(
        f"{API}/callback/{demo_bot.uuid}",
        {
            "phone": "+33 6 12 34 56 78",
            "name": "Jeanne",
            "preferredTime": "demain matin",
            "reason": "Prêt immobilier",
            "contextId": visitor.context_id,
            "language": "fr",
        },
    )
    assert asked.status_code == 201
    callback = asked.json()
    assert (callback["status"], callback["source"], callback["contextId"]) == ("open", "chatbox", visitor.context_id)

    listed = client.get(f"{API}/callback/{demo_bot.uuid}", **auth(team.lea)).json()
    assert [c["phone"] for c in listed] == ["+33 6 12 34 56 78"]
    taken = client.post(f"{API}/callback/{demo_bot.uuid}/{callback['id']}/take", **auth(team.lea))
    assert (taken.status_code, taken.json()["status"], taken.json()["operator"]) == (200, "taken", "Léa")
    again = client.post(f"{API}/callback/{demo_bot.uuid}/{callback['id']}/take", **auth(team.marc))
    assert (again.status_code, again.json()["code"]) == (409, "CALLBACK_NOT_OPEN")
    stolen = client.post(f"{API}/callback/{demo_bot.uuid}/{callback['id']}/close", **auth(team.marc))
    assert (stolen.status_code, stolen.json()["code"]) == (403, "NOT_YOUR_CALLBACK")
    closed = client.post(
        f"{API}/callback/{demo_bot.uuid}/{callback['id']}/close", {"outcome": "Rappelée, RDV pris"}, **auth(team.lea)
    )
    assert (closed.json()["status"], closed.json()["outcome"]) == ("closed", "Rappelée, RDV pris")
    assert client.get(f"{API}/callback/{demo_bot.uuid}", **auth(team.lea)).json() == []


def test_a_telephony_integration_asks_with_a_token(client, team, demo_bot):
    asked = client.post(f"{API}/callback/{demo_bot.uuid}", {"phone": "0612345678"}, **auth(team.lea))
    assert (asked.status_code, asked.json()["source"]) == (201, "telephony")


@pytest.mark.parametrize("phone", ["", "call me", "12", "+33 6 12 34 56 78 90 12 34", "06<script>"])
def test_a_bad_phone_number_is_refused_and_nothing_is_stored(client, demo_bot, phone):
    response = client.post(f"{API}/callback/{demo_bot.uuid}", {"phone": phone})
    assert response.status_code == 400
    assert response.json()["field"] == "phone"
    assert not Callback.objects.exists()


def test_an_anonymous_address_may_not_flood_the_callbacks(client, demo_bot):
    codes = [client.post(f"{API}/callback/{demo_bot.uuid}", {"phone": "0612345678"}).status_code for _ in range(6)]
    assert codes == [201] * 5 + [429]
    assert Callback.objects.count() == 5


def test_callbacks_are_read_and_handled_only_by_the_bot_s_operators(client, team, demo_bot):
    callback = client.post(f"{API}/callback/{demo_bot.uuid}", {"phone": "0612345678"}).json()
    assert client.get(f"{API}/callback/{demo_bot.uuid}").status_code == 401
    _, reader = make_persona(demo_bot.account, "reader", login="rita")
    assert client.get(f"{API}/callback/{demo_bot.uuid}", **auth(reader)).status_code == 403
    _, outsider = make_persona("Other bank", "operator", login="olga")
    assert client.get(f"{API}/callback/{demo_bot.uuid}", **auth(outsider)).status_code == 403
    assert client.post(f"{API}/callback/{demo_bot.uuid}/{callback['id']}/take", **auth(outsider)).status_code == 403
    missing = client.post(f"{API}/callback/{demo_bot.uuid}/999999/take", **auth(team.lea))
    assert (missing.status_code, missing.json()["code"]) == (404, "UNKNOWN_CALLBACK")
    wrong = client.post(f"{API}/callback/{demo_bot.uuid}/{callback['id']}/dance", **auth(team.lea))
    assert wrong.status_code == 400
    assert Callback.objects.get().status == "open"


# ------------------------------------------------------------------------------------------- status


def test_the_server_status_counts_connected_operators_and_live_dialogs(client, team, visitor, demo_bot):
    visitor.ask_for_human()
    Operator.objects.filter(pk=team.marc.pk).update(last_seen_at=None)  # his console is closed
    _, admin = make_persona(demo_bot.account, "administrator", login="ada")
    report.forget()
    body = client.get(f"{API}/serverstatus?details=true", **auth(admin)).json()
    assert body["volumes"]["connectedOperators"] == 1
    assert body["volumes"]["currentLivechatDialogs"] == 1
    livechat = body["applications"]["livechat"]
    assert livechat["status"] == "Ok"
    assert livechat["customs"]["queue"] == {"waiting": 0, "longestWaitSeconds": 0}


def test_a_consumer_that_lost_the_channel_layer_makes_live_chat_ko(client, team, demo_bot):
    _, admin = make_persona(demo_bot.account, "administrator", login="ada")
    record_layer_failure(TimeoutError("Timeout reading from 127.0.0.1:6379"))
    report.forget()
    body = client.get(f"{API}/serverstatus?details=true", **auth(admin)).json()
    assert body["applications"]["livechat"]["status"] == "Ko"
    assert "Timeout reading" in body["applications"]["livechat"]["customs"]["problem"]
    assert body["status"] == "Ko"
    from django.core.cache import cache

    cache.delete("livechat:layer-failure")


class StubRedisLayer:
    brpop_timeout = 5

    def __init__(self, socket_timeout):
        self.hosts = [{"address": "redis://127.0.0.1:6379/0", "socket_timeout": socket_timeout}]


def test_a_redis_read_timeout_not_above_the_layer_s_blocking_read_is_reported():
    # redis-py's default socket timeout is 5 s, like channels_redis's blocking read: idle sockets died.
    assert "not above" in socket_timeout_problem(StubRedisLayer(5))
    assert socket_timeout_problem(StubRedisLayer(30)) is None


def test_the_configured_layer_holds_idle_sockets(settings):
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    assert socket_timeout_problem(layer) is None
    if settings.REDIS_URL:
        assert layer.hosts[0]["socket_timeout"] > layer.brpop_timeout


# -------------------------------------------------------------------------------- competencies


def test_an_administrator_gives_and_takes_back_a_competency_and_routing_follows(client, team, demo_bot, new_visitor):
    _, admin = make_persona(demo_bot.account, "administrator", login="ada")
    given = client.put(f"{API}/competencies/Cr%C3%A9dits/operators/marc", **auth(admin))
    assert (given.status_code, given.json()["competencies"]) == (200, ["Crédits"])
    listed = client.get(f"{API}/competencies/cr%C3%A9dits/operators", **auth(team.lea)).json()
    assert listed == {"competency": "Crédits", "operators": ["marc", "sam"]}
    asking = new_visitor()
    asking.ask_for_human(competency="Crédits")
    assert asking.live_request().operator_id == team.marc.pk  # Sam, who also has it, is offline

    taken_back = client.delete(f"{API}/competencies/Cr%C3%A9dits/operators/marc", **auth(admin))
    assert taken_back.json()["competencies"] == []


def test_giving_competencies_is_for_administrators_and_known_names(client, team, demo_bot):
    assert client.put(f"{API}/competencies/Cartes/operators/marc", **auth(team.lea)).status_code == 403
    _, admin = make_persona(demo_bot.account, "administrator", login="ada")
    unknown = client.put(f"{API}/competencies/Assurances/operators/marc", **auth(admin))
    assert (unknown.status_code, unknown.json()["code"]) == (404, "UNKNOWN_COMPETENCY")
    make_persona(demo_bot.account, "reader", login="rita")
    not_operator = client.put(f"{API}/competencies/Cartes/operators/rita", **auth(admin))
    assert (not_operator.status_code, not_operator.json()["code"]) == (404, "UNKNOWN_OPERATOR")
    assert list(Operator.objects.get(pk=team.marc.pk).competencies.all()) == []
