"""`manage.py import_kb BOT FILE` and `export_kb BOT FILE`: the servlets' work from a shell, with a
progress bar (tqdm) and the same checks."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from knowledge.models import KnowledgeItem

from .conftest import attack, whole_knowledge_base

pytestmark = pytest.mark.django_db


def test_export_then_import_with_progress_bars(tmp_path, rich_bot):
    path = tmp_path / "rich.xml"
    errors = io.StringIO()
    call_command("export_kb", str(rich_bot.uuid), str(path), "--progress", stderr=errors)
    assert path.read_bytes().startswith(b'<?xml version="1.0" encoding="UTF-8"?>')
    assert "exporting:" in errors.getvalue() and "100%" in errors.getvalue()
    assert f"{rich_bot.name}: 11 knowledge items" in errors.getvalue()

    out, errors = io.StringIO(), io.StringIO()
    call_command("import_kb", "Rich bot", str(path), "--progress", stdout=out, stderr=errors)
    report = json.loads(out.getvalue())
    assert report["imported"]["knowledgeItems"]["total"] == 11
    assert report["idsKept"]["knowledgeItems"] is True
    progress = errors.getvalue()
    assert "checking:" in progress and "importing:" in progress and "100%" in progress


def test_export_to_standard_output(rich_bot, capsysbinary):
    call_command("export_kb", str(rich_bot.uuid), "-", "--exclude-gallery", stderr=io.StringIO())
    written = capsysbinary.readouterr().out
    assert written.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')
    assert b"<gallery" not in written


def test_the_import_command_refuses_what_the_servlet_refuses(tmp_path, rich_bot):
    before = whole_knowledge_base(rich_bot)
    hostile = tmp_path / "laughs.xml"
    hostile.write_bytes(attack("billion_laughs.xml"))
    with pytest.raises(CommandError, match=r"Line 2, column 1: A DOCTYPE is not allowed.*Nothing was changed"):
        call_command("import_kb", str(rich_bot.uuid), str(hostile), stdout=io.StringIO())
    broken = tmp_path / "broken.xml"
    broken.write_bytes(b'<knowledgeBase formatVersion="1">\n<knowledgeItems>\n<knowledgeItem id="x"/>')
    with pytest.raises(CommandError, match=r"Line 3, column 16: .*'x' is not a valid value"):
        call_command("import_kb", str(rich_bot.uuid), str(broken), stdout=io.StringIO())
    with pytest.raises(CommandError, match="No file at"):
        call_command("import_kb", str(rich_bot.uuid), str(tmp_path / "missing.xml"), stdout=io.StringIO())
    with pytest.raises(CommandError, match="No bot has the UUID or the name 'nobody'"):
        call_command("import_kb", "nobody", str(hostile), stdout=io.StringIO())
    assert whole_knowledge_base(rich_bot) == before


@override_settings(KB_UPLOAD_MAX_BYTES=100)
def test_the_import_command_applies_the_size_limit_unless_raised(tmp_path, rich_bot):
    path = tmp_path / "kb.xml"
    path.write_bytes(b'<knowledgeBase formatVersion="1">' + b" " * 200 + b"</knowledgeBase>")
    with pytest.raises(CommandError, match="over the limit of 100"):
        call_command("import_kb", str(rich_bot.uuid), str(path), stdout=io.StringIO())
    assert KnowledgeItem.objects.filter(bot=rich_bot).exists()
    call_command("import_kb", str(rich_bot.uuid), str(path), "--max-bytes", "0", stdout=io.StringIO())
    assert not KnowledgeItem.objects.filter(bot=rich_bot).exists()
