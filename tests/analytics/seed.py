"""Seeded dialogs for the analytics tests: three days of a bot's life whose every figure is known, with a
qualification-mode dialog (and one switched to qualification mode) that must never count.

Expected over [day 1, day 3] (EXPECTED below): 4 dialogs (2 on day 1, 2 on day 2, none on day 3), of which
1 ended misunderstood, 1 answered after misunderstandings, 1 with direct answers only (and one went to live
chat: not qualified); 9 interactions (6, 3), typed questions 4 understood / 2 reworded / 2 misunderstood of
8, 1 of 2 rewordings clicked, satisfaction 2 of 3, item "Horaires" used 4 times (2 positive), "Carte perdue"
once (1 negative), 2 live-chat requests with 1 taken after 120 s."""

from datetime import date, datetime, time, timedelta

from accounts.models import Account
from bots.models import Bot
from dialogs.models import Dialog, Interaction
from knowledge.models import Formulation, KnowledgeItem
from livechat.models import LivechatRequest

DAY1 = date(2026, 3, 1)
EXPECTED = {
    "dialogs": [2, 2, 0],
    "interactions": [6, 3, 0],
    "understood": (4, 8),
    "reworded": (2, 8),
    "misunderstood": (2, 8),
    "dialogs_direct": (1, 3),
    "dialogs_recovered": (1, 3),
    "dialogs_failed": (1, 3),
    "rewording_clicks": (1, 2),
    "satisfaction": (2, 3),
    "livechat_taken": (1, 2),
    "average_wait_seconds": 120.0,
}


def at(tz, day: int, hour: int, minute: int = 0) -> datetime:
    """A moment of day `day` (1 = DAY1) in the bot's time zone."""
    return datetime.combine(DAY1 + timedelta(days=day - 1), time(hour, minute), tzinfo=tz)


def seed_bot(name: str = "Analytics bot", account: Account | None = None) -> Bot:
    account = account or Account.objects.create(name=f"Account of {name}")
    return Bot.objects.create(name=name, account=account)


def seed(bot: Bot, tz) -> dict:
    """The dialogs, interactions and live-chat requests the EXPECTED figures come from."""
    hours = KnowledgeItem.objects.create(bot=bot, label="Horaires", status="published")
    lost = KnowledgeItem.objects.create(bot=bot, label="", status="published")
    Formulation.objects.create(item=lost, language="fr", text="Carte perdue")
    items = {"hours": hours, "lost": lost}

    def dialog(started, **fields):
        return Dialog.objects.create(
            bot=bot, language="fr", first_activity=started, last_activity=started + timedelta(minutes=10), **fields
        )

    def say(dialog, moment, text, type_response, **fields):
        counted = fields.pop("counted", True) and not dialog.qualification_mode
        return Interaction.objects.create(
            dialog=dialog,
            bot=bot,
            created_at=moment,
            user_input=text,
            type_response=type_response,
            language="fr",
            counted=counted,
            **fields,
        )

    # Day 1, dialog A: understood (positive), rewordings offered then clicked (negative), misunderstood: it
    # ended misunderstood.
    a = dialog(at(tz, 1, 9))
    say(a, at(tz, 1, 9, 0), "horaires ?", "DMUnderstoodQuestion", knowledge_item=hours, feedback="positive")
    say(a, at(tz, 1, 9, 1), "carte", "RWSeveralRewords", reworded_items=[lost.pk, hours.pk])
    say(a, at(tz, 1, 9, 2), "Carte perdue", "DMRewordClickedAuto", origin="reword_auto", knowledge_item=lost,
        feedback="negative")  # fmt: skip
    say(a, at(tz, 1, 9, 3), "blorg", "GBMisunderstoodQuestion")
    # Day 1, dialog B: a rewording offered and not clicked (the visitor typed on), an understood question,
    # then live chat: the operator's message, a notice without input and a followed link never count.
    b = dialog(at(tz, 1, 10))
    say(b, at(tz, 1, 10, 0), "carte ?", "RWOneReword", reworded_items=[lost.pk])
    say(b, at(tz, 1, 10, 1), "vos horaires", "DMUnderstoodQuestion", knowledge_item=hours)
    say(b, at(tz, 1, 10, 2), "", "OPRegularOperatorAnswer", human=True)
    say(b, at(tz, 1, 10, 3), "", "DMLiveChatConnectionSucceed")
    say(b, at(tz, 1, 10, 4), "https://example.org", "DMLinkClicked", origin="redirection", counted=False)
    taken = LivechatRequest.objects.create(
        dialog=b, bot=bot, account=bot.account, status="ended", created_at=at(tz, 1, 10, 2),
        assigned_at=at(tz, 1, 10, 4), ended_at=at(tz, 1, 10, 20), end_reason="operator",
    )  # fmt: skip
    # Day 2, dialog C: too many misunderstood, then understood (positive): answered after misunderstandings;
    # a live-chat request nobody took.
    c = dialog(at(tz, 2, 14))
    say(c, at(tz, 2, 14, 0), "zut", "GBTooManyMisunderstoodQuestions")
    say(c, at(tz, 2, 14, 1), "horaires", "DMUnderstoodQuestion", knowledge_item=hours, feedback="positive")
    LivechatRequest.objects.create(
        dialog=c, bot=bot, account=bot.account, status="ended", created_at=at(tz, 2, 14, 2),
        ended_at=at(tz, 2, 14, 5), end_reason="left_queue",
    )  # fmt: skip
    # Day 2, dialog D: one question, answered at once.
    d = dialog(at(tz, 2, 16, 30))
    say(d, at(tz, 2, 16, 30), "horaires d'ouverture", "DMUnderstoodQuestion", knowledge_item=hours)
    # Qualification mode, never counted: a test-bot dialog, and one switched to it after counted interactions.
    q = dialog(at(tz, 2, 15), qualification_mode=True)
    for minute in range(3):
        say(q, at(tz, 2, 15, minute), "carte perdue", "DMUnderstoodQuestion", knowledge_item=lost, feedback="negative")
    LivechatRequest.objects.create(
        dialog=q, bot=bot, account=bot.account, status="ended", created_at=at(tz, 2, 15, 5),
        assigned_at=at(tz, 2, 15, 50), ended_at=at(tz, 2, 15, 55), end_reason="operator",
    )  # fmt: skip
    switched = dialog(at(tz, 2, 16))
    say(switched, at(tz, 2, 16, 0), "carte perdue", "DMUnderstoodQuestion", knowledge_item=lost)
    Dialog.objects.filter(pk=switched.pk).update(qualification_mode=True)
    # Just outside the range: the evening before and the midnight after (in the bot's time zone).
    outside = dialog(at(tz, 0, 23, 59))
    say(outside, at(tz, 0, 23, 59), "horaires", "DMUnderstoodQuestion", knowledge_item=hours)
    after = dialog(at(tz, 4, 0, 0))
    say(after, at(tz, 4, 0, 0), "horaires", "DMUnderstoodQuestion", knowledge_item=hours)
    return {"items": items, "taken_request": taken}
