"""Where a talk's time goes: each stage of chat/talk timed in process on the demo bot, then what each
middleware costs (the same talks with that middleware left out), and the queries of one talk.

    python bench/talk_profile.py [--talks 1500] [--database-url URL] [--embeddings on|off] [--cprofile N]

The stages are timed by wrapping the functions that do them (form reading, bot lookup, context lookup,
snapshot, matching, answers, rendering, the transaction that stores the talk, the envelope), in CPU time
of the thread serving the talk (a loaded machine stretches wall time, not this): SQLite's work is
counted, PostgreSQL's own (another process) is not. "outside the view" is the rest of the request
(middleware, DRF, routing). The test client posts the chatbox's urlencoded form. SQLite in a temporary
folder by default, or the database at --database-url (flushed first: use a scratch database). One
client, one thread: what a talk costs, not queueing.
"""

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench._common import demo_bot_in_process  # noqa: E402
from bench.talk import QUESTIONS  # noqa: E402

# The same questions as bench/talk.py: answered, reworded, misunderstood, follow-ups, two languages.
# The chatbox's form (client-contract.md §2), as in bench/talk_load.py.
FORM = {
    "alreadyCame": "false",
    "browser": "Chrome 156.0.0.0",
    "clientId": "a1b2c3d4e5f6a7b",
    "os": "Linux undefined",
    "qualificationMode": "false",
    "space": "Defaut",
    "userUrl": "http://shop.example/page",
    "solutionUsed": "ASSISTANT",
    "variables": "{}",
    "mode": "U3luY2hyb24=",
}

spent: dict[str, list[float]] = defaultdict(list)
# CPU time of this thread: a shared, loaded machine stretches wall time, not this. SQLite runs in this
# thread, so its work is counted; PostgreSQL's own work (another process) is not.
clock = time.thread_time


def timed(label, function):
    def wrapper(*args, **kwargs):
        started = clock()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label].append(clock() - started)

    wrapper.__wrapped__ = function
    return wrapper


class TimedAtomic:
    """dialogs.engine's `transaction` module, with atomic() timed from BEGIN to COMMIT."""

    def __init__(self, real):
        self.real = real

    def atomic(self, *args, **kwargs):
        block = self.real.atomic(*args, **kwargs)

        class Timed:
            def __enter__(self):
                self.started = clock()
                return block.__enter__()

            def __exit__(self, *exc):
                try:
                    return block.__exit__(*exc)
                finally:
                    spent["database writes (transaction)"].append(clock() - self.started)

        return Timed()


def instrument():
    """Wrap each stage of the talk where the pipeline calls it."""
    from django.core.handlers import base

    from bots.servlet import views as servlet_views
    from dialogs import engine
    from dialogs.api import views as chat_views
    from knowledge.matching.matcher import Matcher

    chat_views.talk_request_from_params = timed("form reading", chat_views.talk_request_from_params)
    servlet_views.ServletView.params = timed("form reading", servlet_views.ServletView.params)
    chat_views.get_bot = timed("bot lookup", chat_views.get_bot)
    engine.contexts.active_dialog = timed("context lookup", engine.contexts.active_dialog)
    if hasattr(engine.contexts, "dialog_with_bot"):  # the dialog read with its bot, in the view
        engine.contexts.dialog_with_bot = timed("context lookup", engine.contexts.dialog_with_bot)
    engine.snapshot_for = timed("snapshot", engine.snapshot_for)
    if hasattr(Matcher, "read"):  # the talk reads the input once, then matches it against sets
        Matcher.read = timed("matching", Matcher.read)
        Matcher.match_first = timed("matching", Matcher.match_first)
    elif hasattr(Matcher, "match_first"):
        Matcher.match_first = timed("matching", Matcher.match_first)
    else:
        Matcher.match = timed("matching", Matcher.match)
    if hasattr(engine, "answers_for"):  # before answers were kept in the snapshot
        engine.answers_for = timed("answers", engine.answers_for)
    else:
        from knowledge.snapshot import Snapshot

        Snapshot.answers = timed("answers", Snapshot.answers)
    engine.rewording_answer = timed("rendering", engine.rewording_answer)
    engine.substitute_variables = timed("rendering", engine.substitute_variables)
    engine.transaction = TimedAtomic(engine.transaction)
    # The view builds its envelope with the shared servlet layer's envelope_body (an older one called envelope).
    for name in ("envelope_body", "envelope"):
        if hasattr(chat_views, name):
            setattr(chat_views, name, timed("envelope", getattr(chat_views, name)))
    chat_views.TalkView.post = timed("view", chat_views.TalkView.post)
    base.BaseHandler.get_response = timed("request", base.BaseHandler.get_response)


def post(client, url: str, fields: dict):
    """A form post as the chatbox sends it (urlencoded; the test client's default is multipart)."""
    return client.post(url, urlencode(fields), content_type="application/x-www-form-urlencoded")


def run_talks(client, url, talks: int) -> list[float]:
    """`talks` talks, a new visitor every 20; returns each one's latency in seconds."""
    latencies, context = [], ""
    for index in range(talks):
        language, text = QUESTIONS[index % len(QUESTIONS)]
        if index % 20 == 0:
            context = ""
        started = clock()
        response = post(
            client, url + (f"/{context}" if context else ""), {**FORM, "userInput": text, "language": language}
        )
        latencies.append(clock() - started)
        assert response.status_code == 200, response.content
        if not context:
            import base64

            context = base64.b64decode(response.json()["values"]["contextId"]).decode()
    return latencies


def ms(values) -> float:
    return 1000 * sum(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--talks", type=int, default=1500)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--embeddings", choices=("on", "off"), default="on")
    parser.add_argument("--cprofile", type=int, default=0, help="also print the N costliest functions (cProfile)")
    parser.add_argument("--no-ablation", action="store_true", help="skip the per-middleware runs")
    args = parser.parse_args()

    os.environ.setdefault("LOG_LEVEL", "WARNING")
    bot = demo_bot_in_process(args.database_url, "bench-talk-profile-", MATCHING_EMBEDDINGS=args.embeddings)
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    url = f"/servlet/api/chat/talk/{bot.uuid}"
    print(f"talk profile on {connection.vendor}, embeddings {args.embeddings}, {args.talks} talks, one client")

    run_talks(Client(), url, 40)  # warm: snapshots, matchers, models
    instrument()
    spent.clear()
    latencies = run_talks(Client(), url, args.talks)
    request = ms(spent.pop("request"))
    view = ms(spent.pop("view"))
    print(f"  whole talk through Django (handler, middleware, view): {request / args.talks:.3f} ms per talk")
    print(f"  client-side CPU per talk: median {1000 * statistics.median(latencies):.3f} ms")
    stages = {label: ms(values) for label, values in spent.items()}
    for label, total in sorted(stages.items(), key=lambda pair: -pair[1]):
        print(f"    {label:32s} {total / args.talks:7.3f} ms  {100 * total / request:5.1f} %")
    rest = view - sum(stages.values())
    print(f"    {'view, rest (engine, DRF view)':32s} {rest / args.talks:7.3f} ms  {100 * rest / request:5.1f} %")
    outside = request - view
    label = "outside the view (middleware, DRF, routing)"
    print(f"    {label:32s} {outside / args.talks:7.3f} ms  {100 * outside / request:5.1f} %")

    client = Client()
    post(client, url, {**FORM, "userInput": "Bonjour", "language": "fr"})
    with CaptureQueriesContext(connection) as new_dialog:
        response = post(client, url, {**FORM, "userInput": "Bonjour", "language": "fr"})
    import base64

    context = base64.b64decode(response.json()["values"]["contextId"]).decode()
    with CaptureQueriesContext(connection) as running:
        post(client, f"{url}/{context}", {**FORM, "userInput": "comment faire un virement", "language": "fr"})
    print(f"  queries: new dialog {len(new_dialog)}, running dialog {len(running)}")
    for query in running.captured_queries:
        print(f"      {query['sql'][:150]}")

    if not args.no_ablation:
        from django.test.utils import override_settings

        print("  each middleware: the same talks without it (whole request, ms per talk)")
        baseline = None
        # Sessions cannot go without authentication and messages (they need it): they leave together.
        session_group = ("SessionMiddleware", "AuthenticationMiddleware", "MessageMiddleware")
        groups = [(name,) for name in settings.MIDDLEWARE if not name.endswith(session_group)]
        groups.append(tuple(name for name in settings.MIDDLEWARE if name.endswith(session_group)))
        groups.append(tuple(settings.MIDDLEWARE))
        for left_out in [None, *groups]:
            chain = [name for name in settings.MIDDLEWARE if name not in (left_out or ())]
            with override_settings(MIDDLEWARE=chain):
                client = Client()
                run_talks(client, url, 20)
                spent.clear()
                run_talks(client, url, args.talks // 3)
                cost = ms(spent["request"]) / (args.talks // 3)
            if left_out is None:
                baseline = cost
                print(f"    all middleware: {cost:.3f} ms")
            else:
                names = " + ".join(name.rsplit(".", 1)[-1] for name in left_out)
                if len(left_out) == len(settings.MIDDLEWARE):
                    names = "any middleware"
                print(f"    without {names:60s} {cost:.3f} ms  (saves {baseline - cost:+.3f})")

    if args.cprofile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        run_talks(Client(), url, 300)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(args.cprofile)


if __name__ == "__main__":
    main()
