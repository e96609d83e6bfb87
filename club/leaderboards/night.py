"""A player's night in review, or a span of nights: their finished games at a club that
started on those days (in the club's time zone), with the results, the contracts by bid
band, the doubled deals, the tables, points or kodis won, the rating change and the
partner it went best with.

*A night* is a day in the club's time zone: the games that started on it, as a season's
club night is (docs/rules.md section F.2). Only finished games are reviewed (a game still
being played is said to be, and counted once it finishes). *A span* is from one day to
another, both included, at most :data:`MAX_SPAN_DAYS` days.

*At a club's address the review is the club's*: the club's games, their deals and the
rating change they made. A night the player spent at another club is reviewed on their
page at that club's address (the page links their clubs); no page adds the nights of
several clubs together. The figures above it on the page are the federation's; the
night, as the games listed below it, is the club's.

The counting is :mod:`club.scoring.review`'s; this reads what it needs for the days
asked only, in a bounded number of queries whatever the player's history (six for a
span, seven for a night, six for the latest night; one fewer when the player's profile
gives the rating changes it read for its chart): the days' games; their seats and the
games as plain values; the seats' players by key; the tables the player's own seats won
and lost, summed from the ledger; the player's rating changes; their deals, counted in
the database a row per kind of deal (whose, bid, doubling, made), not a row per deal;
and for a night, the nights before and after it (when none is asked, the latest games
give the latest night, its games and the night before). A game's figures are the
boards' (:mod:`club.leaderboards.figures`): the tests hold the review to the maintained
figures of the same games.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.db.models import (
    BooleanField,
    Case,
    Count,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from club.clubs import known
from club.clubs.models import Club
from club.db.prepared import prepared
from club.games.models import (
    Game,
    GameTeam,
    Player,
    Round,
    in_a_seat,
)
from club.games.words import KODI, POINTS, form_of
from club.leaderboards.forms import FORMS
from club.leaderboards.night_seats import NightGameOf, NightSeat, Seated, read_seats
from club.leaderboards.profile import PROFILE_GAMES, Named, RatingChanges, form_badge
from club.scoring import review
from club.scoring.review import Contracts, DealSeen, Partnership
from club.scoring.rules import Doubling

MAX_SPAN_DAYS = 366  # a span is a year at most: its deals are read at each reading
# A span's games listed, a page of the profile's: the counts cover them all.
SHOWN_GAMES = PROFILE_GAMES
# The days a date may name: a day further out has no start the database can hold.
FIRST_DAY, LAST_DAY = dt.date(1900, 1, 1), dt.date(9998, 12, 31)
_ISO_DAY = re.compile(r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
_SHOWN_CHARACTERS = 40  # of what was typed, in a message that names it

NOT_A_DAY = gettext_lazy(
    "“%(value)s” is not a day of the calendar: give it as year-month-day, such as 2026-03-14."
)
OUT_OF_RANGE = gettext_lazy("%(value)s is outside the days a night may be: 1900 to 9998.")
BACKWARDS = gettext_lazy(
    "The span starts on %(start)s, after its last day, %(end)s: give the earlier day first."
)
TOO_LONG = gettext_lazy(
    "A span is at most %(most)d days; %(start)s to %(end)s is %(days)d days. Give a shorter span."
)
NO_START = gettext_lazy("The span has a last day but no first day: give both.")
NO_END = gettext_lazy("The span has a first day but no last day: give both.")
BOTH = gettext_lazy(
    "A night (%(night)s) and a span (%(start)s to %(end)s) were both asked for: ask for "
    "one or the other."
)


# --- What was asked -------------------------------------------------------------------


@dataclass(frozen=True)
class Asked:
    """The days the page asks for: a night (``start`` alone), a span, or neither (the
    player's latest night); with the refusals of what it could not read."""

    start: dt.date | None = None
    end: dt.date | None = None
    span: bool = False
    errors: tuple[str, ...] = ()
    typed: Mapping[str, str] = field(default_factory=dict)  # the fields as sent, for the form


def _day(value: str) -> tuple[dt.date | None, str | None]:
    """The day ``value`` names (year-month-day), or the refusal that names it."""
    shown = value[:_SHOWN_CHARACTERS]
    if not _ISO_DAY.match(value):
        return None, NOT_A_DAY % {"value": shown}
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        return None, NOT_A_DAY % {"value": shown}
    if not FIRST_DAY <= day <= LAST_DAY:
        return None, OUT_OF_RANGE % {"value": shown}
    return day, None


def _shown(day: dt.date) -> str:
    return date_format(day, "DATE_FORMAT")


def _span(first: str, last: str) -> Asked:
    typed = {"from": first, "to": last}
    if not first or not last:
        return Asked(span=True, errors=(str(NO_END if first else NO_START),), typed=typed)
    (start, start_error), (end, end_error) = _day(first), _day(last)
    errors = [error for error in (start_error, end_error) if error]
    if start is None or end is None:
        return Asked(span=True, errors=tuple(errors), typed=typed)
    if start > end:
        refusal = BACKWARDS % {"start": _shown(start), "end": _shown(end)}
        return Asked(span=True, errors=(refusal,), typed=typed)
    days = (end - start).days + 1
    if days > MAX_SPAN_DAYS:
        refusal = TOO_LONG % {
            "most": MAX_SPAN_DAYS,
            "start": _shown(start),
            "end": _shown(end),
            "days": days,
        }
        return Asked(span=True, errors=(refusal,), typed=typed)
    return Asked(start=start, end=end, span=True, typed=typed)


def asked_of(query: Mapping[str, str]) -> Asked:
    """What ``query`` asks (``?night=`` a day; ``?from=&to=`` a span; neither, the latest
    night). A field sent empty is not sent; a night sent with a span is refused, naming
    both (the page's forms send one or the other: an address put together by hand)."""
    first, last = query.get("from", "").strip(), query.get("to", "").strip()
    night = query.get("night", "").strip()
    if night and (first or last):
        shown = {"night": night, "start": first or "…", "end": last or "…"}
        refusal = BOTH % {key: value[:_SHOWN_CHARACTERS] for key, value in shown.items()}
        return Asked(errors=(str(refusal),), typed={"night": night, "from": first, "to": last})
    if first or last:
        return _span(first, last)
    if not night:
        return Asked()
    day, error = _day(night)
    if day is None:
        return Asked(errors=(str(error),), typed={"night": night})
    return Asked(start=day, end=day, typed={"night": night})


# --- What the review shows ----------------------------------------------------------


def signed(value: int) -> str:
    """A count won or lost: "+4", "-2", "0"."""
    return f"+{value}" if value > 0 else str(value)


WON, LEVEL, LOST = "won", "level", "lost"


@dataclass
class NightGame:
    """One game of the night, as the player's seat saw it."""

    seat: NightSeat
    game: NightGameOf
    partners: list[Named]
    opponents: list[NightSeat]
    form: str  # words.TABLES, POINTS or KODI
    rating_delta: float | None = None
    tables_won: int = 0  # tables and kodi games: the ledger's moves for the seat
    tables_lost: int = 0
    points_for: int = 0  # a points sheet's
    points_against: int = 0
    kodis_taken: int = 0  # a kodi game's
    kodis_given: int = 0

    @property
    def teams(self) -> int:
        return len(self.opponents) + 1

    @property
    def result(self) -> str:
        """Won (the first place alone), level (a shared first place) or lost."""
        if self.game.winner_id == self.seat.pk:
            return WON
        return LEVEL if self.seat.place == 1 else LOST

    @property
    def rating_shown(self) -> str:
        """The change to the rating, whole, signed: "+12", "-3" (as the profile's games)."""
        return "" if self.rating_delta is None else signed(round(self.rating_delta))

    @property
    def badge(self) -> str:
        """W, = (level), L, or the place of a game of three or four (profile.form_badge)."""
        return form_badge(self.seat.place, self.teams, won=self.result == WON)

    @property
    def amount(self) -> str:
        """What the game won or lost, in its form's count: "+4 tables", "31–25 points",
        "1 kodi taken, 2 given"."""
        if self.form == POINTS:
            return _("%(for)d–%(against)d points") % {
                "for": self.points_for,
                "against": self.points_against,
            }
        if self.form == KODI:
            return ngettext(
                "%(taken)d kodi taken, %(given)d given",
                "%(taken)d kodis taken, %(given)d given",
                self.kodis_taken,
            ) % {"taken": self.kodis_taken, "given": self.kodis_given}
        net = self.tables_won - self.tables_lost
        return ngettext("%(net)s table", "%(net)s tables", abs(net)) % {"net": signed(net)}


@dataclass
class FormTotals:
    """The night's games of one form of play, and what they won and lost."""

    form: str
    name: str
    played: int = 0
    won: int = 0
    level: int = 0
    tables_won: int = 0
    tables_lost: int = 0
    points_for: int = 0
    points_against: int = 0
    kodis_taken: int = 0
    kodis_given: int = 0

    @property
    def lost(self) -> int:
        return self.played - self.won - self.level

    @property
    def tables_net(self) -> int:
        return self.tables_won - self.tables_lost

    @property
    def points_difference(self) -> int:
        return self.points_for - self.points_against

    def add(self, game: NightGame) -> None:
        self.played += 1
        self.won += game.result == WON
        self.level += game.result == LEVEL
        for name in (
            "tables_won",
            "tables_lost",
            "points_for",
            "points_against",
            "kodis_taken",
            "kodis_given",
        ):
            setattr(self, name, getattr(self, name) + getattr(game, name))


@dataclass
class NightReview:
    asked: Asked
    start: dt.date | None  # the days reviewed (None: there was nothing to review)
    end: dt.date | None
    games: list[NightGame] = field(default_factory=list)  # those listed (SHOWN_GAMES)
    played: int = 0
    forms: list[FormTotals] = field(default_factory=list)
    contracts: Contracts | None = None
    rating_change: float | None = None  # None: no game of the night was rated
    rated: int = 0
    partners: list[Partnership] = field(default_factory=list)  # the best first
    best: list[Partnership] = field(default_factory=list)
    previous: dt.date | None = None  # the player's nights either side of a night
    following: dt.date | None = None
    playing: int = 0  # games of the night still being played

    max_span_days = MAX_SPAN_DAYS

    @property
    def span(self) -> bool:
        return self.asked.span

    @property
    def errors(self) -> tuple[str, ...]:
        return self.asked.errors

    @property
    def won(self) -> int:
        return sum(totals.won for totals in self.forms)

    @property
    def level(self) -> int:
        return sum(totals.level for totals in self.forms)

    @property
    def lost(self) -> int:
        return sum(totals.lost for totals in self.forms)

    @property
    def rating_shown(self) -> str:
        return "" if self.rating_change is None else signed(round(self.rating_change))

    @property
    def summary(self) -> str:
        """The results in a few words: "3 games: 2 won, 1 lost"."""
        games = ngettext("%(count)d game", "%(count)d games", self.played) % {"count": self.played}
        parts = [_("%(count)d won") % {"count": self.won}]
        if self.level:
            parts.append(_("%(count)d level") % {"count": self.level})
        parts.append(_("%(count)d lost") % {"count": self.lost})
        return _("%(games)s: %(results)s") % {"games": games, "results": ", ".join(parts)}

    @property
    def more_games(self) -> int:
        """Games of the span not listed (the counts hold them)."""
        return self.played - len(self.games)


# --- Reading it -----------------------------------------------------------------------


ONE_DAY = dt.timedelta(1)


def _start_of(day: dt.date, zone: zoneinfo.ZoneInfo) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), tzinfo=zone)


def _seated(player: Player | int, club: Club | int) -> QuerySet[GameTeam]:
    """The player's seats at the club's games (a player and a club, or their keys)."""
    return GameTeam.objects.filter(in_a_seat(player), game__club=club)


def _played(player: Player | int, club: Club | int) -> QuerySet[GameTeam]:
    """The player's seats at the club's finished games."""
    return _seated(player, club).filter(game__status=Game.Status.FINISHED)


# The latest games read to find the latest night and the one before it: a night is rarely
# a dozen of a player's games; a longer one is read past by a query of the nights around it.
LATEST_READ = 40


@prepared
def _latest_started(player: int, club: int, *, read: int):
    latest = _seated(player, club).order_by("-game__created_at", "-game_id")
    return latest.values_list("game_id", "game__created_at", "game__status")[:read]


@dataclass
class Latest:
    """What the player's latest games at the club tell of their nights."""

    nights: list[dt.date]  # the latest night with a finished game, and the one before it
    more: bool  # games were left unread
    games: list[int] | None  # every game of the latest night, when the games read hold them


def _latest_nights(player: Player, club: Club, zone: zoneinfo.ZoneInfo) -> Latest:
    """The player's latest night at the club and, when one of the latest
    :data:`LATEST_READ` games started before it, the night before it; whether more games
    were left unread; and the latest night's games, finished or being played, when the
    games read reach back past its start (one query, which reads the player's games in the
    order they started, with no day counted in SQL)."""
    started = _latest_started(player.pk, club.pk, read=LATEST_READ)
    days = [(game, moment.astimezone(zone).date(), status) for game, moment, status in started]
    nights = _two_nights(day for _game, day, status in days if status == Game.Status.FINISHED)
    more = len(started) == LATEST_READ
    if not nights and more:  # the games read are all still being played: the finished ones
        return Latest(_finished_nights(player, club, zone), True, None)
    games = None
    if nights and (not more or days[-1][1] < nights[0]):
        games = [game for game, day, _status in days if day == nights[0]]
    return Latest(nights, more, games)


def _finished_nights(player: Player, club: Club, zone: zoneinfo.ZoneInfo) -> list[dt.date]:
    """The latest night of the player's latest :data:`LATEST_READ` finished games, and the
    one before it when they reach it."""
    started = (
        _played(player, club)
        .order_by("-game__created_at")
        .values_list("game__created_at", flat=True)[:LATEST_READ]
    )
    return _two_nights(moment.astimezone(zone).date() for moment in started)


def _two_nights(days: Iterable[dt.date]) -> list[dt.date]:
    """The first two nights among ``days``, newest first."""
    nights: list[dt.date] = []
    for day in days:
        if day not in nights:
            nights.append(day)
            if len(nights) == 2:
                break
    return nights


@prepared
def _nights_around(player: int, club: int, start: dt.datetime, end: dt.datetime):
    played = _played(player, club)
    before = played.filter(game__created_at__lt=start).order_by("-game__created_at")
    after = played.filter(game__created_at__gte=end).order_by("game__created_at")
    return (
        Club.objects.filter(pk=club)
        .annotate(
            before=Subquery(before.values("game__created_at")[:1]),
            after=Subquery(after.values("game__created_at")[:1]),
        )
        .values_list("before", "after")
    )


def _around(found: NightReview, player: Player, club: Club, zone: zoneinfo.ZoneInfo) -> None:
    """The player's nights before and after the night: one query, two subqueries."""
    assert found.start is not None
    start, end = _start_of(found.start, zone), _start_of(found.start + ONE_DAY, zone)
    ((previous, following),) = _nights_around(player.pk, club.pk, start, end)
    found.previous = previous.astimezone(zone).date() if previous else None
    found.following = following.astimezone(zone).date() if following else None


def _games(seated: Seated, player: Player) -> list[NightGame]:
    """The player's finished games from every seat of them, in the order they started. A
    game's points and kodis for and against are the boards' (club.leaderboards.figures):
    the seat's, and the other seats' together."""
    by_game: dict[int, list[NightSeat]] = {}
    for seat in seated.seats:
        if seated.games[seat.game_id].is_finished:
            by_game.setdefault(seat.game_id, []).append(seat)
    games = []
    for game_id, at_game in by_game.items():
        mine = next(seat for seat in at_game if player.pk in seat.player_ids)
        others = [seat for seat in at_game if seat.pk != mine.pk]
        game = NightGame(
            seat=mine,
            game=seated.games[game_id],
            partners=[other for other in mine.players if other.pk != player.pk],
            opponents=others,
            form=form_of(seated.games[game_id]),
            rating_delta=seated.deltas.get(game_id),
        )
        if game.form == POINTS:  # a points sheet's ledger holds the points scored
            game.points_for = mine.score
            game.points_against = sum(seat.score for seat in others)
        else:
            game.tables_won, game.tables_lost = seated.moves.get(mine.pk, (0, 0))
        if game.form == KODI:
            game.kodis_taken = mine.kodis
            game.kodis_given = sum(seat.kodis for seat in others)
        games.append(game)
    return games


@prepared
def _kinds_of(games: list[int], ours: list[int]):
    return (
        Round.objects.filter(game_id__in=games)
        .annotate(
            ours=Case(
                When(declaring_team_id__in=ours, then=Value(True)),
                default=Value(False),
                output_field=BooleanField(),
            )
        )
        .values("ours", "bid", "made", "doubling", "thani", "all_pass")
        .annotate(deals=Count("pk"))
        .order_by()
    )


def _contracts(games: list[int], ours: set[int]) -> Contracts:
    """The deals of ``games``, counted in the database a row per kind (whose, bid,
    doubling, made), not a row per deal: a deal is the player's team's when its declaring
    seat is one of ``ours``, the player's seats (decided in the query: a year of deals is
    a hundred rows of kinds, not one a declaring seat)."""
    kinds = _kinds_of(sorted(games), sorted(ours))
    return review.count_contracts(
        DealSeen(
            ours=row["ours"],
            bid=row["bid"],
            made=row["made"],
            doubling=Doubling(row["doubling"]),
            thani=row["thani"],
            all_pass=row["all_pass"],
            count=row["deals"],
        )
        for row in kinds
    )


def _partners(games: list[NightGame]) -> list[Partnership]:
    partners: dict[int, Partnership] = {}
    for game in games:
        for partner in game.partners:
            kept = partners.setdefault(partner.pk, Partnership(partner.pk, partner.name))
            kept.played += 1
            kept.won += game.result == WON
            kept.tables_net += game.tables_won - game.tables_lost
    return review.ranked_partnerships(partners.values())


@prepared
def _games_between(player: int, club: int, start: dt.datetime, end: dt.datetime):
    days = _seated(player, club).filter(game__created_at__gte=start, game__created_at__lt=end)
    return days.values_list("game_id", flat=True)


def _review_days(
    found: NightReview,
    player: Player,
    club: Club,
    zone,
    game_ids: list[int] | None = None,
    rated: RatingChanges | None = None,
) -> None:
    """Fill ``found`` with the review of its days (``start`` to ``end``), each query by an
    index, whatever the club played before: the games (none when their ids are known
    already), their seats (club.leaderboards.night_seats), their deals."""
    assert found.start is not None and found.end is not None
    if game_ids is None:
        start = _start_of(found.start, zone)
        game_ids = _games_between(player.pk, club.pk, start, _start_of(found.end + ONE_DAY, zone))
    seated = read_seats(game_ids, player, SHOWN_GAMES, rated)
    found.playing = sum(1 for game in seated.games.values() if not game.is_finished)
    games = _games(seated, player)
    if not games:
        return
    names = dict(FORMS)
    forms = {form: FormTotals(form, str(names[form])) for form, _name in FORMS}
    for game in games:
        forms[game.form].add(game)
    found.forms = [totals for totals in forms.values() if totals.played]
    found.played = len(games)
    found.games = games[:SHOWN_GAMES]
    found.contracts = _contracts(
        [game.seat.game_id for game in games], {game.seat.pk for game in games}
    )
    deltas = [game.rating_delta for game in games if game.rating_delta is not None]
    found.rated = len(deltas)
    found.rating_change = sum(deltas) if deltas else None
    found.partners = _partners(games)
    found.best = review.best_partners(found.partners)


def night_review(
    player: Player, club: Club, asked: Asked, rated: RatingChanges | None = None
) -> NightReview | None:
    """The review the page shows for ``asked`` at ``club``'s address; None when nothing
    was asked and the player has no finished game at the club (the page shows no night).
    ``rated``: the player's latest rating changes, read already by their profile."""
    zone = known.by_id(club.pk).zone
    games = None
    if asked.errors:
        return NightReview(asked=asked, start=None, end=None)
    if asked.start is None:  # the latest night, and the one before it
        latest = _latest_nights(player, club, zone)
        if not latest.nights:
            return None
        games = latest.games  # read already, unless the night is longer than the read
        found = NightReview(asked=asked, start=latest.nights[0], end=latest.nights[0])
        if len(latest.nights) > 1:
            found.previous = latest.nights[1]
        elif latest.more:  # the games read were all of the latest night: one before?
            _around(found, player, club, zone)
    else:
        found = NightReview(asked=asked, start=asked.start, end=asked.end)
        if not asked.span:
            _around(found, player, club, zone)
    _review_days(found, player, club, zone, games, rated)
    return found
