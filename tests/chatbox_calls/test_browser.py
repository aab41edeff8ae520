"""The chatbox's upload and print calls in a real browser (Debian's chromium) against daphne: a visitor in
live chat sends files, the operator sees them in the console and downloads one; the answer page posts its
literal to the chatbox's page from a hidden frame, as CV5 uses it; the printable transcript on screen and
in print, with a <script> typed by the visitor shown as text. Screenshots go to test-results/chatbox_calls/."""

import json
import re
import urllib.error
import urllib.request
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.browser import RESULTS, new_pages, screenshots
from tests.chatbox_calls.conftest import CALLBACK, FIELD, cv5_answer, pdf, png
from tests.conftest import decode
from tests.e2e.conftest import browser  # noqa: F401  (the fixture: Debian's chromium through Playwright)

# The live-chat browser test's platform (daphne, with its operator; one per module) and the operator's
# way into the console (login form, then available).
from tests.e2e.test_livechat import open_console, platform  # noqa: F401 (platform: the fixture)
from tests.servers import BOT_UUID

pytestmark = pytest.mark.browser
expect.set_options(timeout=15_000)

shot = screenshots("chatbox_calls")
HOSTILE = "<script>alert('perdu')</script> J'ai perdu ma carte"
BOUNDARY = "browser-test-boundary"


@pytest.fixture
def pages(browser):  # noqa: F811
    with new_pages(browser, width=1280, height=860, locale="fr-FR", timeout=15_000) as new_page:

        def new(**options):
            page = new_page(**options)
            # Nothing on these pages may open a dialog box: a visitor's <script> that ran would.
            page.on("dialog", lambda dialog: pytest.fail(f"a script ran: {dialog.message}"))
            return page

        yield new


class Visitor:
    """The chatbox's REST calls, over real HTTP."""

    def __init__(self, server):
        self.server = server
        self.context_id = ""

    def talk(self, text: str) -> dict:
        path = f"/servlet/api/chat/talk/{BOT_UUID}" + (f"/{self.context_id}" if self.context_id else "")
        form = {"userInput": text, "language": "fr", "space": "Defaut", "solutionUsed": "ASSISTANT"}
        with urllib.request.urlopen(self.server.url(path), urlencode(form).encode(), timeout=30) as answer:
            values = decode(json.load(answer)["values"])
        self.context_id = values["contextId"]
        return values

    def send_file(self, name: str, content: bytes, content_type: str) -> dict:
        body = (
            (
                f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{FIELD}"; filename="{name}"\r\n'
                f"Content-Type: {content_type}\r\n\r\n"
            ).encode()
            + content
            + f"\r\n--{BOUNDARY}--\r\n".encode()
        )
        query = urlencode({"ctx": self.context_id, "fin": FIELD, "cb": CALLBACK})
        request = urllib.request.Request(
            self.server.url(f"/servlet/fileupload?{query}"),
            data=body,
            headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return cv5_answer(answer.read().decode())
        except urllib.error.HTTPError as refused:  # a refusal is an answer page too
            return cv5_answer(refused.read().decode())


def test_the_operator_sees_and_downloads_a_visitors_files_and_the_transcript_prints(platform, pages, tmp_path):  # noqa: F811
    server = platform.servers[0]
    console = open_console(pages(), server)

    visitor = Visitor(server)
    visitor.talk(HOSTILE)
    handed = visitor.talk("Je veux parler à un conseiller")
    assert handed["typeResponse"] == "DMLiveChatConnectionSucceed"
    image, document = png(24, 16), pdf()
    assert visitor.send_file("carte recto.png", image, "image/png")["params"]["status"] == "success"
    assert visitor.send_file("relevé novembre.pdf", document, "application/pdf")["params"]["status"] == "success"
    refused = visitor.send_file("photo.png", b"<html><script>alert(1)</script></html>", "image/png")
    assert refused["params"]["status"] == "fail"

    # The console: the dialog, then both files as the visitor's messages, with their size and a download.
    console.get_by_test_id("dialog-item").first.click()
    transcript = console.get_by_test_id("transcript")
    files = transcript.get_by_test_id("file")
    expect(files).to_have_count(2)
    expect(files.nth(0).get_by_test_id("file-name")).to_have_text("carte recto.png")
    expect(files.nth(1)).to_contain_text("relevé novembre.pdf")
    expect(files.nth(1)).to_contain_text("PDF")
    expect(transcript.locator('[data-from="visitor"]').first).to_contain_text("<script>alert('perdu')</script>")
    shot(console, "01-console-files")

    with console.expect_download() as download_info:
        files.nth(1).get_by_test_id("file-download").click()
    download = download_info.value
    assert download.suggested_filename == "relevé novembre.pdf"
    saved = tmp_path / "downloaded.pdf"
    download.save_as(saved)
    assert saved.read_bytes() == document

    # The printable transcript CV5 opens: every exchange, the visitor's <script> as text.
    printed = pages()
    query = urlencode({"context": visitor.context_id, "format": "html", "userLabel": "Moi", "botLabel": "Chatbot"})
    printed.goto(server.url(f"/servlet/history?{query}"))
    lines = printed.get_by_test_id("line")
    expect(lines.first).to_have_text(re.compile(r"Moi\s*<script>alert\('perdu'\)</script> J'ai perdu ma carte"))
    expect(printed.get_by_test_id("file")).to_have_count(2)
    expect(printed.locator("h1")).to_have_text("Conversation avec Chatbot")
    shot(printed, "02-transcript-screen", full_page=True)
    printed.emulate_media(media="print")
    shot(printed, "03-transcript-print", full_page=True)
    # And as a PDF, which is what the print dialog makes of it.
    printed.pdf(path=str(RESULTS / "chatbox_calls" / "03-transcript-print.pdf"))

    missing = pages()
    missing.goto(server.url("/servlet/history?context=00000000-0000-4000-8000-000000000000&format=html"))
    expect(missing.locator("h1")).to_have_text("Conversation introuvable")
    shot(missing, "04-transcript-unknown")


def test_the_answer_page_reaches_the_chatbox_page_from_a_hidden_frame(platform, pages, tmp_path):  # noqa: F811
    """CV5's way: a form posted into a hidden frame; the answer page hands its literal to the page at the
    origin the call named (its one inline script is allowed by the page's CSP hash)."""
    server = platform.servers[0]
    visitor = Visitor(server)
    visitor.talk("Bonjour")
    page = pages()
    page.goto(server.url("/demo/"))
    origin = server.base
    query = urlencode({"ctx": visitor.context_id, "fin": FIELD, "cb": CALLBACK, "origin": origin})
    page.evaluate(
        """([action]) => {
            window.received = [];
            window.addEventListener("message", (event) => window.received.push([event.origin, event.data]));
            const frame = document.createElement("iframe");
            frame.name = "dydu-upload-frame";
            frame.style.display = "none";
            document.body.appendChild(frame);
            const form = document.createElement("form");
            form.method = "post";
            form.enctype = "multipart/form-data";
            form.action = action;
            form.target = "dydu-upload-frame";
            form.id = "dydu-upload-form";
            const input = document.createElement("input");
            input.type = "file";
            input.name = "dydu-upload-file";
            form.appendChild(input);
            document.body.appendChild(form);
        }""",
        [f"/servlet/fileupload?{query}"],
    )
    picture = tmp_path / "justificatif.png"
    picture.write_bytes(png(8, 8))
    page.set_input_files("#dydu-upload-form input", str(picture))
    page.evaluate("document.getElementById('dydu-upload-form').submit()")
    page.wait_for_function("window.received.length > 0")
    [[sender, data]] = page.evaluate("window.received")
    assert sender == origin
    assert cv5_answer(data) == {"api": CALLBACK, "params": {"filesUploaded": ["justificatif.png"], "status": "success"}}
    shot(page, "05-upload-from-hidden-frame")
