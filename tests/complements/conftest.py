"""Complementary and predefined answers: a small knowledge of our own beside the demo bot's, made with
the same models the back office and the import write."""

from types import SimpleNamespace

import pytest

from knowledge.models import Answer, Formulation, KnowledgeItem, Tag
from tests.livechat.conftest import team, visitor  # noqa: F401 (fixtures used by the console tests)

F = KnowledgeItem.Frequency
P = KnowledgeItem.Position


def make_item(bot, question: str, answer: str, *, tag=None, **fields) -> KnowledgeItem:
    """A published question answered in the default space, in French."""
    item = KnowledgeItem.objects.create(bot=bot, status="published", label=question, tag=tag, **fields)
    Formulation.objects.create(item=item, language="fr", text=question)
    Answer.objects.create(item=item, language="fr", space=bot.default_space(), text=answer)
    return item


def make_complement(
    bot, text: str, *, where=P.AFTER, tags=(), items=(), whole=False, status="published", **fields
) -> KnowledgeItem:
    """A complementary answer with its targets (tags, items or the whole knowledge base)."""
    complement = KnowledgeItem.objects.create(
        bot=bot,
        kind=KnowledgeItem.Kind.COMPLEMENTARY,
        status=status,
        label=text[:40],
        complement_position=where,
        complement_all=whole,
        **fields,
    )
    complement.complement_tags.set(tags)
    complement.complement_items.set(items)
    Answer.objects.create(item=complement, language="fr", space=bot.default_space(), text=text)
    return complement


@pytest.fixture
def wealth(demo_bot):
    """Two questions of a tag Patrimoine (one in its sub-tag Gestion privée) and one without a tag."""
    tag = Tag.objects.create(bot=demo_bot, name="Patrimoine")
    subtag = Tag.objects.create(bot=demo_bot, name="Gestion privée", parent=tag)
    return SimpleNamespace(
        tag=tag,
        subtag=subtag,
        funeral=make_item(demo_bot, "Proposez-vous une assurance obsèques ?", "Oui, dès 9 € par mois.", tag=tag),
        lombard=make_item(demo_bot, "Faites-vous du crédit lombard ?", "Oui, adossé à vos placements.", tag=subtag),
        safe=make_item(demo_bot, "Puis-je louer un coffre-fort ?", "Oui, en agence."),
    )
