"""The operators' console, its supervision view, the callback page and the refusal page in English and in French:
every word of the scripts has its French in djangojs.po, and a real browser (chromium against a real server
process) shows each page wholly in the language its user chose, none of the other's words. Screenshots:
test-results/console-languages/."""

import re
import shutil
from pathlib import Path

import polib
import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser import new_pages, screenshots, sign_in
from tests.servers import Browser, Platform

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "static" / "livechat").glob("*.js"))
JS_CATALOGUE = ROOT / "config" / "locale" / "fr" / "LC_MESSAGES" / "djangojs.po"
PAGE_CATALOGUE = ROOT / "config" / "locale" / "fr" / "LC_MESSAGES" / "django.po"
TEMPLATES = ("templates/livechat/console.html", "templates/livechat/not_operator.html")
OPERATOR, PASSWORD = "lina", "lina-pass-2026-languages"
READER, READER_PASSWORD = "remi", "remi-pass-2026-languages"
DEMO_BOT = "d3b0d3b0-0000-4000-8000-000000000001"
# What each language's console says, that the other's must not (a sample; the scan below uses every entry).
SAYS = {
    "en": ["My conversations", "Queue", "Callbacks", "Send", "Predefined answers", "Team", "Transfer"],
    "fr": ["Mes conversations", "File d'attente", "Rappels", "Envoyer", "Réponses prédéfinies", "Équipe", "Transférer"],
}
STRING = r'"((?:[^"\\\n]|\\.)*)"'
# _("…") / gettext("…") and ngettext("…", "…", n) in the scripts: what the catalogue must hold.
SINGULAR = re.compile(r"(?<![\w.])(?:_|gettext)\(\s*" + STRING)
PLURAL = re.compile(r"(?<![\w.])ngettext\(\s*" + STRING + r"\s*,\s*" + STRING)
# A call of _() with anything but a literal: makemessages could not see it, the French would be missing.
NOT_LITERAL = re.compile(r"(?<![\w.])(?:_|gettext|ngettext)\(\s*[^\s\")]")
PLACEHOLDER = re.compile(r"%\(\w+\)s")
COMMENT = re.compile(r"(?<![:\"'\\])//[^\n]*|/\*.*?\*/", re.S)  # not "http://…"
# The console's own words only: what visitors, bots and the server's data say is not the page's language.
VISIBLE_WORDS = """() => {
  const skip = '.transcript, .item-preview, .suggestions-list, .suggestions-for, #typing-content, .callback-reason,'
    + ' .callback-name, .canned-item, .visitor-details dd, .chat-sub, .item-tags .tag-comp, .sprite, script, style,'
    + ' .sr-only';
  const out = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) { out.push(node.textContent); return; }
    if (node.nodeType !== Node.ELEMENT_NODE || node.matches(skip)) return;
    const style = getComputedStyle(node);
    if (node.hidden || style.display === 'none' || style.visibility === 'hidden') return;
    for (const name of ['title', 'placeholder', 'aria-label']) {
      if (node.getAttribute(name)) out.push(node.getAttribute(name));
    }
    node.childNodes.forEach(walk);
  };
  walk(document.body);
  out.push(document.title);
  return out.join('\\n').replace(/[ \\t]+/g, ' ');
}"""

shot = screenshots("console-languages", full_page=True)


def unescape(text: str) -> str:
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape")


def script_words() -> tuple[set, set]:
    singular, plural = set(), set()
    for script in SCRIPTS:
        source = COMMENT.sub("", script.read_text(encoding="utf-8"))  # as makemessages reads them
        singular |= {unescape(text) for text in SINGULAR.findall(source)}
        plural |= {(unescape(one), unescape(many)) for one, many in PLURAL.findall(source)}
    return singular, plural


def test_every_word_of_the_console_scripts_has_its_french():
    catalogue = polib.pofile(str(JS_CATALOGUE))
    assert len(catalogue) > 150
    for entry in catalogue:
        assert "fuzzy" not in entry.flags, entry.msgid
        if entry.msgid_plural:
            assert all(entry.msgstr_plural.get(form, "").strip() for form in (0, 1)), entry.msgid
            forms = [entry.msgstr_plural[0], entry.msgstr_plural[1]]
        else:
            assert entry.msgstr.strip(), entry.msgid
            forms = [entry.msgstr]
        # The French fills the same blanks as the English (a lost %(visitor)s would show nothing).
        for form in forms:
            assert sorted(PLACEHOLDER.findall(form)) == sorted(PLACEHOLDER.findall(entry.msgid)), entry.msgid
    singular, plural = script_words()
    assert len(singular) > 150 and len(plural) >= 5
    known = {entry.msgid for entry in catalogue if not entry.msgid_plural}
    known_plural = {(entry.msgid, entry.msgid_plural) for entry in catalogue if entry.msgid_plural}
    assert sorted(singular - known) == []
    assert sorted(plural - known_plural) == []
    for script in SCRIPTS:
        assert NOT_LITERAL.findall(COMMENT.sub("", script.read_text(encoding="utf-8"))) == [], script.name


def test_the_scripts_show_no_french_of_their_own():
    """Every French word reaches the scripts through the catalogue: none is written in them (comments and the
    visitor-variable names they look up, like "prénom", aside)."""
    for script in SCRIPTS:
        source = COMMENT.sub("", script.read_text(encoding="utf-8"))
        for text in re.findall(STRING, source):
            if re.search(r"[À-ÿ«»]", text) and text != "prénom":
                pytest.fail(f"{script.name}: {text!r} is not in the catalogue")


def phrases() -> dict:
    """Each language's words of the console (its scripts' and its templates' catalogue entries), as the scan
    looks for them: the literal parts of each entry around its %(…)s blanks, at least 4 letters long."""
    said = {"en": set(), "fr": set()}
    pairs = []
    for entry in polib.pofile(str(JS_CATALOGUE)):
        pairs.append((entry.msgid, entry.msgstr or entry.msgstr_plural.get(0, "")))
        if entry.msgid_plural:
            pairs.append((entry.msgid_plural, entry.msgstr_plural.get(1, "")))
    for entry in polib.pofile(str(PAGE_CATALOGUE)):
        if any(path in TEMPLATES for path, _line in entry.occurrences) and not entry.msgid_plural:
            pairs.append((entry.msgid, entry.msgstr))
    for english, french in pairs:
        if english == french:
            continue
        for language, text in (("en", english), ("fr", french)):
            for part in PLACEHOLDER.split(re.sub(r"<[^>]+>", "", text)):
                part = part.strip(" :·,.()#“”«»?!…")
                if len(re.findall(r"[^\W\d_]", part)) >= 4:
                    said[language].add(part)
    # A word both languages use ("Conversation", "Variables") is no sign of either.
    common = {part for part in said["en"] if any(part in other for other in said["fr"])}
    common |= {part for part in said["fr"] if any(part in other for other in said["en"])}
    return {language: parts - common for language, parts in said.items()}


def other_language_shown(page, language: str, words: dict) -> list:
    text = page.evaluate(VISIBLE_WORDS)
    other = "fr" if language == "en" else "en"
    return sorted(word for word in words[other] if re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", text))


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with Platform(tmp_path_factory.mktemp("console-languages")) as running:
        running.add_operator(OPERATOR, PASSWORD, display_name="Lina")
        token = running.admin_token()
        Browser(running.servers[0]).post_form(
            "/servlet/api/bousers", {"login": READER, "password": READER_PASSWORD, "role": "reader"}, token=token
        )
        yield running


@pytest.fixture(scope="module")
def chromium():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"))
        yield browser
        browser.close()


@pytest.mark.browser
@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_console_speaks_its_operator_language_and_only_it(platform, chromium, language):
    server = platform.servers[0]
    words = phrases()
    assert len(words["en"]) > 150 and len(words["fr"]) > 150
    # The browser says the other language: the back office's choice (its cookie) is what counts.
    browser_locale = "fr-FR" if language == "en" else "en-US"
    with new_pages(chromium, width=1366, height=900, locale=browser_locale, timeout=15_000) as new:
        console = new()
        errors = []
        console.on("pageerror", lambda error: errors.append(str(error)))
        console.context.add_cookies([{"name": "django_language", "value": language, "url": server.base}])
        sign_in(console, server.base, OPERATOR, PASSWORD)
        expect(console).to_have_url(server.url("/livechat/"))
        expect(console.locator("html")).to_have_attribute("lang", language)
        status = console.get_by_test_id("status-select")
        expect(status).to_be_enabled()
        status.select_option("available")
        available = {"en": "Available", "fr": "Disponible"}[language]
        expect(console.locator("#me-load")).to_contain_text(available)
        for text in SAYS[language]:
            expect(console.locator("body")).to_contain_text(text)
        shot(console, f"{language}-01-home")
        assert other_language_shown(console, language, words) == []

        # A visitor asks for a person, another leaves a number to be called back.
        visitor = new()
        visitor.goto(server.url("/demo/"))
        expect(visitor.locator(".dcb-row-bot").first).to_be_visible()
        visitor.locator("#dcb-input").fill("Je veux parler à un conseiller")
        visitor.locator("#dcb-input").press("Enter")
        expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")
        caller = new()
        caller.goto(server.url(f"/livechat/callback/{DEMO_BOT}/?lang={language}"))
        expect(caller.locator("html")).to_have_attribute("lang", language)
        shot(caller, f"{language}-02-callback-page")
        assert other_language_shown(caller, language, words) == []
        caller.fill("#phone", "+33 6 12 34 56 78")
        caller.locator("button[type=submit]").click()
        expect(caller.get_by_test_id("callback-sent")).to_be_visible()

        item = console.get_by_test_id("dialog-item").last  # this run's visitor (the platform is the module's)
        expect(item).to_be_visible()
        expect(console.get_by_test_id("callback-item").first).to_contain_text(
            {"en": "To call back", "fr": "À rappeler"}[language]
        )
        item.click()
        expect(console.locator("#conversation")).to_be_visible()
        expect(console.get_by_test_id("visitor-details")).to_contain_text(
            {"en": "French (fr)", "fr": "Français (fr)"}[language]
        )
        console.get_by_test_id("composer-input").fill("Bonjour, je suis Lina.")
        console.get_by_test_id("composer-send").click()
        # Sent, then read as soon as the visitor's page shows it.
        receipt = {"en": r"^\s*·\s+(Sent|Read)\s*$", "fr": r"^\s*·\s+(Envoyé|Lu)\s*$"}[language]
        expect(console.locator(".msg.out .receipt").last).to_have_text(re.compile(receipt))
        # Clock times and dates in the page's language (Intl with the page's lang).
        clock = console.locator(".msg.out time").last.inner_text()
        assert re.fullmatch(r"\d\d:\d\d( [AP]M)?" if language == "en" else r"\d\d:\d\d", clock), clock
        shot(console, f"{language}-03-conversation")
        assert other_language_shown(console, language, words) == []

        # The predefined answers, the end's confirmation, the All view and the search (supervision.js).
        console.get_by_test_id("canned-button").click()
        expect(console.locator("#canned")).to_be_visible()
        expect(console.get_by_test_id("canned-search")).to_have_attribute(
            "placeholder", {"en": "Search a predefined answer…", "fr": "Rechercher une réponse prédéfinie…"}[language]
        )
        shot(console, f"{language}-04-predefined-answers")
        assert other_language_shown(console, language, words) == []
        console.keyboard.press("Escape")
        console.get_by_test_id("end-button").click()
        expect(console.locator("#end-dialog")).to_be_visible()
        expect(console.locator("#end-dialog-text")).to_contain_text(
            {"en": "You are ending the conversation with", "fr": "Vous terminez la conversation avec"}[language]
        )
        shot(console, f"{language}-05-end-confirmation")
        assert other_language_shown(console, language, words) == []
        console.get_by_test_id("end-cancel").click()
        console.get_by_test_id("view-all").click()
        expect(console.get_by_test_id("all-list").locator("li").first).to_be_visible()
        shot(console, f"{language}-06-all-view")
        assert other_language_shown(console, language, words) == []
        console.get_by_test_id("view-search").click()
        console.get_by_test_id("search-text").fill("conseiller")
        console.get_by_test_id("search-submit").click()
        expect(console.locator("#search-hint")).to_have_text(
            # One conversation per language's run so far (the platform is the module's): 1 in English, 2 in French.
            re.compile({"en": r"^1 conversation found\.$", "fr": r"^2 conversations trouvées\.$"}[language])
        )
        shot(console, f"{language}-07-search")
        assert other_language_shown(console, language, words) == []
        assert errors == []

        # A back-office user who may not answer visitors is told so in their language.
        reader = new()
        reader.context.add_cookies([{"name": "django_language", "value": language, "url": server.base}])
        sign_in(reader, server.base, READER, READER_PASSWORD)
        reader.wait_for_load_state()
        response = reader.goto(server.url("/livechat/"))
        assert response.status == 403
        expect(reader.locator("html")).to_have_attribute("lang", language)
        expect(reader.locator("h1")).to_have_text(
            {"en": "Live chat is for advisors only", "fr": "Le live chat est réservé aux conseillers"}[language]
        )
        expect(reader.get_by_test_id("refusal-reason")).to_contain_text(
            {"en": "Only operators and administrators", "fr": "Seuls les opérateurs et les administrateurs"}[language]
        )
        shot(reader, f"{language}-08-not-an-operator")
        assert other_language_shown(reader, language, words) == []
