"""`manage.py export_dialogs`: the servlet's rows and filters, to a file or standard output, with a
progress bar."""

import csv
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from .conftest import ids


def test_json_lines_to_a_file_with_a_progress_bar(demo_bot, dialog_set, tmp_path):
    target = tmp_path / "dialogs.jsonl"
    err = StringIO()
    call_command("export_dialogs", str(demo_bot.uuid), str(target), "--progress", stderr=err)
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 6
    assert list(dict.fromkeys(row["contextId"] for row in rows)) == ids(*dialog_set.all)
    # The shell is the platform's operator: the visitor's id is there.
    assert rows[0]["clientId"] == "visitor-1"
    progress = err.getvalue()
    assert "6.00/6.00" in progress and "100%" in progress
    assert f"6 rows, {target.stat().st_size} bytes written to {target}" in progress


def test_csv_with_filters_to_standard_output(demo_bot, dialog_set, capfdbinary):
    call_command(
        "export_dialogs",
        demo_bot.name,
        "--format",
        "csv",
        "--from",
        "2025-10-01",
        "--to",
        "2025-10-31",
        "--livechat",
        "false",
        "--qualification",
        "false",
        stderr=StringIO(),
    )
    out = capfdbinary.readouterr().out.decode("utf-8")
    table = list(csv.DictReader(out.splitlines()))
    assert [row["contextId"] for row in table] == ids(dialog_set.fr_positive, dialog_set.fr_positive)
    assert table[1]["feedback"] == "positive" and table[1]["askFeedback"] == "true"


@pytest.mark.parametrize(
    "options, message",
    [
        (["--from", "someday"], "'from' is invalid"),
        (["--from", "2025-11-01", "--to", "2025-10-01"], "ends"),
        (["--format", "xml"], "--format"),
        (["--feedback", "great"], "'feedback' is invalid"),
    ],
)
def test_bad_options_stop_before_anything_is_written(demo_bot, dialog_set, tmp_path, options, message):
    target = tmp_path / "never.jsonl"
    with pytest.raises(CommandError, match=message):
        call_command("export_dialogs", str(demo_bot.uuid), str(target), *options, stderr=StringIO())
    assert not target.exists()


def test_an_unknown_bot_is_an_error(db, tmp_path):
    with pytest.raises(CommandError, match="No bot"):
        call_command("export_dialogs", "00000000-0000-4000-8000-000000000000", str(tmp_path / "x"))
