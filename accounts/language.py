"""The back office's language: its user's explicit choice (unfold's language switcher, Django's set_language
view and its cookie) wins; without one the browser's Accept-Language chooses (French for fr-*, else English)."""

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation.trans_real import parse_accept_lang_header


def browser_language(header: str) -> str:
    """French when the browser's most preferred language it names among ours is French (fr, fr-CA...), else
    English; a browser that names none of ours, or says nothing, gets English."""
    for tag, _quality in parse_accept_lang_header(header or ""):
        code = tag.split("-")[0].lower()
        if code in dict(settings.LANGUAGES):
            return code
    return settings.LANGUAGE_CODE


class ChosenLanguageMiddleware(LocaleMiddleware):
    def process_request(self, request):
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        if chosen in dict(settings.LANGUAGES):
            language = chosen
        else:
            language = browser_language(request.headers.get("Accept-Language", ""))
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()

    def process_response(self, request, response):
        # Without the cookie the page depends on Accept-Language: caches must keep one copy per language.
        if settings.LANGUAGE_COOKIE_NAME not in request.COOKIES:
            patch_vary_headers(response, ("Accept-Language",))
        response.headers.setdefault("Content-Language", translation.get_language())
        return response
