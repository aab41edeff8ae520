"""How an operator is named: the display name each operator sets (checked here for every door that sets
it), and the name visitors see: that display name, else the first name, else the bot's word for an
operator in the dialog's language (the `livechat_operator` global sentence) — never the login."""

import unicodedata

from bots.servlet.errors import InvalidField
from dialogs.models import Dialog
from knowledge.models import GlobalSentence
from knowledge.sentences import global_sentence
from knowledge.snapshot import snapshot_for

from .models import Operator

DISPLAY_NAME_MAX_CHARS = Operator._meta.get_field("display_name").max_length


def shown_name(operator: Operator, dialog: Dialog) -> str:
    """The operator's name as the dialog's visitor sees it, in notices, messages, history and transcripts."""
    own = " ".join((operator.display_name or operator.user.first_name or "").split())
    if own:
        return own
    sentences = snapshot_for(dialog.bot).sentences
    return global_sentence(sentences, dialog.language, GlobalSentence.Kind.LIVECHAT_OPERATOR)


def clean_display_name(value, field: str = "displayName") -> str:
    """A display name as stored: spaces collapsed, at most DISPLAY_NAME_MAX_CHARS characters, no control
    or format character (it is shown inside other people's sentences). Empty: the default applies."""
    if value is not None and not isinstance(value, str):
        raise InvalidField(field, "a text")
    text = " ".join((value or "").split())
    if len(text) > DISPLAY_NAME_MAX_CHARS:
        raise InvalidField(field, f"at most {DISPLAY_NAME_MAX_CHARS} characters")
    if any(unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs") for char in text):
        raise InvalidField(field, "no control or invisible characters")
    return text


def set_display_name(operator: Operator, value) -> Operator:
    """The operator's display name changed (the console, the API); the dialogs they hold go on with it."""
    operator.display_name = clean_display_name(value)
    Operator.objects.filter(pk=operator.pk).update(display_name=operator.display_name)
    return operator
