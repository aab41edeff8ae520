"""A bot's vector job: which formulations still need their vector, who computes them, how far it got."""

from django.db import models


class VectorJob(models.Model):
    """One row per bot. An import (re)schedules it; one server process at a time claims it (a conditional
    UPDATE: whoever changes the row first owns it) and keeps its heartbeat fresh; a claim whose heartbeat
    is older than the lease is taken over, so a job left by a stopped process resumes elsewhere or after
    the restart. Its formulations' vectors are stored as they are computed: nothing is computed twice."""

    class State(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    bot = models.OneToOneField("bots.Bot", on_delete=models.CASCADE, related_name="vector_job")
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    # Bumped by every scheduling: a worker still computing an older schedule stops at its next heartbeat.
    generation = models.PositiveIntegerField(default=1)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    computed = models.PositiveIntegerField(default=0)  # of `done`, those that had no usable stored vector
    claimed_by = models.CharField(max_length=120, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True)
    scheduled_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        indexes = [models.Index(fields=["state", "scheduled_at"], name="vector_job_state")]

    def __str__(self):
        return f"vectors of bot {self.bot_id}: {self.state} {self.done}/{self.total}"

    def progress(self) -> dict:
        """What the import's answer and the status calls say of it."""
        return {"state": self.state, "done": self.done, "total": self.total}
