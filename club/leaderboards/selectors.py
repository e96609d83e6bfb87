"""Reads for the register, the leaderboards and the player profile.

Figures, over the finished games that pass the filters (period on the game's
start date, tournament through its sittings):

*played* / *won*: games at which the player (or team) sat / won: the game named
their team its winner (``Game.winner``, the team placed first alone). A level game,
its first place shared (time called on equal tables, equal totals on a points sheet,
equal kodis and tables), is played and won by none, as the tournament standings count
it (:func:`club.scoring.standings.sole_winner`).
*win share*: won / played.
*declared* / *made*: per player, deals the player declared; per team, deals
the team was the declaring team of, all-pass deals included (the contracted
team counts them, no player does).
*doubles won/lost*, *redoubles won/lost*: doubled (redoubled) deals of a game
the player or team sat at; won when their side came out ahead: declaring and
made, or defending and the declarer failed.
*tables net*: the sum of the ledger changes of the player's or team's seats.
*biggest bid made*: the highest bid made (all-pass deals are not bids).
*points for* / *points against*: at points games (a points sheet), the side's
totals and the other teams' totals; *score difference* is the one less the
other; *sessions won*: points games won (a level session is no side's).
*kodis taken* / *kodis given*: at kodi games, the kodis the side took and those
the other teams took.
*rating*: the player's current rating; a team's is the team's own, from its
results as a team (:mod:`club.leaderboards.team_ratings`). Ratings are not
filtered.

A board of one form of play (``Filters.form``) counts that form's games only and
shows the figures every game has with that form's own (:data:`FORM_FIGURES`).

A club's boards are the club's: its sides (its players, who are its members
(``Membership``), and its teams) that played a finished game of the club, with their
figures over the club's games alone. A player who is a member but has played no finished
game there is on no board of it. The ratings are not the club's: a player has one rating,
and a team one, over every club's games (the federation's ranking lists the same). A
tournament is one club's, so a board filtered by one counts that tournament's games only.

A player's page shows the figures over every club's games, the federation's, and the
figures at each club the player played in (:mod:`club.leaderboards.profile`).

The boards and profiles read the figures maintained by
:mod:`club.leaderboards.figures` (a row per side per finished game, filed under its
club, and each side's totals: the site's and each club's), a page at a time: a club's
unfiltered board reads its sides' totals at the club, a filtered one sums the rows of
the club's games of the period, tournament or form only (through indexes that lead with
the club). :func:`player_figures` and :func:`team_figures` count the same figures
straight from the deals, every club's or one club's; the tests hold the maintained
figures to them.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import (
    Case,
    DateTimeField,
    Exists,
    Expression,
    F,
    FloatField,
    Func,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Lower

from club.clubs import known
from club.clubs.models import Club
from club.db.prepared import prepared
from club.games import words
from club.games.models import (
    PLAYER_FIELDS,
    Doubling,
    Game,
    GameTeam,
    LedgerEntry,
    Membership,
    Player,
    Round,
    Team,
    in_a_seat,
    seat_players,
)
from club.leaderboards import figures
from club.leaderboards.models import (
    OwedGame,
    PlayerClubTotals,
    PlayerGameFigures,
    RatingsState,
    TeamClubTotals,
    TeamGameFigures,
)
from club.leaderboards.services.owed_work import catch_up


@dataclass(frozen=True)
class Filters:
    start: datetime.date | None = None
    end: datetime.date | None = None
    tournament: int | None = None  # a Tournament pk
    form: str | None = None  # one form of play: words.TABLES, POINTS or KODI

    def games(self, prefix: str = "", club: Club | None = None) -> Q:
        """The games counted, as a condition on ``prefix`` (a path to a Game): ``club``'s
        alone, or every club's when None."""
        q = Q(**{f"{prefix}status": Game.Status.FINISHED})
        if club is not None:
            q &= Q(**{f"{prefix}club": club})
        if self.form == words.POINTS:
            q &= Q(**{f"{prefix}scoring": "points"})
        elif self.form in (words.KODI, words.TABLES):
            q &= Q(**{f"{prefix}scoring": "tables", f"{prefix}kodi": self.form == words.KODI})
        if self.start:
            q &= Q(**{f"{prefix}created_at__date__gte": self.start})
        if self.end:
            q &= Q(**{f"{prefix}created_at__date__lte": self.end})
        if self.tournament:
            q &= Q(**{f"{prefix}sitting_entry__sitting__tournament": self.tournament})
        return q


def _aggregate(queryset: QuerySet, function: str, column: str = "pk"):
    """One value of a correlated subquery: COUNT, SUM or MAX over ``queryset``."""
    value = queryset.order_by().annotate(
        value=Func(F(column), function=function, output_field=IntegerField())
    )
    default = Value(0) if function != "MAX" else Value(None, output_field=IntegerField())
    return Coalesce(Subquery(value.values("value")[:1]), default, output_field=IntegerField())


def count(queryset: QuerySet):
    """The number of rows of ``queryset``, as a correlated subquery."""
    return _aggregate(queryset, "COUNT")


FIGURES = list(figures.FIELDS)


def _doubling_figures(seat: Callable[[OuterRef], Q], filters: Filters, club: Club | None) -> dict:
    """Doubles and redoubles won and lost, for a side whose GameTeam rows match ``seat(row)``.

    The deals are reached from the side's own seats (``declaring_team IN seats``,
    ``game IN seats' games``), so each figure reads only the side's games: reaching
    them from every finished game instead cost a scan of the whole history per row.
    The seats sit two queries deep, so they refer to the board's row two levels out.
    """
    # The filters (finished, period, tournament) apply to the seats, so the deals need
    # no join to their games and are found through their own indexes.
    seats = GameTeam.objects.filter(seat(OuterRef(OuterRef("pk"))), filters.games("game__", club))
    mine = seats.values("pk")
    their_games = seats.values("game_id")
    figures = {}
    for doubling, name in ((Doubling.DOUBLE, "doubles"), (Doubling.REDOUBLE, "redoubles")):
        deals = Round.objects.filter(doubling=doubling)
        declaring = deals.filter(declaring_team__in=mine)
        defending = deals.filter(game__in=their_games).exclude(declaring_team__in=mine)
        won_declaring = count(declaring.filter(made=True))
        won_defending = count(defending.filter(made=False))
        lost_declaring = count(declaring.filter(made=False))
        lost_defending = count(defending.filter(made=True))
        figures[f"{name}_won"] = won_declaring + won_defending
        figures[f"{name}_lost"] = lost_declaring + lost_defending
    return figures


def player_figures(filters: Filters, club: Club | None = None) -> dict:
    """Annotations of every figure for a Player queryset, over ``club``'s games (every
    club's when None)."""
    me = OuterRef("pk")
    seats = GameTeam.objects.filter(in_a_seat(me), filters.games("game__", club))
    declared = Round.objects.filter(filters.games("game__", club), declarer=me)
    ledger = LedgerEntry.objects.filter(
        in_a_seat(me, "game_team__"),
        filters.games("game_team__game__", club),
        game_team__game__scoring="tables",  # a points sheet's ledger holds points
    )
    return {
        "played": count(seats),
        "won": count(seats.filter(figures.WON)),
        "declared": count(declared),
        "made": count(declared.filter(made=True)),
        **_doubling_figures(in_a_seat, filters, club),
        "tables_net": _aggregate(ledger, "SUM", "change"),
        **_sheet_figures(seats),
        "biggest_bid": _aggregate(declared.filter(made=True), "MAX", "bid"),
    }


def _sheet_figures(seats: QuerySet) -> dict:
    """Points for and against and sessions won at points games, kodis taken and given at
    kodi games, over the side's ``seats`` (GameTeam rows of the games counted)."""
    points = seats.filter(game__scoring="points")
    kodi = seats.filter(game__scoring="tables", game__kodi=True)
    others = GameTeam.objects.filter(game=OuterRef("game")).exclude(pk=OuterRef("pk"))
    return {
        "points_for": _aggregate(points, "SUM", "score"),
        "points_against": _aggregate(
            points.annotate(against=_aggregate(others, "SUM", "score")), "SUM", "against"
        ),
        "sessions_won": count(points.filter(figures.WON)),
        "kodis_taken": _aggregate(kodi, "SUM", "kodis"),
        "kodis_given": _aggregate(
            kodi.annotate(given=_aggregate(others, "SUM", "kodis")), "SUM", "given"
        ),
    }


def team_figures(filters: Filters, club: Club | None = None) -> dict:
    """Annotations of every figure for a Team queryset, over ``club``'s games (every club's
    when None)."""
    me = OuterRef("pk")
    seats = GameTeam.objects.filter(filters.games("game__", club), team=me)
    # Deals and ledger rows are reached through the team's own seats (two queries
    # deep, hence the double OuterRef), never by scanning every finished game.
    own_seats = GameTeam.objects.filter(
        filters.games("game__", club), team=OuterRef(OuterRef("pk"))
    ).values("pk")
    declared = Round.objects.filter(declaring_team__in=own_seats)
    # A points sheet's ledger holds points, not tables.
    ledger = LedgerEntry.objects.filter(game_team__in=own_seats, game_team__game__scoring="tables")
    return {
        "played": count(seats),
        "won": count(seats.filter(figures.WON)),
        "declared": count(declared),
        "made": count(declared.filter(made=True)),
        **_doubling_figures(lambda row: Q(team=row), filters, club),
        "tables_net": _aggregate(ledger, "SUM", "change"),
        **_sheet_figures(seats),
        "biggest_bid": _aggregate(declared.filter(made=True, all_pass=False), "MAX", "bid"),
    }


@dataclass
class Row:
    """One line of a leaderboard: a Player or a Team with its figures."""

    subject: Player | Team
    rating: float | None
    played: int = 0
    won: int = 0
    declared: int = 0
    made: int = 0
    doubles_won: int = 0
    doubles_lost: int = 0
    redoubles_won: int = 0
    redoubles_lost: int = 0
    tables_net: int = 0
    points_for: int = 0
    points_against: int = 0
    sessions_won: int = 0
    kodis_taken: int = 0
    kodis_given: int = 0
    biggest_bid: int | None = None
    rank: int = 0
    players: list = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.subject.name

    @property
    def win_share(self) -> float | None:
        return self.won / self.played if self.played else None

    @property
    def win_percent(self) -> int | None:
        share = self.win_share
        return None if share is None else round(share * 100)

    @property
    def made_share(self) -> float | None:
        return self.made / self.declared if self.declared else None

    @property
    def score_difference(self) -> int:
        return self.points_for - self.points_against


SORTS = {
    "rating": lambda row: row.rating if row.rating is not None else float("-inf"),
    "name": lambda row: row.name.lower(),
    "played": lambda row: row.played,
    "won": lambda row: row.won,
    "win_share": lambda row: row.win_share if row.win_share is not None else -1.0,
    "declared": lambda row: row.declared,
    "made": lambda row: row.made,
    "doubles_won": lambda row: row.doubles_won,
    "doubles_lost": lambda row: row.doubles_lost,
    "redoubles_won": lambda row: row.redoubles_won,
    "redoubles_lost": lambda row: row.redoubles_lost,
    "tables_net": lambda row: row.tables_net,
    "points_for": lambda row: row.points_for,
    "points_against": lambda row: row.points_against,
    "score_difference": lambda row: row.score_difference,
    "sessions_won": lambda row: row.sessions_won,
    "kodis_taken": lambda row: row.kodis_taken,
    "kodis_given": lambda row: row.kodis_given,
    "biggest_bid": lambda row: row.biggest_bid or 0,
}
DEFAULT_SORT = "rating"

# The figures every game has, and each form of play's own: a board of one form shows
# the results, that form's own figures, then the contracts; a board of every form, the
# own figures of each form the club has played.
RESULTS = ("played", "won", "win_share")
CONTRACTS = ("declared", "made", "doubles_won", "redoubles_won")
FORM_FIGURES = {
    words.TABLES: ("tables_net",),
    words.POINTS: ("sessions_won", "points_for", "points_against", "score_difference"),
    words.KODI: ("kodis_taken", "kodis_given"),
}
FORMS = tuple(FORM_FIGURES)


def has_forms(rows: QuerySet) -> dict[str, Exists]:
    """For each form of play, whether ``rows`` (figures at games: a club's, a player's)
    hold one: annotations named ``has_<form>``, each an index's lookup, for
    :func:`forms_had` to read back."""
    return {f"has_{form}": Exists(rows.filter(form=form)) for form in FORMS}


def forms_had(found: dict) -> list[str]:
    """The forms of play a row annotated with :func:`has_forms` holds, in FORMS order
    (taken out of the row)."""
    return [form for form in FORMS if found.pop(f"has_{form}", False)]


def forms_played(*, club: Club | None = None) -> list[str]:
    """The forms of play of the finished games of ``club`` (a board's columns), in FORMS
    order: one query, each form found through an index of the figures that leads with the
    club. A player's are read with their totals (club.leaderboards.profile)."""
    rows = TeamGameFigures.objects.filter(club=club or known.home())
    return forms_had(dict(Game.objects.values(**has_forms(rows)).first() or {}))


def board_figures(filters: Filters, played: list[str]) -> list[str]:
    """The figures a board shows: those every game has, and its form's own (the
    own figures of every form played, on a board of all of them)."""
    forms = [filters.form] if filters.form in FORM_FIGURES else played
    results: tuple[str, ...] = RESULTS
    if forms == [words.POINTS]:  # every game a session: its sessions won are its wins
        results = tuple(name for name in results if name != "won")
    return [
        *results,
        *(name for form in FORMS if form in forms for name in FORM_FIGURES[form]),
        *CONTRACTS,
        "biggest_bid",
    ]


PER_PAGE = 25  # a phone screen or two; the figures are read a page at a time


@dataclass
class Board:
    """One page of a leaderboard: its rows, ranked across all pages."""

    rows: list[Row]
    total: int  # sides on the board, all pages
    page: int
    pages: int

    @property
    def previous(self) -> int | None:
        return self.page - 1 if self.page > 1 else None

    @property
    def next(self) -> int | None:
        return self.page + 1 if self.page < self.pages else None


def _ordering(sort: str, descending: bool, name: str) -> list:
    """The SQL order of a board: the column chosen, then the name A to Z."""
    sort = sort if sort in SORTS else DEFAULT_SORT
    key: F | Expression
    if sort == "name":
        key = Lower(name)
    elif sort == "rating":
        key = F("board_rating")
    elif sort == "win_share":
        key = Cast("won", FloatField()) / Cast("played", FloatField())
    elif sort == "biggest_bid":
        key = Coalesce("biggest_bid", 0)
    elif sort == "score_difference":
        key = F("points_for") - F("points_against")
    else:
        key = F(sort)
    first = key.desc(nulls_last=True) if descending else key.asc(nulls_first=True)
    return [first, Lower(name).asc()]


def _filtered(filters: Filters) -> bool:
    return bool(filters.start or filters.end or filters.tournament or filters.form)


def _game_rows(model, filters: Filters, club: Club) -> QuerySet:
    """The rows of ``club``'s games that pass the filters: a tournament of another club
    counts nothing here, its games being that club's."""
    rows = model.objects.filter(club=club)
    if filters.start:
        rows = rows.filter(played_on__gte=filters.start)
    if filters.end:
        rows = rows.filter(played_on__lte=filters.end)
    if filters.tournament:
        rows = rows.filter(tournament_id=filters.tournament)
    if filters.form:
        rows = rows.filter(form=filters.form)
    return rows


def the_clubs(side: str, club: Club, column: str | None = None, *, finished: bool = True) -> Exists:
    """Whether the side of a row (its ``column``: ``player_id`` or ``team_id`` by default) is
    the club's: a player who is one of its members; a team that played a game of the club,
    a finished one unless ``finished`` is False (the API's team, at a game being played).
    A board needs it for its players only: a team with figures at the club played there."""
    side_id = OuterRef(column or f"{side}_id")
    if side == "player":
        return Exists(Membership.objects.filter(club=club, player=side_id))
    played = GameTeam.objects.filter(team=side_id, game__club=club)
    if finished:
        played = played.filter(game__status=Game.Status.FINISHED)
    return Exists(played)


def _board(
    kind: str, filters: Filters, sort: str, descending: bool, page: int | None, club: Club | None
) -> Board:
    """The club's board from the maintained figures: a count and one page (two queries).

    Its sides are those with figures at the club (the home club when ``club`` is None), a
    player also one of its members (:func:`the_clubs`), and their figures are the club's.
    Unfiltered, it reads each side's totals at the club (a row each, however long the
    club's history); filtered by period, tournament or form, it sums the sides' rows of
    the club's games that pass (those games only, through their indexes). The rating is
    the side's one rating, over every club's games. A page past the end shows the last;
    None gives every row.
    """
    club = club or known.home()
    side = "player" if kind == "players" else "team"
    rating = F("player__rating__rating" if side == "player" else "team__totals__rating")
    # A player's rows are read for the club's members only, as its register lists them.
    members = [the_clubs(side, club)] if side == "player" else []
    if _filtered(filters):
        model = PlayerGameFigures if side == "player" else TeamGameFigures
        queryset = (
            _game_rows(model, filters, club)
            .filter(*members)
            .values(f"{side}_id")
            .annotate(**figures.SUMS)
            .filter(played__gt=0)
        )
    else:
        totals = PlayerClubTotals if side == "player" else TeamClubTotals
        queryset = totals.objects.filter(*members, club=club, played__gt=0).values(
            f"{side}_id", *figures.FIELDS
        )
    # "board_rating": TeamTotals has a column of its own called rating.
    ordered = queryset.annotate(
        name=F(f"{side}__name"), board_rating=rating, **_names(side)
    ).order_by(*_ordering(sort, descending, f"{side}__name"), f"{side}_id")
    total = queryset.count()  # the rows alone: the names and ratings joined count nothing
    pages = max(1, -(-total // PER_PAGE))
    if page is None:
        number, offset, found = 1, 0, list(ordered)
    else:
        number = min(max(page, 1), pages)
        offset = (number - 1) * PER_PAGE
        found = list(ordered[offset : offset + PER_PAGE])
    subjects = [_subject(side, row) for row in found]
    if side == "team":
        seat_players(subjects, ("name",))  # the page's players, by key (:func:`_names`)
    rows = []
    for index, (row, subject) in enumerate(zip(found, subjects, strict=True), start=offset + 1):
        board_row = Row(
            subject=subject,
            rating=row["board_rating"],
            rank=index,
            **{name: row[name] for name in FIGURES},
        )
        if isinstance(subject, Team):  # a team's board (side "team")
            board_row.players = subject.players
        rows.append(board_row)
    return Board(rows=rows, total=len(rows) if total is None else total, page=number, pages=pages)


def _names(side: str) -> dict:
    """A team's players' keys, read with its row; their names are read by key for the page
    (club.games.models.seat_players): joining the players' table four times made
    PostgreSQL spend 6 ms planning a board that took 1.5 ms to read."""
    if side == "player":
        return {}
    return {f"{name}_id": F(f"team__{name}_id") for name in PLAYER_FIELDS}


def _subject(side: str, row: dict) -> Player | Team:
    """The Player or Team a board row is about, built from the row (for its name and link;
    a team's players are given it by key)."""
    if side == "player":
        return Player(pk=row["player_id"], name=row["name"])
    seats = {f"{name}_id": row[f"{name}_id"] for name in PLAYER_FIELDS}
    return Team(pk=row["team_id"], name=row["name"], **seats)


def player_board_page(
    filters: Filters,
    *,
    club: Club | None = None,
    sort: str = DEFAULT_SORT,
    descending: bool = True,
    page: int = 1,
) -> Board:
    return _board("players", filters, sort, descending, page, club)


def team_board_page(
    filters: Filters,
    *,
    club: Club | None = None,
    sort: str = DEFAULT_SORT,
    descending: bool = True,
    page: int = 1,
) -> Board:
    return _board("teams", filters, sort, descending, page, club)


def player_board(
    filters: Filters, *, club: Club | None = None, sort: str = DEFAULT_SORT, descending: bool = True
) -> list[Row]:
    """Every player of the club who played a counted game, with their figures, ranked."""
    return _board("players", filters, sort, descending, None, club).rows


def team_board(
    filters: Filters, *, club: Club | None = None, sort: str = DEFAULT_SORT, descending: bool = True
) -> list[Row]:
    """Every team of the club that played a counted game, with their figures, ranked."""
    return _board("teams", filters, sort, descending, None, club).rows


# --- The register ------------------------------------------------------------


def members(club: Club | None = None) -> QuerySet[Player]:
    """The club's players (the home club's when ``club`` is None): its members."""
    return Player.objects.filter(memberships__club=club or known.home())


def register(*, club: Club | None = None, search: str = "", active: str = "") -> QuerySet:
    """The club's players (:func:`members`), found by name, nickname or member number."""
    catch_up()  # their ratings as of every finished game (club.leaderboards.owed)
    players = members(club).select_related("rating")
    search = " ".join(search.split())
    if search:
        players = players.filter(
            Q(name__icontains=search)
            | Q(nickname__icontains=search)
            | Q(member_number__icontains=search)
        )
    if active == "active":
        players = players.filter(active=True)
    elif active == "inactive":
        players = players.filter(active=False)
    return players.order_by("name")


def _state(players) -> QuerySet:
    """The ratings' state: when they last moved, ``players``, and whether work is owed."""
    owed = Exists(OwedGame.objects.all())
    return RatingsState.objects.filter(pk=1).values_list("rebuilt_at", players, owed)


@prepared
def _state_of_site():
    return _state(Value(0))


@prepared
def _state_of_club(club: int):
    return _state(count(Membership.objects.filter(club=club)))


def _ratings_rebuilt_at(club: Club | None = None) -> tuple[datetime.datetime | None, int]:
    """When the ratings last moved, once any work owed to the boards is done (owed.py),
    and how many players ``club`` has (0 for no club): in one query, with whether any
    work is owed, when none is (prepared: every live page and poll reads it)."""

    def read():
        found = _state_of_club(club.pk) if club else _state_of_site()
        return found[0] if found else None

    state = read()
    if state is not None and not state[2]:
        return state[0], state[1]
    if catch_up() or state is not None:
        state = read()
    return (state[0], state[1]) if state is not None else (None, 0)


def _games_of(player, club: Club | int) -> QuerySet[Game]:
    """``player``'s games at ``club`` (``player`` a Player, an id or an OuterRef): those
    whose every change moves the player's profile's live token."""
    return Game.objects.filter(in_a_seat(player, "teams__"), club=club).order_by()


def newest_game(player, club: Club | int) -> Subquery:
    """When one of ``player``'s games at ``club`` last recorded anything (``player`` a
    Player, an id or an OuterRef): the profile's part of its live token. Read from the
    player's games at every club, the others' left out by their stamp's being none: with
    the club in the query's condition, SQLite read every game of the club's (its index on
    the club and the time) and probed each for the player, a cost that grew with the
    club's history."""
    at_club = Case(When(club=club, then=F("updated_at")), output_field=DateTimeField())
    games = Game.objects.filter(in_a_seat(player, "teams__")).annotate(at_club=at_club)
    return Subquery(games.order_by(F("at_club").desc(nulls_last=True)).values("at_club")[:1])


UNREAD = object()  # live_version's ``newest`` when the caller has not read it


def live_version(
    player: Player | None = None, *, club: Club | None = None, newest: object = UNREAD
) -> str:
    """The token live pages carry: it changes when the ratings are rebuilt (every change
    to a finished game rebuilds them, and moves the figures, the site's and each club's);
    given a club and no player, also when the club has one more player (the federation's
    ranking of the club lists its members, each with a rating from every club's games);
    on a profile, when one of the player's games at the club (``club``, the home club's
    when None) records anything (:func:`newest_game`; ``newest``, when read with the
    player already). Every leaderboard page reads it first, so the work a finished game
    owes the boards (club.leaderboards.owed) is done before any of them reads a figure.
    A board's rows change otherwise only when players or teams are renamed, merged or
    deleted, which moves the club's token (club.games.versions) that its key holds too."""
    rebuilt, players = _ratings_rebuilt_at(club if player is None else None)
    stamp = int(rebuilt.timestamp() * 1_000_000) if rebuilt else 0
    if player is None:
        return f"{stamp}.{players}" if club is not None else str(stamp)
    if newest is UNREAD:
        games = _games_of(player, club or known.home())
        newest = games.aggregate(newest=Max("updated_at"))["newest"]
    assert newest is None or isinstance(newest, datetime.datetime)
    return f"{stamp}.{int(newest.timestamp() * 1_000_000) if newest else 0}"
