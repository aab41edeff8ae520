"""What the browser tests share: their screenshots, their browser contexts and the back office's login form."""

from contextlib import contextmanager
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "test-results"


def screenshots(folder: str, **defaults):
    """`shot(page, name)` saves test-results/<folder>/<name>.png, where people look for them; `defaults`
    (full_page=True…) go to every screenshot. `page` may be a locator: only that element is taken."""
    directory = RESULTS / folder

    def shot(page, name: str, shown=None, **options) -> None:
        if shown is not None:  # a locator in a scrolled box (the chat's log): brought whole into view first
            shown.evaluate("element => element.scrollIntoView({block: 'end', behavior: 'instant'})")
        directory.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(directory / f"{name}.png"), **(defaults | options))

    return shot


def back_office_context(browser, *, width=1366, height=900, locale="en-US", timeout=10_000, **options):
    """A chromium context as the tests' users have it: a laptop's screen (1366 px wide: the back office must
    fit it), a locale (None: the browser's own) and a default timeout. The caller closes it."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale, **options)
    context.set_default_timeout(timeout)
    return context


@contextmanager
def new_pages(browser, **settings):
    """Yields new(**options) -> a page in a context of its own (a visitor and an operator do not share
    cookies); every context made is closed on the way out."""
    opened = []

    def new(**options):
        opened.append(back_office_context(browser, **settings, **options))
        return opened[-1].new_page()

    try:
        yield new
    finally:
        for context in opened:
            context.close()


def sign_in(page, base_url: str, username: str, password: str) -> None:
    """Fills and sends the back office's login form; what to expect next is the caller's (it differs by role)."""
    page.goto(base_url + "/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("[type=submit]")


def list_widths(page) -> dict:
    """A back-office list's widths: the page's, its table's and the room the table has (a table wider than its
    room scrolls sideways)."""
    return page.evaluate(
        """() => {
            const table = document.querySelector('#result_list');
            return {
                page: document.documentElement.scrollWidth,
                table: table ? table.scrollWidth : 0,
                room: table ? table.parentElement.clientWidth : 0,
            };
        }"""
    )
