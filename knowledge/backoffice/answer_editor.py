"""The answer editor: rich text for people who do not write HTML (unfold's Trix editor) with the product's
own pieces (gallery images, links that ask the bot a question, bubble breaks), and the HTML source for
answers the rich text cannot hold. What is saved goes through the platform's sanitiser (answer_html)."""

import html
import re
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlencode

from django import forms
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from knowledge.answer_html import clean
from knowledge.links import reword_onclick
from knowledge.models import GalleryImage

# In the editor a question link is a plain link to "#reword?q=…&type=…" (Trix keeps only a link's href);
# saved, it is the chatbox's reword link (client-contract.md §3, knowledge/links.py).
EDITOR_PREFIX = "#reword?"
_JS_STRING = r"'((?:[^'\\]|\\.)*)'"
_REWORD_CALL = re.compile(r"reword\(" + _JS_STRING + r",\{'type':'(\w+)'((?:,'\w+':" + _JS_STRING + r")*)\}\)")
_OPTION = re.compile(r",'(\w+)':" + _JS_STRING)
_OPENING_A = re.compile(r"<a\b[^>]*>", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""([\w:-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""")
_UNESCAPE_JS = re.compile(r"\\(.)")

# What the rich text keeps as it is; an answer with anything else is edited as HTML (nothing is lost).
RICH_TAGS = {"a", "b", "strong", "i", "em", "u", "del", "br", "div", "p", "ul", "ol", "li", "h1", "h2", "h3", "h4",
             "blockquote", "pre", "img", "hr"}  # fmt: skip
RICH_ATTRIBUTES = {"a": {"href", "target", "rel", "class", "onclick"}, "img": {"src", "alt", "width", "height"}}


def _attributes(tag: str) -> dict[str, str]:
    return {name.lower(): html.unescape(value.strip("\"'")) for name, value in _ATTRIBUTE.findall(tag[2:])}


def _reword_call(onclick: str):
    match = _REWORD_CALL.search(onclick or "")
    if not match:
        return None
    question = _UNESCAPE_JS.sub(r"\1", match.group(1))
    options = {name: _UNESCAPE_JS.sub(r"\1", value) for name, value in _OPTION.findall(match.group(3))}
    return question, match.group(2), options


def to_editor(answer: str) -> str:
    """The chatbox's reword links as the editor's question links; everything else unchanged."""

    def link(match):
        call = _reword_call(_attributes(match.group(0)).get("onclick", ""))
        if call is None:
            return match.group(0)
        question, link_type, options = call
        query = urlencode({"q": question, "type": link_type, **options})
        return f'<a href="{html.escape(EDITOR_PREFIX + query)}">'

    return _OPENING_A.sub(link, answer or "")


def from_editor(answer: str) -> str:
    """The editor's question links as the chatbox's reword links (built here, so always well formed)."""

    def link(match):
        href = _attributes(match.group(0)).get("href", "")
        if not href.startswith(EDITOR_PREFIX):
            return match.group(0)
        fields = dict(parse_qsl(href[len(EDITOR_PREFIX) :]))
        question = fields.pop("q", "").strip()
        link_type = fields.pop("type", "") or "redirection_knowledge"
        if not question or not re.fullmatch(r"\w+", link_type) or not all(re.fullmatch(r"\w+", k) for k in fields):
            return "<a>"  # a question link with no question: its text stays, the link goes
        return f'<a href="#" class="reword" onclick="{reword_onclick(question, link_type, **fields)}">'

    return _OPENING_A.sub(link, answer or "")


def saved_answer(answer: str) -> str:
    """What the back office stores for an answer typed in either mode: sanitised by the platform's
    allowlist (no script, event handler or javascript: link), the question links kept as reword links."""
    return from_editor(clean(to_editor(answer)))


class _RichCheck(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rich = True

    def handle_starttag(self, tag, attrs):
        allowed = RICH_ATTRIBUTES.get(tag, set())
        if tag not in RICH_TAGS or any(name not in allowed for name, _value in attrs):
            self.rich = False
        if tag == "a" and dict(attrs).get("onclick") and _reword_call(dict(attrs)["onclick"]) is None:
            self.rich = False  # a script of the author's own, not a question link

    handle_startendtag = handle_starttag

    def handle_comment(self, data):
        self.rich = False


def rich_editable(answer: str) -> bool:
    """Whether the rich text can show and save this answer without losing any of it."""
    check = _RichCheck()
    check.feed(answer or "")
    check.close()
    return check.rich


def gallery_choices(request, bot_id: int | None) -> list[dict]:
    """The images an answer may show: the item's bot's gallery, at the address visitors load them from."""
    if not bot_id:
        return []
    images = GalleryImage.objects.filter(bot_id=bot_id).select_related("bot").only("name", "bot__uuid")
    return [
        {
            "name": image.name,
            "url": request.build_absolute_uri(reverse("knowledge-gallery-image", args=[image.bot.uuid, image.pk])),
        }
        for image in images
    ]


class AnswerEditor(forms.Textarea):
    """The answer's HTML in a textarea (what is posted), edited through a rich-text editor unless the
    answer holds HTML the rich text would drop; a switch shows the source."""

    template_name = "knowledge/backoffice/answer_editor.html"

    def __init__(self, gallery=(), attrs=None):
        super().__init__(attrs)
        self.gallery = list(gallery)

    class Media:
        css = {"all": ["unfold/forms/css/trix/trix.css", "knowledge/backoffice/answer_editor.css"]}
        js = ["unfold/forms/js/trix/trix.js", "unfold/forms/js/trix.config.js", "knowledge/backoffice/answer_editor.js"]

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        text = self.format_value(value) or ""
        context["editor"] = {
            "rich": rich_editable(text),
            "gallery": self.gallery,
            "labels": EDITOR_LABELS,
        }
        return context


EDITOR_LABELS = {
    "rich": _("Rich text"),
    "source": _("HTML"),
    "image": _("Image from the gallery"),
    "no_images": _("The bot's gallery has no image yet (Knowledge › Gallery)."),
    "question": _("Link to a question"),
    "question_prompt": _("The question the bot is asked when the visitor clicks the link:"),
    "bubble": _("New bubble"),
    "html_only": _(
        "This answer holds HTML the rich text cannot keep (a table, a style, a script): it is edited as HTML."
    ),
}
