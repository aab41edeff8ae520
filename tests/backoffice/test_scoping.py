"""Every registered back-office page is scoped to the user's account: an administrator of another account
opens every list, add page and filter of the back office and never meets the demo account's bot, and
every page of one of its rows is refused. New admin pages are audited by this test without a change."""

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import NoReverseMatch, reverse

from accounts.models import Account, Role
from bots.models import Bot
from dialogs.models import GdprRequest
from knowledge.models import GlobalSentence
from livechat.models import Callback
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db

# Django's own pages only superusers reach (no role holds their permissions).
SUPERUSER_ONLY = {"auth.group", "auth.permission", "admin.logentry", "sessions.session", "contenttypes.contenttype"}


@pytest.fixture
def outsider(client, demo_bot, chatbox):
    chatbox.talk("Combien coûte le compte ?")
    GdprRequest.objects.create(bot=demo_bot, client_id="visitor-1", object="Get", mail="visitor@example.org")
    Callback.objects.create(bot=demo_bot, phone="+32 470 00 00 00", name="A visitor of the demo")
    make_persona(demo_bot.account, Role.EDITOR, login="demo-editor")
    theirs = Account.objects.create(name="Another account")
    Bot.objects.create(name="Their own bot", account=theirs)
    user, _ = make_persona(theirs, Role.ADMINISTRATOR, login="outsider")
    client.force_login(user)
    return user


def registered():
    return [
        (model, model_admin)
        for model, model_admin in admin.site._registry.items()
        if model._meta.label_lower not in SUPERUSER_ONLY
    ]


def admin_url(model, view, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def test_no_list_or_add_page_shows_another_account_s_bot(client, outsider, demo_bot):
    opened = 0
    for model, _ in registered():
        for view in ("changelist", "add"):
            try:
                url = admin_url(model, view)
            except NoReverseMatch:
                continue
            response = client.get(url)
            assert response.status_code in (200, 403), (url, response.status_code)
            if response.status_code == 200:
                opened += 1
                page = response.content.decode()
                for secret in (demo_bot.name, str(demo_bot.uuid), "demo-editor", "visitor@example.org"):
                    assert secret not in page, (url, secret)
    assert opened >= 20  # the audit did open the back office's pages


def test_no_row_of_another_account_opens(client, outsider, demo_bot):
    request = RequestFactory().get("/admin/")
    request.user = outsider
    audited = 0
    for model, model_admin in registered():
        theirs = model_admin.get_queryset(request).values("pk")
        foreign = model._default_manager.exclude(pk__in=theirs).first()
        if foreign is None:
            continue
        audited += 1
        for view in ("change", "delete", "history"):
            response = client.get(admin_url(model, view, foreign.pk))
            # Django's admin answers a row the user cannot see by going back to the index (302).
            assert response.status_code in (302, 403, 404), (model, view, response.status_code)
        posted = client.post(admin_url(model, "change", foreign.pk), {})
        assert posted.status_code in (302, 403, 404), (model, posted.status_code)
    assert audited >= 10


def test_a_relation_posted_by_hand_cannot_point_at_another_account_s_bot(client, outsider, demo_bot):
    """The add form's choices are the user's bots: a forged id of the demo bot is refused by the form."""
    before = GlobalSentence.objects.filter(bot=demo_bot).count()
    response = client.post(
        reverse("admin:knowledge_globalsentence_add"),
        {"bot": demo_bot.pk, "kind": "welcome", "language": "fr", "text": "Planted in another account"},
    )
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert GlobalSentence.objects.filter(bot=demo_bot).count() == before


def test_staff_outside_every_account_see_no_row_even_with_permissions(client, demo_bot):
    """A staff user made by hand, with permissions but no membership: the pages open, empty."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    Bot.objects.create(name="A bot of no account")
    loner = get_user_model().objects.create_user("loner", password="pw-for-tests-only", is_staff=True)
    loner.user_permissions.set(Permission.objects.filter(codename__in=["view_bot", "view_botapiaccess", "view_user"]))
    client.force_login(loner)
    for url in ("/admin/bots/bot/", "/admin/accounts/botapiaccess/", "/admin/auth/user/"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.context["cl"].result_count == 0, url
