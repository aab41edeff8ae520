"""The back office's language is its user's choice (unfold's language switcher, Django's set_language
view and its cookie): English until someone picks French; the browser's Accept-Language is not used, so a
French browser still meets the back office in English until the switch is used."""

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation


class ChosenLanguageMiddleware(LocaleMiddleware):
    def process_request(self, request):
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        language = chosen if chosen in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()

    def process_response(self, request, response):
        # Only the cookie chooses the language (never Accept-Language): no Vary on it.
        response.headers.setdefault("Content-Language", translation.get_language())
        return response
