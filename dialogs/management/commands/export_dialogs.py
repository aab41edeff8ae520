"""`manage.py export_dialogs BOT [FILE]`: a bot's dialogs as JSON lines or CSV, one row per interaction,
with the servlet's filters and encodings (dialogs/bulk), streamed to a file or standard output."""

import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from bots.servlet.errors import ServletError
from bots.servlet.params import ServletParams
from dialogs.bulk.export import BATCH_SIZE, export_rows, rows_progress
from dialogs.bulk.formats import FORMATS, format_named
from dialogs.bulk.selection import Selection
from knowledge.exchange.bots import find_bot

# The options that are the servlet's fields, under the servlet's names.
FILTERS = {
    "date_from": "from",
    "date_to": "to",
    "space": "space",
    "language": "language",
    "qualification": "qualificationMode",
    "livechat": "livechat",
    "feedback": "feedback",
}


class Command(BaseCommand):
    help = "Export a bot's dialogs (one row per interaction) as JSON lines or CSV."

    def add_arguments(self, parser):
        parser.add_argument("bot", help="The bot: its UUID or its exact name.")
        parser.add_argument("file", nargs="?", default="-", help='Where to write ("-", the default: standard output).')
        parser.add_argument("--format", default="jsonl", help=f"{' or '.join(FORMATS)} (default jsonl).")
        parser.add_argument("--from", dest="date_from", help="Dialogs started at or after: ISO date, date-time or ms.")
        parser.add_argument("--to", dest="date_to", help="Dialogs started before (a date alone: its whole day).")
        parser.add_argument("--space", help="Only dialogs in this space.")
        parser.add_argument("--language", help="Only dialogs in this language.")
        parser.add_argument("--qualification", help="true: only test dialogs; false: only real ones.")
        parser.add_argument("--livechat", help="true: only dialogs that went to live chat; false: the others.")
        parser.add_argument("--feedback", help="positive, negative, withoutAnswer, any or none.")
        parser.add_argument("--batch-size", type=int, default=BATCH_SIZE, help="Dialogs read per query.")
        parser.add_argument("--progress", action="store_true", help="Show the progress bar even off a terminal.")

    def handle(self, *args, bot, file, progress=False, **options):
        source = find_bot(bot)
        encoding = format_named(options["format"])
        if encoding is None:
            raise CommandError(f"--format: use one of {', '.join(FORMATS)}")
        fields = {name: str(options[option]) for option, name in FILTERS.items() if options.get(option) is not None}
        try:
            selection = Selection.from_params(source, ServletParams(fields))
        except ServletError as error:
            raise CommandError(error.message) from None
        # The shell is the platform's operator: the visitors' ids are exported.
        rows = export_rows(selection, client_ids=True, batch_size=max(options["batch_size"], 1))
        show = options["verbosity"] > 0 and (progress or self.stderr.isatty())
        bar = tqdm(
            total=selection.interactions().count() if show else None,
            unit=" rows",
            unit_scale=True,
            file=self.stderr._out,
            disable=not show,
            desc=f"{source.name}: {encoding.name}",
        )
        written = 0
        to_stdout = file == "-"
        out = sys.stdout.buffer if to_stdout else open(file, "wb")  # noqa: SIM115 (closed below)
        try:
            for chunk in encoding.encode(rows_progress(rows, 1000, bar.update)):
                out.write(chunk)
                written += len(chunk)
        finally:
            bar.close()
            if to_stdout:
                out.flush()
            else:
                out.close()
        if options["verbosity"] > 0 and not to_stdout:
            self.stderr.write(f"{source.name}: {bar.n} rows, {written} bytes written to {file}.")
