"""The server status's checks come from the apps that own what they check: each app registers its
checks and volumes in its AppConfig.ready (as Django's system checks are registered), and bots/status
imports none of the apps above it, neither at the top of a module nor inside a function."""

import ast
from pathlib import Path

import pytest
from django.apps import apps

from bots.status import checks, volumes

STATUS_PACKAGE = Path(checks.__file__).parent
APPS_ABOVE = ("accounts", "dialogs", "knowledge", "preferences", "livechat")

# What each app owns in the status: (application, check) and volumes.
EXPECTED_CHECKS = {
    "bots": {
        ("runtime", "runtime"),
        ("dialog", "database"),
        ("servlet", "servlet_cache"),
        ("servlet", "servlet_meters"),
        ("router", "router"),
    },
    "accounts": {("website", "website")},
    "dialogs": {("dialog", "dialog_store"), ("slogger", "slogger"), ("analytic", "analytic")},
    "knowledge": {("dialog", "matcher"), ("dialog", "vectors")},
    "preferences": {("sso", "sso")},
    "livechat": {("livechat", "transport"), ("livechat", "queue")},
}
EXPECTED_VOLUMES = {
    "accounts": {"connectedPeople"},
    "dialogs": {"currentDialogs"},
    "livechat": {"connectedOperators", "currentLivechatDialogs"},
}


@pytest.fixture
def empty_registry():
    """The registries emptied for the test and put back after it."""
    saved_checks = {name: list(found) for name, found in checks._registry.items()}
    saved_volumes = dict(volumes._providers)
    checks._registry.clear()
    volumes._providers.clear()
    yield
    checks._registry.clear()
    checks._registry.update(saved_checks)
    volumes._providers.clear()
    volumes._providers.update(saved_volumes)


def owner(function) -> str:
    return function.__module__.split(".")[0]


def registered_by_app() -> dict[str, set]:
    found: dict[str, set] = {}
    for application in checks.APPLICATIONS:
        for check in checks.registered(application):
            found.setdefault(owner(check.function), set()).add((application, check.function.__name__))
    return found


@pytest.mark.parametrize("label", sorted(EXPECTED_CHECKS))
def test_each_app_registers_its_own_checks_from_its_app_config(label, empty_registry):
    apps.get_app_config(label).ready()
    assert registered_by_app() == {label: EXPECTED_CHECKS[label]}
    assert set(volumes._providers) == EXPECTED_VOLUMES.get(label, set())
    assert {owner(count) for count in volumes._providers.values()} <= {label}


def test_every_application_of_the_status_has_checks_once_django_is_ready():
    assert registered_by_app() == EXPECTED_CHECKS
    for application in checks.APPLICATIONS:
        assert checks.registered(application), application
    assert set(volumes._providers) == set(volumes.VOLUMES)


def test_registering_twice_keeps_one_check(empty_registry):
    apps.get_app_config("dialogs").ready()
    apps.get_app_config("dialogs").ready()
    assert len(checks.registered("slogger")) == 1


def test_a_check_for_an_unknown_application_or_service_is_refused(empty_registry):
    with pytest.raises(ValueError, match="no application"):
        checks.register("billing", lambda: checks.Result())
    with pytest.raises(ValueError, match="unknown services"):
        checks.register("dialog", lambda: checks.Result(), needs=["mailserver"])


def imported_modules(path: Path) -> list[tuple[str, int]]:
    """Every module a file imports, wherever the import statement is (module level or in a function)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
    return found


def test_bots_status_imports_none_of_the_apps_above_it():
    files = sorted(STATUS_PACKAGE.glob("*.py"))
    assert {path.name for path in files} >= {"checks.py", "report.py", "services.py", "volumes.py"}
    reaching_up = [
        f"{path.name}:{line} imports {module}"
        for path in files
        for module, line in imported_modules(path)
        if module.split(".")[0] in APPS_ABOVE
    ]
    assert reaching_up == []
