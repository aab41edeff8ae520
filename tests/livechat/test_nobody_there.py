"""Nobody there (issue 24 item 4): outside the opening hours (a competency's own, else the team's) a visitor
who asks for a human is not queued; the bot's answer says so with the hours and when it opens next, and
offers a callback: a link to the callback page (what CV5 shows, it renders links in answers) and a `callback`
field for our chatbox. The callback page takes the visitor's number, checked and limited as the Callback
servlet's, and links it to the dialog. Every request nobody took is counted, with why, in the analytics."""

import re
from datetime import time
from html import unescape
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bots.models import Bot
from livechat.models import Callback, LivechatRequest, OpeningHours, OpeningSlot, Operator
from reporting.analytics.periods import PeriodForm
from reporting.analytics.report import build_report

R = LivechatRequest.Status
PARIS = ZoneInfo("Europe/Paris")
CALLBACK_LINK = re.compile(r'<a href="([^"]+)"[^>]*class="dydu-callback-link">([^<]+)</a>')


def today_in_paris() -> int:
    return timezone.now().astimezone(PARIS).weekday()


def hours(account, *, competency=None, weekday: int, opens=time(9), closes=time(18)) -> OpeningHours:
    schedule = OpeningHours.objects.create(account=account, competency=competency, time_zone="Europe/Paris")
    OpeningSlot.objects.create(hours=schedule, weekday=weekday, opens=opens, closes=closes)
    return schedule


def closed_today(account, competency=None) -> OpeningHours:
    """Hours that open on another day than today only: closed now, whatever the time."""
    return hours(account, competency=competency, weekday=(today_in_paris() + 3) % 7)


def test_outside_the_team_hours_the_visitor_gets_the_hours_and_a_callback_offer(team, visitor):
    closed_today(team.account)
    values = visitor.ask_for_human()
    # Operators are online and free, but it is closed: nobody is handed the dialog.
    assert values["typeResponse"] != "DMLiveChatConnectionSucceed"
    assert "specialAction" not in values
    text = values["text"]
    assert "Aucun conseiller n'est disponible" in text
    assert "Nos conseillers vous répondent le " in text and "de 9 h à 18 h" in text.replace("\u202f", " ")
    assert "Prochaine ouverture :" in text
    link = CALLBACK_LINK.search(text)
    assert link is not None, text
    url, label = unescape(link.group(1)), unescape(link.group(2))
    assert label == "Être rappelé par un conseiller"
    assert values["callback"] == {"label": label, "url": url}
    assert urlsplit(url).path == f"/livechat/callback/{visitor.bot}/"
    missed = visitor.live_request()
    assert (missed.status, missed.end_reason, missed.operator) == (R.ENDED, "outside_hours", None)
    assert missed.dialog.livechat == ""
    # The bot keeps answering.
    assert visitor.talk("Quels sont vos horaires d'ouverture ?")["typeResponse"] == "DMUnderstoodQuestion"


def test_a_competency_open_now_is_served_when_the_team_is_closed(team, new_visitor):
    closed_today(team.account)
    hours(team.account, competency=team.cards, weekday=today_in_paris(), opens=time(0), closes=time(23, 59, 59))
    cards = new_visitor().ask_for_human(competency="Cartes")
    assert cards["typeResponse"] == "DMLiveChatConnectionSucceed"
    assert cards["operatorName"] == "Léa"  # the only operator with Cartes
    # Another competency without hours of its own follows the team's: closed.
    other = new_visitor()
    other.ask_for_human(competency="Crédits")
    assert other.live_request().end_reason == "outside_hours"


def test_open_hours_let_the_handover_happen(team, visitor):
    hours(team.account, weekday=today_in_paris(), opens=time(0), closes=time(23, 59, 59))
    assert visitor.ask_for_human()["typeResponse"] == "DMLiveChatConnectionSucceed"


def test_the_callback_offer_can_be_turned_off(team, visitor, demo_bot):
    from livechat.queue import settings_for

    settings = settings_for(demo_bot)
    settings.offer_callback = False
    settings.save()
    closed_today(team.account)
    values = visitor.ask_for_human()
    assert "callback" not in values
    assert "dydu-callback-link" not in values["text"]


def callback_path(visitor) -> str:
    values = visitor.ask_for_human()
    url = urlsplit(unescape(CALLBACK_LINK.search(values["text"]).group(1)))
    return f"{url.path}?{url.query}"


def test_the_callback_page_takes_a_number_and_links_it_to_the_dialog(team, visitor):
    closed_today(team.account)
    path = callback_path(visitor)
    page = Client()
    shown = page.get(path)
    assert shown.status_code == 200
    assert 'name="phone"' in shown.content.decode()
    assert 'lang="fr"' in shown.content.decode()

    refused = page.post(path, {"phone": "pas un numéro"})
    assert refused.status_code == 400
    assert "6 à 15 chiffres" in refused.content.decode() or "6 to 15 digits" in refused.content.decode()
    assert not Callback.objects.exists()  # refused: nothing stored

    sent = page.post(path, {"phone": "+33 6 12 34 56 78", "name": "Camille", "reason": "Ma carte"})
    assert sent.status_code == 200
    callback = Callback.objects.get()
    assert (callback.phone, callback.name, callback.reason, callback.language) == (
        "+33 6 12 34 56 78",  # as the visitor wrote it (checked: 6 to 15 digits)
        "Camille",
        "Ma carte",
        "fr",
    )
    assert callback.dialog.uuid == visitor.live_request().dialog.uuid
    assert callback.status == Callback.Status.OPEN


def test_a_forged_link_stores_the_callback_without_a_dialog(team, visitor):
    closed_today(team.account)
    path = callback_path(visitor)
    forged = re.sub(r"d=[^&]+", "d=1%3Aforged%3Asignature", path)
    assert Client().post(forged, {"phone": "0612345678"}).status_code == 200
    assert Callback.objects.get().dialog is None


def test_the_callback_page_is_limited_per_address(team, visitor):
    closed_today(team.account)
    path = callback_path(visitor)
    page = Client(REMOTE_ADDR="203.0.113.77")  # an address of its own: the limit's counts outlive a test
    statuses = [page.post(path, {"phone": f"061234567{n}"}).status_code for n in range(7)]
    assert statuses[:5] == [200] * 5
    assert statuses[5:] == [429, 429]
    assert Callback.objects.count() == 5


def test_an_unknown_bot_has_no_callback_page(db):
    assert Client().get("/livechat/callback/00000000-0000-4000-8000-00000000dead/").status_code == 404


def test_analytics_count_missed_requests_with_why(team, new_visitor, demo_bot):
    new_visitor().ask_for_human()  # taken by an operator
    Operator.objects.filter(pk__in=[team.lea.pk, team.marc.pk]).update(status="offline")
    new_visitor().ask_for_human()  # nobody available
    closed_today(team.account)
    new_visitor().ask_for_human()  # outside opening hours
    form = PeriodForm({"bot": demo_bot.pk, "period": "Today"}, bots=Bot.objects.all())
    assert form.is_valid(), form.errors
    report = build_report(demo_bot, form.window())
    assert (report.livechat_taken.numerator, report.livechat_taken.denominator) == (1, 3)
    missed = {str(reason): (rate.numerator, rate.denominator) for reason, rate in report.livechat_missed}
    assert missed == {"nobody was available": (1, 3), "outside opening hours": (1, 3)}


def test_the_analytics_page_lists_why_requests_were_missed(team, new_visitor, demo_bot, admin_client):
    closed_today(team.account)
    new_visitor().ask_for_human()
    page = admin_client.get(reverse("admin:bots_analytics"), {"bot": demo_bot.pk, "period": "Today"})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="livechat-missed"' in html
    reasons = re.findall(r'data-role="missed-reason"><span>([^<]+)</span>', html)
    assert reasons == ["Outside opening hours"]
