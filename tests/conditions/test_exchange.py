"""Answer branches through the knowledge-base XML: export → delete → import → export gives the same bytes
(conditions, priority order, the variables a branch sets), an imported branch answers at once, and a
broken branch is refused with its line and nothing changed."""

import io

import pytest

from knowledge.exchange import import_knowledge_base
from knowledge.models import Answer, AnswerBranch, Formulation, KnowledgeItem
from tests.knowledge.conftest import build_rich_bot, personas, rich_bot, upload  # noqa: F401 (fixtures)
from tests.knowledge.test_import import refused, small_file
from tests.knowledge.test_round_trip import download

pytestmark = pytest.mark.django_db

SENIOR = [
    {"variable": "client_type", "operator": "is", "value": "pro"},
    {"variable": "age", "operator": "greater", "value": "25"},
    {"variable": "ville", "operator": "contained", "value": "Lille; Lyon & <Nice>"},
    {"variable": "email", "operator": "defined", "value": ""},
]


@pytest.fixture
def bot_with_branches(personas):  # noqa: F811
    """The exchange tests' bot of every kind, plus an item whose answers branch in two spaces."""
    bot = build_rich_bot(account=personas.account)
    item = KnowledgeItem.objects.create(bot=bot, status="published", label="Conseiller", position=95)
    Formulation.objects.create(item=item, language="fr", text="Qui est mon conseiller ?")
    default, pro = bot.spaces.get(is_default=True), bot.spaces.exclude(is_default=True).order_by("name").first()
    for space in (default, pro):
        Answer.objects.create(item=item, language="fr", space=space, text=f"Votre agence ({space.name}).")
    # Created out of priority order, with keys out of name order: the file says them in order.
    AnswerBranch.objects.create(
        item=item,
        language="fr",
        space=default,
        position=5,
        text="Sinon : « particulier ».",
        set_variables={"segment": "particulier", "a_vu": "oui & <b>"},
    )
    AnswerBranch.objects.create(
        item=item, language="fr", space=default, position=1, conditions=SENIOR, text="<p>Conseiller senior</p>"
    )
    AnswerBranch.objects.create(
        item=item,
        language="fr",
        space=pro,
        position=0,
        conditions=[{"variable": "age", "operator": "less", "value": "2,5"}],
        text="",
    )
    return bot


def export(client, bot, token) -> bytes:
    return download(client.get(f"/servlet/api/bot/knowledgebase/export/{bot.uuid}/false", HTTP_AUTHORIZATION=token))


def branches_of(bot) -> list[tuple]:
    return list(
        AnswerBranch.objects.filter(item__bot=bot)
        .order_by("space__name", "position")
        .values_list("item__label", "language", "space__name", "position", "conditions", "text", "set_variables")
    )


def test_answer_branches_round_trip_byte_for_byte(client, bot_with_branches, personas):  # noqa: F811
    token = personas.alice.token
    first = export(client, bot_with_branches, token)
    text = first.decode()
    senior = (
        '<branch><condition variable="client_type" operator="is" value="pro"/>'
        '<condition variable="age" operator="greater" value="25"/>'
        '<condition variable="ville" operator="contained" value="Lille; Lyon &amp; &lt;Nice&gt;"/>'
        '<condition variable="email" operator="defined"/>'
    )
    assert senior in "".join(line.strip() for line in text.splitlines())
    assert text.index("Conseiller senior") < text.index("Sinon : « particulier ».")  # priority order
    assert text.index('name="a_vu"') < text.index('name="segment"')
    before = branches_of(bot_with_branches)
    deleted = client.delete(
        f"/servlet/api/bot/knowledgebase/delete/{bot_with_branches.uuid}/false", HTTP_AUTHORIZATION=token
    )
    assert deleted.status_code == 200
    assert not AnswerBranch.objects.filter(item__bot=bot_with_branches).exists()
    response = upload(client, f"/servlet/api/bot/knowledgebase/import/{bot_with_branches.uuid}", first, token)
    assert response.status_code == 200, response.content
    assert export(client, bot_with_branches, token) == first
    # Priorities come back as 0, 1, … in the same order; everything else as it was.
    again = branches_of(bot_with_branches)
    assert [row[:3] + row[4:] for row in again] == [row[:3] + row[4:] for row in before]
    assert [row[3] for row in again] == [0, 1, 0]


def test_an_imported_branch_answers_at_once(chatbox, demo_bot):
    item = (
        '    <knowledgeItem id="1" kind="question" status="published" tag="7">\n'
        '      <formulation language="fr">Comment bloquer ma carte ?</formulation>\n'
        '      <answer language="fr" space="Defaut"><text>Appelez le 0800.</text>\n'
        '        <branch><condition variable="client_type" operator="is" value="pro"/>'
        "<text>Appelez la ligne entreprises.</text></branch>\n"
        "      </answer>\n"
        "    </knowledgeItem>\n"
    )
    import_knowledge_base(demo_bot, io.BytesIO(small_file(item)))
    assert chatbox.talk("Comment bloquer ma carte ?")["text"] == "Appelez le 0800."
    answer = chatbox.talk("Comment bloquer ma carte ?", variables='{"client_type": "pro"}')
    assert answer["text"] == "Appelez la ligne entreprises."


@pytest.mark.parametrize(
    ("branch", "code"),
    [
        ('<branch><condition variable="age" operator="equals" value="3"/></branch>', "SCHEMA_VIOLATION"),
        ('<branch><condition operator="is" value="3"/></branch>', "SCHEMA_VIOLATION"),
        ("<branch><text>a</text><condition variable='x' operator='is'/></branch>", "SCHEMA_VIOLATION"),
        ('<branch><setVariable name="x">1</setVariable><setVariable name="x">2</setVariable></branch>', "DUPLICATE"),
    ],
)
def test_a_broken_branch_is_refused_with_nothing_changed(client, rich_bot, personas, branch, code):  # noqa: F811
    item = (
        '    <knowledgeItem id="1" kind="question" status="published" tag="7">\n'
        '      <formulation language="fr">Comment bloquer ma carte ?</formulation>\n'
        f'      <answer language="fr" space="Defaut"><text>Appelez le 0800.</text>\n        {branch}\n      </answer>\n'
        "    </knowledgeItem>\n"
    )
    content = small_file(item)
    body = refused(client, rich_bot, personas.bob.token, content)
    assert body["code"] == code
    # The line of the broken element (the branch's, or the setVariable given twice on it).
    assert body["line"] == content.decode().splitlines().index(f"        {branch}") + 1
