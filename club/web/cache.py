"""Django's Redis cache, keeping its Redis clients (settings' ``pages`` cache).

Django's backend builds a new ``redis.Redis`` client around its connection pool
for every call, and the client's constructor fills its table of reply parsers
each time: about a fifth of a millisecond per cache read, more than the read
itself on the same machine. A client is safe to share between threads (it
takes a connection from the pool for each command), so one per pool is kept.
"""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class _KeptClients(RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(
                connection_pool=self._get_connection_pool(write)
            )
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = _KeptClients
