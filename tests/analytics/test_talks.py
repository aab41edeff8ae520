"""Analytics of real talks: the demo bot answers through the chat servlet (as the chatbox calls it), and the
report classifies what the talk pipeline stored; the same talks in qualification mode count for nothing."""

import json
import re

import pytest
from django.test import Client

from bots.analytics.periods import PeriodForm
from bots.analytics.report import build_report
from bots.models import Bot
from tests.conftest import Chatbox

REWORD_LINK = re.compile(r"reword\('((?:[^'\\]|\\.)*)',\{'type':'reword_auto'\}\)")


@pytest.fixture
def lexical(settings):
    # The lexical matcher answers these inputs as the sentence encoder does, without building its vectors.
    settings.MATCHING_EMBEDDINGS = False


def recent(bot):
    form = PeriodForm({"bot": bot.pk, "period": "Last7Days"}, bots=Bot.objects.all())
    assert form.is_valid(), form.errors
    return build_report(bot, form.window())


def converse(chatbox: Chatbox, **fields) -> None:
    """A direct answer, a misunderstood input, rewordings offered and one of them clicked."""
    assert chatbox.talk("Quels sont vos horaires d'ouverture ?", **fields)["typeResponse"] == "DMUnderstoodQuestion"
    assert chatbox.talk("xyzzy plugh frobozz", **fields)["typeResponse"] == "GBMisunderstoodQuestion"
    offer = chatbox.talk("carte", **fields)
    assert offer["typeResponse"] in ("RWOneReword", "RWSeveralRewords")
    question = REWORD_LINK.search(offer["text"]).group(1)
    clicked = chatbox.talk(question, extra=json.dumps({"type": "reword_auto"}), **fields)
    assert clicked["typeResponse"] == "DMRewordClickedAuto"


def test_the_report_reads_what_real_talks_stored(client, demo_bot, lexical):
    converse(Chatbox(client, str(demo_bot.uuid)))
    report = recent(demo_bot)
    assert (report.total_dialogs, report.total_interactions) == (1, 4)
    # Typed questions: 1 understood, 1 reworded, 1 misunderstood; the click is not a typed question.
    assert (report.understood.numerator, report.reworded.numerator, report.misunderstood.numerator) == (1, 1, 1)
    assert report.questions == 3
    assert (report.rewording_clicks.numerator, report.rewording_clicks.denominator) == (1, 1)
    # The items answered: opening hours (typed) and the clicked rewording's.
    assert sorted(item.uses for item in report.top_items) == [1, 1]


def test_qualification_mode_talks_count_for_nothing(demo_bot, lexical):
    converse(Chatbox(Client(), str(demo_bot.uuid)), qualificationMode="true")
    report = recent(demo_bot)
    assert (report.total_dialogs, report.total_interactions, report.questions) == (0, 0, 0)
    assert report.top_items == [] and report.rewording_clicks.denominator == 0
    # A visitor's dialog beside it counts alone.
    converse(Chatbox(Client(), str(demo_bot.uuid)))
    report = recent(demo_bot)
    assert (report.total_dialogs, report.total_interactions, report.questions) == (1, 4, 3)
