"""The pages cache's lean read (club/web/cache.py): one MGET on the thread's own
connection, the same values as Django's backend reads, and a connection Redis closed
is opened again without the reader seeing it."""

from __future__ import annotations

import datetime

import pytest
import redis

from club.web.cache import RedisCache

LOCATION = "redis://127.0.0.1:6379/15"


@pytest.fixture
def cache():
    server = redis.Redis.from_url(LOCATION, socket_connect_timeout=1)
    try:
        server.ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis at 127.0.0.1:6379")
    prefix = f"club-test-reads-{datetime.datetime.now().timestamp()}"
    yield RedisCache(LOCATION, {"KEY_PREFIX": prefix}), server
    for key in server.keys(f"{prefix}*"):
        server.delete(key)


def test_a_read_finds_what_django_kept_and_leaves_out_what_is_not_there(cache):
    pages, _server = cache
    page = ("text/html; charset=utf-8", b"\x1f\x8b" + bytes(range(256)) * 40)
    pages.set("counter", 41, None)
    pages.set("page", page, 60)
    assert pages.get_many(["counter", "page", "gone"]) == {"counter": 41, "page": page}
    pages.incr("counter")
    assert pages.get_many(["counter"]) == {"counter": 42}
    assert pages.get_many([]) == {}


def test_a_connection_redis_closed_is_opened_again_for_the_same_read(cache):
    pages, server = cache
    pages.set("counter", 7, None)
    assert pages.get_many(["counter"]) == {"counter": 7}

    def client_id() -> int:
        held = pages._cache._held.connection
        held.send_command("CLIENT", "ID")
        return held.read_response()

    first = client_id()
    server.client_kill_filter(_id=first)  # as a Redis restarting would
    assert pages.get_many(["counter"]) == {"counter": 7}
    assert client_id() != first  # connected again


def test_a_redis_that_is_down_is_an_error_the_page_answers_for(cache):
    pages, _server = cache
    down = RedisCache("redis://127.0.0.1:1/15", {"OPTIONS": {"socket_connect_timeout": 0.2}})
    with pytest.raises(redis.exceptions.ConnectionError):
        down.get_many(["counter"])
    with pytest.raises(redis.exceptions.ConnectionError):  # and again: nothing half-held
        down.get_many(["counter"])
    assert pages.get_many(["nothing"]) == {}


def test_a_number_and_a_pickled_value_read_back_as_django_wrote_them(cache):
    pages, _server = cache
    values = {"n": -3, "big": 2**70, "text": "128", "bytes": b"\x80\x05", "none_like": 0}
    for key, value in values.items():
        pages.set(key, value, 60)
    assert pages.get_many(list(values)) == values


def test_a_read_that_times_out_raises_at_once_and_gives_its_connection_back(cache, monkeypatch):
    pages, _server = cache
    pages.set("counter", 3, None)
    assert pages.get_many(["counter"]) == {"counter": 3}
    client = pages._cache
    pool = client._get_connection_pool(False)
    held = client._held.connection

    def slow(*args, **kwargs):
        raise redis.exceptions.TimeoutError("Timeout reading from socket")

    monkeypatch.setattr(held, "read_response", slow)
    with pytest.raises(redis.exceptions.TimeoutError):  # no second try: the page waits not
        pages.get_many(["counter"])
    assert held not in pool._in_use_connections and held._sock is None  # dropped, given back
    monkeypatch.undo()
    assert pages.get_many(["counter"]) == {"counter": 3}  # the next read connects again
