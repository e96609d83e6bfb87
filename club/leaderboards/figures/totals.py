"""Each side's totals, kept as the sum of its game rows: the site's (the federation's
figures: every club's games) and each club's (the games of that club alone).

Two ways keep them so. A game finishing adds its rows to its sides' totals
(:func:`add_to_totals`, moved in place by the database, so two games finishing at once
both count); any other change sums the sides' totals again from their own rows
(:func:`sum_again`). Both write a side's site totals and its totals at the game's club
together, so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import Exists, OuterRef

from club.leaderboards.figures.counting import COUNTS, FIELDS, SUMS, bigger
from club.leaderboards.models import (
    PlayerClubTotals,
    PlayerGameFigures,
    PlayerTotals,
    TeamClubTotals,
    TeamGameFigures,
    TeamTotals,
)


class Kind(NamedTuple):
    """A kind of side's models: its game rows, its site totals, its totals at each club."""

    rows: type[PlayerGameFigures] | type[TeamGameFigures]
    totals: type[PlayerTotals] | type[TeamTotals]
    club_totals: type[PlayerClubTotals] | type[TeamClubTotals]


# Each kind of side, by the column naming it.
KINDS = {
    "player_id": Kind(PlayerGameFigures, PlayerTotals, PlayerClubTotals),
    "team_id": Kind(TeamGameFigures, TeamTotals, TeamClubTotals),
}


def table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _added(found: list | None, figures: list) -> list:
    """``figures`` (values of FIELDS) added to ``found``, in place: the counts summed, the
    bigger bid kept."""
    if found is None:
        return list(figures)
    for at in range(len(COUNTS)):
        found[at] += figures[at]
    found[-1] = bigger(found[-1], figures[-1])
    return found


def sum_again(players: Iterable[int], teams: Iterable[int]) -> None:
    """Sum the totals of these sides again from their own game rows, the site's and each
    club's.

    Written in place (an upsert), so a team's rating, kept with its totals,
    stays until the ratings move it.
    """
    _sum_again("player_id", set(players))
    _sum_again("team_id", set(teams))


def _sum_again(key: str, ids: set[int]) -> None:
    """One kind of side's totals (``key``: ``player_id`` or ``team_id``) summed again from
    its game rows: one sum a club, added up for the site's. A side left with no finished
    game loses its site totals, and a side left with none at a club its totals there."""
    if not ids:
        return
    rows, totals, club_totals = KINDS[key]
    side = key.removesuffix("_id")
    at_clubs = list(
        rows.objects.filter(**{f"{key}__in": ids})
        .values(key, "club_id")
        .annotate(**SUMS)
        .order_by()
    )
    site: dict[int, list] = {}
    for row in at_clubs:
        site[row[key]] = _added(site.get(row[key]), [row[name] for name in FIELDS])
    if ids - set(site):  # sides left with no finished game
        totals.objects.filter(**{f"{key}__in": ids - set(site)}).delete()
    # The clubs where a side has no finished game left (a game reopened or deleted, a
    # merge): one statement, whichever they are.
    club_totals.objects.filter(**{f"{key}__in": ids}).exclude(
        Exists(rows.objects.filter(**{key: OuterRef(key), "club_id": OuterRef("club_id")}))
    ).delete()
    # A player's or a team's, as the kind is (typed as either).
    summed: list[Any] = [
        totals(**{key: pk, **dict(zip(FIELDS, figures, strict=True))})
        for pk, figures in site.items()
    ]
    totals.objects.bulk_create(
        summed, update_conflicts=True, unique_fields=[side], update_fields=list(FIELDS)
    )
    summed = [
        club_totals(**{key: row[key], "club_id": row["club_id"]}, **{n: row[n] for n in FIELDS})
        for row in at_clubs
    ]
    club_totals.objects.bulk_create(
        summed, update_conflicts=True, unique_fields=["club", side], update_fields=list(FIELDS)
    )


def add_to_totals(players: list[PlayerGameFigures], teams: list[TeamGameFigures]) -> None:
    """Add these games' rows to their sides' totals, the site's and the club's: one upsert
    a table.

    For games that had no rows before (finishing now): a side's totals are the
    sum of its game rows, so adding the new rows keeps them so, without summing
    the side's whole history again. Each row is moved in place by the database
    (``played = played + 1``), so two games finishing at once both count.
    """
    for key, rows in (("player_id", players), ("team_id", teams)):
        if not rows:
            continue
        _rows, totals, club_totals = KINDS[key]
        # A side once a statement (a database may move a row once in one): its games' rows
        # summed first, as the totals sum them.
        site: dict[tuple, list] = {}
        at_club: dict[tuple, list] = {}
        for row in rows:
            figures = [getattr(row, name) for name in FIELDS]
            pk = getattr(row, key)
            site[(pk,)] = _added(site.get((pk,)), figures)
            at_club[(row.club_id, pk)] = _added(at_club.get((row.club_id, pk)), figures)
        _upsert_added(totals, (key,), site)
        _upsert_added(club_totals, ("club_id", key), at_club)


def _upsert_added(totals, keys: Sequence[str], sides: dict[tuple, list]) -> None:
    """Add each side's figures (``sides``: the values of ``keys`` -> the values of FIELDS)
    to its row of ``totals``, made when it has none: one statement."""
    name = table(totals)
    rating = totals is TeamTotals  # a new team's rating is 0 until the ratings move it
    extra = ", rating" if rating else ""
    row = "(" + ", ".join(["%s"] * (len(FIELDS) + len(keys) + int(rating))) + ")"
    params = [
        value
        for side, figures in sides.items()
        for value in (*figures, *side, *((0.0,) if rating else ()))
    ]
    added = ", ".join(f"{field} = {name}.{field} + excluded.{field}" for field in COUNTS)
    # The bigger bid of the two; a side's first bid made when it had none.
    biggest = (
        f"biggest_bid = CASE WHEN excluded.biggest_bid IS NULL THEN {name}.biggest_bid "
        f"WHEN {name}.biggest_bid IS NULL OR excluded.biggest_bid > {name}.biggest_bid "
        f"THEN excluded.biggest_bid ELSE {name}.biggest_bid END"
    )
    columns = ", ".join((*FIELDS, *keys))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {name} ({columns}{extra}) VALUES {', '.join([row] * len(sides))} "
            f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {added}, {biggest}",
            params,
        )
