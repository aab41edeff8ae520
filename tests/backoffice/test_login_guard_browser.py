"""The back office's login form in chromium when the failed-login guard refuses: wrong passwords until the
page says to wait, then until the login is locked, in English and in French; each refusal is a 429 with
Retry-After, the theme's login page with its error shown, and the right password is refused meanwhile.
Screenshots go to test-results/login-guard/."""

import uuid
from unittest import mock

import pytest
from playwright.sync_api import expect

from accounts import lockout
from accounts.models import Role
from tests.accounts.personas import PASSWORD, make_persona
from tests.browser import back_office_context, screenshots
from tests.e2e.conftest import browser  # noqa: F401 (chromium)

pytestmark = pytest.mark.browser
expect.set_options(timeout=10_000)
shot = screenshots("login-guard")
LIVE_ADDRESS = "127.0.0.1"  # the live server's clients: every browser test signs in from it


class Clock:
    def __init__(self):
        self.at = 1_500_000_000.0

    def __call__(self) -> float:
        return self.at


@pytest.fixture
def clock(transactional_db):
    """The lockout's clock, moved instead of waiting; the live server's address is cleared before and after,
    so that the other browser tests, which sign in from the same address, are not slowed by these failures."""
    moved = Clock()
    # Cleared before too: with Redis as the cache (CI's second run) failures from the same address by earlier
    # tests, even earlier runs, are still there, stamped with real times after this clock's.
    forget_live_address()
    with mock.patch.object(lockout, "now", moved):
        yield moved
    forget_live_address()


def forget_live_address():
    lockout.cache.delete_many(
        [lockout._key(lockout.PER_ADDRESS, what, LIVE_ADDRESS) for what in ("failures", "last", "locked")]
    )


def submit(page, base_url: str, login: str, password: str):
    """Sends the login form; the answer to its POST."""
    page.goto(base_url + "/admin/login/")
    page.fill("#id_username", login)
    page.fill("#id_password", password)
    with page.expect_response(lambda response: response.request.method == "POST") as answer:
        page.click("[type=submit]")
    page.wait_for_load_state()
    return answer.value


@pytest.mark.parametrize(
    "language, slowed_text, locked_text",
    [
        ("en", "wait 1 second before trying again", "is locked for 15 minutes"),
        ("fr", "attendez 1 seconde avant de réessayer", "est bloquée pendant 15 minutes"),
    ],
)
def test_wrong_passwords_on_the_login_page_until_refused(
    browser,  # noqa: F811
    live_server,
    clock,
    language,
    slowed_text,
    locked_text,
):
    user, _ = make_persona("Guarded account", Role.EDITOR, login=f"eve-{uuid.uuid4().hex[:6]}")
    context = back_office_context(browser, height=760)
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    try:
        for _ in range(lockout.PER_LOGIN.slow_after):
            assert submit(page, live_server.url, user.username, "wrong").status == 200
        slowed = submit(page, live_server.url, user.username, PASSWORD)
        assert slowed.status == 429
        assert slowed.headers["retry-after"] == "1"
        expect(page.get_by_text(slowed_text)).to_be_visible()
        expect(page).to_have_url(live_server.url + "/admin/login/")
        shot(page, f"slowed-{language}")

        for _ in range(lockout.PER_LOGIN.slow_after, lockout.PER_LOGIN.lock_after):
            clock.at += lockout.MAX_DELAY_SECONDS + 1
            assert submit(page, live_server.url, user.username, "wrong").status == 200
        clock.at += 30  # the lock has 14.5 minutes left: "15 minutes"
        locked = submit(page, live_server.url, user.username, PASSWORD)
        assert locked.status == 429
        assert int(locked.headers["retry-after"]) == lockout.LOCK_SECONDS - 30
        expect(page.get_by_text(locked_text)).to_be_visible()
        expect(page.locator("#id_username")).to_have_value(user.username)
        shot(page, f"locked-{language}")

        clock.at += lockout.LOCK_SECONDS
        assert submit(page, live_server.url, user.username, PASSWORD).status == 302
        expect(page).not_to_have_url(live_server.url + "/admin/login/")
    finally:
        context.close()
