"""The demo bot holds one item of each rich kind, every one fitting its checks (the seed writes in bulk,
past the back office's and the import's checks), and features the questions of a fresh install."""

import pytest

from knowledge.models import Answer, KnowledgeItem
from knowledge.rich_answers import check_answer

pytestmark = pytest.mark.django_db


def test_every_rich_answer_of_the_demo_fits_its_checks(demo_bot):
    answers = Answer.objects.filter(item__bot=demo_bot)
    for answer in answers:
        check_answer(
            template_name=answer.template_name,
            template_data=answer.template_data,
            url_redirect=answer.url_redirect,
            steps=answer.steps,
        )
    kinds = {
        "quick replies": answers.filter(template_name="dydu_quick_reply_001"),
        "product card": answers.filter(template_name="dydu_product_001"),
        "carousel": answers.filter(template_name="dydu_carousel_001"),
        "sidebar": answers.exclude(sidebar=None),
        "GUI action": answers.exclude(gui_action=""),
        "URL redirection": answers.exclude(url_redirect=""),
        "steps": answers.exclude(steps=[]),
        "<hr> bubbles": answers.filter(text__contains="<hr/>"),
    }
    for kind, found in kinds.items():
        assert {a.language for a in found} == {"fr", "en"}, kind


def test_the_demo_features_five_questions(demo_bot):
    featured = KnowledgeItem.objects.filter(bot=demo_bot, featured=True, status="published").order_by("position")
    assert list(featured.values_list("label", flat=True)) == [
        "Opening hours",
        "Lost card",
        "Make a transfer",
        "Card range (quick replies)",
        "Account offers (carousel)",
    ]
