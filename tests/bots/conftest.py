"""Personas, and chat meters of their own for each test (Redis-backed when REDIS_URL is set, under a
namespace no other test or worker shares)."""

import uuid

import pytest
from django.conf import settings

from bots import metrics
from bots.status import report
from tests.accounts.personas import personas  # noqa: F401


def fresh_store(namespace: str | None = None):
    if settings.REDIS_URL:
        return metrics.RedisStore(settings.REDIS_URL, namespace or f"test-{uuid.uuid4().hex}")
    return metrics.LocalStore()


@pytest.fixture
def meters():
    chat_meters = metrics.ChatHttpMeters(fresh_store())
    previous = metrics.use_meters(chat_meters)
    report.forget()
    yield chat_meters
    metrics.use_meters(previous)
    chat_meters.store.reset()
    report.forget()
