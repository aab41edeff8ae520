"""No ghost visitors, with a real closed browser (issue 24 item 3), against a real server process (daphne, as
`make run` serves it, its clocks every second): the operator's one slot is taken, a second visitor waits in
the queue, then closes their browser. Once the bot's grace time has passed with neither a socket nor a poll
(30 s here, the shortest allowed; 90 s by default), the visitor leaves the queue: the console's queue empties
by itself and the request is ended as "the visitor closed the chatbox". A visitor whose browser stays open
is kept all along. Screenshots go to test-results/livechat/."""

import time

import pytest
from playwright.sync_api import expect

from tests.browser import new_pages, screenshots
from tests.e2e.test_demo_chat import stored_context
from tests.e2e.test_livechat import OPERATOR, PASSWORD, open_chat, open_console, say
from tests.servers import Platform

pytestmark = pytest.mark.browser
shot = screenshots("livechat")
GRACE_SECONDS = 30
# The grace time, the clocks' period and a loaded machine's delays; only a failure waits this long.
GONE_WAIT_MS = (GRACE_SECONDS + 30) * 1000


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with Platform(tmp_path_factory.mktemp("livechat-ghosts")) as running:
        running.add_operator(OPERATOR, PASSWORD, max_dialogs=1, display_name="Léa")
        running.manage(
            "shell",
            "-c",
            "from bots.models import Bot; from livechat.models import LivechatSettings; "
            "bot = Bot.objects.get(uuid='d3b0d3b0-0000-4000-8000-000000000001'); "
            f"LivechatSettings.objects.update_or_create(bot=bot, defaults={{'visitor_gone_seconds': {GRACE_SECONDS}}})",
        )
        yield running


def request_of(platform, context_id: str) -> tuple[str, str]:
    """The live-chat request of a dialog, read from the server's database: (status, end reason)."""
    found = platform.manage(
        "shell",
        "--verbosity=0",
        "-c",
        "from livechat.models import LivechatRequest as R; "
        f"r = R.objects.filter(dialog__uuid='{context_id}').order_by('-pk').first(); print(r.status, r.end_reason)",
    )
    status, _, reason = found.strip().splitlines()[-1].partition(" ")
    return status, reason


def test_a_visitor_who_closes_the_browser_leaves_the_queue(platform, browser):
    server = platform.servers[0]
    with new_pages(browser, width=1280, height=860, locale="fr-FR", timeout=15_000) as new:
        console = open_console(new(), server)
        staying = open_chat(new(), server)
        say(staying, "Je veux parler à un conseiller")
        expect(staying.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")

        leaving = open_chat(new(), server)
        say(leaving, "Je veux parler à un conseiller")
        expect(leaving.get_by_test_id("queue-banner")).to_contain_text("1")
        expect(console.get_by_test_id("queue-item")).to_have_count(1)
        leaving_context = stored_context(leaving)
        assert request_of(platform, leaving_context) == ("queued", "")
        shot(console, "ghost-01-queued")

        leaving.context.close()  # the visitor closes the browser: no socket, no poll any more
        closed_at = time.monotonic()
        expect(console.get_by_test_id("queue-item")).to_have_count(0, timeout=GONE_WAIT_MS)
        gone_after = time.monotonic() - closed_at
        shot(console, "ghost-02-queue-emptied")
        print(f"\nthe closed visitor left the queue {gone_after:.1f} s after the browser closed")
        assert request_of(platform, leaving_context) == ("ended", "visitor_gone")

        # The visitor whose browser stayed open is still in live chat with the operator.
        expect(staying.locator("#dydu-chatbox")).to_have_attribute("data-livechat", "live")
        assert request_of(platform, stored_context(staying)) == ("assigned", "")
