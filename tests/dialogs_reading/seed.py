"""Dialogs of every kind for the dialogs page's tests, written as the talk pipeline and live chat store
them: only direct answers, a rewording clicked then answered, one ending misunderstood, one handed to an
operator (with a file), one in qualification mode."""

from datetime import datetime, timedelta

from django.utils import timezone

from dialogs.models import Dialog, Interaction
from knowledge.models import KnowledgeItem

START = timezone.make_aware(datetime(2026, 3, 2, 9, 0))


def say(dialog, minute, text, type_response, answer="", **fields):
    return Interaction.objects.create(
        dialog=dialog,
        bot_id=dialog.bot_id,
        counted=not dialog.qualification_mode,
        created_at=dialog.first_activity + timedelta(minutes=minute),
        user_input=text,
        answer=answer,
        type_response=type_response,
        language=dialog.language,
        space=dialog.space,
        **fields,
    )


def dialog(bot, day=0, **fields):
    started = START + timedelta(days=day)
    fields.setdefault("language", "fr")
    return Dialog.objects.create(
        bot=bot, first_activity=started, last_activity=started + timedelta(minutes=10), **fields
    )


def seed(bot) -> dict:
    hours = KnowledgeItem.objects.create(bot=bot, label="Opening hours", status="published")
    lost = KnowledgeItem.objects.create(bot=bot, label="Lost card", status="published")
    fees = KnowledgeItem.objects.create(bot=bot, label="Account fees", status="published")

    direct = dialog(bot, 0, client_id="visitor-direct-7f3a", space="Defaut", variables={"customer": "gold"})
    say(direct, 0, "#welcome#", "DMUnderstoodQuestion", "<p>Bonjour !</p>")
    say(
        direct,
        1,
        "Quels sont vos horaires ?",
        "DMUnderstoodQuestion",
        '<p>Nous sommes ouverts <b>de 9 h à 18 h</b>.</p><script>alert("x")</script><img src=x onerror="alert(1)">',
        knowledge_item=hours,
        ask_feedback=True,
        feedback="negative",
        feedback_choice_key=1,
        feedback_comment="Pas le samedi ?",
    )

    recovered = dialog(bot, 1, client_id="visitor-recovered-91", language="en", space="Pro")
    say(
        recovered,
        0,
        "card",
        "RWSeveralRewords",
        "<p>Did you mean:</p><ul><li>Lost card</li><li>Account fees</li></ul>",
        reworded_items=[lost.pk, fees.pk],
    )
    say(
        recovered,
        1,
        "Lost card",
        "DMRewordClickedAuto",
        "<p>Call 0800 now.</p>",
        knowledge_item=lost,
        origin="reword_auto",
    )
    say(
        recovered,
        2,
        "thanks",
        "DMUnderstoodQuestion",
        "<p>You are welcome.</p>",
        knowledge_item=hours,
        feedback="positive",
    )

    failed = dialog(bot, 2, client_id="visitor-failed-22")
    say(failed, 0, "Quels sont vos horaires ?", "DMUnderstoodQuestion", "<p>9 h - 18 h</p>", knowledge_item=hours)
    say(failed, 1, "xyzzy plugh", "GBMisunderstoodQuestion", "<p>Je n'ai pas compris.</p>")

    livechat = dialog(bot, 3, client_id="visitor-livechat-5")
    say(livechat, 0, "Je veux parler à quelqu'un", "DMLiveChatConnectionSucceed", "<p>Un conseiller arrive.</p>")
    say(
        livechat,
        1,
        "",
        "OPRegularOperatorAnswer",
        "<p>Bonjour, je suis Anne.</p>",
        human=True,
        payload={"fromDetail": "Anne"},
    )
    say(
        livechat,
        2,
        "",
        "LCVisitorMessage",
        "",
        payload={"upload": {"id": 1, "name": "facture.pdf", "size": 2048, "url": ""}},
    )
    say(livechat, 3, "", "OPLiveChatEndByOperator", "<p>Anne a terminé la conversation.</p>")

    test = dialog(bot, 4, client_id="tester", qualification_mode=True)
    say(test, 0, "Quels sont vos horaires ?", "DMUnderstoodQuestion", "<p>9 h - 18 h</p>", knowledge_item=hours)
    return {
        "direct": direct,
        "recovered": recovered,
        "failed": failed,
        "livechat": livechat,
        "test": test,
        "items": {"hours": hours, "lost": lost, "fees": fees},
    }
