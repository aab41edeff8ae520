"""Back office: the API access page of each bot, token revocation, and preferences edited in the back
office checked and recorded like the API's; each member sees their own account only."""

import pytest
from django.urls import reverse

from accounts.models import ApiToken
from preferences.models import BotPreference, PreferenceChange

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(personas):
    for persona in (personas.alice, personas.bob, personas.charlie):
        persona.user.is_staff = True
        persona.user.save()
    return personas


def logged_in(client, persona):
    client.force_login(persona.user)
    return client


def test_the_api_access_page_shows_the_bot_uuid_and_the_links(client, staff, demo_bot):
    page = logged_in(client, staff.bob).get(reverse("admin:accounts_botapiaccess_change", args=[demo_bot.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert str(demo_bot.uuid) in html
    assert 'href="/servlet/api/doc/"' in html
    assert 'href="/servlet/authentication.html"' in html
    # An editor may not change preferences: the page does not suggest it.
    assert "bot.servicename/My%20service" not in html


def test_the_api_access_list_has_the_members_bots_only(client, staff, demo_bot):
    from bots.models import Bot

    theirs = Bot.objects.create(name="Charlie's bot", account=staff.other_account)
    listing = logged_in(client, staff.charlie).get(reverse("admin:accounts_botapiaccess_changelist"))
    assert listing.status_code == 200
    assert str(theirs.uuid) in listing.content.decode()
    assert str(demo_bot.uuid) not in listing.content.decode()
    foreign = client.get(reverse("admin:accounts_botapiaccess_change", args=[demo_bot.pk]))
    assert foreign.status_code == 404


def test_the_admin_index_links_to_api_access(client, staff):
    index = logged_in(client, staff.alice).get(reverse("admin:index"))
    assert reverse("admin:accounts_botapiaccess_changelist") in index.content.decode()


def test_an_administrator_revokes_a_token_in_the_back_office(client, staff):
    token = ApiToken.find(staff.bob.token)
    response = logged_in(client, staff.alice).post(
        reverse("admin:accounts_apitoken_changelist"),
        {"action": "revoke", "_selected_action": [token.pk]},
    )
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.is_revoked()
    refused = client.get("/servlet/api/account", HTTP_AUTHORIZATION=staff.bob.token)
    assert refused.json()["code"] == "TOKEN_REVOKED"


def test_an_outsider_cannot_revoke_another_account_s_tokens(client, staff):
    token = ApiToken.find(staff.bob.token)
    logged_in(client, staff.charlie).post(
        reverse("admin:accounts_apitoken_changelist"),
        {"action": "revoke", "_selected_action": [token.pk]},
    )
    token.refresh_from_db()
    assert not token.is_revoked()


def test_a_preference_set_in_the_back_office_is_checked_and_recorded(client, staff, demo_bot):
    add = reverse("admin:preferences_botpreference_add")
    admin = logged_in(client, staff.alice)
    refused = admin.post(add, {"bot": demo_bot.pk, "name": "livechat.createmonitoreddialogs", "value": "maybe"})
    assert refused.status_code == 200
    assert "not a boolean" in refused.content.decode()
    # (the demo bot comes with its own bot.no.group.uuid)
    assert not BotPreference.objects.filter(name="livechat.createmonitoreddialogs").exists()
    stored = admin.post(add, {"bot": demo_bot.pk, "name": "livechat.createmonitoreddialogs", "value": "YES"})
    assert stored.status_code == 302
    assert BotPreference.objects.get(bot=demo_bot, name="livechat.createmonitoreddialogs").value == "true"
    change = PreferenceChange.objects.get(name="livechat.createmonitoreddialogs")
    assert (change.changed_by, change.via, change.new_value) == (staff.alice.user, "back office", "true")


def test_an_editor_reads_preferences_in_the_back_office_but_cannot_add(client, staff):
    editor = logged_in(client, staff.bob)
    assert editor.get(reverse("admin:preferences_botpreference_changelist")).status_code == 200
    assert editor.get(reverse("admin:preferences_botpreference_add")).status_code == 403
