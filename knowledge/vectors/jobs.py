"""Vector jobs in the database: schedule one for a bot, claim it (one process at a time), report progress."""

from __future__ import annotations

import os
import socket
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.db.models import F, Q
from django.utils import timezone

from .models import VectorJob

State = VectorJob.State
# PostgreSQL's notification channel on which a scheduled job is announced (run_background listens on it).
CHANNEL = "knowledge_vector_jobs"


def me() -> str:
    """This process, as its claims name it."""
    return f"{socket.gethostname()}:{os.getpid()}"[:120]


def schedule(bot_id: int, total: int = 0) -> VectorJob:
    """(Re)start the bot's job from the beginning: a worker still on an older schedule stops at its next
    heartbeat (the generation changed). Called inside the import's transaction: the job exists exactly when
    the imported formulations do."""
    now = timezone.now()
    fields = dict(
        state=State.PENDING,
        total=total,
        done=0,
        computed=0,
        claimed_by="",
        heartbeat=None,
        scheduled_at=now,
        started_at=None,
        finished_at=None,
        error="",
    )
    if VectorJob.objects.filter(bot_id=bot_id).update(generation=F("generation") + 1, **fields):
        job = VectorJob.objects.get(bot_id=bot_id)
    else:
        job = VectorJob.objects.create(bot_id=bot_id, **fields)
    announce()
    return job


def announce() -> None:
    """On PostgreSQL, tell the processes listening (manage.py run_background) that a job is scheduled, so
    that it starts at once rather than at their next poll; PostgreSQL delivers it when the transaction
    commits, and never if it rolls back. Elsewhere the job is found at the next poll."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"NOTIFY {CHANNEL}")


def ensure(bot_id: int) -> bool:
    """Schedule the bot's job unless one is pending or running (a matcher found vectors missing, e.g. after
    an edit of many formulations or a change of model); a failed job is not retried by this. True when
    a job was scheduled."""
    current = VectorJob.objects.filter(bot_id=bot_id).values_list("state", flat=True).first()
    if current in (State.PENDING, State.RUNNING, State.FAILED):
        return False
    schedule(bot_id)
    return True


def claimable() -> Q:
    stale = timezone.now() - timedelta(seconds=settings.VECTORS_LEASE_SECONDS)
    return (
        Q(state=State.PENDING)
        | Q(state=State.RUNNING, heartbeat__lt=stale)
        | Q(state=State.RUNNING, heartbeat__isnull=True)
    )


def claim_next() -> VectorJob | None:
    """The oldest job nobody computes, now claimed by this process; None when there is none. The claim is
    one UPDATE whose condition repeats the reason the job was free: on PostgreSQL concurrent claims wait on
    the row's lock and re-check it, on SQLite writes are serialised: either way one process wins."""
    for job in VectorJob.objects.filter(claimable()).order_by("scheduled_at", "id")[:5]:
        now = timezone.now()
        taken = VectorJob.objects.filter(claimable(), pk=job.pk, generation=job.generation).update(
            state=State.RUNNING, claimed_by=me(), heartbeat=now, started_at=now
        )
        if taken:
            job.refresh_from_db()
            return job
    return None


def beat(job: VectorJob, **progress) -> bool:
    """Record progress and keep the claim; False when the job is no longer ours (rescheduled, taken over)."""
    return bool(
        VectorJob.objects.filter(pk=job.pk, generation=job.generation, claimed_by=me(), state=State.RUNNING).update(
            heartbeat=timezone.now(), **progress
        )
    )


def finish(job: VectorJob, error: str = "") -> bool:
    state = State.FAILED if error else State.DONE
    return bool(
        VectorJob.objects.filter(pk=job.pk, generation=job.generation, claimed_by=me()).update(
            state=state, finished_at=timezone.now(), heartbeat=timezone.now(), error=error[:2000]
        )
    )


def progress(bot_id: int) -> dict:
    """The bot's vectors as the status calls say it: state (none / pending / running / done / failed),
    done, total."""
    job = VectorJob.objects.filter(bot_id=bot_id).first()
    if job is None:
        return {"state": "none", "done": 0, "total": 0}
    return job.progress()


def ready_among(bot_ids) -> set[int]:
    """Which of these bots' jobs are done (one query)."""
    return set(VectorJob.objects.filter(bot_id__in=list(bot_ids), state=State.DONE).values_list("bot_id", flat=True))


def in_progress() -> list[dict]:
    """Jobs pending or running, oldest first, for the server status."""
    return [
        {"botUUID": str(uuid), "state": state, "done": done, "total": total}
        for uuid, state, done, total in VectorJob.objects.filter(state__in=[State.PENDING, State.RUNNING])
        .order_by("scheduled_at")
        .values_list("bot__uuid", "state", "done", "total")[:50]
    ]
