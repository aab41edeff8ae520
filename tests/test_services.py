"""The suite runs against the services the environment names: PostgreSQL when DATABASE_URL says so,
Redis (channel layer and cache) when REDIS_URL is set; the embedded defaults otherwise."""

import os
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.cache import caches
from django.db import connection


@pytest.mark.django_db
def test_the_database_is_the_one_configured():
    url = os.environ.get("DATABASE_URL", "")
    expected = "postgresql" if url.startswith(("postgres://", "postgresql://", "pgsql://")) else "sqlite"
    assert connection.vendor == expected
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_the_channel_layer_carries_a_message():
    layer = get_channel_layer()
    expected = "RedisChannelLayer" if os.environ.get("REDIS_URL") else "InMemoryChannelLayer"
    assert type(layer).__name__ == expected

    async def round_trip():
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "probe", "text": "hello"})
        return await layer.receive(channel)

    assert async_to_sync(round_trip)() == {"type": "probe", "text": "hello"}


def test_the_cache_is_shared_when_redis_is_configured():
    expected = "RedisCache" if os.environ.get("REDIS_URL") else "LocMemCache"
    cache = caches["default"]
    assert type(cache).__name__ == expected
    key = f"probe-{uuid.uuid4()}"
    cache.set(key, "value", 10)
    assert cache.get(key) == "value"
    cache.delete(key)
