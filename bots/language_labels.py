"""A language's name as the back office shows it: in the page's language, with its code (Français (fr))."""

from django.utils.translation import get_language_info

from .models import LANGUAGE_NAMES


def language_label(code: str) -> str:
    """The name in the page's language (Django's catalogue) and the code: French (fr), Français (fr) in French."""
    try:
        name = get_language_info(code)["name_translated"]
    except KeyError:  # a code Django does not know: the bot's English name, if any
        name = LANGUAGE_NAMES.get(code)
    return f"{name} ({code})" if name else code
