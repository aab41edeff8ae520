"""The knowledge base's status call: how far its vectors are, and which matcher answers meanwhile."""

from __future__ import annotations

from django.conf import settings

from knowledge import matching

from . import jobs
from .models import VectorJob

WAITING = (VectorJob.State.PENDING, VectorJob.State.RUNNING, VectorJob.State.FAILED)


def knowledge_base_status(bot) -> dict:
    vectors = jobs.progress(bot.pk)
    embeddings = settings.MATCHING_EMBEDDINGS and matching.embeddings_available()
    return {
        "botUUID": str(bot.uuid),
        "knowledgeVersion": bot.knowledge_version,
        "matching": "embeddings" if embeddings and vectors["state"] not in WAITING else "lexical",
        "vectors": vectors,
    }
