"""Reading the club as of one moment, while scorers go on writing.

A download reads a tournament in several queries (its standings, its games,
their deals, ledger rows and piles); a deal recorded, corrected or undone
between two of them would give a file that disagrees with itself, which the
app's own importer then refuses. :func:`one_snapshot` runs those reads in one
read-only transaction that sees one moment of the database:

- PostgreSQL: ``REPEATABLE READ, READ ONLY``: every query sees the snapshot
  taken at the first one, and writers never wait for it.
- SQLite: a *deferred* transaction (not the ``IMMEDIATE`` one that writes
  use, settings.py), which in write-ahead-log mode reads one snapshot from its
  first query on without taking the write lock, so scorers never wait for a
  download either.

Inside an enclosing transaction (the tests' own) it only adds a savepoint:
the reads share that transaction, with its isolation (on PostgreSQL, read
committed: not one snapshot). Every caller in the app runs it outermost.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, cast

from django.db import connection, transaction


class _SQLiteModes(Protocol):
    """Django's SQLite connection, as far as the mode it BEGINs transactions in: set
    from ``OPTIONS["transaction_mode"]`` (settings.py), and not declared by django-stubs."""

    transaction_mode: str | None


@contextmanager
def one_snapshot() -> Iterator[None]:
    if connection.in_atomic_block:
        with transaction.atomic():
            yield
        return
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        sqlite = cast(_SQLiteModes, connection)
        writes_mode = sqlite.transaction_mode
        sqlite.transaction_mode = "DEFERRED"
        block = transaction.atomic()
        try:
            block.__enter__()  # BEGIN DEFERRED
        finally:
            sqlite.transaction_mode = writes_mode
        try:
            yield
        except BaseException as error:
            block.__exit__(type(error), error, error.__traceback__)  # rolls back
            raise
        else:
            block.__exit__(None, None, None)
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield
