"""Featured items, URL redirections and steps through the knowledge-base XML: export → delete →
import → export gives the same bytes, and a template whose data does not fit its template is refused
(400 INVALID_VALUE with the line, nothing stored)."""

import io
import json

import pytest
from lxml import etree

from knowledge.exchange import export_knowledge_base, import_knowledge_base
from knowledge.models import Answer, KnowledgeItem
from knowledge.xml import schema
from tests.knowledge.conftest import build_rich_bot, upload

pytestmark = pytest.mark.django_db


def export(bot) -> bytes:
    return b"".join(export_knowledge_base(bot))


def rich_parts(bot) -> dict:
    return {
        (a.item.label, a.language, a.space.name): (a.template_name, a.template_data, a.url_redirect, a.steps, a.sidebar)
        for a in Answer.objects.filter(item__bot=bot).select_related("item", "space")
    }


def test_every_new_field_round_trips_byte_for_byte(personas):
    bot = build_rich_bot(account=personas.account)
    featured = set(KnowledgeItem.objects.filter(bot=bot, featured=True).values_list("label", flat=True))
    before = rich_parts(bot)
    first = export(bot)
    document = etree.fromstring(first)
    assert schema().validate(document), schema().error_log
    assert [item.get("label") for item in document.iterfind(".//knowledgeItem[@featured='true']")] == ["Carte perdue"]
    pro = document.find(".//answer[@space='Pro']")
    assert pro.find("urlRedirect").text == "https://bank.example/opposition?a=1&b=2"
    steps = pro.findall("step")
    assert [step.find("text").text for step in steps] == ["<p>Étape 2</p>", "Étape 3 « vite »"]
    assert steps[0].find("sidebar") is None and json.loads(steps[1].find("sidebar").text)["width"] == 300
    assert json.loads(pro.find("template").text) == {
        "button1": '<a href="https://bank.example/block?a=1&b=2">Bloquer é</a>'
    }

    KnowledgeItem.objects.filter(bot=bot).delete()
    import_knowledge_base(bot, io.BytesIO(first))
    assert export(bot) == first
    assert set(KnowledgeItem.objects.filter(bot=bot, featured=True).values_list("label", flat=True)) == featured
    assert rich_parts(bot) == before


def test_the_demo_bots_rich_answers_round_trip(demo_bot):
    first = export(demo_bot)
    for element in (b'featured="true"', b"<urlRedirect>", b"<step>", b'name="dydu_carousel_001"'):
        assert element in first
    before = rich_parts(demo_bot)
    import_knowledge_base(demo_bot, io.BytesIO(first))
    assert export(demo_bot) == first
    assert rich_parts(demo_bot) == before


@pytest.mark.parametrize(
    "part, reason",
    [
        (
            '<template name="dydu_quick_reply_001">{"buttons":[{"title":"Bloquer"}]}</template>',
            "has no field 'buttons'",
        ),
        ('<template name="dydu_quick_reply_001">{"button10":"&lt;a&gt;x&lt;/a&gt;"}</template>', "no field 'button10'"),
        ('<template name="dydu_product_001">{"subtitle":"Sans titre"}</template>', "needs a title"),
        ('<template name="dydu_product_001">{"title":"Carte","price":"3 €"}</template>', "no field 'price'"),
        ('<template name="dydu_product_001">{"title":["Carte"]}</template>', "must be text"),
        ('<template name="dydu_product_001">pas du JSON</template>', "must be a JSON object"),
        ('<template name="dydu_carousel_001">{"title1":"A","subtitle2":"sans titre"}</template>', "Card 2"),
        ('<template name="dydu_carousel_001">{"title6":"Sixième"}</template>', "no field 'title6'"),
        ("<urlRedirect>javascript:alert(1)</urlRedirect>", "http(s) address"),
        ("<step><text> </text></step>", "Step 2 needs a text"),
    ],
)
def test_a_rich_part_that_does_not_fit_is_refused_and_nothing_is_stored(client, demo_bot, personas, part, reason):
    first = export(demo_bot)
    anchor = b"<text>Nous avons une carte pour chaque usage. Que voulez-vous voir ?</text>"
    assert first.count(anchor) == 1
    # The quick-reply answer's own template is replaced by the bad part.
    start = first.index(anchor) + len(anchor)
    end = first.index(b"</answer>", start)
    broken = first[:start] + part.encode() + first[end:]
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{demo_bot.uuid}", broken, personas.alice.token)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "INVALID_VALUE" and reason in body["error"], body
    assert body["line"] == broken[: broken.rindex(b"<answer ", 0, start)].count(b"\n") + 1  # the answer's line
    assert export(demo_bot) == first


def test_unknown_templates_are_the_sites_own_and_kept_as_they_are(client, demo_bot, personas):
    first = export(demo_bot)
    anchor = b"<text>Nous avons une carte pour chaque usage. Que voulez-vous voir ?</text>"
    start = first.index(anchor) + len(anchor)
    end = first.index(b"</answer>", start)
    custom = b'<template name="banque_agenda_002">anything {at all}</template>'
    changed = first[:start] + custom + first[end:]
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{demo_bot.uuid}", changed, personas.alice.token)
    assert response.status_code == 200, response.content
    answer = Answer.objects.get(item__bot=demo_bot, item__label="Card range (quick replies)", language="fr")
    assert (answer.template_name, answer.template_data) == ("banque_agenda_002", "anything {at all}")
