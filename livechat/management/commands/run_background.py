"""`manage.py run_background`: the background work in a process of its own (BACKGROUND_WORK "separate",
`make prod`): the vector worker and live chat's clocks, until SIGTERM or SIGINT (docs/operations.md)."""

import logging
import os
import signal
import threading

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from knowledge.vectors import jobs, worker
from livechat import timers

log = logging.getLogger(__name__)

# On a stop, the vector worker finishes the chunk it computes (2-4 s, longer on a loaded machine) and the
# clocks their pass; supervisord waits 30 s (deploy/program-background.conf.template) before SIGKILL, and a
# job cut short there is resumed by the next claim anyway.
STOP_SECONDS = 25


class Command(BaseCommand):
    help = (
        "Run the background work (vector jobs, live chat's clocks) in this process until SIGTERM; "
        "several may run at once, on one machine or several."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--only",
            choices=["vectors", "clocks"],
            help="Run only the vector worker or only live chat's clocks (default: both).",
        )

    def handle(self, *args, only=None, **options):
        vectors = only in (None, "vectors")
        clocks = only in (None, "clocks") and settings.LIVECHAT_TIMER_SECONDS > 0
        if clocks and settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith("InMemoryChannelLayer"):
            # The clocks' notices (a visitor timed out, an operator offline) reach the sockets of the server
            # processes through the channel layer: an in-memory one would keep them in this process.
            raise CommandError(
                "live chat's clocks in a process of their own need REDIS_URL (their notices reach the "
                "consoles and chatboxes through Redis); without Redis keep BACKGROUND_WORK=in-process, "
                "or run this with --only vectors"
            )
        stop = threading.Event()

        def stopping(number, _frame):
            log.info("Background work: %s received, stopping", signal.Signals(number).name)
            stop.set()

        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, stopping)

        clock = None
        if vectors:
            worker.start(claims=True, serves=False)  # the servers build their own indexes
            if connection.vendor == "postgresql":
                # A job starts as soon as it is scheduled, in whichever process, not at the next poll.
                threading.Thread(target=worker.listen, args=(stop,), name="vector-jobs-listener", daemon=True).start()
        if clocks:
            clock = threading.Thread(target=timers.run_clocks, args=(stop,), name="livechat-clocks", daemon=True)
            clock.start()
        running = [name for name, on in (("vector worker", vectors), ("live chat's clocks", clocks)) if on]
        self.stdout.write(f"Background work running as {jobs.me()}: {', '.join(running) or 'nothing to run'}")
        self.stdout.flush()
        failed = ""
        while not stop.wait(1):
            # A thread that died of an unexpected error: the process exits non-zero and its supervisor
            # starts it again, rather than running on with half its work.
            if vectors and not worker.running():
                failed = "the vector worker stopped"
            elif clock is not None and not clock.is_alive():
                failed = "live chat's clocks stopped"
            if failed:
                stop.set()
        if vectors:
            worker.stop(timeout=STOP_SECONDS)
        if clock is not None:
            clock.join(STOP_SECONDS)
        if failed:
            raise CommandError(f"Background work: {failed} unexpectedly (see the log above)")
        self.stdout.write(f"Background work stopped ({os.getpid()})")
