"""Django's Redis cache, keeping its Redis clients (settings' ``pages`` cache).

Django's backend builds a new ``redis.Redis`` client around its connection pool
for every call, and the client's constructor fills its table of reply parsers
each time: about a fifth of a millisecond per cache read, more than the read
itself on the same machine. A client is safe to share between threads (it
takes a connection from the pool for each command), so one per pool is kept.

A kept page's read (club.web.pages) is one MGET of the write counters and what
they name, on every request, sent straight down a connection of the pool. Around
a command redis-py takes a connection from the pool and gives it back, packs the
command, and runs its retry and its reply callbacks; and Django checks each key
for memcached's limits: together more of the worker's time than the read itself
(about 60 µs a read of 105). So each thread holds one connection of the pool for
its reads. A connection Redis closed (a restart) is opened again for the same
read, once; any other failure, a time-out included, drops the connection and
raises at once, with no retry and no back-off (the page is then read from the
database: club.web.pages).
"""

from __future__ import annotations

import os
import pickle
import threading

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient, RedisSerializer
from redis.exceptions import ConnectionError as RedisConnectionError

PICKLED = b"\x80"  # the first byte of a pickle of protocol 2 or later, never of a number


def _mget_command(keys: list[str]) -> bytes:
    """MGET of ``keys`` as Redis reads it (its protocol's array of bulk strings)."""
    parts = [b"*%d\r\n$4\r\nMGET\r\n" % (len(keys) + 1)]
    for key in keys:
        data = key.encode()
        parts.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)


class _KeptClients(RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}
        self._held = threading.local()  # this thread's connection for reads, and its process

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(
                connection_pool=self._get_connection_pool(write)
            )
        return client

    def get_many(self, keys):
        keys = list(keys)
        if not keys:
            return {}
        values = self._mget(keys)
        if values is None:  # the held connection was closed (a Redis restarted): once more
            values = self._mget(keys, again=True)
        found = zip(keys, values, strict=True)
        return {key: self._loads(value) for key, value in found if value is not None}

    def _loads(self, value: bytes):
        serializer = self._serializer  # type: ignore[attr-defined]  # Django's own
        # Django's serializer tries int() first: a kept page (pickled: it starts with the
        # protocol's mark) would raise and catch a ValueError at every read.
        if value[:1] == PICKLED and type(serializer) is RedisSerializer:
            return pickle.loads(value)
        return serializer.loads(value)

    def _mget(self, keys: list, again: bool = False) -> list | None:
        """The values at ``keys``, on this thread's connection; None when that connection
        turned out closed, and ``again`` is not set."""
        pool = self._get_connection_pool(False)  # type: ignore[attr-defined]  # Django's own
        held = self._held
        connection = getattr(held, "connection", None)
        if connection is None or held.pid != os.getpid() or held.pool is not pool:
            if connection is not None and held.pid == os.getpid():
                held.pool.release(connection)  # another server's pool read before
            # A new thread, or a forked worker: never a connection its parent opened.
            connection = held.connection = pool.get_connection()
            held.pid, held.pool = os.getpid(), pool
        try:
            connection.send_packed_command([_mget_command(keys)], check_health=False)
            return connection.read_response()
        except BaseException as error:
            held.connection = None
            connection.disconnect()  # half a reply may be left on it: never reused
            pool.release(connection)
            if again or not isinstance(error, RedisConnectionError):
                raise
            return None


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = _KeptClients

    def get_many(self, keys, version=None):
        # The pages' keys are the app's own (digests and counters' names): each made, not
        # checked again for memcached's limits on every read.
        made = {self.make_key(key, version=version): key for key in keys}
        found = self._cache.get_many(made)
        return {made[key]: value for key, value in found.items()}
