"""The demo chat page as served: the snippet to copy, the bot it shows, and what it says when there is none."""

import pytest

from bots.models import Bot
from knowledge.demo.seed import BOT_UUID

pytestmark = pytest.mark.django_db


def page(client, query: str = "") -> str:
    response = client.get(f"/demo/{query}", HTTP_HOST="127.0.0.1:8000")
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_embeds_the_demo_bot_with_one_script_tag_and_shows_the_snippet(client, demo_bot):
    html = page(client)
    script = (
        f'<script src="http://127.0.0.1:8000/static/chatbox/chatbox.js" data-bot="{BOT_UUID}" '
        'data-server="http://127.0.0.1:8000" data-language="fr"'
    )
    assert script in html
    assert html.count("chatbox.js") == 2  # the embed itself and the snippet to copy
    assert f'data-bot="{BOT_UUID}"\n        data-server="http://127.0.0.1:8000"' in html.replace("&quot;", '"')
    assert f'<code class="uuid" id="bot-uuid">{BOT_UUID}</code>' in html
    assert 'href="/admin/"' in html and 'href="/servlet/api/doc/"' in html


def test_the_space_comes_from_the_query_in_any_case(client, demo_bot):
    assert 'data-space="Pro"' in page(client, "?space=pro")
    assert 'data-space="Defaut"' in page(client, "?space=nowhere")


def test_an_unknown_bot_is_said_so_and_the_demo_bot_is_shown(client, demo_bot):
    html = page(client, "?bot=00000000-0000-4000-8000-00000000dead")
    assert "No bot has the UUID <code>00000000-0000-4000-8000-00000000dead</code>" in html
    assert f'data-bot="{BOT_UUID}"' in html
    assert "No bot has the UUID <code>&lt;b&gt;</code>" in page(client, "?bot=<b>")


def test_without_any_bot_the_page_explains_how_to_create_one(client, db):
    assert not Bot.objects.exists()
    html = page(client)
    assert "No bot exists yet" in html
    assert "seed_demo" in html
    assert "chatbox.js" not in html
