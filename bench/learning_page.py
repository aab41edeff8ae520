"""Time to build the learning page (dialogs/learning/page.py) of the demo bot with 2,000 misunderstood
inputs, with the lexical matcher and with sentence vectors, on a scratch SQLite database.

    .venv/bin/python bench/learning_page.py

The inputs are the labelled visitor questions of bench/data/fr_shop_questions.csv (an online shop: the
demo bank knows almost none of them), each one asked several times with small variations, stored as the
talk stores a misunderstood interaction (one bulk insert: the page's cost is what is measured)."""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/learning.sqlite3"

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

from bench.learning_groups import load  # noqa: E402

INPUTS = 2000
RUNS = 5


def seed(bot) -> None:
    from dialogs.models import Dialog, Interaction

    texts, _ = load(Path(__file__).resolve().parent / "data" / "fr_shop_questions.csv")
    rng = random.Random(7)
    dialog = Dialog.objects.create(bot=bot, language="fr", space="Defaut")
    rows = []
    for i in range(INPUTS):
        text = rng.choice(texts)
        if rng.random() < 0.3:  # visitors' variations: case, punctuation, a stray word
            text = rng.choice([text.upper(), text + " ?", "bonjour " + text, text + " svp"])
        rows.append(
            Interaction(
                dialog=dialog,
                bot=bot,
                user_input=text,
                type_response="GBMisunderstoodQuestion" if i % 4 else "RWOneReword",
                language="fr",
                space="Defaut",
            )
        )
    Interaction.objects.bulk_create(rows, batch_size=500)


def measure(bot, embeddings: bool) -> None:
    from dialogs.learning import grouping, page
    from knowledge import snapshot

    settings.MATCHING_EMBEDDINGS = embeddings
    snapshot._cache.clear()
    grouping._cache.clear()  # the inputs' vectors kept between builds: the first build computes them
    snapshot.snapshot_for(bot).matcher("fr")  # the matcher exists already in a serving process
    times, learning = [], None
    for _ in range(RUNS):
        started = time.perf_counter()
        learning = page.build(bot)
        times.append((time.perf_counter() - started) * 1000)
    distinct = sum(len(g.members) for g in learning.groups)
    print(
        f"{learning.mode['fr']:10s}: {learning.read} inputs read, {distinct} distinct, {len(learning.groups)} groups, "
        f"{len(learning.shown)} shown with their closest items; first build {times[0]:.0f} ms, then median "
        f"{statistics.median(times[1:]):.0f} ms (min {min(times[1:]):.0f}, max {max(times[1:]):.0f}, {RUNS - 1} runs)"
    )


def main() -> None:
    from knowledge.demo.seed import seed_demo_bot
    from knowledge.matching import embeddings_available

    call_command("migrate", verbosity=0)
    bot, _ = seed_demo_bot()
    seed(bot)
    measure(bot, embeddings=False)
    if embeddings_available():
        measure(bot, embeddings=True)


if __name__ == "__main__":
    main()
