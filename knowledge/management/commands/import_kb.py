"""`manage.py import_kb BOT FILE`: replace a bot's knowledge base with an XML file, with the same
checks as the import servlet (size limit, hostile XML, schema, references, one transaction)."""

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from bots.servlet.errors import ServletError
from knowledge.exchange import import_knowledge_base
from knowledge.exchange.bots import find_bot


class Command(BaseCommand):
    help = "Import an XML knowledge base file into a bot, replacing its knowledge base."

    def add_arguments(self, parser):
        parser.add_argument("bot", help="The bot: its UUID or its exact name.")
        parser.add_argument("file", help="The XML file (knowledge base, or bot data with --bot-data).")
        parser.add_argument(
            "--max-bytes",
            type=int,
            default=None,
            help="Refuse larger files (default: KB_UPLOAD_MAX_BYTES, as the servlet; 0: no limit).",
        )
        parser.add_argument("--bot-data", action="store_true", help="Import the file's preferences too.")
        parser.add_argument("--progress", action="store_true", help="Show the progress bar even off a terminal.")

    def handle(self, *args, bot, file, max_bytes=None, bot_data=False, progress=False, **options):
        target = find_bot(bot)
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"No file at {path}.")
        size = path.stat().st_size
        limit = settings.KB_UPLOAD_MAX_BYTES if max_bytes is None else max_bytes
        if limit and size > limit:
            raise CommandError(f"{path} is {size} bytes, over the limit of {limit} (raise it with --max-bytes).")
        bars = PhaseBars(self.stderr, size, enabled=options["verbosity"] > 0 and (progress or self.stderr.isatty()))
        try:
            report = import_knowledge_base(target, path, preferences=bot_data, progress=bars.update)
        except ServletError as error:
            bars.close()
            raise CommandError(f"{path}: {error.message} Nothing was changed.") from None
        bars.close()
        self.stdout.write(json.dumps(report.as_json(), indent=2, ensure_ascii=False))


class PhaseBars:
    """One tqdm bar per import phase (checking, then importing), each over the file's bytes."""

    def __init__(self, stderr, size: int, *, enabled: bool):
        # tqdm writes "\r" redraws itself: it gets the raw stream, not Django's wrapper that ends each write.
        self.stream, self.size, self.enabled = stderr._out, size, enabled
        self.phase, self.bar = None, None

    def update(self, phase: str, done: int):
        if phase != self.phase:
            self.close()
            self.phase = phase
            self.bar = tqdm(
                total=self.size,
                desc=phase,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                file=self.stream,
                disable=not self.enabled,
            )
        self.bar.update(min(done, self.size) - self.bar.n)

    def close(self):
        """Ends the current phase's bar at its full size (the reader reports now and then, not at the very end)."""
        if self.bar is not None:
            self.bar.update(self.size - self.bar.n)
            self.bar.close()
            self.bar = None
