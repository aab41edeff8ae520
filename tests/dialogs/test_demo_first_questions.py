"""The demo bot answers its own first questions (issue 27 item 4).

tests/dialogs/data/demo_first_questions.csv holds realistic first questions in French and English, written
from the demo's item labels only (not its formulations) and committed before they were first run. Each is
asked through chat/talk as the chatbox asks it, in a fresh context, and must get its item as the direct
answer or as the first rewording offered.
"""

import csv
import re
from pathlib import Path

import pytest

from dialogs.models import Interaction
from knowledge.demo.seed import BOT_UUID

from ..conftest import Chatbox

pytestmark = pytest.mark.django_db

QUESTIONS = Path(__file__).parent / "data" / "demo_first_questions.csv"
ANSWERED = ("DMUnderstoodQuestion",)
REWORDED = ("RWOneReword", "RWSeveralRewords")
# Answered only in another consultation space: the answer is a link to that space naming the item.
OFFERED = "DMSpaceRedirection"
OFFERED_ITEM = re.compile(r"'knowledgeId':'(\d+)'")


def first_questions() -> list[dict]:
    with QUESTIONS.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def what_the_visitor_gets(client, text: str, page_language: str) -> tuple[str, int | None]:
    """The kind of answer and the item it gives: the answered item, or the first rewording offered."""
    chatbox = Chatbox(client, BOT_UUID)  # a fresh context per question
    chatbox.language = page_language
    values = chatbox.talk(text)
    kind = values["typeResponse"]
    if kind in ANSWERED:
        return "direct", int(values["knowledgeId"])
    if kind in REWORDED:
        reworded = Interaction.objects.get(pk=values["actionId"]).reworded_items
        return "reword", reworded[0] if reworded else None
    if kind == OFFERED and (offered := OFFERED_ITEM.search(values["text"])):
        return "offered in another space", int(offered.group(1))
    return kind, None


def test_the_list_is_large_and_covers_both_languages():
    rows = first_questions()
    assert len(rows) >= 60
    assert {row["language"] for row in rows} == {"fr", "en"}


@pytest.mark.parametrize("page", ["the question's language", "the demo's French page"])
def test_every_first_question_gets_its_item_directly_or_as_the_first_rewording(client, demo_bot, page):
    """The chatbox sends its page's language: a visitor on a page in his own language, or on the demo's
    French page, where the bot detects that an English visitor writes English."""
    ids = dict(demo_bot.knowledge_items.values_list("label", "id"))
    labels = {item_id: label for label, item_id in ids.items()}
    wrong = []
    for row in first_questions():
        expected = {ids[label] for label in row["expected"].split("|")}
        page_language = row["language"] if page == "the question's language" else "fr"
        kind, item_id = what_the_visitor_gets(client, row["text"], page_language)
        if item_id not in expected:
            wrong.append(
                f"{row['text']!r} ({row['language']}): {kind} {labels.get(item_id)!r}, wanted {row['expected']!r}"
            )
    assert not wrong, f"{len(wrong)} of {len(first_questions())} wrong:\n" + "\n".join(wrong)
