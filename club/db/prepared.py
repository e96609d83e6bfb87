"""Queries whose SQL Django writes once a connection, not once a request.

Django builds a query anew each time it runs: every filter and subquery resolved, every
expression compiled to SQL. For a page that reads a dozen short rows by key, that is
most of its time: a player's page spent more of its 28 ms building and compiling its
fifteen queries (10 ms) than PostgreSQL took to run them (7 ms). A *prepared* query is
built and compiled by Django once for each connection and shape, then run again with
new values, its SQL kept and its parameters put in their places, and read back through
Django's own converters::

    @prepared
    def seats_of(games: list[int]):
        return GameTeam.objects.filter(game_id__in=games).values("pk", "game_id")

    seats_of([3, 4])  # the same rows as list(GameTeam.objects.filter(...).values(...))

What a prepared query may take: keys (int), lists of keys, and moments (aware
datetimes). A list is a set of keys, for ``__in``: Django writes a placeholder an item,
so its length is part of the query's shape, and it is run padded with its last key up to
a power of two (a key twice in ``IN`` is the key once), so that lists of 1 to 512 keys
make ten shapes, not 512; the builder sees the padded list. An empty list is Django's
empty answer, with no query. Keyword arguments are part of the shape too, handed to the
builder as they are: a slice's bound, say, which Django writes into the SQL itself
(``latest(player, read=40)`` is compiled once for 40). What the builder must give: a
``values()`` or ``values_list()`` queryset (rows as dicts, tuples or, ``flat``, values),
built from its arguments alone, never deciding anything on their values (what it reads
of the module, a constant, is read once).

Each shape is built twice, with two sets of stand-in values unlike in every way a
builder could look at (other keys, odd and even, another month, day and hour); unless the
SQL of the two is the same and their parameters differ exactly where the stand-ins stand,
:class:`NotPreparable` names the query (an argument written into the SQL itself, a slice
that depends on one, a key a column cannot hold), before any row is read. A key past
what a database column can hold, or a list of more than :data:`LONGEST` keys, is run by
Django as it would be unprepared.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models.query import (
    FlatValuesListIterable,
    QuerySet,
    ValuesIterable,
    ValuesListIterable,
)

# How many shapes each connection keeps (a list's length makes a shape): the rest are
# compiled again when next asked for.
KEPT_SHAPES = 512
# The longest list prepared: a longer one (padded, it could pass a database's limit of
# parameters) is run unprepared.
LONGEST = 1024
# The keys a column of the largest integers holds; any other is run unprepared.
_KEYS = range(-(2**63), 2**63)
# The stand-ins: keys no table reaches and every integer column holds, and moments of a
# century nobody played in, the second set unlike the first.
_FIRST, _SECOND = 2_000_000_000, 2_060_000_001
_MOMENTS = (
    dt.datetime(1901, 1, 1, tzinfo=dt.UTC),
    dt.datetime(1931, 7, 16, 13, 47, 29, tzinfo=dt.UTC),
)


class NotPreparable(TypeError):
    """A query whose SQL depends on its arguments' values, not only on their shape."""


@dataclass(frozen=True)
class _Compiled:
    sql: str
    # Each parameter: (argument, item) whose value goes there, or (None, constant).
    slots: tuple[tuple[int | None, Any], ...]
    compiler: Any  # Django's compiler of the first stand-ins: its converters read rows
    names: tuple[str, ...]
    rows: str  # "dict", "tuple" or "flat", as the queryset would give them


_EMPTY = object()  # a shape Django answers with no rows, and no query
Places = dict[Any, tuple[int, Any]]  # a stand-in's value as the driver gets it: where it stands


def _key(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shape(args: Sequence[Any]) -> tuple | None:
    """The shape of ``args``: each a key, a moment or a list of so many keys; None for
    arguments Django runs unprepared (a key past a column, a list past :data:`LONGEST`)."""
    shape: list[tuple] = []
    for value in args:
        if isinstance(value, list | tuple):
            if not all(_key(item) for item in value):
                raise NotPreparable(f"a prepared query's lists hold keys, not {value!r}")
            if len(value) > LONGEST or any(item not in _KEYS for item in value):
                return None
            shape.append(("list", len(value)))
        elif isinstance(value, dt.datetime) and value.utcoffset() is not None:
            shape.append(("moment",))
        elif _key(value):
            if value not in _KEYS:
                return None
            shape.append(("key",))
        else:
            raise NotPreparable(
                f"a prepared query takes keys, lists of keys and aware moments, not {value!r}"
            )
    return tuple(shape)


def _stand_ins(shape: tuple, which: int, connection) -> tuple[list[Any], Places]:
    """Arguments of ``shape`` made of stand-ins (the first set or the second), and where
    each stand-in stands: (argument, item in its list or None)."""
    args: list[Any] = []
    where: Places = {}
    count = 0

    def stand_in(kind: str, place: tuple[int, Any]) -> Any:
        nonlocal count
        count += 1
        if kind == "moment":
            step = dt.timedelta(seconds=count if which == 0 else 3 * count + 1)
            value: Any = _MOMENTS[which] + step
        else:
            value = _FIRST + count if which == 0 else _SECOND + 3 * count
        where[_adapted(value, connection)] = place
        return value

    for number, part in enumerate(shape):
        if part[0] == "list":
            args.append([stand_in("key", (number, item)) for item in range(part[1])])
        else:
            args.append(stand_in(part[0], (number, None)))
    return args, where


def _adapted(value: Any, connection) -> Any:
    """A value as Django hands it to the database driver."""
    if isinstance(value, dt.datetime):
        return connection.ops.adapt_datetimefield_value(value)
    return int(value)


def _rows_of(queryset: QuerySet) -> str:
    """How the queryset gives its rows, as Django's own iterables do."""
    kinds = {ValuesIterable: "dict", ValuesListIterable: "tuple", FlatValuesListIterable: "flat"}
    kind = kinds.get(queryset._iterable_class)  # noqa: SLF001  # which rows, as Django's own
    if kind is None:
        raise NotPreparable("a prepared query is a values() or values_list() queryset")
    return kind


def _compile(build: Callable[..., QuerySet], args: list[Any], bounds: dict, connection):
    """The SQL and parameters of ``build``'s queryset for ``args``, with its compiler, its
    rows' names and kind; None where Django answers it with no rows and no SQL."""
    queryset = build(*args, **bounds)
    kind = _rows_of(queryset)
    query = queryset.query
    compiler = query.get_compiler(connection=connection)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        return None
    except FullResultSet as whole:  # a condition Django found always true, of a stand-in
        raise NotPreparable(f"{_name(build)}: a condition holds for any stand-in") from whole
    if query.selected:
        names = tuple(query.selected)
    else:
        names = (*query.extra_select, *query.values_select, *query.annotation_select)
    return sql, list(params), compiler, names, kind


def _name(build: Callable) -> str:
    return getattr(build, "__qualname__", repr(build))


def _prepare(build: Callable[..., QuerySet], shape: tuple, bounds: dict, connection) -> Any:
    """``build``'s SQL for ``shape``, compiled for two sets of stand-ins and checked: the
    same SQL, the parameters different exactly where the stand-ins stand (each in the
    same place in both), every stand-in a parameter."""
    first, where = _stand_ins(shape, 0, connection)
    second, where_second = _stand_ins(shape, 1, connection)
    compiled = _compile(build, first, bounds, connection)
    other = _compile(build, second, bounds, connection)
    if compiled is None or other is None:
        if compiled is None and other is None and ("list", 0) in shape:
            return _EMPTY  # an empty list: no rows, as Django answers it
        raise NotPreparable(f"{_name(build)}: a stand-in is answered with no rows")
    sql, params, compiler, names, kind = compiled
    other_sql, other_params, *_rest = other
    if other_sql != sql or len(other_params) != len(params):
        raise NotPreparable(f"{_name(build)}: its SQL depends on its arguments' values")
    slots: list[tuple[int | None, Any]] = []
    for param, second_param in zip(params, other_params, strict=True):
        place = where.get(param) if _hashable(param) else None
        if place is not None and where_second.get(second_param) == place:
            slots.append(place)
        elif place is None and param == second_param and not _stands_in(param, where_second):
            slots.append((None, param))
        else:
            raise NotPreparable(f"{_name(build)}: a parameter neither an argument nor a constant")
    if {place for place in slots if place[0] is not None} != set(where.values()):
        raise NotPreparable(f"{_name(build)}: an argument is not a parameter of its SQL")
    return _Compiled(sql, tuple(slots), compiler, names, kind)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _stands_in(value: Any, where: Places) -> bool:
    return _hashable(value) and value in where


def _compiled(build: Callable[..., QuerySet], shape: tuple, bounds: dict, connection):
    """``build``'s prepared SQL for ``shape``, from those ``connection`` keeps (on the
    connection itself: one thread's, gone with it), or prepared now."""
    kept: OrderedDict = connection.__dict__.setdefault("club_prepared", OrderedDict())
    key = (build, shape, tuple(sorted(bounds.items())))
    found = kept.get(key)
    if found is not None:
        kept.move_to_end(key)
        return found
    found = _prepare(build, shape, bounds, connection)
    kept[key] = found
    while len(kept) > KEPT_SHAPES:
        kept.popitem(last=False)
    return found


def _run(compiled: _Compiled, args: Sequence[Any], connection) -> list:
    """The rows of ``compiled`` for ``args``, as its queryset gives them."""
    params = [
        value
        if number is None
        else _adapted(args[number] if value is None else args[number][value], connection)
        for number, value in compiled.slots
    ]
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, params)
        fetched = cursor.fetchall()
    compiler = compiled.compiler
    count = compiler.col_count
    if fetched and len(fetched[0]) > count:  # an ordering's columns past the values
        fetched = [row[:count] for row in fetched]
    rows = compiler.results_iter([fetched], tuple_expected=compiled.rows == "tuple")
    if compiled.rows == "tuple":
        return list(rows)
    if compiled.rows == "flat":
        return [row[0] for row in rows]
    names = compiled.names
    return [dict(zip(names, row, strict=False)) for row in rows]


def _padded(keys: Sequence[Any]) -> list:
    """``keys`` with its last repeated up to a power of two long (none for none)."""
    if not keys:
        return []
    return [*keys, *[keys[-1]] * ((1 << (len(keys) - 1).bit_length()) - len(keys))]


def prepared(build: Callable[..., QuerySet]) -> Callable[..., list]:
    """``build`` (its arguments to a values() queryset) as a query Django compiles once a
    connection and shape; called, the rows the queryset would give, as a list."""

    @functools.wraps(build)
    def run(*args: Any, **bounds: Any) -> list:
        shape = _shape(args)
        if shape is None:  # past what a column or a statement holds: Django's own answer
            return list(build(*args, **bounds))
        args = tuple(_padded(value) if isinstance(value, list | tuple) else value for value in args)
        shape = tuple(
            ("list", len(value)) if part[0] == "list" else part
            for part, value in zip(shape, args, strict=True)
        )
        connection = connections[DEFAULT_DB_ALIAS]  # this thread's own
        compiled = _compiled(build, shape, bounds, connection)
        if compiled is _EMPTY:
            return []
        return _run(compiled, args, connection)

    run.build = build  # type: ignore[attr-defined]  # the queryset itself, for tests
    return run
