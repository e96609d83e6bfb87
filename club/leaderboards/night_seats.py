"""The seats of a night in review's games, read as plain values (club.leaderboards.night).

Every seat of the games with its players, and the games themselves; the tables the
player's own seats won and lost; the change each game made to the player's rating. Plain
values, each read by a cheap query: the same read as models, and as correlated
subqueries under a condition on the player's seats, took Django longer to build, compile
and fill than the database took to run it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, Sum

from club.db.prepared import prepared
from club.games.models import PLAYER_FIELDS, Game, GameTeam, LedgerEntry, Player
from club.leaderboards.models import RatingChange
from club.leaderboards.profile import Named, RatingChanges, ShownGame, seated_names

# What the review reads of each seat of its games, and of the seat's game and team: a
# game's rules, payouts and counters are not read into each seat.
SEAT_VALUES = (
    "pk",
    *PLAYER_FIELDS,
    "game_id",
    "place",
    "score",
    "kodis",
    "team__name",
    "game__label",
    "game__club_id",
    "game__status",
    "game__scoring",
    "game__kodi",
    "game__winner_id",
)


@dataclass(frozen=True)
class NightSeat:
    """A seat at one of the review's games, as plain values."""

    pk: int
    game_id: int
    team: str  # its team's name
    place: int | None
    score: int
    kodis: int
    players: list[Named]  # in the seats' order

    @property
    def player_ids(self) -> list[int]:
        return [player.pk for player in self.players]


@dataclass(frozen=True)
class NightGameOf(ShownGame):
    """One of the review's games, as plain values: what its line shows and links to."""

    pk: int
    label: str
    club_id: int
    status: str
    scoring: str
    kodi: bool
    winner_id: int | None


@dataclass(frozen=True)
class Seated:
    """Every seat of a review's games, and what the player's own seats read besides."""

    seats: list[NightSeat]  # in the order the games started, each game's by position
    games: dict[int, NightGameOf]
    moves: dict[int, tuple[int, int]]  # a seat of the player's: its tables won and lost
    deltas: dict[int, float]  # a rated game: the change it made to the player's rating


@prepared
def _seats_of(games: list[int]):
    seats = GameTeam.objects.filter(game_id__in=games)
    return seats.order_by("game__created_at", "game_id", "position").values(*SEAT_VALUES)


@prepared
def _moves_of(seats: list[int]):
    return (
        LedgerEntry.objects.filter(game_team_id__in=seats)
        .order_by()
        .values("game_team_id")
        .annotate(
            won=Sum("change", filter=Q(change__gt=0), default=0),
            lost=Sum("change", filter=Q(change__lt=0), default=0),
        )
        .values_list("game_team_id", "won", "lost")
    )


def _named(rows: list[dict], player: Player, shown: int) -> list[list[Named]]:
    """The players of each seat of ``rows``, named where the review shows them: at the
    player's own seats (their partners), and at every seat of the first ``shown``
    finished games (the games it lists). At the other seats, the players' keys alone: a
    year's span names its few dozen partners, not the hundreds it played against."""
    listed: set[int] = set()
    for row in rows:
        if len(listed) == shown:
            break
        if row["game__status"] == Game.Status.FINISHED:
            listed.add(row["game_id"])
    named = [
        row
        for row in rows
        if row["game_id"] in listed or player.pk in (row[seat] for seat in PLAYER_FIELDS)
    ]
    names = {id(row): players for row, players in zip(named, seated_names(named), strict=True)}
    return [
        names[id(row)]
        if id(row) in names
        else [Named(row[seat], "") for seat in PLAYER_FIELDS if row[seat] is not None]
        for row in rows
    ]


def _seat_rows(
    games: list[int], player: Player, shown: int
) -> tuple[list[NightSeat], dict[int, NightGameOf]]:
    """Every seat of ``games`` and the games themselves, as plain values, the seats'
    players named by key where the review shows them (:func:`_named`): two queries."""
    rows = _seats_of(sorted(games))
    found: dict[int, NightGameOf] = {}
    seats = []
    for row, players in zip(rows, _named(rows, player, shown), strict=True):
        if row["game_id"] not in found:
            found[row["game_id"]] = NightGameOf(
                pk=row["game_id"],
                label=row["game__label"],
                club_id=row["game__club_id"],
                status=row["game__status"],
                scoring=row["game__scoring"],
                kodi=row["game__kodi"],
                winner_id=row["game__winner_id"],
            )
        seats.append(
            NightSeat(
                pk=row["pk"],
                game_id=row["game_id"],
                team=row["team__name"],
                place=row["place"],
                score=row["score"],
                kodis=row["kodis"],
                players=players,
            )
        )
    return seats, found


def _deltas(games: list[int], player: Player, known: RatingChanges | None) -> dict[int, float]:
    """The change each of ``games`` (finished) made to the player's rating, a rated game's:
    from the profile's ``known`` changes when they hold every one of the games or every
    rated game of the player's, else read."""
    if known is not None:
        found = {game: known.by_game[game] for game in games if game in known.by_game}
        if known.complete or len(found) == len(games):
            return found
    deltas = _changes_at(sorted(games), player.pk)
    return {game: after - before for game, before, after in deltas}


@prepared
def _changes_at(games: list[int], player: int):
    changes = RatingChange.objects.filter(game_id__in=games, player=player)
    return changes.values_list("game_id", "before", "after")


def read_seats(
    games: list[int], player: Player, shown: int, known: RatingChanges | None = None
) -> Seated:
    """Every seat of ``games``, finished or being played, with its players (named at the
    first ``shown`` finished games and at the player's own seats); the player's own seats
    with their tables won and lost (their ledger's moves) and the change each game made to
    the player's rating. Four plain queries: the seats with their games, their players by
    key, the moves of the player's seats summed a seat, the rating changes (none when the
    profile's ``known`` changes hold them: :func:`_deltas`).
    Each is cheap to build: the same read as correlated subqueries (each under a Case of
    the player's seats) and models took Django longer to build, compile and fill than
    PostgreSQL took to run all four. By the games' ids, not a subquery of the player's
    seats: PostgreSQL joined that subquery to every seat of the club's history (8,000 at
    the large preset, 8 ms)."""
    seats, found = _seat_rows(games, player, shown)
    mine = [seat.pk for seat in seats if player.pk in seat.player_ids]
    moves = _moves_of(mine)
    finished = [game.pk for game in found.values() if game.is_finished]
    return Seated(
        seats,
        found,
        moves={seat: (won, -lost) for seat, won, lost in moves},
        deltas=_deltas(finished, player, known),
    )
