"""Both classroom stores behind one fixture: every rule is held by memory and by a real Redis."""

from __future__ import annotations

import pytest

from app.classroom.memory_store import MemoryStore
from app.classroom.redis_store import RedisStore


class Clock:
    """A monotonic clock that moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["memory", "redis"])
def store(request, clock):
    """A fresh store: MemoryStore on a stopped clock, or RedisStore on the test's redis-server."""
    if request.param == "memory":
        return MemoryStore(clock=clock)
    return RedisStore(request.getfixturevalue("redis_url"))


@pytest.fixture
def second_store(store, request):
    """Another process's view of `store`: the same dict, or a second connection to Redis."""
    if isinstance(store, MemoryStore):
        return store
    return RedisStore(request.getfixturevalue("redis_url"))
