"""The "Import / export" page in chromium, as an editor of the French demo bot, in English and in French:
reached from the sidebar and from the bot's page; the export downloads the XML file; importing that file
shows the upload's progress bar, then the counts per kind; a file with a DOCTYPE is refused on the page
with nothing changed; delete asks first, naming what goes, then deletes. A reader sees export only.
Screenshots go to test-results/kb-exchange/."""

import pytest
from playwright.sync_api import expect

from accounts.models import Account, Role
from knowledge.models import Formulation, KnowledgeItem
from tests.accounts.personas import PASSWORD, make_persona
from tests.browser import back_office_context, screenshots, sign_in
from tests.e2e.conftest import browser, demo_bot_live  # noqa: F401 (chromium, the live server's demo bot)

from .conftest import attack

pytestmark = pytest.mark.browser
expect.set_options(timeout=15_000)
shot = screenshots("kb-exchange", full_page=True)

TEXTS = {
    "en": {
        "sidebar": "Import / export",
        "colon": ": ",
        "download": "Download the XML file",
        "import": "Import the file",
        "sending": "Sending the file:",
        "imported": "was imported in",
        "items": "Knowledge items",
        "doctype": "The file holds a DOCTYPE (or an entity), which is never accepted.",
        "unchanged": "Nothing was changed: the knowledge base is as it was.",
        "delete": "Delete…",
        "asks": "Delete the knowledge base of",
        "yes": "Yes, delete it",
        "deleted": "The knowledge base was deleted",
        "bot_link": "Import, export or delete the knowledge base",
    },
    "fr": {
        "sidebar": "Import / export",
        "colon": " : ",
        "download": "Télécharger le fichier XML",
        "import": "Importer le fichier",
        "sending": "Envoi du fichier :",
        "imported": "a été importé en",
        "items": "Éléments de connaissance",
        "doctype": "Le fichier contient une DOCTYPE (ou une entité), ce qui n’est jamais accepté.",
        "unchanged": "Rien n’a changé : la base de connaissances est telle qu’elle était.",
        "delete": "Supprimer…",
        "asks": "Supprimer la base de connaissances de",
        "yes": "Oui, la supprimer",
        "deleted": "La base de connaissances a été supprimée",
        "bot_link": "Importer, exporter ou supprimer la base de connaissances",
    },
}


def open_as(browser, live_server, user, language):  # noqa: F811
    context = back_office_context(browser, locale="fr-FR" if language == "fr" else "en-GB", accept_downloads=True)
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    sign_in(page, live_server.url, user.username, PASSWORD)
    return context, page


@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_editor_exports_imports_and_deletes_the_knowledge_base(
    browser,  # noqa: F811
    live_server,
    demo_bot_live,  # noqa: F811
    tmp_path,
    language,
):
    text = TEXTS[language]
    bot = demo_bot_live
    editor, _ = make_persona(Account.objects.get(name="Demo"), Role.EDITOR, login=f"edith-{language}")
    items, formulations = (
        KnowledgeItem.objects.filter(bot=bot).count(),
        Formulation.objects.filter(item__bot=bot).count(),
    )
    context, page = open_as(browser, live_server, editor, language)
    try:
        # From the bot's page, then from the sidebar.
        page.goto(f"{live_server.url}/admin/bots/bot/{bot.pk}/change/")
        expect(page.get_by_test_id("bot-kb-exchange")).to_have_text(text["bot_link"])
        page.get_by_test_id("bot-kb-exchange").click()
        expect(page.get_by_test_id("kb-exchange")).to_be_visible()
        page.goto(live_server.url + "/admin/")
        page.get_by_role("link", name=text["sidebar"]).first.click()
        expect(page.get_by_test_id("holds")).to_contain_text(f"{text['items']}{text['colon']}{items}")
        shot(page, f"{language}-01-page")

        # Export: a download of the XML file, the gallery included.
        with page.expect_download() as download_info:
            page.get_by_role("button", name=text["download"]).click()
        download = download_info.value
        assert download.suggested_filename.endswith(".xml")
        exported = tmp_path / "kb.xml"
        download.save_as(exported)
        content = exported.read_bytes()
        assert content.startswith(b"<?xml") and b"<knowledgeBase " in content

        # A file with a DOCTYPE: refused on the page, nothing changed.
        hostile = tmp_path / "hostile.xml"
        hostile.write_bytes(attack("xxe_file.xml"))
        page.get_by_test_id("import-file").set_input_files(str(hostile))
        page.get_by_role("button", name=text["import"]).click()
        refused = page.get_by_test_id("import-refused")
        expect(refused).to_contain_text(text["doctype"])
        expect(refused).to_contain_text(text["unchanged"])
        assert KnowledgeItem.objects.filter(bot=bot).count() == items
        shot(page, f"{language}-02-refused")

        # Import of the exported file: the upload's bar (the upload slowed to 40 KB/s so that it shows),
        # then the summary with the counts per kind.
        network = context.new_cdp_session(page)
        network.send("Network.enable")
        slow = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 40_000}
        network.send("Network.emulateNetworkConditions", slow)
        page.get_by_test_id("import-file").set_input_files(str(exported))
        page.get_by_role("button", name=text["import"]).click()
        sending = page.get_by_test_id("upload-progress")
        expect(sending).to_be_visible()
        expect(sending).to_contain_text(text["sending"])
        expect(page.get_by_test_id("import-file-name")).to_have_text("kb.xml")
        page.wait_for_function(
            "() => parseFloat(document.querySelector('[data-testid=upload-progress] .bar span').style.width) > 0"
        )
        shot(page, f"{language}-03-uploading")
        network.send("Network.emulateNetworkConditions", {**slow, "uploadThroughput": -1})
        result = page.get_by_test_id("import-result")
        expect(result).to_contain_text(text["imported"])
        expect(result.locator("tr").first).to_contain_text(text["items"])
        expect(result.locator("tr").first.locator("td.number")).to_have_text(str(items))
        expect(page.get_by_test_id("upload-progress")).to_be_hidden()  # shown while it was sent, then gone
        assert Formulation.objects.filter(item__bot=bot).count() == formulations
        shot(page, f"{language}-04-imported")

        # Delete: asks first, naming what goes, then deletes.
        page.get_by_role("button", name=text["delete"]).click()
        expect(page.get_by_test_id("kb-delete")).to_contain_text(text["asks"])
        goes = page.get_by_test_id("what-goes")
        expect(goes.locator("tr").first).to_contain_text(str(items))
        expect(goes).to_contain_text(str(formulations))
        assert KnowledgeItem.objects.filter(bot=bot).count() == items
        shot(page, f"{language}-05-delete-asks")
        page.get_by_role("button", name=text["yes"]).click()
        expect(page.get_by_text(text["deleted"])).to_be_visible()
        assert not KnowledgeItem.objects.filter(bot=bot).exists()
        expect(page.get_by_test_id("holds")).to_contain_text(f"{text['items']}{text['colon']}0")
        shot(page, f"{language}-06-deleted")
    finally:
        context.close()


def test_a_reader_sees_export_only(browser, live_server, demo_bot_live):  # noqa: F811
    reader, _ = make_persona(Account.objects.get(name="Demo"), Role.READER, login="rita")
    context, page = open_as(browser, live_server, reader, "en")
    try:
        page.goto(f"{live_server.url}/admin/knowledge/exchange/")
        expect(page.get_by_test_id("export")).to_be_visible()
        expect(page.get_by_test_id("import")).to_have_count(0)
        expect(page.get_by_test_id("delete")).to_have_count(0)
        shot(page, "en-07-reader")
    finally:
        context.close()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_page_follows_the_vectors_progress(browser, live_server, demo_bot_live, language):  # noqa: F811
    """Vectors still being computed (as after an import with embeddings): the page shows how far, and its
    script polls the status URL until they are done."""
    from django.utils import timezone

    from knowledge.vectors.models import VectorJob

    bot = demo_bot_live
    total = Formulation.objects.filter(item__bot=bot).count()
    job = VectorJob.objects.create(bot=bot, state="running", done=40, total=total, scheduled_at=timezone.now())
    editor, _ = make_persona(Account.objects.get(name="Demo"), Role.EDITOR, login=f"vera-{language}")
    context, page = open_as(browser, live_server, editor, language)
    try:
        page.goto(f"{live_server.url}/admin/knowledge/exchange/{bot.pk}/")
        vectors = page.get_by_test_id("vectors-text")
        expect(vectors).to_contain_text(f"40 {'of' if language == 'en' else 'sur'} {total}")
        shot(page, f"{language}-08-vectors-running")
        job.state, job.done = "done", total
        job.save()
        done = "The bot answers with its full matcher." if language == "en" else "correspondance complète"
        expect(vectors).to_contain_text(done)  # polled every 2 s
        expect(page.get_by_test_id("vectors")).to_have_attribute("data-state", "done")
        expect(page.locator("[data-testid=vectors] .bar span")).to_have_attribute("style", "width: 100%;")
        page.wait_for_timeout(400)  # the bar's 0.2 s transition, for the screenshot
        shot(page, f"{language}-09-vectors-done")
    finally:
        context.close()
