"""Regression corpus of the demo bot: questions people really type, in French and English, and the
knowledge item each must reach through the talk endpoint. Every pair must keep passing."""

from pathlib import Path

import pytest

from knowledge.models import KnowledgeItem

pytestmark = pytest.mark.django_db
CORPUS = Path(__file__).parent / "corpus"


def pairs(language: str) -> list[tuple[str, str]]:
    rows = []
    for line in (CORPUS / f"demo_{language}.tsv").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            text, label = line.split("\t")
            rows.append((text, label))
    return rows


@pytest.mark.parametrize("language", ["fr", "en"])
def test_every_corpus_question_reaches_its_item(chatbox, demo_bot, language):
    chatbox.language = language
    labels = dict(KnowledgeItem.objects.filter(bot=demo_bot).values_list("pk", "label"))
    misses = []
    for text, label in pairs(language):
        chatbox.context_id = ""  # each question in a fresh dialog: no follow-up, no misunderstood streak
        values = chatbox.talk(text, disableLanguageDetection="true")
        if values["typeResponse"] not in ("DMUnderstoodQuestion",) or labels.get(values["knowledgeId"]) != label:
            misses.append(
                f"{text!r}: expected {label}, got {values['typeResponse']} {labels.get(values['knowledgeId'])}"
            )
    assert not misses, "\n".join(misses)
