"""The operators' console in a real browser while live chat's Redis is down (daphne, as `make run` serves it,
on a Redis of the test's own): the console stays connected and shows the degraded banner in the
operator's language (the back office's, English unless French was chosen) and the operator still writes;
when Redis is back the banner goes, the console says it is up to date, and the visitor in live chat over
the websocket gets the message written meanwhile. Screenshots go to test-results/livechat/."""

import re
import shutil

import pytest
from playwright.sync_api import expect

from tests.browser import new_pages, screenshots
from tests.e2e.test_livechat import OPERATOR, PASSWORD, open_chat, say
from tests.servers import Platform, PrivateRedis

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]
expect.set_options(timeout=15_000)

shot = screenshots("livechat")
DEGRADED = {
    "en": "Live chat is degraded: new messages may not arrive; reconnecting…",
    "fr": "Live chat dégradé : les nouveaux messages peuvent ne pas arriver ; reconnexion…",
}
RESTORED = {
    "en": "Live chat is back: the console is up to date.",
    "fr": "Le live chat est rétabli : la console est à jour.",
}


def open_console(page, server, language: str, *, available: bool = False):
    page.context.add_cookies([{"name": "django_language", "value": language, "url": server.base}])
    page.goto(server.url("/livechat/"))
    expect(page).to_have_url(re.compile(r"/admin/login/"))
    page.fill("#id_username", OPERATOR)
    page.fill("#id_password", PASSWORD)
    page.click("[type=submit]")
    expect(page).to_have_url(server.url("/livechat/"))
    status = page.get_by_test_id("status-select")
    expect(status).to_be_enabled()
    if available:
        status.select_option("available")
        # The console speaks its operator's language (the cookie), its status line too.
        expect(page.locator("#me-load")).to_contain_text({"en": "Available", "fr": "Disponible"}[language])
    return page


def test_the_console_says_live_chat_is_degraded_while_redis_is_down(browser, tmp_path):
    redis = PrivateRedis(tmp_path).start()
    try:
        with Platform(tmp_path / "platform", redis_url=redis.url) as platform:
            platform.add_operator(OPERATOR, PASSWORD)
            server = platform.servers[0]
            with new_pages(browser, width=1280, height=860, locale="fr-FR", timeout=15_000) as new:
                consoles = {
                    "en": open_console(new(), server, "en"),
                    "fr": open_console(new(), server, "fr", available=True),
                }
                operator = consoles["fr"]
                visitor = open_chat(new(), server)
                say(visitor, "Je veux parler à un conseiller")
                expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-transport", "websocket")
                operator.get_by_test_id("dialog-item").first.click()
                banner = {language: page.get_by_test_id("connection-banner") for language, page in consoles.items()}
                for language in consoles:
                    expect(banner[language]).to_be_hidden()

                redis.stop()
                for language, page in consoles.items():
                    expect(banner[language]).to_be_visible()
                    expect(page.locator("#banner-text")).to_have_text(DEGRADED[language])
                    expect(banner[language]).to_have_attribute("data-kind", "degraded")
                    expect(page.locator("#banner-retry")).to_be_hidden()  # nothing to do: the server retries
                # The operator still writes (the message is stored); the visitor's socket cannot be pushed to.
                operator.get_by_test_id("composer-input").fill("Toujours là ? Je vérifie votre carte.")
                operator.get_by_test_id("composer-send").click()
                line = operator.get_by_test_id("transcript").locator('[data-testid="line"][data-from="operator"]')
                expect(line.last).to_contain_text("Je vérifie votre carte")
                shot(consoles["en"], "12-console-degraded-en")
                shot(operator, "13-console-degraded-fr")
                expect(visitor.locator('[data-from="operator"]')).to_have_count(0)
                expect(visitor.locator("#dydu-chatbox")).to_have_attribute("data-transport", "websocket")

                redis.start()
                for language, page in consoles.items():
                    expect(banner[language]).to_be_hidden(timeout=30_000)
                    expect(page.get_by_test_id("info-toast").last).to_contain_text(RESTORED[language])
                shot(operator, "14-console-restored-fr")
                # The visitor's socket, open all along, is sent what it missed.
                expect(visitor.locator('[data-from="operator"]').last).to_contain_text("Je vérifie votre carte")
                assert visitor.locator('[data-from="operator"]').count() == 1
                shot(visitor, "15-visitor-gets-the-missed-message")
    finally:
        redis.stop()
