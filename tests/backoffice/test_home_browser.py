"""Each role's home in chromium, in English and in French (1366 px wide): the role's cards with the day's
figures, its sidebar groups (no "All applications"), and one page reached from the sidebar whose title trail
names the sidebar's group; the administrator's API access page sits under Preferences › API and links the
token page and the API console. Screenshots go to test-results/home/."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import Account, Role
from dialogs.models import Dialog, Interaction
from knowledge.vectors.models import VectorJob
from livechat.models import LivechatRequest
from tests.accounts.personas import PASSWORD, make_persona
from tests.browser import back_office_context, screenshots, sign_in
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (chromium, the live server's demo bot)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
shot = screenshots("home", full_page=True)

TEXTS = {
    "en": {
        "cards": {
            "card-today": "Today",
            "card-review": "To review",
            "card-live-chat": "Live chat now",
            "card-vectors": "Imports and vectors",
            "card-knowledge": "Knowledge",
            "card-dialogs": "Dialogs and analytics",
        },
        "groups": {
            "Knowledge",
            "Learning",
            "Analytics",
            "Live chat",
            "Bots",
            "Preferences",
            "API",
            "Accounts and access",
        },
        "admin_groups": {"Data protection"},
        "all_applications": "All applications",
        "understood": "understood: 2 of 4 questions typed",
        "computing": "computing",
        "visit": {
            Role.ADMINISTRATOR: ("API access", ["Preferences", "API", "API access"]),
            Role.EDITOR: ("Misunderstood questions", ["Learning", "Misunderstood questions"]),
            Role.READER: ("Surveys", ["Knowledge", "Surveys"]),
            Role.OPERATOR: ("Dialogs", ["Learning", "Dialogs"]),
        },
        "token": "Get a token (valid 24 hours)",
    },
    "fr": {
        "cards": {
            "card-today": "Aujourd’hui",
            "card-review": "À traiter",
            "card-live-chat": "Live chat en ce moment",
            "card-vectors": "Imports et vecteurs",
            "card-knowledge": "Connaissances",
            "card-dialogs": "Dialogues et statistiques",
        },
        "groups": {
            "Connaissances",
            "Apprentissage",
            "Statistiques",
            "Live chat",
            "Bots",
            "Préférences",
            "API",
            "Comptes et accès",
        },
        "admin_groups": {"Protection des données"},
        "all_applications": "Toutes les applications",
        "understood": "compris : 2 des 4 questions saisies",
        "computing": "en calcul",
        "visit": {
            Role.ADMINISTRATOR: ("Accès API", ["Préférences", "API", "Accès API"]),
            Role.EDITOR: ("Questions incomprises", ["Apprentissage", "Questions incomprises"]),
            Role.READER: ("Enquêtes", ["Connaissances", "Enquêtes"]),
            Role.OPERATOR: ("Dialogues", ["Apprentissage", "Dialogues"]),
        },
        "token": "Obtenir un jeton (valable 24 heures)",
    },
}
CARDS = {
    Role.ADMINISTRATOR: ["card-today", "card-review", "card-live-chat", "card-vectors"],
    Role.EDITOR: ["card-knowledge", "card-review", "card-today", "card-vectors"],
    Role.OPERATOR: ["card-live-chat", "card-dialogs"],
    Role.READER: ["card-today", "card-dialogs", "card-review"],
}
# The groups a role has none of: they are not shown.
NO_GROUPS = {
    Role.ADMINISTRATOR: set(),
    Role.EDITOR: {"Data protection", "Protection des données"},
    Role.OPERATOR: {"Preferences", "Préférences", "Data protection", "Protection des données"},
    Role.READER: {"Data protection", "Protection des données"},
}


def activity(bot):
    """Today's dialog with four typed questions (two understood), a visitor in the queue, an import's vectors
    being computed."""
    now = timezone.now()
    dialog = Dialog.objects.create(bot=bot, language="fr", first_activity=now)
    typed = [
        ("Bonjour", "DMUnderstoodQuestion"),
        ("Quels sont vos horaires ?", "DMUnderstoodQuestion"),
        ("Je voudrais adopter un dragon violet", "GBMisunderstoodQuestion"),
        ("carte bloquée à l'étranger", "RWOneReword"),
    ]
    for user_input, type_response in typed:
        Interaction.objects.create(
            dialog=dialog, bot=bot, user_input=user_input, type_response=type_response, language="fr"
        )
    LivechatRequest.objects.create(dialog=dialog, bot=bot, account=bot.account)
    VectorJob.objects.update_or_create(
        bot=bot,
        defaults={"state": "running", "total": 272, "done": 40, "scheduled_at": now - timedelta(minutes=3)},
    )


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("role", [Role.ADMINISTRATOR, Role.EDITOR, Role.OPERATOR, Role.READER])
def test_each_role_has_its_home(browser, live_server, demo_bot_live, role, language):  # noqa: F811
    activity(demo_bot_live)
    text = TEXTS[language]
    context = back_office_context(browser, height=860)
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    try:
        user, _ = make_persona(Account.objects.get(name="Demo"), role, login=f"{role}-home")
        sign_in(page, live_server.url, user.username, PASSWORD)
        if role == Role.OPERATOR:
            expect(page).to_have_url(f"{live_server.url}/livechat/")  # operators land in the console
            page.goto(live_server.url + "/admin/")
        expect(page.get_by_test_id("home")).to_be_visible()
        expect(page.locator("html")).to_have_attribute("lang", language)

        # The role's cards, in order, with their titles in the language.
        cards = page.locator("[data-testid^=card-]")
        expect(cards).to_have_count(len(CARDS[role]))
        for index, name in enumerate(CARDS[role]):
            assert cards.nth(index).get_attribute("data-testid") == name
            expect(page.get_by_test_id("home")).to_contain_text(text["cards"][name])
        if "card-today" in CARDS[role]:
            expect(page.get_by_test_id("dialogs-today")).to_have_text("1")
            expect(page.get_by_test_id("understood-today")).to_contain_text("50")
            expect(page.get_by_test_id("card-today")).to_contain_text(text["understood"])
        if "card-live-chat" in CARDS[role]:
            expect(page.get_by_test_id("queued")).to_have_text("1")
        if "card-vectors" in CARDS[role]:
            expect(page.get_by_test_id("vector-job")).to_contain_text(f"{text['computing']} · 40 / 272")

        # The sidebar: its groups in the language, none the role has nothing in, no "All applications".
        sidebar = page.locator("#nav-sidebar-apps")
        headings = {h.inner_text().strip() for h in sidebar.locator("h2").all() if h.is_visible()}
        expected = text["groups"] | (text["admin_groups"] if role == Role.ADMINISTRATOR else set())
        assert headings == expected - NO_GROUPS[role], headings
        expect(page.get_by_text(text["all_applications"])).to_have_count(0)
        shot(page, f"{role}-{language}-1-home")

        # A page from the sidebar: the trail over it names the sidebar's group.
        entry, trail = text["visit"][role]
        sidebar.locator(f"a:has(span:text-is('{entry}'))").click()  # the entry's text follows its icon's name
        title = page.locator("h1").first
        for part in trail:
            expect(title).to_contain_text(part)
        parts = [p.strip() for p in title.locator("a, span:not(.material-symbols-outlined)").all_inner_texts()]
        assert [p for p in parts if p][: len(trail)] == trail, parts
        if role == Role.ADMINISTRATOR:
            token = page.get_by_role("link", name=text["token"])
            expect(token).to_have_attribute("href", "/servlet/authentication.html")
            expect(page.get_by_test_id("api-access-links").locator("a[href='/servlet/api/doc/']")).to_be_visible()
        shot(page, f"{role}-{language}-2-{entry.lower().replace(' ', '-')}")
    finally:
        context.close()
