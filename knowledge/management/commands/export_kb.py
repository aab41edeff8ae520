"""`manage.py export_kb BOT FILE`: write a bot's knowledge base as an XML file (FILE "-": standard
output), streamed as the servlet streams it."""

import sys

from django.core.management.base import BaseCommand
from tqdm import tqdm

from knowledge.exchange import export_knowledge_base
from knowledge.exchange.bots import find_bot


class Command(BaseCommand):
    help = "Export a bot's knowledge base as an XML file."

    def add_arguments(self, parser):
        parser.add_argument("bot", help="The bot: its UUID or its exact name.")
        parser.add_argument("file", help='Where to write the XML file ("-": standard output).')
        parser.add_argument("--exclude-gallery", action="store_true", help="Leave the image gallery out.")
        parser.add_argument("--bot-data", action="store_true", help="Add the bot's preferences (bot data file).")
        parser.add_argument("--progress", action="store_true", help="Show the progress bar even off a terminal.")

    def handle(self, *args, bot, file, exclude_gallery=False, bot_data=False, progress=False, **options):
        source = find_bot(bot)
        total = source.knowledge_items.count()
        to_stdout = file == "-"
        # tqdm writes "\r" redraws itself: it gets the raw stream, not Django's wrapper that ends each write.
        bar = tqdm(
            total=total,
            desc="exporting",
            unit="items",
            file=self.stderr._out,
            disable=not (options["verbosity"] > 0 and (progress or self.stderr.isatty()) and total > 0),
        )
        written = 0
        out = sys.stdout.buffer if to_stdout else open(file, "wb")  # noqa: SIM115 (closed below)
        try:
            for chunk in export_knowledge_base(
                source,
                gallery=not exclude_gallery,
                preferences=bot_data,
                progress=lambda done: bar.update(done - bar.n),
            ):
                out.write(chunk)
                written += len(chunk)
        finally:
            if not to_stdout:
                out.close()
        bar.close()
        if not to_stdout and options["verbosity"] > 0:
            self.stderr.write(f"{source.name}: {total} knowledge items, {written} bytes written to {file}.")
