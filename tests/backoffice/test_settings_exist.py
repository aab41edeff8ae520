"""Settings that exist (issue 25 item 5), through the back office's real views: every bot has its live-chat
settings from its creation (back office, code, demo seed, the migration for older bots) and the list shows
their values, never a second row; a preference whose value is a UUID shows the object it names; an empty list
says what it is for and how it fills; markup in a list column reads as plain text."""

import importlib

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.test import RequestFactory

from accounts.models import Account, Role
from bots import empty_states
from bots.models import Bot
from dialogs.models import GdprRequest
from knowledge.models import GlobalSentence, MatchingGroup
from livechat.models import LivechatSettings
from preferences import services
from preferences.models import BotPreference
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db
NO_GROUP_KEY = "bot.no.group.uuid"


@pytest.fixture
def staff(client, demo_bot):
    user = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw-for-tests-only")
    client.force_login(user)
    return client


@pytest.fixture
def administrator(client, demo_bot):
    user, _ = make_persona(demo_bot.account, Role.ADMINISTRATOR)
    client.force_login(user)
    return client


def french(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    return client


def add_form_data(response) -> dict:
    """What the add page's form and inline formsets would send untouched (initial values, empty inlines)."""
    form = response.context["adminform"].form
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value not in (None, False, ""):
            data[name] = value
    for inline in response.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = management[name].value()
    return data


# 1. Live-chat settings for every bot


def test_a_bot_made_in_the_back_office_has_its_live_chat_settings(staff, demo_bot):
    page = staff.get("/admin/bots/bot/add/")
    data = add_form_data(page) | {"name": "Bot from the form", "account": demo_bot.account_id}
    response = staff.post("/admin/bots/bot/add/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    made = Bot.objects.get(name="Bot from the form")
    rules = LivechatSettings.objects.get(bot=made)
    assert (rules.queue_timeout_seconds, rules.visitor_timeout_seconds, rules.visitor_gone_seconds) == (900, 300, 90)


def test_bots_made_in_code_and_by_the_demo_seed_have_theirs(demo_bot):
    assert LivechatSettings.objects.filter(bot=demo_bot).count() == 1
    other = Bot.objects.create(name="Made in code", account=demo_bot.account)
    assert LivechatSettings.objects.filter(bot=other).count() == 1
    other.name = "Renamed"
    other.save()  # a later save makes no second row
    assert LivechatSettings.objects.filter(bot=other).count() == 1


def test_the_migration_gives_older_bots_their_row_and_leaves_the_others(demo_bot):
    older = Bot.objects.create(name="Older", account=demo_bot.account)
    LivechatSettings.objects.filter(bot=older).delete()  # as before this change
    LivechatSettings.objects.filter(bot=demo_bot).update(queue_timeout_seconds=1200)
    migration = importlib.import_module("livechat.migrations.0006_settings_for_every_bot")
    migration.create_rows(apps, None)
    assert LivechatSettings.objects.get(bot=older).queue_timeout_seconds == 900
    assert LivechatSettings.objects.get(bot=demo_bot).queue_timeout_seconds == 1200  # kept
    assert LivechatSettings.objects.count() == Bot.objects.count()


def test_the_list_shows_each_bots_values_and_no_second_row_can_be_made(administrator, demo_bot):
    LivechatSettings.objects.filter(bot=demo_bot).update(operator_timeout_seconds=240)
    page = administrator.get("/admin/livechat/livechatsettings/")
    rows = page.context["cl"].result_list
    assert [row.bot for row in rows] == [demo_bot]
    body = page.content.decode()
    assert "No results found" not in body
    # The changed value and the defaults in force, one timeout a line.
    for line in ("silent operator: 240 s", "silent visitor: 300 s", "queue: 900 s", "visitor gone: 90 s"):
        assert line in body
    assert administrator.get("/admin/livechat/livechatsettings/add/").status_code == 403
    with pytest.raises(IntegrityError), transaction.atomic():
        LivechatSettings.objects.create(bot=demo_bot)
    assert LivechatSettings.objects.filter(bot=demo_bot).count() == 1


def test_the_form_edits_the_values_and_says_each_default(administrator, demo_bot):
    rules = LivechatSettings.objects.get(bot=demo_bot)
    url = f"/admin/livechat/livechatsettings/{rules.pk}/change/"
    page = administrator.get(url).content.decode()
    assert "Default: 900." in page and "Default: yes." in page
    assert "Par défaut : 900." in french(administrator).get(url).content.decode()
    form = administrator.get(url).context["adminform"].form
    data = {name: form[name].value() for name in form.fields if form[name].value() not in (None, False)}
    response = administrator.post(url, data | {"queue_timeout_seconds": "600"})
    assert response.status_code == 302
    rules.refresh_from_db()
    assert rules.queue_timeout_seconds == 600
    assert (
        administrator.post(f"/admin/livechat/livechatsettings/{rules.pk}/delete/", {"post": "yes"}).status_code == 403
    )


# 2. Preferences named by their UUID's object


def test_a_uuid_preference_shows_its_groups_name_in_the_list_the_form_and_the_history(administrator, demo_bot):
    group = MatchingGroup.objects.get(bot=demo_bot, name="Non")
    preference = BotPreference.objects.get(bot=demo_bot, name=NO_GROUP_KEY)  # the demo seeds it
    services.set_preference(services.Owner(bot=demo_bot), NO_GROUP_KEY, str(group.uuid), user=None, via="api")

    listing = administrator.get("/admin/preferences/botpreference/").content.decode()
    assert str(group.uuid) in listing
    assert "Matching group: Non" in listing
    form = administrator.get(f"/admin/preferences/botpreference/{preference.pk}/change/").content.decode()
    assert "Matching group: Non" in form and str(group.uuid) in form
    assert (
        "Groupe de correspondance : Non"
        in french(administrator).get("/admin/preferences/botpreference/").content.decode()
    )
    preference.refresh_from_db()
    assert preference.value == str(group.uuid)  # stored as it was


def test_a_uuid_of_another_accounts_group_or_a_plain_value_names_nothing(administrator, demo_bot):
    outsider = Bot.objects.create(name="Elsewhere", account=Account.objects.create(name="Other"))
    foreign = MatchingGroup.objects.create(bot=outsider, name="Secret group", members=["x"])
    BotPreference.objects.create(bot=demo_bot, name="custom.uuid", value=str(foreign.uuid))
    BotPreference.objects.create(bot=demo_bot, name="custom.text", value="<i>not a uuid</i>")
    listing = administrator.get("/admin/preferences/botpreference/").content.decode()
    assert str(foreign.uuid) in listing
    assert "Secret group" not in listing
    assert "&lt;i&gt;not a uuid&lt;/i&gt;" in listing  # plain values stay escaped text


# 3. Empty states


def test_an_empty_gdpr_list_says_what_it_is_for_in_both_languages(staff):
    assert not GdprRequest.objects.exists()
    page = staff.get("/admin/dialogs/gdprrequest/").content.decode()
    assert "Visitors&#x27; requests to get or delete their data" in page
    assert "Create a new item" not in page
    assert "Nothing here yet" in page
    page = french(staff).get("/admin/dialogs/gdprrequest/").content.decode()
    assert "Demandes des visiteurs pour obtenir ou supprimer leurs données" in page
    assert "Rien pour l’instant" in page


def test_ignored_groups_and_the_gallery_say_how_they_fill(staff):
    ignored = staff.get("/admin/knowledge/ignoredgroup/").content.decode()
    assert "A group lands here when someone ignores it" in ignored
    assert "Create a new item" not in ignored
    gallery = staff.get("/admin/knowledge/galleryimage/").content.decode()
    assert "Editors upload them here, or they come with a knowledge-base import" in gallery
    assert "/admin/knowledge/galleryimage/add/" in gallery  # images are added by hand too


def test_a_search_that_finds_nothing_says_so_without_offering_to_create(staff):
    page = staff.get("/admin/dialogs/gdprrequest/?q=nobody@example.org").content.decode()
    assert "Nothing matches this search or these filters" in page
    assert "Create a new item" not in page


def test_every_list_where_nothing_is_added_by_hand_has_its_sentence(staff):
    request = RequestFactory().get("/admin/")
    request.user = get_user_model().objects.get(username="boss")
    missing = [
        model._meta.label_lower
        for model, model_admin in admin.site._registry.items()
        if not model_admin.has_add_permission(request) and not empty_states.about(model._meta)
    ]
    assert missing == []


# 4. Markup in list columns


def test_global_sentences_list_their_text_without_markup(administrator, demo_bot):
    GlobalSentence.objects.update_or_create(
        bot=demo_bot,
        language="fr",
        kind=GlobalSentence.Kind.LIVECHAT_OPERATOR,
        defaults={"text": "<b>Clara</b> vous r&eacute;pond<br>tout de suite"},
    )
    page = administrator.get("/admin/knowledge/globalsentence/?q=Clara").content.decode()
    assert "Clara vous répond tout de suite" in page
    assert "&lt;b&gt;" not in page and "<b>Clara" not in page
