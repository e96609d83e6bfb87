"""Loading a generated site fast on PostgreSQL: the deals' tables' checks set aside, then
made again over the whole load.

Every row a deal writes (its round, piles, ledger rows and history) goes in by ``COPY``
(:func:`club.games.bulk.copy_rows`). What costs then is not the rows but what each one
is checked against as it goes in: every foreign key looks its row up in the table it
names (the check waiting until the commit, as Django declares them), and every index
takes the row. Measured on this machine, a million piles took 15 s with them and 2.5 s
without; building the two indexes and the unique constraint again and checking the two
keys over the whole table afterwards took 0.7 s.

:func:`set_aside` drops, for the tables of :data:`LOADED`, their foreign keys and,
for the deals' own tables (:data:`BARE`), their unique constraints and other indexes
too, keeping each primary key and every check constraint; on leaving it makes each one
again from the definition PostgreSQL gave when it was dropped, which checks it over
every row (a duplicate or a key naming nothing stops it there). The games and their
teams keep their indexes: the tournament service reads them while the load runs.

The definitions are held in this process only: a generator killed inside the block (not
an exception: that makes them again) leaves a database without them, to be dropped and
made again. Never around a club's own database.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

from django.db import connection

from club.games.models import Change, Game, GameTeam, LedgerEntry, Pile, Round
from club.tournaments.models import SittingGame

# Tables whose foreign keys are set aside while a generated site is written.
LOADED = (Game, GameTeam, SittingGame, Round, Change, Pile, LedgerEntry)
# Of those, the deals' own rows: their unique constraints and indexes set aside too.
BARE = (Round, Change, Pile, LedgerEntry)


@dataclass(frozen=True)
class SetAside:
    """A constraint or index dropped for the load: what it was on, its name and how to make
    it again (an ``ALTER TABLE ... ADD CONSTRAINT`` or a ``CREATE INDEX``)."""

    table: str
    name: str
    make: str
    kind: str  # "index", "unique" or "foreign key": the order they are made again in


def _set_aside_of(cursor, table: str, bare: bool) -> list[SetAside]:
    """The table's foreign keys and, when ``bare``, its unique constraints and other
    indexes (never its primary key), with their definitions."""
    kinds = ["f", "u"] if bare else ["f"]
    cursor.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = %s::regclass AND contype = ANY(%s) ORDER BY conname",
        [table, kinds],
    )
    quoted = connection.ops.quote_name
    found = [
        SetAside(
            table,
            name,
            f"ALTER TABLE {quoted(table)} ADD CONSTRAINT {quoted(name)} {sql}",
            "foreign key" if sql.startswith("FOREIGN KEY") else "unique",
        )
        for name, sql in cursor.fetchall()
    ]
    if bare:
        cursor.execute(
            "SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x "
            "JOIN pg_class i ON i.oid = x.indexrelid "
            "WHERE x.indrelid = %s::regclass AND NOT x.indisprimary "
            "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid) "
            "ORDER BY i.relname",
            [table],
        )
        found += [SetAside(table, name, sql, "index") for name, sql in cursor.fetchall()]
    return found


def _drop(cursor, aside: SetAside) -> None:
    quoted = connection.ops.quote_name
    if aside.make.startswith("ALTER TABLE"):
        cursor.execute(f"ALTER TABLE {quoted(aside.table)} DROP CONSTRAINT {quoted(aside.name)}")
    else:
        cursor.execute(f"DROP INDEX {quoted(aside.name)}")


@contextmanager
def set_aside(say: Callable[[str], None] = print) -> Iterator[list[SetAside]]:
    """Within it, the loaded tables hold no foreign key and the deals' tables no index but
    their primary key (PostgreSQL; elsewhere nothing changes). Made again on leaving."""
    if connection.vendor != "postgresql":
        yield []
        return
    dropped: list[SetAside] = []
    with connection.cursor() as cursor:
        if connection.in_atomic_block:
            # Keys checked at the commit (Django's) whose rows this transaction wrote are
            # checked now: a table with checks pending cannot be altered.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for model in LOADED:
            table = model._meta.db_table
            dropped += _set_aside_of(cursor, table, model in BARE)
        for aside in dropped:
            _drop(cursor, aside)
    say(f"set aside {len(dropped)} foreign keys, unique constraints and indexes for the load")
    try:
        yield dropped
    finally:
        make_again(dropped, say)
        if connection.in_atomic_block:
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")  # as Django declares them


def make_again(dropped: list[SetAside], say: Callable[[str], None] = print) -> None:
    """Make every set-aside index and constraint again, each checked over the whole table:
    the indexes, then the unique constraints, two at a time (each on its own table, on a
    connection of its own), then the foreign keys one after another (each locks the
    table it names too). Raises naming those that could not be made (each is tried)."""
    tick = time.perf_counter()
    failed: list[str] = []
    together = 1 if connection.in_atomic_block else 2  # a transaction is one connection's
    for kind in ("index", "unique", "foreign key"):
        of_kind = [aside for aside in dropped if aside.kind == kind]
        if together == 1 or kind == "foreign key":
            failed += _make(of_kind, own_connection=False)
            continue
        # The largest tables' first, so that neither connection is left with one alone.
        of_kind.sort(key=lambda aside: -_rows(aside.table))
        with ThreadPoolExecutor(together) as pool:
            for fault in pool.map(lambda aside: _make([aside], own_connection=True), of_kind):
                failed += fault
    if failed:
        raise RuntimeError(
            "These could not be made again (the database is left without them): "
            + "; ".join(failed)
        )
    say(f"made the {len(dropped)} again in {time.perf_counter() - tick:.1f} s")


def _make(asides: list[SetAside], *, own_connection: bool) -> list[str]:
    """Make these again; returns what failed, each with its error. ``own_connection``: in a
    thread, whose connection is closed after."""
    failed = []
    try:
        with connection.cursor() as cursor:
            # Enough memory to sort a table of piles at once (this connection only).
            cursor.execute("SET maintenance_work_mem = '512MB'")
            for aside in asides:
                try:
                    cursor.execute(aside.make)
                except Exception as error:  # each is tried; all that failed are named
                    failed.append(f"{aside.name}: {error}")
            cursor.execute("RESET maintenance_work_mem")
    finally:
        if own_connection:
            connection.close()
    return failed


def _rows(table: str) -> float:
    """The planner's count of the table's rows (its size, to share the work out)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [table])
        return cursor.fetchone()[0]
