"""Checks of the slot-filling fields as the back office edits them (JSON): per-language sentences,
allowed values, and the slots an item needs (slot items of the same bot)."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from knowledge.models import KnowledgeItem


def validate_texts(value):
    """{"fr": "Quel jour ?", "en": "Which day?"}: language codes to sentences."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and 0 < len(k) <= 8 and isinstance(v, str) for k, v in value.items()
    ):
        raise ValidationError(_('A JSON object of sentences by language code: {"fr": "…", "en": "…"}.'))


def validate_values(value):
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValidationError(_('A JSON list of non-empty texts: ["Margherita", "Regina"].'))


def slots_validator(bot_id: int | None):
    """The slots an item needs: a list of ids of the bot's slot items, each once."""

    def validate(value):
        if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise ValidationError(_("A JSON list of slot item ids: [12, 13]."))
        if len(set(value)) != len(value):
            raise ValidationError(_("A slot is needed once."))
        if bot_id and value:
            found = set(
                KnowledgeItem.objects.filter(bot_id=bot_id, kind=KnowledgeItem.Kind.SLOT, pk__in=value).values_list(
                    "id", flat=True
                )
            )
            unknown = [v for v in value if v not in found]
            if unknown:
                raise ValidationError(_("Not slot items of this bot: %(ids)s.") % {"ids": ", ".join(map(str, unknown))})

    return validate


def slots_help(bot_id: int | None) -> str:
    """The bot's slot items, so the editor can pick their ids."""
    text = _("Ids of the slot items this item asks for, in order: [12, 13].")
    if not bot_id:
        return text
    rows = KnowledgeItem.objects.filter(bot_id=bot_id, kind=KnowledgeItem.Kind.SLOT).values_list(
        "id", "label", "slot_variable", "slot_type"
    )
    listed = "; ".join(f"{pk} {label} (${{capture.{variable}}}, {kind or '?'})" for pk, label, variable, kind in rows)
    more = _("This bot's slot items: %(items)s.") % {"items": listed} if listed else _("This bot has no slot item yet.")
    return f"{text} {more}"


def _texts(formfield, bot_id):
    formfield.validators.append(validate_texts)
    formfield.widget.attrs["rows"] = 3  # a line or two per language


def _values(formfield, bot_id):
    formfield.validators.append(validate_values)
    formfield.widget.attrs["rows"] = 2


def _slots(formfield, bot_id):
    formfield.validators.append(slots_validator(bot_id))
    formfield.widget.attrs["rows"] = 1
    formfield.help_text = slots_help(bot_id)


# The back office's slot-filling fields and how each is checked (knowledge/admin.py).
FIELDS = {
    "slot_question": _texts,
    "slot_invalid": _texts,
    "slot_intro": _texts,
    "slot_values": _values,
    "slots": _slots,
}
