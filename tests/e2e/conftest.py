"""Real-browser fixtures: Debian's chromium driven by Playwright, the live server seeded with the demo bot."""

import os
import shutil
from urllib.parse import parse_qsl, urlsplit

import pytest

CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
API_PREFIX = "/servlet/api/"


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not on PATH (`make test` installs it with apt-get; no browser is downloaded)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an asyncio loop on this thread, which makes Django refuse the test's
    # own database queries (and the live server's flush between tests) as "async unsafe". They are
    # plain synchronous calls here, so the check is lifted for this module only.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield launched
            launched.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def demo_bot_live(live_server, transactional_db, settings):
    """The demo bot in the live server's database (live_server needs committed data)."""
    from knowledge.demo.seed import seed_demo_bot

    # These tests are about the chatbox and the servlet API, not the matcher: the lexical matcher
    # alone answers their questions the same way, while the sentence encoder would rebuild its
    # vectors for every test (each one re-seeds) and cost seconds per language.
    settings.MATCHING_EMBEDDINGS = False
    bot, _ = seed_demo_bot()
    return bot


class ApiLog:
    """The servlet API requests the page made, in order: (method, path, form fields)."""

    def __init__(self):
        self.calls: list[tuple[str, str, dict]] = []

    def record(self, request):
        parts = urlsplit(request.url)
        if not parts.path.startswith(API_PREFIX):
            return
        fields = dict(parse_qsl(parts.query))
        if request.method == "POST" and request.post_data:
            fields.update(parse_qsl(request.post_data, keep_blank_values=True))
        self.calls.append((request.method, parts.path[len(API_PREFIX) :], fields))

    def paths(self) -> list[str]:
        return [f"{method} {path}" for method, path, _ in self.calls]

    def talks(self) -> list[dict]:
        return [fields for method, path, fields in self.calls if path.startswith("chat/talk/")]

    def clear(self):
        self.calls.clear()


class ChatPage:
    """The page, the API calls it made and the JavaScript errors it raised."""

    def __init__(self, page, url: str):
        self.page = page
        self.url = url
        self.api = ApiLog()
        self.errors: list[str] = []
        page.on("request", self.api.record)
        page.on("pageerror", lambda error: self.errors.append(str(error)))


@pytest.fixture
def chat_page(browser, live_server, demo_bot_live):
    """A fresh browser context (empty localStorage) on the demo page, recording API calls."""
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="fr-FR")
    context.set_default_timeout(10_000)
    yield ChatPage(context.new_page(), live_server.url + "/demo/")
    context.close()
