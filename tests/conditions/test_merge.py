"""The JSON merge that stores a dialog's variable changes in its UPDATE (dialogs/variables.py), on the
database of the run: set, replace, delete, leave the others alone; objects replaced whole on both
databases; and the change set a talk computes."""

import pytest

from dialogs import statements
from dialogs.models import Dialog
from dialogs.variables import changes

pytestmark = pytest.mark.django_db


def test_a_change_set_holds_new_and_changed_values_and_deletions():
    before = {"a": "1", "b": "2", "c": "3"}
    after = {"a": "1", "b": "20", "d": ""}
    assert changes(before, after) == {"b": "20", "d": "", "c": None}
    assert changes(before, dict(before)) == {}
    assert changes({}, {}) == {}


def test_the_merge_sets_replaces_and_deletes_only_what_changed(demo_bot):
    dialog = Dialog.objects.create(
        bot=demo_bot, language="fr", variables={"kept": "é", "gone": "x", "flow": 12, "card": {"a": 1, "b": 2}}
    )
    statements.update(dialog, (), {"gone": None, "new": "l'été & <b>", "flow": 13, "card": {"c": 3}})
    dialog.refresh_from_db()
    assert dialog.variables == {"kept": "é", "flow": 13, "card": {"c": 3}, "new": "l'été & <b>"}
    # A change set naming nothing that exists deletes nothing else.
    statements.update(dialog, (), {"never": None})
    dialog.refresh_from_db()
    assert set(dialog.variables) == {"kept", "flow", "card", "new"}
