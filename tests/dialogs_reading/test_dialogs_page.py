"""The dialogs page: each dialog's qualification, its row (colour, unread in bold), the filters, the
visitor's id for administrators only, and a bounded number of queries whatever the page holds."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dialogs.backoffice import qualification
from dialogs.models import Dialog

from .seed import dialog, say

pytestmark = pytest.mark.django_db
LIST = "/admin/dialogs/dialog/"


def listed(client, query="") -> set[int]:
    response = client.get(LIST + query)
    assert response.status_code == 200, response.content[:300]
    return {row.pk for row in response.context["cl"].result_list}


def test_each_dialog_gets_its_qualification(seeded, bot):
    found = dict(qualification.annotate(Dialog.objects.filter(bot=bot)).values_list("pk", "qualification"))
    assert found == {
        seeded["direct"].pk: qualification.DIRECT,  # the welcome is no question: one answered question
        seeded["recovered"].pk: qualification.RECOVERED,  # a rewording clicked, then answered
        seeded["failed"].pk: qualification.FAILED,  # answered, then ended on a misunderstood question
        seeded["livechat"].pk: qualification.NONE,  # went to an operator
        seeded["test"].pk: qualification.DIRECT,
    }


def test_a_dialog_with_no_question_or_ending_on_an_unclicked_rewording(bot):
    empty = dialog(bot, 5)
    welcome_only = dialog(bot, 6)
    say(welcome_only, 0, "#welcome#", "DMUnderstoodQuestion", "<p>Bonjour</p>")
    unclicked = dialog(bot, 7)
    say(unclicked, 0, "carte", "RWOneReword", "<p>Vouliez-vous dire…</p>", reworded_items=[1])
    found = dict(qualification.annotate(Dialog.objects.filter(bot=bot)).values_list("pk", "qualification"))
    assert found == {empty.pk: "none", welcome_only.pk: "none", unclicked.pk: "failed"}


def test_the_list_shows_colours_counts_and_unread_in_bold(client, seeded, as_role):
    as_role("administrator")
    seeded["failed"].read_at = seeded["failed"].first_activity
    seeded["failed"].save(update_fields=["read_at"])
    page = client.get(LIST).content.decode()
    for name in ("direct", "recovered", "failed", "none"):
        assert f'data-qualification="{name}"' in page
    assert "Only direct answers" in page and "Answered after misunderstandings" in page
    assert "Ended misunderstood" in page
    assert page.count('data-status="unread"') == 4 and page.count('data-status="read"') == 1
    assert page.count('data-unread="1"') > 4  # every cell of the unread rows is bold
    # Feedback of the recovered dialog (one useful) and of the direct one (one not useful).
    assert page.count("thumb_up</span>&nbsp;1<") == 1 and page.count("thumb_down</span>&nbsp;1<") == 1
    assert "(test)" in page  # the qualification-mode dialog is marked
    assert "visitor-recovered-91" in page  # administrators see the visitor's id
    assert "DMUnderstoodQuestion" not in page and "RWSeveralRewords" not in page


def test_every_filter_narrows_the_list(client, seeded, as_role):
    as_role("administrator")
    ids = {name: seeded[name].pk for name in ("direct", "recovered", "failed", "livechat", "test")}
    seeded["recovered"].corrected_at = seeded["recovered"].read_at = seeded["recovered"].first_activity
    seeded["recovered"].save(update_fields=["read_at", "corrected_at"])
    assert listed(client) == set(ids.values())
    assert listed(client, "?qualification=direct") == {ids["direct"], ids["test"]}
    assert listed(client, "?qualification=failed") == {ids["failed"]}
    assert listed(client, "?qualification=recovered") == {ids["recovered"]}
    assert listed(client, "?qualification=none") == {ids["livechat"]}
    assert listed(client, "?feedback=negative") == {ids["direct"]}
    assert listed(client, "?feedback=positive") == {ids["recovered"]}
    assert listed(client, "?feedback=comment") == {ids["direct"]}
    assert listed(client, "?feedback=none") == {ids["failed"], ids["livechat"], ids["test"]}
    assert listed(client, "?reading=unread") == set(ids.values()) - {ids["recovered"]}
    assert listed(client, "?reading=corrected") == {ids["recovered"]}
    assert listed(client, "?space=Pro") == {ids["recovered"]}
    assert listed(client, "?space=-") == {ids["failed"], ids["livechat"], ids["test"]}
    assert listed(client, "?language=en") == {ids["recovered"]}
    assert listed(client, "?livechat=yes") == {ids["livechat"]}
    assert listed(client, "?livechat=no") == set(ids.values()) - {ids["livechat"]}
    assert listed(client, "?test=yes") == {ids["test"]}
    # A range of days (the hour left out counts the whole day), then a range down to the hour.
    assert listed(client, "?first_activity_from_0=2026-03-03&first_activity_to_0=2026-03-04") == {
        ids["recovered"],
        ids["failed"],
    }
    assert listed(
        client, "?first_activity_from_0=2026-03-04&first_activity_from_1=09:30&first_activity_to_0=2026-03-06"
    ) == {ids["livechat"], ids["test"]}
    assert listed(client, "?qualification=direct&language=fr&test=no") == {ids["direct"]}
    # The visitors' words are searched.
    assert listed(client, "?q=xyzzy") == {ids["failed"]}


def test_bad_filter_values_are_a_page_not_an_error(client, seeded, as_role):
    as_role("administrator")
    for query in ("?first_activity_from_0=yesterday&first_activity_from_1=25:99", "?qualification=purple",
                  "?period=forever", "?reading=%00", "?feedback=<script>"):  # fmt: skip
        response = client.get(LIST + query)
        assert response.status_code == 200, query
        assert b'value="<script>"' not in response.content


def test_the_period_filter_counts_in_days(client, bot, as_role):
    from django.utils import timezone

    as_role("administrator")
    now = timezone.now()
    today = Dialog.objects.create(bot=bot, language="fr", first_activity=now, last_activity=now)
    old = Dialog.objects.create(
        bot=bot, language="fr", first_activity=now - timezone.timedelta(days=40), last_activity=now
    )
    assert listed(client, "?period=today") == {today.pk}
    assert listed(client, "?period=30days") == {today.pk}
    assert old.pk in listed(client)


def test_the_visitors_id_is_for_administrators_only(client, seeded, as_role):
    as_role("reader")
    page = client.get(LIST).content.decode()
    assert "Only direct answers" in page
    assert "visitor-" not in page
    assert listed(client, "?q=visitor-failed-22") == set()  # nor can it be searched
    transcript = client.get(f"{LIST}{seeded['failed'].pk}/change/").content.decode()
    assert "xyzzy plugh" in transcript and "visitor-failed-22" not in transcript
    assert 'data-testid="visitor-id"' not in transcript


def test_an_administrator_finds_a_visitor_by_id(client, seeded, as_role):
    as_role("administrator")
    assert listed(client, "?q=visitor-failed-22") == {seeded["failed"].pk}


def test_another_accounts_dialogs_are_not_listed(client, seeded, as_role):
    from accounts.models import Account
    from bots.models import Bot

    other = Bot.objects.create(name="Other bank", account=Account.objects.create(name="Other"))
    foreign = dialog(other, 0)
    as_role("administrator")
    assert foreign.pk not in listed(client)
    assert client.get(f"{LIST}{foreign.pk}/change/").status_code == 404


def test_the_list_takes_the_same_queries_for_5_or_45_dialogs(client, bot, seeded, as_role):
    as_role("reader")
    client.get(LIST)  # sessions, content types and the like are cached after a first page

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(LIST).status_code == 200
        return len(queries)

    few = count()
    for day in range(40):
        extra = dialog(bot, day, client_id=f"more-{day}")
        say(extra, 0, "bonjour", "DMUnderstoodQuestion", "<p>Bonjour</p>", feedback="positive")
        say(extra, 1, "blorg", "GBMisunderstoodQuestion", "<p>?</p>")
    many = count()
    assert few == many
    # Session, user, the time zone of the user's bots, the user's permissions (two), the spaces and the
    # languages offered, the bots for the bot filter, the count (twice: with and without the filters), the
    # membership and account (the user menu), and the page of rows with everything they show.
    assert many == 13, many


def test_real_talks_are_qualified_as_the_visitor_lived_them(client, demo_bot, chatbox):
    """Dialogs made by the talk pipeline itself (the demo bot), not written by hand."""
    from tests.conftest import Chatbox

    chatbox.talk("#welcome#")
    chatbox.talk("Comment faire un virement ?")
    answered = Dialog.objects.get(uuid=chatbox.context_id)
    lost = Chatbox(client, chatbox.bot)
    lost.client_id = "someone-else"
    lost.talk("Comment faire un virement ?")
    assert lost.talk("xyzzy plugh frobozz")["typeResponse"] == "GBMisunderstoodQuestion"
    failed = Dialog.objects.get(uuid=lost.context_id)
    found = dict(qualification.annotate(Dialog.objects.all()).values_list("pk", "qualification"))
    assert found == {answered.pk: qualification.DIRECT, failed.pk: qualification.FAILED}
