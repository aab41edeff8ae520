"""`make run`'s seed: the demo administrator is made once; its generated password is printed on the first
run only, and a password that exists is never changed. The demo bot's knowledge is its XML file, imported."""

import io
import re
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from knowledge.demo.seed import KNOWLEDGE_BASE, seed_demo_bot
from knowledge.exchange import export_knowledge_base
from knowledge.models import Answer, AnswerBranch, Formulation, KnowledgeItem
from preferences.models import BotPreference

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


def renumbered(xml: str) -> str:
    """The file with its tag and knowledge item ids numbered in order of appearance (an import hands out
    fresh ids when the database's sequences are elsewhere), references included."""
    tags = {old: str(new) for new, old in enumerate(dict.fromkeys(re.findall(r'<tag id="(\d+)"', xml)), 1)}
    items = {old: str(new) for new, old in enumerate(dict.fromkeys(re.findall(r'<knowledgeItem id="(\d+)"', xml)), 1)}
    for pattern, ids in (
        (r'(<tag id=")(\d+)"', tags),
        (r'(<knowledgeItem id=")(\d+)"', items),
        (r'(<knowledgeItem [^>]*\btag=")(\d+)"', tags),
        (r'(<targetTag ref=")(\d+)"', tags),
        (r'(<(?:targetItem|usesSlot) ref=")(\d+)"', items),
    ):
        xml = re.sub(pattern, lambda match, ids=ids: f'{match[1]}{ids[match[2]]}"', xml)
    return xml


def test_the_demo_bot_is_its_knowledge_base_file_imported():
    """seed_demo imports knowledge/demo/demo_bot.xml: exporting the seeded bot gives the file back (ids aside),
    and it holds what the Python-data seed made before (figures of that seed's import report)."""
    bot, created = seed_demo_bot()
    assert created
    exported = b"".join(export_knowledge_base(bot, preferences=True)).decode()
    assert renumbered(exported) == renumbered(KNOWLEDGE_BASE.read_text(encoding="utf-8"))

    kinds = Counter(bot.knowledge_items.values_list("kind", flat=True))
    assert kinds == {"question": 47, "predefined": 4, "slot": 2, "complementary": 1}
    assert Formulation.objects.filter(item__bot=bot).count() == 278
    assert Answer.objects.filter(item__bot=bot).count() == 112
    assert AnswerBranch.objects.filter(item__bot=bot).count() == 6
    assert bot.matching_groups.count() == 8 and bot.tags.count() == 10 and bot.surveys.count() == 2
    draft = bot.knowledge_items.get(status=KnowledgeItem.Status.DRAFT)
    assert draft.kind == "question"
    no_group = bot.matching_groups.get(name="Non")
    assert BotPreference.objects.get(bot=bot, name="bot.no.group.uuid").value == str(no_group.uuid)
    assert bot.default_language == "fr" and sorted(bot.language_codes()) == ["en", "fr"]
    assert list(bot.spaces.order_by("name").values_list("name", "is_default")) == [("Defaut", True), ("Pro", False)]
