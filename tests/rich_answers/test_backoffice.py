"""The back office: an answer's template data, URL redirection and steps are checked when saved (a clear
error on the field, nothing stored); items are featured from the list (editable column or actions)."""

import json
from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model

from knowledge.models import Answer, KnowledgeItem

pytestmark = pytest.mark.django_db


class FormFields(HTMLParser):
    """The fields a browser would post from the page's form (checked boxes, selected options)."""

    def __init__(self):
        super().__init__()
        self.fields: dict[str, str] = {}
        self._select = self._textarea = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        name = attrs.get("name")
        if tag == "input" and name and attrs.get("type") not in ("submit", "button", "file"):
            if attrs.get("type") in ("checkbox", "radio"):
                if "checked" in attrs:
                    self.fields[name] = attrs.get("value", "on")
            else:
                self.fields[name] = attrs.get("value", "")
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in attrs:
            self.fields[self._select] = attrs.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.fields[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            # The first newline after <textarea> is not part of the value.
            self.fields[self._textarea] += data.removeprefix("\n") if not self.fields[self._textarea] else data


@pytest.fixture
def staff(client, demo_bot):
    user = get_user_model().objects.create_superuser("boss", "boss@example.org", "pw-for-tests-only")
    client.force_login(user)
    return client


def change_form(staff, item) -> tuple[str, dict[str, str], str]:
    url = f"/admin/knowledge/knowledgeitem/{item.pk}/change/"
    parser = FormFields()
    parser.feed(staff.get(url).content.decode())
    fields = parser.fields
    french = next(
        key.removesuffix("-language")
        for key, value in fields.items()
        if key.startswith("answers-") and key.endswith("-language") and value == "fr"
    )
    return url, fields, french


@pytest.mark.parametrize(
    "field, value, error",
    [
        (
            "template_data",
            '{"buttons": [{"title": "Bloquer"}]}',
            "dydu_quick_reply_001 has no field &#x27;buttons&#x27;",
        ),
        ("template_data", "{not json", "must be a JSON object"),
        ("url_redirect", "javascript:alert(document.cookie)", "must be an http(s) address or a path starting with /"),
        ("steps", '[{"sidebar": {"title": "Sans texte"}}]', "Step 2 needs a text"),
    ],
)
def test_a_rich_part_that_does_not_fit_is_refused_on_save(staff, demo_bot, field, value, error):
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Card range (quick replies)")
    before = list(Answer.objects.filter(item=item).order_by("pk").values())
    url, fields, french = change_form(staff, item)
    fields[f"{french}-{field}"] = value
    response = staff.post(url, fields)
    assert response.status_code == 200  # the form again, with the error on the field
    page = response.content.decode()
    assert error in page
    assert "errorlist" in page
    assert list(Answer.objects.filter(item=item).order_by("pk").values()) == before


def test_a_fitting_rich_answer_is_saved_and_answered(staff, demo_bot, chatbox):
    item = KnowledgeItem.objects.get(bot=demo_bot, label="Card range (quick replies)")
    url, fields, french = change_form(staff, item)
    fields[f"{french}-template_name"] = "dydu_product_001"
    fields[f"{french}-template_data"] = json.dumps({"title": "Carte Jeune", "numeric": 0, "subtitle": "Gratuite"})
    fields[f"{french}-url_redirect"] = "https://bank.example/jeunes"
    fields[f"{french}-steps"] = json.dumps([{"text": "<p>Puis…</p>"}])
    response = staff.post(url, fields)
    assert response.status_code == 302, response.content.decode()[:2000]
    values = chatbox.talk("Quelles cartes proposez-vous ?")
    assert values["templateName"] == "dydu_product_001"
    assert json.loads(values["templateData"]) == {"title": "Carte Jeune", "numeric": 0, "subtitle": "Gratuite"}
    assert values["urlRedirect"] == "https://bank.example/jeunes"
    assert values["nextStepResponse"] == {"text": "<p>Puis…</p>"}


def test_items_are_featured_from_the_list(staff, demo_bot, chatbox):
    fees = KnowledgeItem.objects.get(bot=demo_bot, label="Account fees")
    featured = list(KnowledgeItem.objects.filter(bot=demo_bot, featured=True).values_list("pk", flat=True))
    response = staff.post("/admin/knowledge/knowledgeitem/", {"action": "unfeature", "_selected_action": featured})
    assert response.status_code == 302
    staff.post("/admin/knowledge/knowledgeitem/", {"action": "feature", "_selected_action": [fees.pk]})
    top = chatbox.values(chatbox.post(f"chat/topknowledge/{chatbox.bot}", {"language": "fr"}))
    assert [a["knowledgeId"] for a in json.loads(top["knowledgeArticles"])] == [fees.pk]
    # The list shows the flag as an editable column.
    page = staff.get("/admin/knowledge/knowledgeitem/?q=Account+fees").content.decode()
    assert 'name="form-0-featured"' in page
