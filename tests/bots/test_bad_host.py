"""A Host outside ALLOWED_HOSTS: the servlet's JSON error (400 INVALID_HOST) on servlet paths, readable by a
chatbox on another site, and Django's own 400 page on the back office's; never a 500, nothing stored."""

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator

from config.asgi import application
from dialogs.models import Dialog, Interaction
from tests.conftest import BOT_UUID

pytestmark = pytest.mark.django_db

EVIL = "evil.example"


def assert_invalid_host(response):
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["code"] == "INVALID_HOST"
    assert EVIL not in body["error"] and "ALLOWED_HOSTS" not in body["error"]


@pytest.mark.parametrize(
    "path",
    [
        "/servlet/api/serverstatus",
        "/api/serverstatus",
        f"/servlet/api/bot/languages/{BOT_UUID}",
        "/servlet/api/no/such/call",
    ],
)
def test_a_servlet_get_with_a_foreign_host_is_the_servlet_s_json_400(client, demo_bot, path):
    assert_invalid_host(client.get(path, HTTP_HOST=EVIL))


def test_a_talk_with_a_foreign_host_is_refused_readably_by_the_chatbox_and_stores_nothing(client, demo_bot):
    response = client.post(
        f"/servlet/api/chat/talk/{BOT_UUID}",
        {"userInput": "Bonjour", "language": "fr"},
        HTTP_HOST=EVIL,
        HTTP_ORIGIN="https://shop.example",
    )
    assert_invalid_host(response)
    assert response["Access-Control-Allow-Origin"] == "*"
    assert (Dialog.objects.count(), Interaction.objects.count()) == (0, 0)


@pytest.mark.parametrize("path", ["/admin/login/", "/demo/"])
def test_the_back_office_and_the_pages_keep_django_s_page(client, path):
    response = client.get(path, HTTP_HOST=EVIL)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert b"Bad Request (400)" in response.content


def test_an_allowed_host_is_served_as_before(client, demo_bot):
    assert client.get("/servlet/api/serverstatus", HTTP_HOST="localhost:8000").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_asgi_application_answers_the_same(demo_bot):
    async def ask():
        communicator = HttpCommunicator(
            application, "GET", "/servlet/api/serverstatus", headers=[(b"host", EVIL.encode())]
        )
        return await communicator.get_response()

    response = async_to_sync(ask)()
    assert response["status"] == 400
    assert json.loads(response["body"])["code"] == "INVALID_HOST"
