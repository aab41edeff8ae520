"""GET /bot/matchinggroups/{botUUID}: every matching (formulation) group of a bot, as JSON."""

import pytest

pytestmark = pytest.mark.django_db


def test_all_matching_groups_of_the_bot(client, rich_bot, personas, reader_token):
    response = client.get(f"/servlet/api/bot/matchinggroups/{rich_bot.uuid}", HTTP_AUTHORIZATION=reader_token)
    assert response.status_code == 200
    body = response.json()
    assert body["botUUID"] == str(rich_bot.uuid)
    groups = {group["name"]: group for group in body["matchingGroups"]}
    assert set(groups) == {"carte", "carte de paiement", "Non"}
    assert groups["carte"]["category"] == "Produits"
    assert groups["carte"]["members"] == ["carte", "carte bleue", "{carte de paiement}"]
    assert str(rich_bot.matching_groups.get(name="Non").uuid) == groups["Non"]["uuid"]


def test_matching_groups_check_who_asks(client, rich_bot, personas):
    path = f"/api/bot/matchinggroups/{rich_bot.uuid}/"
    assert client.get(path).status_code == 401
    assert client.get(path, HTTP_AUTHORIZATION=personas.charlie.token).status_code == 403
    unknown = "/api/bot/matchinggroups/0b9e1f43-2c1c-4c43-9a57-4e0b7c0e0d11"
    assert client.get(unknown, HTTP_AUTHORIZATION=personas.alice.token).status_code == 404
