"""Every registered back-office page (each admin's list, add form where allowed and one change form, the home,
the API access and token pages, the authentication page) rendered for the demo bot's administrator in English
and in French: our catalogue has no untranslated or fuzzy entry, a French page shows none of our English
strings and an English page none of our French ones (in labels, headings, buttons, filters, messages)."""

import re
from html import unescape
from pathlib import Path

import lxml.html
import polib
import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.db.models import CharField, TextField
from django.test import RequestFactory
from django.utils.functional import Promise

from accounts.models import Role
from bots.models import Bot
from dialogs.surveys.models import Survey
from knowledge.demo.seed import BOT_UUID
from tests.accounts.personas import make_persona

pytestmark = pytest.mark.django_db
OUR_APPS = {"accounts", "bots", "dialogs", "knowledge", "preferences", "livechat"}
MISSING = "/admin/knowledge/nothing-here/"  # the back office's 404 page
CATALOGUE = Path(settings.BASE_DIR) / "config" / "locale" / "fr" / "LC_MESSAGES" / "django.po"
THEME_CATALOGUE = Path(settings.BASE_DIR) / "config" / "locale_theme" / "fr" / "LC_MESSAGES" / "django.po"
# The demo bot's own content (knowledge, answers, dialogs) is French and English on purpose: these hold data.
# What is never words of the page: code, values typed or picked, an error's technical detail, icons' names.
DATA = (
    "//script|//style|//template|//textarea|//select|//pre|//code"
    "|//*[@data-testid='error-detail']"
    "|//*[contains(@class, 'material-symbols')]"
)
# English words no French sentence of ours uses: one of them in a French page is a string left untranslated.
ENGLISH_WORDS = {"the", "and", "with", "this", "your", "which", "when", "has", "have", "are", "was", "been",
                 "will", "from", "into", "only", "their", "there", "these", "those", "yet", "not", "none",
                 "add", "delete", "save", "search", "filter", "view", "edit", "show", "hide"}  # fmt: skip
# Words both languages write alike, and product names kept as is.
SHARED = {"live chat", "back office", "e-mail", "chatbox", "token", "bot", "bots"}


def catalogue() -> polib.POFile:
    return polib.pofile(str(CATALOGUE))


def phrases(entries) -> tuple[set[str], set[str]]:
    """Our English msgids (translated differently or not yet) and their French msgstrs, of two words or more,
    without placeholders."""
    english, french = set(), set()
    for entry in entries:
        if entry.obsolete or entry.msgid == entry.msgstr:
            continue
        pairs = [(entry.msgid, entry.msgstr, english), (entry.msgstr, entry.msgid, french)] if entry.msgstr else []
        for text, other, into in pairs or [(entry.msgid, "", english)]:
            if "%" in text or "{" in text or "<" in text or len(text.split()) < 2 or text.lower() in SHARED:
                continue
            if text.lower() in other.lower():  # "Live chat" in "Live chat du bot": not a sign of a language
                continue
            into.add(" ".join(text.split()))
    return english, french


def visible_text(html: bytes, cells: bool = True) -> str:
    """The page's words a person reads: data (values, code, icons; the list's cells unless `cells`) removed."""
    tree = lxml.html.document_fromstring(html.decode())
    for node in tree.xpath(DATA if cells else DATA + "|//td"):
        node.drop_tree()
    for node in tree.xpath("//input"):
        node.attrib.pop("value", None)
    words = [" ".join(" ".join(piece.split()) for piece in tree.body.itertext() if piece.strip())]
    # Texts a person meets outside the body's words: buttons' values, placeholders, titles and labels.
    for attribute in ("placeholder", "title", "aria-label"):
        words += [" ".join(value.split()) for value in tree.xpath(f"//body//@{attribute}")]
    words += [value for value in tree.xpath("//input[@type='submit']/@value")]
    return " | ".join(words)


def stored_texts() -> list[str]:
    """Every text our models store (the demo bot's labels, sentences, names…), longest first: data, not words of
    the page (the filters list a bot's tags and items, a change form shows its values)."""
    texts = set()
    for model in apps.get_models():
        if model._meta.app_label not in OUR_APPS and model._meta.label != "auth.User":
            continue
        names = [f.name for f in model._meta.concrete_fields if isinstance(f, (CharField, TextField))]
        for row in model.objects.values_list(*names) if names else ():
            texts.update(" ".join(unescape(re.sub(r"<[^>]+>", " ", v)).split()) for v in row if isinstance(v, str))
    # A change page's title shows its object's name with a capital first letter (Django's capfirst): data too.
    texts |= {text[:1].upper() + text[1:] for text in texts}
    return sorted((text for text in texts if " " in text), key=len, reverse=True)


def without(text: str, data: list[str]) -> str:
    """The text without the stored texts of several words (one word of data cannot read as a phrase of ours)."""
    for value in data:
        if value in text:
            text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", text)
    return text


def found(text: str, wanted: set[str]) -> list[str]:
    return sorted(p for p in wanted if re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", text))


def english_words(text: str) -> list[str]:
    """The English words of a French page, quoted examples left out ({"en": "Which day?"} in a help text)."""
    text = re.sub(r'"[^"]*"', " ", text)
    return sorted({word for word in re.findall(r"[A-Za-z]+", text) if word.lower() in ENGLISH_WORDS})


def pages(user) -> list[str]:
    """The home, the back office's own pages, then for each registered admin its list, its add form if the user
    may add, and one change form."""
    bot = Bot.objects.get(uuid=BOT_UUID)
    urls = ["/admin/", MISSING, "/servlet/authentication.html", "/admin/password_change/", "/admin/bots/analytics/"]
    urls += [f"/admin/knowledge/exchange/{bot.pk}/"]
    urls += [f"/admin/{app}/" for app in sorted({model._meta.app_label for model in admin.site._registry})]
    urls += [f"/admin/dialogs/survey/{survey.pk}/results/" for survey in Survey.objects.filter(bot=bot)[:1]]
    request = RequestFactory().get("/admin/")
    request.user = user
    for model, model_admin in admin.site._registry.items():
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        if not model_admin.has_view_or_change_permission(request):
            continue
        urls.append(base)
        if model_admin.has_add_permission(request):
            urls.append(base + "add/")
        first = model_admin.get_queryset(request).order_by("pk").first()
        if first is not None:
            urls.append(f"{base}{first.pk}/change/")
    return urls


@pytest.fixture
def administrator(client, demo_bot, chatbox):
    chatbox.talk("Combien coûte le compte ?")  # a dialog, its messages and a misunderstood input to show
    chatbox.talk("zzz qwerty ?")
    user, _ = make_persona(demo_bot.account, Role.ADMINISTRATOR, login="claire")
    client.force_login(user)
    return user


def test_every_model_and_field_of_ours_is_named_in_the_catalogue():
    """Each model gives its own words (gettext_lazy): names, plural names and every editable field's name, so
    the back office shows them in the user's language, never Django's made-up English from the code's name."""
    unnamed = []
    for model in apps.get_models():
        if model._meta.app_label not in OUR_APPS:
            continue
        for words in (model._meta.verbose_name, model._meta.verbose_name_plural):
            if not isinstance(words, Promise):
                unnamed.append((model._meta.label, words))
        # Without its own plural Django builds one lazily in English ("GDPR actions"), never translated.
        if not model._meta.proxy and "verbose_name_plural" not in model._meta.original_attrs:
            unnamed.append((model._meta.label, "verbose_name_plural"))
        for field in model._meta.get_fields():
            if (
                field.concrete
                and field.editable
                and not field.auto_created
                and not isinstance(field.verbose_name, Promise)
            ):
                unnamed.append((model._meta.label, field.name))
    assert not unnamed, unnamed


@pytest.mark.parametrize("path", [CATALOGUE, THEME_CATALOGUE], ids=["ours", "theme"])
def test_the_catalogue_is_complete(path):
    entries = polib.pofile(str(path))
    untranslated = [e.msgid for e in entries.untranslated_entries()]
    fuzzy = [e.msgid for e in entries.fuzzy_entries()]
    assert len(entries) > 100 and not untranslated and not fuzzy, {"untranslated": untranslated, "fuzzy": fuzzy}


def test_every_page_speaks_one_language(client, administrator):
    english, french = phrases(catalogue())
    urls = pages(administrator)
    data = stored_texts()
    assert len(urls) > 50, urls  # every admin was seen: lists, add forms and change forms
    wrong = {}
    for language, others in (("fr", english), ("en", french)):
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        for url in urls:
            response = client.get(url)
            assert response.status_code == (404 if url == MISSING else 200), (language, url, response.status_code)
            text = without(visible_text(response.content), data)
            assert f'lang="{language}"'.encode() in response.content[:400], (language, url)
            mixed = found(text, others)
            if language == "fr":
                # A list's cells show stored texts, shortened: the English words are looked for around them.
                mixed += english_words(without(visible_text(response.content, cells=False), data))
            if mixed:
                wrong[(language, url)] = mixed
    assert not wrong, "\n".join(f"{language} {url}: {words}" for (language, url), words in wrong.items())
