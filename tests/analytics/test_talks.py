"""Analytics of real talks: the demo bot answers through the chat servlet (as the chatbox calls it), and the
report counts what the talk pipeline stored as the chatbox was told it; the same talks in qualification mode
count for nothing."""

import json
import re
from collections import Counter

import pytest
from django.test import Client

from bots.models import Bot
from reporting.analytics.periods import PeriodForm
from reporting.analytics.report import build_report
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


# Questions the demo bot answers in each way; which way depends on the matcher's calibration, so the test
# counts what the bot said (as the chatbox saw it) and checks the report against that.
QUESTIONS = ["Quels sont vos horaires d'ouverture ?", "xyzzy plugh frobozz", "carte", "compte", "J'ai perdu ma carte"]


def converse(chatbox: Chatbox, **fields) -> tuple[Counter, Counter]:
    """The questions, and the first rewording offered clicked; returns the answers' typeResponses to the
    typed questions and to the click."""
    typed, clicked = Counter(), Counter()
    for question in QUESTIONS:
        answer = chatbox.talk(question, **fields)
        typed[answer["typeResponse"]] += 1
        if answer["typeResponse"].startswith("RW") and not clicked:
            # The link's question is a JavaScript string: J\'ai → J'ai.
            link = re.sub(r"\\(.)", r"\1", REWORD_LINK.search(answer["text"]).group(1))
            clicked[chatbox.talk(link, extra=json.dumps({"type": "reword_auto"}), **fields)["typeResponse"]] += 1
    # The demo answers these two the same whatever its calibration.
    assert typed["DMUnderstoodQuestion"] >= 1 and typed["GBMisunderstoodQuestion"] >= 1
    return typed, clicked


def test_the_report_reads_what_real_talks_stored(client, demo_bot, lexical):
    typed, clicked = converse(Chatbox(client, str(demo_bot.uuid)))
    report = recent(demo_bot)
    reworded = typed["RWOneReword"] + typed["RWSeveralRewords"]
    misunderstood = typed["GBMisunderstoodQuestion"] + typed["GBTooManyMisunderstoodQuestions"]
    assert (report.total_dialogs, report.total_interactions) == (1, sum(typed.values()) + sum(clicked.values()))
    # Typed questions only: a click on a rewording is no typed question.
    assert (report.understood.numerator, report.reworded.numerator, report.misunderstood.numerator) == (
        typed["DMUnderstoodQuestion"],
        reworded,
        misunderstood,
    )
    assert report.questions == sum(typed.values())
    # The offer clicked, of all offered (the others were followed by another typed question).
    assert (report.rewording_clicks.numerator, report.rewording_clicks.denominator) == (
        sum(clicked.values()),
        reworded,
    )
    answered = typed["DMUnderstoodQuestion"] + clicked["DMRewordClickedAuto"]
    assert sum(item.uses for item in report.top_items) == answered


def test_qualification_mode_talks_count_for_nothing(demo_bot, lexical):
    converse(Chatbox(Client(), str(demo_bot.uuid)), qualificationMode="true")
    report = recent(demo_bot)
    assert (report.total_dialogs, report.total_interactions, report.questions) == (0, 0, 0)
    assert report.top_items == [] and report.rewording_clicks.denominator == 0
    # A visitor's dialog beside it counts alone.
    typed, clicked = converse(Chatbox(Client(), str(demo_bot.uuid)))
    report = recent(demo_bot)
    assert (report.total_dialogs, report.total_interactions) == (1, sum(typed.values()) + sum(clicked.values()))
