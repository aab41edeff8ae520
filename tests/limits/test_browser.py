"""A chatbox on another site reads the 413 in a real browser (Debian's chromium), under each server: the
refusal carries the CORS header although Django's CORS middleware never sees it. The page's origin is
http://localhost:<port>; the calls go to http://127.0.0.1:<port>, another origin."""

from pathlib import Path

import pytest

from tests.e2e.conftest import browser  # noqa: F401  (the fixture: Debian's chromium through Playwright)
from tests.limits.conftest import CHAT_LIMIT, IMPORT_LIMIT, MB, TALK_PATH
from tests.servers import BOT_UUID

pytestmark = pytest.mark.browser
SHOTS = Path(__file__).resolve().parent.parent.parent / "test-results" / "limits"

FETCH = """async ([url, size]) => {
    try {
        const answer = await fetch(url, {
            method: "POST",
            body: "x".repeat(size),
            headers: {"Content-Type": "application/x-www-form-urlencoded"},
        });
        return {status: answer.status, body: await answer.json()};
    } catch (error) {
        return {status: null, body: String(error)};
    }
}"""


def test_a_chatbox_on_another_origin_reads_the_413(browser, server):  # noqa: F811
    page = browser.new_page()
    try:
        page.goto(f"http://localhost:{server.port}/admin/login/")  # a light page: no chatbox polling
        for path, size, limit in (
            (TALK_PATH, 200 * 1024, CHAT_LIMIT),
            (f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}", 4 * MB, IMPORT_LIMIT),
        ):
            answer = page.evaluate(FETCH, [server.url(path), size])
            assert answer["status"] == 413, (server.kind, path, answer)
            assert answer["body"]["code"] == "TOO_LARGE"
            assert answer["body"]["maxBytes"] == limit
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"refusals-read-from-another-origin-{server.kind}.png"))
    finally:
        page.close()
