"""Talk hot-path benchmark: latency of chat/talk through the whole Django stack (form parsing,
context lookup, matching, answer, interaction write), in process, on the demo bot.

Usage: python bench/talk.py [--talks N] [--database-url URL]
Prints median / p95 / p99 latency and throughput of one sequential client; SQLite in a temporary
folder by default, or the database at --database-url (it is flushed first: use a scratch database).
"""

import argparse
import base64
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench._common import demo_bot_in_process  # noqa: E402

QUESTIONS = [
    ("fr", "Quels sont vos horaires d'ouverture ?"),
    ("fr", "j'ai perdu ma carte"),
    ("fr", "oui"),
    ("fr", "comment faire un virement"),
    ("fr", "carte"),
    ("fr", "xyzzy plugh"),
    ("en", "how long does a transfer take"),
    ("en", "I forgot my password"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--talks", type=int, default=2000)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()

    bot = demo_bot_in_process(args.database_url, "bench-talk-")
    from django.db import connection
    from django.test import Client

    client = Client()
    url = f"/servlet/api/chat/talk/{bot.uuid}"

    def talk(language, text, context=""):
        response = client.post(url + (f"/{context}" if context else ""), {"userInput": text, "language": language})
        assert response.status_code == 200, response.content
        return response.json()["values"]["contextId"]

    started = time.perf_counter()
    talk("fr", "Bonjour")
    talk("en", "Hello")
    warm = time.perf_counter() - started

    latencies = []
    context = ""
    for index in range(args.talks):
        language, text = QUESTIONS[index % len(QUESTIONS)]
        if index % 20 == 0:
            context = ""  # a new visitor now and then
        t0 = time.perf_counter()
        encoded = talk(language, text, context)
        latencies.append((time.perf_counter() - t0) * 1000)
        if not context:
            context = base64.b64decode(encoded).decode()
    latencies.sort()

    def pct(p):
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))]

    vendor = connection.vendor
    print(f"talk benchmark on {vendor} ({args.talks} talks, one client, in process)")
    print(f"  first talks (index build, model load): {warm * 1000:.0f} ms")
    print(f"  latency median {statistics.median(latencies):.2f} ms  p95 {pct(0.95):.2f} ms  p99 {pct(0.99):.2f} ms")
    print(f"  throughput {1000 / statistics.mean(latencies):.0f} talks/s (one client, one process)")


if __name__ == "__main__":
    main()
