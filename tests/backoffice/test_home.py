"""The back office's home and sidebar per role, through Django's test client (reporting/dashboard.py,
accounts/navigation.py): each role's home shows its cards with the real figures; the sidebar lists every page
the role may open and each of its links opens (200) as that role; nothing is left to "All applications";
the trail over a page names its sidebar group; the API access page sits under Preferences › API and links the
token page and the API console; the home costs a fixed number of queries."""

import re
from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.models import Account, Role
from bots.models import Bot
from dialogs.models import Dialog, Interaction
from knowledge.vectors.models import VectorJob
from livechat.models import Callback, LivechatRequest, Operator
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db
HOME = "/admin/"

# The cards each role's home shows (data-testid), and the sidebar entries each role has.
CARDS = {
    Role.ADMINISTRATOR: {"card-today", "card-review", "card-live-chat", "card-vectors"},
    Role.EDITOR: {"card-knowledge", "card-review", "card-today", "card-vectors"},
    Role.OPERATOR: {"card-live-chat", "card-dialogs"},
    Role.READER: {"card-today", "card-dialogs", "card-review"},
}
ALL_CARDS = set().union(*CARDS.values())
COMMON = {
    "/admin/",
    "/admin/knowledge/knowledgeitem/",
    "/admin/knowledge/tag/",
    "/admin/knowledge/matchinggroup/",
    "/admin/knowledge/globalsentence/",
    "/admin/knowledge/galleryimage/",
    "/admin/dialogs/survey/",
    "/admin/knowledge/exchange/",
    "/admin/dialogs/dialog/",
    "/admin/knowledge/misunderstoodinput/",
    "/admin/knowledge/ignoredgroup/",
    "/admin/bots/analytics/",
    "/admin/livechat/livechatrequest/",
    "/admin/livechat/operator/",
    "/admin/livechat/livechatsettings/",
    "/admin/livechat/openinghours/",
    "/admin/bots/bot/",
    "/admin/accounts/botapiaccess/",
    "/admin/accounts/apitoken/",
    "/admin/accounts/account/",
    "/admin/accounts/competency/",
}
PREFERENCES = {"/admin/preferences/botpreference/", "/admin/preferences/accountpreference/"}
LOGS = {"/admin/bots/servererror/", "/admin/dialogs/clienterror/"}
SIDEBAR = {
    Role.ADMINISTRATOR: COMMON
    | PREFERENCES
    | LOGS
    | {"/livechat/", "/admin/livechat/callback/", "/admin/preferences/preferencechange/", "/admin/auth/user/"}
    | {"/admin/dialogs/gdprrequest/"},
    Role.EDITOR: COMMON | PREFERENCES | LOGS | {"/admin/preferences/preferencechange/"},
    Role.OPERATOR: COMMON | {"/livechat/", "/admin/livechat/callback/"},
    Role.READER: COMMON | PREFERENCES | {"/admin/preferences/preferencechange/"},
}


@pytest.fixture
def demo(demo_bot):
    return demo_bot


def signed_in(client, role):
    user, _ = make_persona("Demo", role)
    client.force_login(user)
    return user


def sidebar_links(html: str) -> set[str]:
    nav = html[html.index('id="nav-sidebar-apps"') :]
    nav = nav[: nav.index('x-data="{ openUserLinks')]  # the user's menu follows
    return set(re.findall(r'<a href="([^"]+)"', nav))


def cards(html: str) -> set[str]:
    return set(re.findall(r'data-testid="(card-[a-z-]+)"', html))


def trail(html: str) -> str:
    """The page's title trail as read: its parts joined by ' › ' (the icons between them left out)."""
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S).group(1)
    text = re.sub(r"<span[^>]*material-symbols[^>]*>\s*chevron_right\s*</span>", " › ", h1)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"\s+", " ", text).replace(" › ", "›").replace("›", " › ").strip()


@pytest.mark.parametrize("role", list(CARDS))
def test_each_role_has_its_home_and_every_sidebar_link_opens(client, demo, role):
    signed_in(client, role)
    page = client.get(HOME)
    assert page.status_code == 200
    html = page.content.decode()
    assert cards(html) == CARDS[role]
    assert "Authentication and Authorization" not in html and "All applications" not in html
    links = sidebar_links(html)
    assert links == SIDEBAR[role], (links - SIDEBAR[role], SIDEBAR[role] - links)
    for link in sorted(links):
        assert client.get(link, follow=True).status_code == 200, link
    # The cards link only pages of the sidebar, and the pages refused to the role are in neither.
    card_links = set(re.findall(r'<div class="links">(.*?)</div>', html, re.S))
    for block in card_links:
        assert set(re.findall(r'href="([^"]+)"', block)) <= links


@pytest.mark.parametrize(
    ("role", "refused"),
    [
        (Role.EDITOR, ["/admin/dialogs/gdprrequest/", "/admin/auth/user/", "/livechat/"]),
        (Role.READER, ["/admin/dialogs/gdprrequest/", "/admin/bots/servererror/", "/livechat/"]),
        (Role.OPERATOR, ["/admin/preferences/botpreference/", "/admin/bots/servererror/", "/admin/auth/user/"]),
    ],
)
def test_pages_a_role_may_not_open_are_not_in_its_sidebar(client, demo, role, refused):
    signed_in(client, role)
    links = sidebar_links(client.get(HOME).content.decode())
    for link in refused:
        assert link not in links
        assert client.get(link).status_code == 403, link


def test_every_registered_list_is_in_the_sidebar(client, demo):
    """Nothing is reachable only through "All applications" (which is gone): a superuser's sidebar has every
    registered model's list, and each opens."""
    client.force_login(get_user_model().objects.create_superuser("root-home", "root@example.org", "x"))
    links = sidebar_links(client.get(HOME).content.decode())
    for model in admin.site._registry:
        link = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        assert link in links, link
        assert client.get(link).status_code == 200, link


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/admin/dialogs/survey/", "Knowledge › Surveys"),
        ("/admin/knowledge/misunderstoodinput/", "Learning › Misunderstood questions"),
        ("/admin/knowledge/ignoredgroup/", "Learning › Ignored questions"),
        ("/admin/dialogs/dialog/", "Learning › Dialogs"),
        ("/admin/accounts/botapiaccess/", "Preferences › API › API access"),
        ("/admin/livechat/operator/", "Live chat › Operators"),
        ("/admin/auth/user/", "Accounts and access › Users"),
        ("/admin/bots/analytics/", "Analytics › Bot analytics"),
        ("/admin/knowledge/exchange/", "Knowledge › Import / export"),
    ],
)
def test_the_trail_over_a_page_follows_the_sidebar(client, demo, path, expected):
    signed_in(client, Role.ADMINISTRATOR)
    html = client.get(path, follow=True).content.decode()
    assert trail(html).startswith(expected), trail(html)


def test_the_trail_over_a_row_names_the_group_the_list_and_the_row(client, demo):
    signed_in(client, Role.ADMINISTRATOR)
    html = client.get(f"/admin/accounts/botapiaccess/{demo.pk}/change/").content.decode()
    assert trail(html) == f"Preferences › API › API access › API access · {demo.name}"
    bots_list = client.get("/admin/bots/bot/").content.decode()
    assert trail(bots_list) == "Bots › Bots"


def test_each_sidebar_pages_trail_starts_with_its_group(client, demo):
    signed_in(client, Role.ADMINISTRATOR)
    from accounts.navigation import GROUPS

    for group in GROUPS:
        if not group["title"]:
            continue
        heading = " › ".join(str(part) for part in (group.get("trail") or [group["title"]]))
        for item in group["items"]:
            if item["link"].startswith("/admin/"):
                html = client.get(item["link"], follow=True).content.decode()
                assert trail(html).startswith(f"{heading} › {item['title']}"), (item["link"], trail(html))


def test_the_api_access_page_links_the_token_page_and_the_console(client, demo):
    signed_in(client, Role.READER)
    listing = client.get("/admin/accounts/botapiaccess/").content.decode()
    assert 'href="/servlet/authentication.html"' in listing and 'href="/servlet/api/doc/"' in listing
    one = client.get(f"/admin/accounts/botapiaccess/{demo.pk}/change/").content.decode()
    assert 'href="/servlet/authentication.html"' in one and 'href="/servlet/api/doc/"' in one


def _activity(bot, now):
    """Today: two dialogs (one in qualification mode, not counted), four typed questions (two understood,
    one misunderstood, one reworded) and a click; eight days ago, one more misunderstood question."""
    dialog = Dialog.objects.create(bot=bot, language="fr", first_activity=now)
    Dialog.objects.create(bot=bot, language="fr", first_activity=now, qualification_mode=True)
    old = Dialog.objects.create(bot=bot, language="fr", first_activity=now - timedelta(days=8))
    typed = [
        ("DMUnderstoodQuestion", ""),
        ("DMUnderstoodQuestion", ""),
        ("GBMisunderstoodQuestion", ""),
        ("RWOneReword", ""),
        ("DMUnderstoodQuestion", "reword_auto"),  # a click, not a typed question
    ]
    for type_response, origin in typed:
        Interaction.objects.create(
            dialog=dialog, bot=bot, user_input="?", type_response=type_response, origin=origin, language="fr"
        )
    Interaction.objects.create(
        dialog=old,
        bot=bot,
        user_input="?",
        type_response="GBMisunderstoodQuestion",
        language="fr",
        created_at=now - timedelta(days=8),
    )
    return dialog


def test_the_administrators_home_shows_the_figures(client, demo):
    now = timezone.now()
    dialog = _activity(demo, now)
    user = signed_in(client, Role.ADMINISTRATOR)
    Operator.objects.create(user=user, account=demo.account, status=Operator.Status.AVAILABLE)
    LivechatRequest.objects.create(dialog=dialog, bot=demo, account=demo.account)
    Callback.objects.create(bot=demo, phone="0102030405")
    VectorJob.objects.create(bot=demo, state=VectorJob.State.RUNNING, total=272, done=40, scheduled_at=now)
    # Another account's activity counts nowhere.
    other = Bot.objects.create(name="Other", account=Account.objects.create(name="Other account"))
    _activity(other, now)
    html = client.get(HOME).content.decode()

    def figure(testid):
        return re.search(rf'data-testid="{testid}">([^<]*)<', html).group(1).strip()

    assert figure("dialogs-today") == "1"  # not the qualification-mode one, nor the other account's
    assert figure("understood-today") == "50.0 %" and "understood: 2 of 4 questions typed" in html
    assert figure("to-review") == "2"  # the week's misunderstood and reworded, not the one of 8 days ago
    assert (figure("operators-online"), figure("queued"), figure("with-operator"), figure("callbacks")) == (
        "1",
        "1",
        "0",
        "1",
    )
    job = re.search(r'data-testid="vector-job">(.*?)</div>\s*</div>', html, re.S).group(1)
    assert demo.name in job and "computing" in job and "40 / 272" in job and 'aria-valuenow="15"' in job
    assert f'href="/admin/knowledge/exchange/{demo.pk}/"' in job


@pytest.mark.parametrize("role", list(CARDS))
def test_the_home_costs_a_fixed_number_of_queries(client, demo, role, django_assert_max_num_queries):
    """The same count with one dialog or forty: no query per row, per bot or per job."""
    signed_in(client, role)
    now = timezone.now()
    _activity(demo, now)
    client.get(HOME)  # the session and the language settle
    with django_assert_max_num_queries(16) as few:
        assert client.get(HOME).status_code == 200
    for n in range(20):
        more = Bot.objects.create(name=f"Bot {n}", account=demo.account)
        _activity(more, now)
        VectorJob.objects.create(bot=more, total=10, scheduled_at=now)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert client.get(HOME).status_code == 200


def test_an_account_without_bots_gets_a_home_that_says_so(client, db):
    user, _ = make_persona(Account.objects.create(name="Empty"), Role.ADMINISTRATOR)
    client.force_login(user)
    html = client.get(HOME).content.decode()
    assert 'data-testid="home-no-bot"' in html
    assert cards(html) == {"card-live-chat"}


def sidebar_titles(html: str) -> list[str]:
    nav = html[html.index('id="nav-sidebar-apps"') : html.index('x-data="{ openUserLinks')]
    entries = re.findall(r"<span>([^<]+)</span>", nav)
    groups = re.findall(r"<h2[^>]*>\s*([^<]+?)\s*<", nav)
    return [title.strip() for title in groups + entries]


def test_the_sidebar_speaks_the_users_language(client, demo):
    """Every group and entry a superuser sees is translated: in French, none reads as in English but the
    words both languages share."""
    client.force_login(get_user_model().objects.create_superuser("root-fr", "root-fr@example.org", "x"))
    english = sidebar_titles(client.get(HOME).content.decode())
    client.cookies["django_language"] = "fr"
    french = sidebar_titles(client.get(HOME).content.decode())
    assert len(english) == len(french) > 30
    shared = {"Bots", "API", "Live chat", "Import / export", "Tags"}
    untranslated = [title for title, translated in zip(english, french, strict=True) if title == translated]
    assert set(untranslated) <= shared, untranslated
