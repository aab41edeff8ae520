"""Complementary answers through the knowledge-base XML: targets (tags, items before or after them in the
file, the whole knowledge base), activation and n, conditions; export → delete → import → export gives
the same bytes, imported rules answer at once, and a broken rule is refused naming its line with nothing
changed."""

import pytest

from bots.models import Bot
from knowledge.models import KnowledgeItem

# The context conditions' own exchange test's set: every operator, text to escape.
from tests.conditions.test_exchange import SENIOR as CONDITIONS
from tests.knowledge.conftest import build_rich_bot, personas, upload  # noqa: F401 (personas is a fixture)
from tests.knowledge.test_import import GOOD_ITEM, refused, small_file
from tests.knowledge.test_round_trip import download

from .conftest import F, P, make_complement, make_item

pytestmark = pytest.mark.django_db


@pytest.fixture
def bot_with_rules(personas):  # noqa: F811
    """The exchange tests' bot of every kind, plus complements of every activation, targeting items
    defined before and after them, with conditions."""
    bot = build_rich_bot(account=personas.account)
    # Created first with the lowest position: the file holds it before the item it targets.
    early = make_complement(
        bot,
        "Offre du mois.",
        where=P.BEFORE,
        complement_frequency=F.EVERY_N_INTERACTIONS,
        complement_n=3,
        complement_conditions=CONDITIONS,
    )
    KnowledgeItem.objects.filter(pk=early.pk).update(position=0)
    target = make_item(bot, "Puis-je louer un coffre-fort ?", "Oui, en agence.", position=90)
    lost = KnowledgeItem.objects.get(bot=bot, label="Carte perdue")
    early.complement_items.set([target, lost])
    make_complement(bot, "Une fois.", items=[target], complement_frequency=F.ONCE_PER_DIALOG, position=91)
    make_complement(bot, "Deux fois.", whole=True, complement_frequency=F.N_PER_DIALOG, complement_n=2, position=92)
    return bot


def export(client, bot, token) -> bytes:
    return download(client.get(f"/servlet/api/bot/knowledgebase/export/{bot.uuid}/false", HTTP_AUTHORIZATION=token))


def test_complement_rules_round_trip_byte_for_byte(client, bot_with_rules, personas):  # noqa: F811
    token = personas.alice.token
    first = export(client, bot_with_rules, token)
    text = first.decode()
    assert 'activation="every_n_interactions" n="3"' in text
    assert 'activation="once_per_dialog"' in text and 'activation="n_per_dialog" n="2"' in text
    assert '<condition variable="ville" operator="contained" value="Lille; Lyon &amp; &lt;Nice&gt;"/>' in text
    assert '<condition variable="email" operator="defined"/>' in text
    # The early complement's target comes later in the file.
    assert text.index("Offre du mois.") < text.index("Puis-je louer un coffre-fort ?")
    deleted = client.delete(
        f"/servlet/api/bot/knowledgebase/delete/{bot_with_rules.uuid}/false", HTTP_AUTHORIZATION=token
    )
    assert deleted.status_code == 200
    assert not KnowledgeItem.complement_items.through.objects.exists()
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{bot_with_rules.uuid}", first, token)
    assert response.status_code == 200, response.content
    assert export(client, bot_with_rules, token) == first
    early = KnowledgeItem.objects.get(bot=bot_with_rules, label="Offre du mois.")
    assert (early.complement_frequency, early.complement_n, early.complement_conditions) == (
        F.EVERY_N_INTERACTIONS,
        3,
        CONDITIONS,
    )
    assert sorted(early.complement_items.values_list("label", flat=True)) == [
        "Carte perdue",
        "Puis-je louer un coffre-fort ?",
    ]


def test_into_another_bot_the_targets_follow_the_renumbered_items(client, bot_with_rules, personas):  # noqa: F811
    token = personas.alice.token
    source = export(client, bot_with_rules, token)
    other = Bot.objects.create(name="Copie", account=personas.account, default_language="fr")
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{other.uuid}", source, token)
    assert response.status_code == 200, response.content
    assert response.json()["idsKept"]["knowledgeItems"] is False
    copied = KnowledgeItem.objects.get(bot=other, label="Offre du mois.")
    assert {item.bot_id for item in copied.complement_items.all()} == {other.pk}
    assert sorted(copied.complement_items.values_list("label", flat=True)) == [
        "Carte perdue",
        "Puis-je louer un coffre-fort ?",
    ]


def test_an_imported_rule_answers_at_once(client, chatbox, demo_bot, personas):  # noqa: F811
    demo_bot.account = personas.account
    demo_bot.save()
    items = (
        '    <knowledgeItem id="1" kind="question" status="published">\n'
        '      <formulation language="fr">Puis-je louer un coffre-fort ?</formulation>\n'
        '      <answer language="fr" space="Defaut"><text>Oui, en agence.</text></answer>\n'
        "    </knowledgeItem>\n"
        '    <knowledgeItem id="2" kind="complementary" status="published">\n'
        '      <complement position="instead" activation="once_per_dialog">\n'
        '        <targetItem ref="1"/>\n'
        '        <condition variable="client_type" operator="is" value="pro"/>\n'
        "      </complement>\n"
        '      <answer language="fr" space="Defaut"><text>Votre conseiller pro vous répond.</text></answer>\n'
        "    </knowledgeItem>\n"
    )
    url = f"/servlet/api/bot/knowledgebase/import/{demo_bot.uuid}"
    response = upload(client, url, small_file(items), personas.alice.token)
    assert response.status_code == 200, response.content
    question, pro = "Puis-je louer un coffre-fort ?", '{"client_type": "pro"}'
    assert chatbox.talk(question)["text"] == "Oui, en agence."
    assert chatbox.talk(question, variables=pro)["text"] == "Votre conseiller pro vous répond."
    assert chatbox.talk(question, variables=pro)["text"] == "Oui, en agence."


def complement(inner: str, attributes: str = 'position="after"') -> str:
    return (
        GOOD_ITEM + '    <knowledgeItem id="2" kind="complementary">\n'
        f"      <complement {attributes}>{inner}</complement>\n"
        "    </knowledgeItem>\n"
    )


def test_a_target_item_the_file_does_not_define_is_refused(client, personas):  # noqa: F811
    bot = build_rich_bot(account=personas.account)
    error = refused(client, bot, personas.alice.token, small_file(complement('<targetItem ref="99"/>')))
    assert (error["code"], error["line"], error["column"]) == ("DANGLING_REFERENCE", 20, 48)
    assert "Knowledge item 99 is not defined" in error["reason"]


@pytest.mark.parametrize(
    ("inner", "attributes", "message"),
    [
        ('<condition variable="age" operator="between" value="1"/>', 'position="after"', "between"),
        ('<condition operator="is" value="1"/>', 'position="after"', "'variable'"),
        ("", 'position="after" activation="sometimes"', "sometimes"),
        ("", 'position="after" activation="every_n_interactions" n="0"', "attribute 'n'"),
        ('<condition variable="a" operator="is"/><targetItem ref="1"/>', 'position="after"', "targetItem"),
    ],
)
def test_a_broken_rule_is_refused_by_the_schema(client, personas, inner, attributes, message):  # noqa: F811
    bot = build_rich_bot(account=personas.account)
    error = refused(client, bot, personas.alice.token, small_file(complement(inner, attributes)))
    assert error["code"] == "SCHEMA_VIOLATION"
    assert message in error["reason"]
    assert error["line"] == 20
