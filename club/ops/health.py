"""The checks behind ``/health/``: does the database answer, is there room on the disk.

The answers are short fixed words for load balancers and uptime checks; what
went wrong (a host, a port, a role, a path) goes to the log, never to the
public.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from django.conf import settings
from django.db import connection as default_connection
from django.db.backends.base.base import BaseDatabaseWrapper

if TYPE_CHECKING:
    from django.db.backends.sqlite3.base import DatabaseWrapper as SQLiteDatabaseWrapper

logger = logging.getLogger(__name__)

MIB = 1024 * 1024


def database_status(connection: BaseDatabaseWrapper | None = None) -> str:
    """ "ok" when the database answers a query, else "unavailable" (the error is logged)."""
    connection = connection or default_connection
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any database fault means "not healthy"
        # One line, not a traceback: a load balancer asks every few seconds.
        logger.error("Health check: the database did not answer: %s", error)
        return "unavailable"
    return "ok"


def _is_sqlite(connection: BaseDatabaseWrapper) -> TypeGuard[SQLiteDatabaseWrapper]:
    """Whether ``connection`` is Django's SQLite one, told by its vendor name.

    By name, not by class, so that a server on another database never loads the
    SQLite backend.
    """
    return connection.vendor == "sqlite"


def disk_paths(connection: BaseDatabaseWrapper | None = None) -> list[Path]:
    """The SQLite database file's folder (if SQLite, on disk), then DJANGO_HEALTH_DISK_PATHS."""
    connection = connection or default_connection
    paths = []
    if _is_sqlite(connection) and not connection.is_in_memory_db():
        paths.append(Path(connection.settings_dict["NAME"]).resolve().parent)
    paths.extend(Path(path) for path in settings.HEALTH_DISK_PATHS)
    return paths


def disk_status(connection: BaseDatabaseWrapper | None = None) -> str:
    """ "ok", "full" (below DJANGO_HEALTH_MIN_FREE_MB somewhere) or "unavailable" (unreadable)."""
    minimum = settings.HEALTH_MIN_FREE_MB * MIB
    status = "ok"
    for path in disk_paths(connection):
        try:
            free = shutil.disk_usage(path).free
        except OSError as error:
            logger.error("Health check: cannot read the free space of %s: %s", path, error)
            return "unavailable"
        if free < minimum:
            logger.error(
                "Health check: %s has %d MiB free, below the minimum of %d MiB",
                path,
                free // MIB,
                settings.HEALTH_MIN_FREE_MB,
            )
            status = "full"
    return status
