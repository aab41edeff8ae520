"""`make run`'s seed: the demo administrator is made once; its generated password is printed on the first
run only, and a password that exists is never changed."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def seed(settings, tmp_path) -> str:
    out = io.StringIO()
    call_command("seed_demo", "--base-url", "http://127.0.0.1:8000", stdout=out)
    return out.getvalue()


def test_the_generated_password_is_printed_once_and_never_changed(settings, tmp_path, monkeypatch):
    monkeypatch.delenv("DEMO_ADMIN_PASSWORD", raising=False)
    settings.DATA_DIR = tmp_path
    first = seed(settings, tmp_path)
    password = (tmp_path / "demo-admin-password").read_text().strip()
    assert f"(login admin, password {password})" in first
    admin = get_user_model().objects.get(username="admin")
    assert admin.check_password(password)

    admin.set_password("chosen by the administrator 2026")
    admin.save()
    again = seed(settings, tmp_path)
    assert password not in again
    assert "kept in" in again
    admin.refresh_from_db()
    assert admin.check_password("chosen by the administrator 2026")


def test_a_password_from_the_environment_is_not_written_to_disk(settings, tmp_path, monkeypatch):
    monkeypatch.setenv("DEMO_ADMIN_PASSWORD", "from-the-environment-2026")
    settings.DATA_DIR = tmp_path
    assert "password from-the-environment-2026" in seed(settings, tmp_path)
    assert not (tmp_path / "demo-admin-password").exists()
    assert get_user_model().objects.get(username="admin").check_password("from-the-environment-2026")
