"""`manage.py bot_languages`: the languages the bots speak (each bot's default language and the languages
it lists), one code a line. The production layout's gunicorn master reads them before it forks its workers,
to load only the matching models those languages need (deploy/gunicorn.conf.py), without opening a
database connection of its own that the workers would inherit."""

from django.core.management.base import BaseCommand

from bots.models import Bot, BotLanguage


class Command(BaseCommand):
    help = "Print the languages the bots speak, one code a line."

    def handle(self, *args, **options):
        codes = set(Bot.objects.values_list("default_language", flat=True))
        codes |= set(BotLanguage.objects.values_list("code", flat=True))
        for code in sorted(code.strip().lower() for code in codes if code.strip()):
            self.stdout.write(code)
