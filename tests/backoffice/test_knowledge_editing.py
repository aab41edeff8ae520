"""The knowledge editor's server side, without a browser: languages refused unless the bot's, the answer
preview sanitised and kept to editors, matching-group members as lines, the tag tree, gallery uploads,
the list's filters, the conflict warning, and the "test the bot" endpoint (qualification mode, scoping)."""

import json
import struct
import zlib

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import Account
from bots.models import Bot
from dialogs.models import Dialog
from knowledge.backoffice.fields import pretty
from knowledge.models import Formulation, GalleryImage, GlobalSentence, KnowledgeItem, MatchingGroup, Tag
from tests.accounts.personas import make_persona
from tests.rich_answers.test_backoffice import FormFields

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def lexical(settings):
    # The editor's checks, not the matcher, are under test: the lexical matcher answers the same way here.
    settings.MATCHING_EMBEDDINGS = False


def login(client, bot, role: str):
    user, _ = make_persona(bot.account, role)
    client.force_login(user)
    return user


def page_fields(client, url: str) -> dict[str, str]:
    parser = FormFields()
    parser.feed(client.get(url).content.decode())
    return parser.fields


def item_form(client, item) -> tuple[str, dict[str, str]]:
    url = f"/admin/knowledge/knowledgeitem/{item.pk}/change/"
    return url, page_fields(client, url)


def add_formulation(fields: dict, language: str, text: str) -> dict:
    """The form as posted with the empty formulation row filled in."""
    index = int(fields["formulations-TOTAL_FORMS"]) - 1
    assert fields[f"formulations-{index}-text"] == ""
    return {**fields, f"formulations-{index}-language": language, f"formulations-{index}-text": text}


def png(width: int = 2, height: int = 2) -> bytes:
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def test_a_formulation_in_a_language_the_bot_does_not_have_is_refused(client, demo_bot):
    login(client, demo_bot, "editor")
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Opening hours")
    url, fields = item_form(client, item)
    before = item.formulations.count()
    response = client.post(url, add_formulation(fields, "francais", "Quand ouvrez-vous ?"))
    assert response.status_code == 200
    assert "“francais” is not a language of this bot." in response.content.decode()
    assert item.formulations.count() == before

    # A language of another bot the user sees is in the add page's list, but not this bot's: refused too.
    other = Bot.objects.create(name="Dutch bot", account=demo_bot.account, default_language="nl")
    add_url = "/admin/knowledge/knowledgeitem/add/"
    fields = page_fields(client, add_url)
    assert 'value="nl"' in client.get(add_url).content.decode()
    fields.update(bot=str(demo_bot.pk), label="Dutch by mistake", kind="question", status="draft", position="0")
    response = client.post(add_url, add_formulation(fields, "nl", "Wanneer zijn jullie open?"))
    assert "is not a language of this bot (its languages: fr, en)." in response.content.decode()
    assert not KnowledgeItem.objects.filter(label="Dutch by mistake").exists()
    assert other.knowledge_items.count() == 0

    # The bot's own language is saved.
    url, fields = item_form(client, item)
    response = client.post(url, add_formulation(fields, "fr", "Quand ouvrez-vous ?"))
    assert response.status_code == 302
    assert Formulation.objects.filter(item=item, language="fr", text="Quand ouvrez-vous ?").exists()


def test_the_item_page_offers_only_the_bots_languages_and_spaces(client, demo_bot):
    login(client, demo_bot, "editor")
    other = Bot.objects.create(name="Other account's bot", account=Account.objects.create(name="Other"))
    other.spaces.create(name="Secret space", is_default=True)
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Account fees")
    page = client.get(f"/admin/knowledge/knowledgeitem/{item.pk}/change/").content.decode()
    assert '<option value="en">English (en)</option>' in page or 'value="en" selected>English (en)' in page
    assert "Secret space" not in page
    assert page.count('name="formulations-0-language"') == 1


def test_a_global_sentence_in_another_language_is_refused(client, demo_bot):
    login(client, demo_bot, "editor")
    url = "/admin/knowledge/globalsentence/add/"
    data = {"bot": demo_bot.pk, "language": "francais", "kind": "misunderstood", "text": "Pardon ?"}
    response = client.post(url, data)
    assert "“francais” is not a language of this bot." in response.content.decode()
    assert client.post(url, {**data, "language": "en"}).status_code == 302
    assert GlobalSentence.objects.filter(bot=demo_bot, language="en", kind="misunderstood").exists()


def test_the_answer_preview_is_sanitised_and_for_editors_only(client, demo_bot):
    login(client, demo_bot, "editor")
    url = "/admin/knowledge/knowledgeitem/answer-preview/"
    html = '<p onclick="x()">Hi <b>there</b><script>alert(1)</script><a href="javascript:alert(1)">x</a></p>'
    response = client.post(url, {"text": html})
    assert response.status_code == 200
    rendered = response.json()["html"]
    assert "<b>there</b>" in rendered
    assert "script" not in rendered and "onclick" not in rendered and "javascript" not in rendered
    assert client.get(url).status_code == 405
    assert client.post(url, {"text": "x" * 100_001}).json()["code"] == "TOO_LONG"

    client.logout()
    login(client, demo_bot, "reader")
    response = client.post(url, {"text": html})
    assert response.status_code == 403 and response.json()["code"] == "FORBIDDEN"


def test_the_item_page_shows_the_saved_answer_rendered(client, demo_bot):
    login(client, demo_bot, "editor")
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Opening hours")
    page = client.get(f"/admin/knowledge/knowledgeitem/{item.pk}/change/").content.decode()
    assert 'data-testid="answer-preview"' in page
    assert "<b>Tuesday to Saturday, 9 am to 5:30 pm</b>" in page  # rendered, not escaped, in the pane


def test_matching_group_members_are_edited_one_per_line(client, demo_bot):
    login(client, demo_bot, "editor")
    group = MatchingGroup.objects.filter(bot=demo_bot).first()
    url = f"/admin/knowledge/matchinggroup/{group.pk}/change/"
    fields = page_fields(client, url)
    assert fields["members"].splitlines() == group.members
    response = client.post(url, {**fields, "members": "carte bleue\n\n  visa  \ncarte bleue\n{Other}\n"})
    assert response.status_code == 302
    group.refresh_from_db()
    assert group.members == ["carte bleue", "visa", "{Other}"]
    response = client.post(url, {**fields, "members": "\n \n"})
    assert "A group needs at least one member." in response.content.decode()


def test_tags_are_listed_as_a_tree(client, demo_bot):
    login(client, demo_bot, "editor")
    cards = Tag.objects.get(bot=demo_bot, name="Cartes")
    Tag.objects.create(bot=demo_bot, name="Opposition", parent=cards)
    Tag.objects.create(bot=demo_bot, name="AAA first", parent=None)
    page = client.get("/admin/knowledge/tag/").content.decode()
    names = [name for name in ("AAA first", "Cartes", "Opposition", "Compte") if name in page]
    positions = [page.index(f">{name}<") if f">{name}<" in page else page.index(name) for name in names]
    assert names == ["AAA first", "Cartes", "Opposition", "Compte"]
    assert positions == sorted(positions)  # a child right after its parent, siblings by name
    assert 'data-depth="1">└ Opposition' in page


def test_a_tag_cannot_be_its_own_ancestor(client, demo_bot):
    login(client, demo_bot, "editor")
    cards = Tag.objects.get(bot=demo_bot, name="Cartes")
    child = Tag.objects.create(bot=demo_bot, name="Opposition", parent=cards)
    url = f"/admin/knowledge/tag/{cards.pk}/change/"
    response = client.post(url, {"bot": demo_bot.pk, "name": "Cartes", "parent": child.pk})
    assert "A tag cannot be its own ancestor." in response.content.decode()


def test_gallery_uploads_are_checked_images_with_previews(client, demo_bot):
    login(client, demo_bot, "editor")
    url = "/admin/knowledge/galleryimage/add/"
    fake = SimpleUploadedFile("logo.png", b"<svg onload=alert(1)></svg>", content_type="image/png")
    response = client.post(url, {"bot": demo_bot.pk, "name": "logo.png", "upload": fake})
    assert "This file is not a PNG, JPEG, GIF or WebP image." in response.content.decode()
    assert not GalleryImage.objects.filter(bot=demo_bot, name="logo.png").exists()

    real = SimpleUploadedFile("logo.png", png(), content_type="application/octet-stream")
    assert client.post(url, {"bot": demo_bot.pk, "name": "", "upload": real}).status_code == 302
    image = GalleryImage.objects.get(bot=demo_bot, name="logo.png")
    assert image.media_type == "image/png"
    listing = client.get("/admin/knowledge/galleryimage/").content.decode()
    assert f"/admin/knowledge/galleryimage/{image.pk}/image/" in listing
    served = client.get(f"/admin/knowledge/galleryimage/{image.pk}/image/")
    assert served["Content-Type"] == "image/png" and served["X-Content-Type-Options"] == "nosniff"
    assert served.content == png()

    # Another account's image is not served, nor an image stored unchecked (an import) as something else.
    foreign = Bot.objects.create(name="Foreign", account=Account.objects.create(name="Foreign account"))
    theirs = GalleryImage.objects.create(bot=foreign, name="x.png", media_type="image/png", content=png())
    assert client.get(f"/admin/knowledge/galleryimage/{theirs.pk}/image/").status_code == 404
    html = GalleryImage.objects.create(bot=demo_bot, name="x.svg", media_type="image/svg+xml", content=b"<svg/>")
    assert client.get(f"/admin/knowledge/galleryimage/{html.pk}/image/").status_code == 404


def test_the_list_filters_by_status_space_language_and_text(client, demo_bot):
    login(client, demo_bot, "editor")
    base = "/admin/knowledge/knowledgeitem/"
    pro = demo_bot.spaces.get(name="Pro")
    in_pro = set(KnowledgeItem.objects.filter(bot=demo_bot, answers__space=pro).values_list("pk", flat=True))
    response = client.get(base, {"space": pro.pk})
    assert {obj.pk for obj in response.context["cl"].result_list} == in_pro
    assert client.get(base, {"space": "not-a-number"}).status_code == 200
    drafts = client.get(base, {"status__exact": "draft"}).context["cl"].result_list
    assert drafts and all(item.status == "draft" for item in drafts)
    found = client.get(base, {"q": "9 am to 5:30 pm"}).context["cl"].result_list  # an answer's text
    assert [item.label for item in found] == ["Opening hours"]
    english = client.get(base, {"language": "en"}).context["cl"].result_list
    assert english and all(
        item.formulations.filter(language="en").exists() or item.answers.filter(language="en").exists()
        for item in english
    )
    # The relation filters list this account's tags only.
    Tag.objects.create(bot=Bot.objects.create(name="Theirs", account=Account.objects.create(name="T")), name="Hidden")
    assert "Hidden" not in client.get(base).content.decode()


def test_bulk_status_actions_say_what_they_did(client, demo_bot):
    login(client, demo_bot, "editor")
    drafts = list(KnowledgeItem.objects.filter(bot=demo_bot, status="draft").values_list("pk", flat=True))
    response = client.post(
        "/admin/knowledge/knowledgeitem/", {"action": "disable", "_selected_action": drafts}, follow=True
    )
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        f"{len(drafts)} item{'s' if len(drafts) > 1 else ''} disabled: the chat no longer uses "
        + ("them" if len(drafts) > 1 else "it")
        + ", even in tests."
    ]
    assert set(KnowledgeItem.objects.filter(pk__in=drafts).values_list("status", flat=True)) == {"disabled"}


def test_a_formulation_another_item_matches_better_is_warned(client, demo_bot, django_capture_on_commit_callbacks):
    login(client, demo_bot, "editor")
    fees = KnowledgeItem.objects.get(bot=demo_bot, label="Account fees")
    item = KnowledgeItem.objects.get(bot=demo_bot, label="IBAN")
    url, fields = item_form(client, item)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, add_formulation(fields, "fr", "Combien coûte le compte ?"))
    warnings = [str(m) for m in get_messages(response.wsgi_request) if m.level_tag == "warning"]
    assert len(warnings) == 1
    # IBAN's other formulations do not hold it: the bot still gives Account fees for this text.
    assert "The bot matches “Combien coûte le compte ?” (fr) better with another item" in warnings[0]
    assert f'href="/admin/knowledge/knowledgeitem/{fees.pk}/change/"' in warnings[0]
    assert ">Account fees</a>" in warnings[0]

    # A formulation only this item answers: no warning.
    url, fields = item_form(client, item)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, add_formulation(fields, "fr", "Mon relevé d'identité bancaire est introuvable"))
    assert not [m for m in get_messages(response.wsgi_request) if m.level_tag == "warning"]


def test_the_test_box_talks_in_qualification_mode_and_explains(client, demo_bot):
    login(client, demo_bot, "editor")
    url = f"/admin/bots/bot/{demo_bot.pk}/test/"
    draft = KnowledgeItem.objects.get(bot=demo_bot, label="Draft: new premium card")
    question = draft.formulations.filter(language="fr").first().text
    body = client.post(url, {"userInput": question, "language": "fr", "space": "Defaut"}).json()
    # Drafts answer in qualification mode: the box shows what a publication would give.
    assert body["outcome"] == "direct" and body["typeResponse"] == "DMUnderstoodQuestion"
    assert body["item"] == {
        "id": draft.pk,
        "label": draft.label,
        "url": f"/admin/knowledge/knowledgeitem/{draft.pk}/change/",
    }
    assert body["why"]["best"]["id"] == draft.pk and body["why"]["best"]["formulation"] == question
    assert body["why"]["best"]["score"] >= body["why"]["thresholds"]["direct"]
    assert all(other["id"] != draft.pk for other in body["why"]["runnersUp"])
    dialog = Dialog.objects.get(uuid=body["contextId"])
    assert dialog.qualification_mode
    assert not dialog.interactions.filter(counted=True).exists()

    # The same dialog goes on; an input it does not know is misunderstood.
    again = client.post(url, {"userInput": "zzz qwerty blorp", "language": "fr", "contextId": body["contextId"]}).json()
    assert again["contextId"] == body["contextId"]
    assert again["outcome"] == "misunderstood" and again["item"] is None

    # HTML in an answer comes sanitised.
    answer = draft.answers.get(language="fr", space__is_default=True)
    answer.text = "<b>Premium</b><img src=x onerror=alert(1)>"
    answer.save()
    text = client.post(url, {"userInput": question, "language": "fr"}).json()["text"]
    assert "<b>Premium</b>" in text and "onerror" not in text


def test_the_test_box_refuses_what_the_bot_does_not_have_and_other_accounts(client, demo_bot):
    login(client, demo_bot, "reader")  # readers may test the bot they read
    url = f"/admin/bots/bot/{demo_bot.pk}/test/"
    response = client.post(url, {"userInput": "Bonjour", "language": "francais"})
    assert response.status_code == 400 and response.json()["code"] == "UNKNOWN_LANGUAGE"
    response = client.post(url, {"userInput": "Bonjour", "space": "Nowhere"})
    assert response.status_code == 400 and response.json()["code"] == "UNKNOWN_SPACE"
    # The box's fields are read by the chat's own rules (ServletParams): a NUL is refused, naming the field.
    response = client.post(url, {"userInput": "Bon\x00jour"})
    assert response.status_code == 400 and response.json()["code"] == "INVALID_FIELD"
    assert "userInput" in response.json()["error"]
    assert client.get(url).status_code == 405
    foreign = Bot.objects.create(name="Foreign", account=Account.objects.create(name="Foreign account"))
    assert client.post(f"/admin/bots/bot/{foreign.pk}/test/", {"userInput": "Bonjour"}).status_code == 404
    client.logout()
    assert client.post(url, {"userInput": "Bonjour"}).status_code == 302  # to the login page


def test_json_fields_are_pretty_and_checked(client, demo_bot):
    assert pretty([12, 13]) == "[12, 13]"
    assert pretty({}) == "{}"
    one = {"variable": "age", "operator": "less", "value": "30"}
    assert pretty([one]) == '[{"variable": "age", "operator": "less", "value": "30"}]'
    two = [one, {"variable": "client_type", "operator": "is", "value": "pro"}]
    assert pretty(two) == (
        '[\n  {"variable": "age", "operator": "less", "value": "30"},\n'
        '  {"variable": "client_type", "operator": "is", "value": "pro"}\n]'
    )
    assert json.loads(pretty({"fr": "Quel jour ?", "en": "Which day?"})) == {"fr": "Quel jour ?", "en": "Which day?"}

    login(client, demo_bot, "editor")
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Loan")
    url, fields = item_form(client, item)
    conditions = fields["branches-0-conditions"]  # jsonb keeps its keys in its own order
    assert "\n" not in conditions
    assert json.loads(conditions) == [{"variable": "client_type", "operator": "is", "value": "pro"}]
    assert "null" not in [value for key, value in fields.items() if key.endswith("-sidebar")]
    response = client.post(url, {**fields, "branches-0-conditions": '[{"variable": "age",}]'})
    assert "Not valid JSON: check the quotes, commas and brackets." in response.content.decode()


def test_the_list_reads_a_page_in_a_fixed_number_of_queries(client, demo_bot, django_assert_max_num_queries):
    login(client, demo_bot, "editor")
    client.get("/admin/knowledge/knowledgeitem/")  # sessions, permissions and caches warmed
    assert KnowledgeItem.objects.filter(bot=demo_bot).count() > 40
    # Each row's question, tag and bot come with the page, not one query per row.
    with django_assert_max_num_queries(20):
        response = client.get("/admin/knowledge/knowledgeitem/")
    assert "Quels sont vos horaires d&#x27;ouverture ?" in response.content.decode()
