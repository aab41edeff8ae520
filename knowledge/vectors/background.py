"""What an import asks of the vectors: a job for the bot's formulations, started once the import commits."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from knowledge import matching

from . import compute, jobs, worker


def schedule_import(bot_id: int) -> dict | None:
    """Inside the import's transaction: (re)schedule the bot's vector job and wake this process's worker
    when the import commits; the import's answer says so (state, done, total). None without embeddings."""
    if not (settings.MATCHING_EMBEDDINGS and matching.embeddings_available()):
        return None
    job = jobs.schedule(bot_id, total=compute.formulations(bot_id).count())
    transaction.on_commit(lambda: worker.wake(bot_id))
    return {**job.progress(), "message": "The vectors are being computed; the bot answers lexically until then."}
