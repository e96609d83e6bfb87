"""A player's profile: their details, rating, form, figures and games, as a club's page
shows them (the figures' words are the selectors' docstring's): the figures over every
club's games (the federation's), and the player's figures at each club they played in."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import CharField, F, FilteredRelation, OuterRef, Q, QuerySet, Value

from club.clubs import known
from club.clubs.models import Club
from club.db.prepared import prepared
from club.games.models import PLAYER_FIELDS, Game, GameTeam, Player, in_a_seat
from club.games.words import game_title
from club.leaderboards.forms import FORMS
from club.leaderboards.models import (
    PlayerFormRating,
    PlayerGameFigures,
    PlayerRating,
    PlayerTotals,
    RatingChange,
)
from club.leaderboards.selectors import FIGURES, Row, count, forms_had, has_forms
from club.web.paging import counted, counted_page, page_of


@dataclass(frozen=True)
class Named:
    """A player as a line of games names them: their key and name."""

    pk: int
    name: str


class ShownGame:
    """What a line of a game shows from its label and status, read as plain values (the
    profile's games, the night's): its title in the reader's words, and whether it is
    finished."""

    label: str
    status: str

    @property
    def title(self) -> str:
        return game_title(self.label)

    @property
    def is_finished(self) -> bool:
        return self.status == Game.Status.FINISHED


@dataclass
class GameLine(ShownGame):
    """The player's seat at one of the club's games, as a line of their games shows it:
    plain values read in one query, not a seat, its game and its team built as models."""

    game_id: int
    label: str
    status: str
    scoring: str
    finished_at: datetime.datetime | None
    won: bool  # the seat won the game
    team: str  # the seat's team's name
    place: int | None
    tables: int
    score: int
    partners: list[Named]  # the player's partners at the game: one, or two or three
    teams: int
    rating_delta: float | None = None

    @property
    def badge(self) -> str:
        return form_badge(self.place, self.teams, won=self.won)


LEVEL = "="  # a level game's badge: the first place shared, as the standings mark a tie


def form_badge(place: int | None, teams: int, *, won: bool) -> str:
    """W for a win, = for a level game (a first place shared: played, not won), L for the
    last place, else the place (2 or 3); nothing for a game not finished."""
    if place is None:
        return ""
    if won:
        return "W"
    if place == 1:
        return LEVEL
    if place >= teams:
        return "L"
    return str(place)


@dataclass(frozen=True)
class Change:
    """A rated game's change of the player's rating, as the chart and the games read it."""

    game_id: int
    before: float
    after: float


@dataclass(frozen=True)
class RatingChanges:
    """The changes the player's latest rated games made to their rating, by game: every
    rated game's when ``complete`` (fewer than the chart reads), else the latest."""

    by_game: dict[int, float]
    complete: bool


def rating_chart(changes: list[Change], width: int = 600, height: int = 160) -> dict | None:
    """An inline SVG polyline of the rating after every rated game, from the start."""
    if not changes:
        return None
    values = [changes[0].before] + [change.after for change in changes]
    low, high = min(values + [0.0]), max(values + [0.0])
    span = (high - low) or 1.0
    step = width / max(len(values) - 1, 1)

    def y(value: float) -> float:
        return height - (value - low) / span * height

    points = " ".join(f"{index * step:.1f},{y(value):.1f}" for index, value in enumerate(values))
    return {
        "width": width,
        "height": height,
        "points": points,
        "zero_y": f"{y(0.0):.1f}",
        "low": low,
        "high": high,
        "games": len(changes),
    }


# What a line of the player's games reads (game_lines): its seat, its game's and team's
# few columns, and how many teams the game has.
GAME_LINE_VALUES = (
    "pk",
    *PLAYER_FIELDS,
    "game_id",
    "place",
    "tables",
    "score",
    "team__name",
    "game__label",
    "game__status",
    "game__scoring",
    "game__winner_id",
    "game__finished_at",
    "teams_at_game",
)


@prepared
def _names_of(keys: list[int]):
    return Player.objects.filter(pk__in=keys).order_by().values_list("pk", "name")


def seated_names(rows: list[dict]) -> list[list[Named]]:
    """The players of each of ``rows`` (seats read as values, with the four seats' keys),
    in the seats' order, named by one query by key (none for no key). A player merged
    away since the rows were read is left out, not a 500."""
    seated = [[row[seat] for seat in PLAYER_FIELDS if row[seat] is not None] for row in rows]
    names = dict(_names_of(sorted({key for keys in seated for key in keys})))
    return [[Named(key, names[key]) for key in keys if key in names] for keys in seated]


def game_lines(rows: list[dict], player: Player) -> list[GameLine]:
    """The lines of ``rows`` (seats of the player's, as :data:`GAME_LINE_VALUES`), their
    partners named by one query."""
    return [
        GameLine(
            game_id=row["game_id"],
            label=row["game__label"],
            status=row["game__status"],
            scoring=row["game__scoring"],
            finished_at=row["game__finished_at"],
            won=row["game__winner_id"] == row["pk"],
            team=row["team__name"],
            place=row["place"],
            tables=row["tables"],
            score=row["score"],
            partners=[named for named in players if named.pk != player.pk],
            teams=row["teams_at_game"],
        )
        for row, players in zip(rows, seated_names(rows), strict=True)
    ]


PROFILE_GAMES = 20  # a page of the profile's games: a phone's few screens, the night above it


@dataclass(frozen=True)
class Rated:
    """A rating as the page shows it, and the rated games it counts."""

    rating: float
    games: int


@prepared
def _ratings_of(player: int):
    site = (
        PlayerRating.objects.filter(player=player)
        .order_by()
        .values_list(Value("", output_field=CharField()), "rating", "games")
    )
    forms = (
        PlayerFormRating.objects.filter(player=player)
        .order_by()
        .values_list("form", "rating", "games")
    )
    return site.union(forms, all=True)


def _ratings(player: Player) -> tuple[Rated | None, dict[str, Rated]]:
    """The player's rating over every game, and in each form of play they have played
    (one query: the site's row is the one of no form)."""
    found = {form: Rated(rating, games) for form, rating, games in _ratings_of(player.pk)}
    return found.pop("", None), found


@prepared
def _totals_of(player: int):
    played = has_forms(PlayerGameFigures.objects.filter(player=player))
    return PlayerTotals.objects.filter(player=player).values(*FIGURES, **played)[:1]


def _totals(player: Player) -> tuple[dict, list[str]]:
    """The player's totals, and the forms of play they have played, in FORMS order (a row
    of figures of each), in one query; a player with no totals has finished no game."""
    found = _totals_of(player.pk)
    totals = found[0] if found else {}
    return totals, forms_had(totals)


CHART_GAMES = 200  # the rating chart's points: the latest rated games


def _ordered(player: int, club: int) -> QuerySet:
    """The player's seats at the club's games, as lines of their games: the games being
    played first, then the latest finished."""
    mine = GameTeam.objects.filter(in_a_seat(player), game__club=club)
    return (
        mine.annotate(teams_at_game=count(GameTeam.objects.filter(game=OuterRef("game"))))
        .order_by(F("game__finished_at").desc(nulls_first=True), "-game__created_at", "-game_id")
        .values(*GAME_LINE_VALUES)
    )


@prepared
def _first_games(player: int, club: int, *, shown: int):
    return counted(_ordered(player, club))[:shown]


@prepared
def _changes_of(player: int):
    changes = RatingChange.objects.filter(player=player).order_by("-position")
    return changes.values_list("game_id", "before", "after")[:CHART_GAMES]


def player_profile(
    player: Player, page: int = 1, *, club: Club | None = None, per_page: int | None = None
) -> dict:
    """What the profile shows at ``club``'s address (the home club's when None): details,
    rating, form, figures and a page of games.

    The figures, the rating and its chart are the site's: the federation's, over every
    club's games (each club's figures are :func:`clubs_of`'s); the games (and the form,
    the latest five of them) are the club's, so every game and partner the page names has
    a page at the club's address, and the tournaments being played now are the club's.
    The figures are the player's maintained totals; the games are shown ``per_page`` a
    page (:data:`PROFILE_GAMES` on the page, the API its own), the chart the latest
    :data:`CHART_GAMES` rated games; so a long career costs the same as a short one.
    """
    club = club or known.home()
    totals, forms_played = _totals(player)
    row = Row(subject=player, rating=None, **totals)
    rating, in_forms = _ratings(player)
    row.rating = rating.rating if rating else None
    form_ratings = [(name, in_forms[form]) for form, name in FORMS if form in in_forms]
    per_page = per_page or PROFILE_GAMES
    if page <= 1:  # the page as it opens, prepared
        games = counted_page(_first_games(player.pk, club.pk, shown=per_page), 1, per_page)
        assert games is not None  # the first page is never past the end
    else:
        games = page_of(_ordered(player.pk, club.pk), page, per_page)
    lines = game_lines(games.items, player)
    # The form: the latest five finished games, whichever page is read. The first page
    # holds them unless the player's latest games are still being played.
    latest = [item for item in lines if item.is_finished][:5] if games.number == 1 else []
    if len(latest) < 5 and games.total > len(latest) + sum(
        1 for item in lines if not item.is_finished
    ):
        finished = _ordered(player.pk, club.pk).filter(game__status=Game.Status.FINISHED)
        latest = game_lines(list(finished[:5]), player)
    # Plain rows, not models: the chart reads three numbers of each of up to 200.
    changes = [Change(*row) for row in _changes_of(player.pk)]
    changes.reverse()
    rated = RatingChanges(
        {change.game_id: change.after - change.before for change in changes},
        complete=len(changes) < CHART_GAMES,
    )
    for item in lines:
        item.rating_delta = rated.by_game.get(item.game_id)
    return {
        "player": player,
        "figures": row,
        "rating": rating,
        "form_ratings": form_ratings,
        "forms_played": forms_played,  # in FORMS order
        "form": [item.badge for item in latest],
        "chart": rating_chart(changes),
        "rating_changes": rated,  # the night in review's, read already
        "games": lines,
        "games_page": games,
        "games_count": games.total,
    }


@dataclass(frozen=True)
class ClubLine:
    """The player's figures at one club they played a finished game in: a line of their page."""

    club: Club
    figures: Row


def clubs_of(
    player: Player, club: Club, counted: int | None = None
) -> tuple[list[Club], list[ClubLine]]:
    """The clubs the player is a player of (one person across the site's clubs): this one,
    then the others by name; and their figures at each of them they played a finished game
    in, in the same order. One query: their clubs, each with their totals there; none when
    ``counted``, the count of their clubs read already, says ``club`` is their only one
    (the page shows a club's figures only beside another's)."""
    if counted == 1:
        return [club], []
    found = (
        Club.objects.filter(memberships__player=player)
        .annotate(mine=FilteredRelation("player_totals", condition=Q(player_totals__player=player)))
        .values_list("pk", *(f"mine__{name}" for name in FIGURES))
    )
    figures_at = {pk: dict(zip(FIGURES, values, strict=True)) for pk, *values in found}
    clubs = [club, *known.named(pk for pk in figures_at if pk != club.pk)]
    lines = [
        ClubLine(each, Row(subject=player, rating=None, **figures_at[each.pk]))
        for each in clubs
        if (figures_at.get(each.pk) or {}).get("played")
    ]
    return clubs, lines
