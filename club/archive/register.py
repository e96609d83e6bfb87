"""The ``players`` list a document writes: each player it names, with the identifier that
travels with them and their member number (club.games.people), and the club's whole
register (its members) as a document of its own, for the venue's laptop before a night."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator

from django.db.models import QuerySet

from club.archive.format import FORMAT
from club.archive.parse_club import club_object
from club.clubs import known as clubs
from club.clubs.models import Club
from club.games.models import PLAYER_FIELDS, Game, GameTeam, Player
from club.tournaments.models import Sitting, Substitution, Tournament, TournamentTeam

SEATS = tuple(f"{name}_id" for name in PLAYER_FIELDS)
CHUNK = 500


def players_object(ids: Iterable[int | None]) -> list[dict]:
    """The ``players`` list of these players, by name: a few queries, whatever their number."""
    wanted = sorted({pk for pk in ids if pk is not None})
    rows: list[tuple[str, uuid.UUID, str]] = []  # name, identifier, member number
    for start in range(0, len(wanted), CHUNK):
        rows.extend(
            Player.objects.filter(pk__in=wanted[start : start + CHUNK]).values_list(
                "name", "identifier", "member_number"
            )
        )
    return _by_name(rows)


def _by_name(rows: Iterable[tuple[str, uuid.UUID, str]]) -> list[dict]:
    """The ``players`` list of these rows (name, identifier, member number), by name."""
    return [_listed(*row) for row in sorted(rows, key=lambda row: (row[0].lower(), row[0]))]


def _listed(name: str, identifier: uuid.UUID, member_number: str) -> dict:
    listed = {"name": name, "id": str(identifier)}
    if member_number:
        listed["member_number"] = member_number
    return listed


def _seated(seats: QuerySet) -> Iterator[int | None]:
    for row in seats.values_list(*SEATS):
        yield from row


def games_players(club: Club) -> list[dict]:
    """Everyone who sat at a game of the club (the whole export's list)."""
    return players_object(_seated(GameTeam.objects.filter(game__club=club)))


def tournament_players(tournament: Tournament) -> list[dict]:
    """Everyone a tournament's document names: its teams' players, the substitutes, and
    whoever sat at a game of its confirmed sittings."""
    games = Game.objects.filter(
        sitting_entry__sitting__tournament=tournament,
        sitting_entry__sitting__status=Sitting.Status.CONFIRMED,
    )
    teams = TournamentTeam.objects.filter(tournament=tournament)
    substituted = Substitution.objects.filter(entry__tournament=tournament)
    ids = [
        *_seated(GameTeam.objects.filter(game__in=games)),
        *(pk for row in teams.values_list(*(f"team__{seat}" for seat in SEATS)) for pk in row),
        *(pk for row in substituted.values_list("player_in_id", "player_out_id") for pk in row),
    ]
    return players_object(ids)


def roster_object(club: Club | None = None) -> dict:
    """The club's players (its members; the home club's when None) as a
    ``fiftysix-results/1`` document with no games: what the venue loads before a night, so
    the laptop knows everyone by their identifier."""
    club = club if club is not None else clubs.home()
    # One query by the club's memberships, not their keys first and the players after.
    rows = Player.objects.filter(memberships__club=club).values_list(
        "name", "identifier", "member_number"
    )
    return {
        "format": FORMAT,
        "club": club_object(club),
        "players": _by_name(rows),
        "games": [],
    }
