"""One failed-login guard for every door where a password is checked (issue 23 item 1).

The doors: the back office's login form, its change-password form (the old password), the Authentication
servlet, HTTP Basic on any protected call (the API console's Authorize sends it too) and the token page
/servlet/authentication.html. Each one is slowed after 3 failures and locked after 10 (429 with
Retry-After, the forms saying how long to wait in the back office's language), refuses even the right
password while locked, and counts in the same store as the others, per login and per address. Tokens and
open back-office sessions keep working meanwhile. A door added later is covered by construction:
`authenticate()` itself is guarded, it is the only backend, and no product code checks a password
another way (a scan of the source)."""

import ast
import base64
import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.contrib.auth import aauthenticate, authenticate, get_backends
from django.test import Client, RequestFactory
from django.utils.module_loading import import_string

from accounts import backends, lockout
from accounts.backends import GuardedModelBackend

from .personas import PASSWORD, basic
from .test_authentication import address

pytestmark = pytest.mark.django_db

AUTH = "/servlet/api/authentication"
STATUS_DETAILS = "/servlet/api/serverstatus?details=true"
PAGE = "/servlet/authentication.html"
ADMIN_LOGIN = "/admin/login/"
PASSWORD_CHANGE = "/admin/password_change/"
NEW_PASSWORD = "another horse, another battery"
SLOWED_EN = "Too many failed logins: wait 1 second before trying again."
LOCKED_EN = "Too many failed logins: logging in with a password is locked for 15 minutes. Try again later."
SLOWED_FR = "Trop de connexions échouées : attendez 1 seconde avant de réessayer."
LOCKED_FR = (
    "Trop de connexions échouées : la connexion par mot de passe est bloquée pendant 15 minutes. Réessayez plus tard."
)


class Clock:
    """The lockout's clock, moved by the test instead of waiting (lockout.now)."""

    def __init__(self, start: float):
        self.at = start

    def __call__(self) -> float:
        return self.at

    def wait(self, seconds: float) -> None:
        self.at += seconds


@pytest.fixture
def clock():
    # A start of its own per test, far from the others', with fresh logins and addresses: the counters
    # live in the shared cache (Redis in CI), so no test sees another's.
    moved = Clock(1_000_000_000.0 + uuid.uuid4().int % 1_000_000 * 10_000)
    with mock.patch.object(lockout, "now", moved):
        yield moved


@dataclass
class Door:
    """One way in with a password: `attempt` sends it, `outcome` says what the answer was."""

    name: str
    html: bool
    back_office: bool = False  # its messages are the back office's own, translated

    def attempt(self, client: Client, login: str, password: str, ip: str):
        if self.name == "admin form":
            return client.post(ADMIN_LOGIN, {"username": login, "password": password}, REMOTE_ADDR=ip)
        if self.name == "servlet":
            return client.post(AUTH, {"login": login, "password": password}, REMOTE_ADDR=ip)
        if self.name == "basic":
            return client.get(STATUS_DETAILS, HTTP_AUTHORIZATION=basic(login, password), REMOTE_ADDR=ip)
        if self.name == "page":
            return client.post(PAGE, {"login": login, "password": password}, REMOTE_ADDR=ip)
        if self.name == "password change":
            # Signed in (an open session), the user must still give the old password right.
            fields = {"old_password": password, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
            return client.post(PASSWORD_CHANGE, fields, REMOTE_ADDR=ip)
        raise AssertionError(self.name)

    def outcome(self, response) -> str:
        """ "in", "wrong", "slowed" or "locked" (refusals must be 429 with Retry-After)."""
        if response.status_code == 429:
            assert response["Retry-After"].isdigit()
            if not self.html:
                return {"LOGIN_SLOWED": "slowed", "LOGIN_LOCKED": "locked"}[response.json()["code"]]
            text = response.content.decode()
            if "wait" in text and "before trying again" in text:
                return "slowed"
            if "is locked for" in text or "Too many failed logins for this" in text:
                return "locked"
            raise AssertionError(f"429 without a refusal message at {self.name}")
        if self.name == "admin form":
            return {302: "in", 200: "wrong"}[response.status_code]
        if self.name == "password change":
            if response.status_code == 302:
                return "in"
            assert "Your old password was entered incorrectly" in response.content.decode()
            return "wrong"
        if self.name == "page":
            return {200: "in", 401: "wrong"}[response.status_code]
        return {200: "in", 401: "wrong"}[response.status_code]


DOORS = [
    Door("admin form", html=True, back_office=True),
    Door("servlet", html=False),
    Door("basic", html=False),
    Door("page", html=True),
    Door("password change", html=True, back_office=True),
]
SIGN_IN_DOORS = [door for door in DOORS if door.name != "password change"]


def client_for(door: Door, user) -> Client:
    client = Client()
    if door.name == "password change":
        client.force_login(user)
    return client


@pytest.mark.parametrize("door", DOORS, ids=lambda door: door.name)
def test_each_door_slows_then_locks_wrong_passwords_and_refuses_the_right_one_while_locked(door, personas, clock):
    alice, ip = personas.alice, address()
    client = client_for(door, alice.user)
    for _ in range(lockout.PER_LOGIN.slow_after):
        assert door.outcome(door.attempt(client, alice.login, "wrong", ip)) == "wrong"
    # Slowed: the next attempt at once is refused before the password is checked, right or wrong.
    slowed = door.attempt(client, alice.login, PASSWORD, ip)
    assert door.outcome(slowed) == "slowed"
    assert slowed["Retry-After"] == "1"
    if door.back_office:
        assert SLOWED_EN in slowed.content.decode()
    # Waiting each delay, the person may go on trying until the lock.
    for _ in range(lockout.PER_LOGIN.slow_after, lockout.PER_LOGIN.lock_after):
        clock.wait(lockout.MAX_DELAY_SECONDS + 1)
        assert door.outcome(door.attempt(client, alice.login, "wrong", ip)) == "wrong"
    clock.wait(lockout.MAX_DELAY_SECONDS + 1)
    locked = door.attempt(client, alice.login, PASSWORD, ip)
    assert door.outcome(locked) == "locked"
    assert int(locked["Retry-After"]) == lockout.LOCK_SECONDS - lockout.MAX_DELAY_SECONDS - 1
    if door.back_office:
        assert LOCKED_EN in locked.content.decode()
    # From another address too: the login is locked, not only this address.
    assert door.outcome(door.attempt(client, alice.login, PASSWORD, address())) == "locked"
    clock.wait(lockout.LOCK_SECONDS)
    assert door.outcome(door.attempt(client, alice.login, PASSWORD, ip)) == "in"


def test_the_back_office_says_it_in_french_when_french_is_chosen(personas, clock):
    client, login, ip = Client(), personas.bob.login, address()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    for _ in range(lockout.PER_LOGIN.slow_after):
        client.post(ADMIN_LOGIN, {"username": login, "password": "faux"}, REMOTE_ADDR=ip)
    slowed = client.post(ADMIN_LOGIN, {"username": login, "password": PASSWORD}, REMOTE_ADDR=ip)
    assert slowed.status_code == 429
    assert SLOWED_FR in slowed.content.decode()
    for _ in range(lockout.PER_LOGIN.lock_after - lockout.PER_LOGIN.slow_after):
        clock.wait(lockout.MAX_DELAY_SECONDS + 1)
        client.post(ADMIN_LOGIN, {"username": login, "password": "faux"}, REMOTE_ADDR=ip)
    locked = client.post(ADMIN_LOGIN, {"username": login, "password": PASSWORD}, REMOTE_ADDR=ip)
    assert locked.status_code == 429
    assert LOCKED_FR in locked.content.decode()
    assert "Saisissez" not in locked.content.decode()  # not Django's "wrong login or password"


def test_failures_at_every_door_count_toward_one_login_s_slow_down_and_lock(personas, clock):
    alice, ip = personas.alice, address()
    clients = {door.name: client_for(door, alice.user) for door in DOORS}
    rotation = [DOORS[i % len(DOORS)] for i in range(lockout.PER_LOGIN.lock_after)]
    # One failure at each of three doors: the fourth door is slowed.
    for door in rotation[: lockout.PER_LOGIN.slow_after]:
        assert door.outcome(door.attempt(clients[door.name], alice.login, "wrong", ip)) == "wrong"
    fourth = rotation[lockout.PER_LOGIN.slow_after]
    assert fourth.outcome(fourth.attempt(clients[fourth.name], alice.login, PASSWORD, ip)) == "slowed"
    # The failures that lock the login, spread over every door: then every door refuses the right password.
    for door in rotation[lockout.PER_LOGIN.slow_after :]:
        clock.wait(lockout.MAX_DELAY_SECONDS + 1)
        assert door.outcome(door.attempt(clients[door.name], alice.login, "wrong", ip)) == "wrong"
    for door in DOORS:
        assert door.outcome(door.attempt(clients[door.name], alice.login, PASSWORD, ip)) == "locked", door.name


@pytest.mark.parametrize(
    "guessed_at, tried_at",
    [(SIGN_IN_DOORS[0], SIGN_IN_DOORS[1]), (SIGN_IN_DOORS[1], SIGN_IN_DOORS[0]), (SIGN_IN_DOORS[2], SIGN_IN_DOORS[3])],
    ids=lambda door: door.name,
)
def test_one_address_guessing_at_one_door_is_slowed_at_the_others(guessed_at, tried_at, personas, clock):
    """The issue's case: `admin` signed in on /admin/login/ while the API said LOGIN_SLOWED to that address."""
    ip, client = address(), Client()
    for _ in range(lockout.PER_ADDRESS.slow_after):
        guess = "guess-" + uuid.uuid4().hex[:8]
        assert guessed_at.outcome(guessed_at.attempt(client, guess, "wrong", ip)) == "wrong"
    refused = tried_at.attempt(client, personas.alice.login, PASSWORD, ip)
    assert tried_at.outcome(refused) == "slowed"
    assert "_auth_user_id" not in client.session
    # Another address is not concerned.
    assert tried_at.outcome(tried_at.attempt(Client(), personas.alice.login, PASSWORD, address())) == "in"


def test_tokens_and_open_back_office_sessions_keep_working_while_the_password_is_locked(personas, clock):
    alice, ip = personas.alice, address()
    signed_in = Client()
    signed_in.force_login(alice.user)
    door = SIGN_IN_DOORS[0]
    for _ in range(lockout.PER_LOGIN.lock_after):
        clock.wait(lockout.MAX_DELAY_SECONDS + 1)
        door.attempt(Client(), alice.login, "wrong", ip)
    assert door.outcome(door.attempt(Client(), alice.login, PASSWORD, ip)) == "locked"
    assert Client().get(STATUS_DETAILS, HTTP_AUTHORIZATION=alice.token, REMOTE_ADDR=ip).status_code == 200
    assert Client().get(STATUS_DETAILS, HTTP_AUTHORIZATION=f"Bearer {alice.token}").status_code == 200
    assert signed_in.get("/admin/", REMOTE_ADDR=ip).status_code == 200


def test_the_refusal_changes_nothing(personas, clock):
    """A refused password change leaves the password as it was; a refused sign-in opens no session."""
    alice, ip = personas.alice, address()
    client = client_for(DOORS[-1], alice.user)
    for _ in range(lockout.PER_LOGIN.slow_after):
        DOORS[-1].attempt(client, alice.login, "wrong", ip)
    assert DOORS[-1].outcome(DOORS[-1].attempt(client, alice.login, PASSWORD, ip)) == "slowed"
    alice.user.refresh_from_db()
    assert alice.user.check_password(PASSWORD)  # the test reads the stored hash; the product never does this
    assert not alice.user.check_password(NEW_PASSWORD)


def test_authenticate_itself_is_guarded_with_and_without_a_request(personas, clock):
    login, ip = personas.bob.login, address()
    request = RequestFactory().post(ADMIN_LOGIN, REMOTE_ADDR=ip)
    # Without a request (a script, a new door with none at hand) the login is still counted.
    for _ in range(lockout.PER_LOGIN.slow_after):
        assert authenticate(username=login, password="wrong") is None
    assert authenticate(username=login, password=PASSWORD) is None  # slowed: not even checked
    refused = Client().post(AUTH, {"login": login, "password": PASSWORD}, REMOTE_ADDR=ip)
    assert refused.status_code == 429 and refused.json()["code"] == "LOGIN_SLOWED"
    # With a request, the refusal is left on it for the door to show.
    assert authenticate(request, username=login, password=PASSWORD) is None
    assert backends.refusal(request).code == "LOGIN_SLOWED"
    assert backends.refusal(request).retry_after == 1
    # The async twin goes through the same guard.
    assert async_to_sync(aauthenticate)(username=login, password=PASSWORD) is None
    clock.wait(lockout.MAX_DELAY_SECONDS + 1)
    assert async_to_sync(aauthenticate)(username=login, password=PASSWORD) == personas.bob.user
    again = RequestFactory().post(ADMIN_LOGIN, REMOTE_ADDR=ip)
    assert authenticate(again, username=login, password=PASSWORD) == personas.bob.user
    assert backends.refusal(again) is None


def test_every_authentication_backend_is_the_guarded_one():
    assert settings.AUTHENTICATION_BACKENDS
    for path in settings.AUTHENTICATION_BACKENDS:
        assert issubclass(import_string(path), GuardedModelBackend), path
    assert all(isinstance(backend, GuardedModelBackend) for backend in get_backends())


def test_the_back_office_site_is_the_guarded_one():
    from django.contrib import admin

    from accounts.backoffice_login import GuardedLoginForm
    from accounts.backoffice_site import BackOfficeSite

    assert isinstance(admin.site, BackOfficeSite)
    assert admin.site.login_form is GuardedLoginForm


# Where product code may check a password: the guard itself and the doors that go through it.
PASSWORD_CHECKS = {"authenticate", "aauthenticate", "check_password", "acheck_password"}
ALLOWED = {
    "accounts/backends.py": "the guard: ModelBackend's own check, after lockout.check",
    "accounts/permissions.py": "login_with_password: the servlet's Authentication, Basic and the token page",
    "accounts/backoffice_login.py": "the back office's old-password check, through authenticate()",
}
ROOT = Path(__file__).resolve().parents[2]
NOT_PRODUCT = {"tests", ".venv", "node_modules", "data", "test-results"}


def password_checks(source: str) -> list[tuple[int, str]]:
    """(line, name) of each call of, or import of, a password check in a module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in PASSWORD_CHECKS:
                found.append((node.lineno, name))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("django.contrib.auth"):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name in PASSWORD_CHECKS]
    return found


def test_the_scan_sees_a_bypass():
    bypass = "from django.contrib.auth import authenticate as sneak\nuser.check_password(secret)\nsneak(u, p)\n"
    assert password_checks(bypass) == [(1, "authenticate"), (2, "check_password")]


def test_no_product_code_checks_a_password_outside_the_guard():
    """A new door (a view calling check_password, a second backend, an authenticate() elsewhere) fails
    here until it is reviewed and goes through the guard."""
    seen, bypasses = set(), []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in NOT_PRODUCT or relative.parts[0].startswith("."):
            continue
        checks = password_checks(path.read_text(encoding="utf-8"))
        if not checks:
            continue
        if str(relative) in ALLOWED:
            seen.add(str(relative))
        else:
            bypasses += [f"{relative}:{line} {name}" for line, name in checks]
    assert bypasses == []
    assert seen == set(ALLOWED)  # the scan reads the files it should (a moved door is noticed too)


def test_drf_checks_no_password_of_its_own():
    """DRF's Basic and Session authentication would be doors of their own: none is configured."""
    assert settings.REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"] == []


def test_basic_sent_by_the_api_console_is_refused_like_the_servlet(personas, clock):
    """Swagger UI's Authorize sends `Basic` on every call it tries: the same guard answers."""
    ip, login = address(), personas.bob.login
    encoded = "Basic " + base64.b64encode(f"{login}:wrong".encode()).decode()
    for _ in range(lockout.PER_LOGIN.slow_after):
        assert Client().get("/servlet/api/bousers", HTTP_AUTHORIZATION=encoded, REMOTE_ADDR=ip).status_code == 401
    refused = Client().get("/servlet/api/bousers", HTTP_AUTHORIZATION=basic(login), REMOTE_ADDR=ip)
    assert refused.status_code == 429
    assert json.loads(refused.content)["code"] == "LOGIN_SLOWED"
    assert refused["Retry-After"] == "1"
