"""A competition's table, made from the games and tournaments it counts at each reading.

The nights (docs/rules.md section F): each tournament counted is one event, placed by its
standings; the club's games outside tournaments are a club night a day (the day the game
started, in the club's time zone), placed as a tournament of those games would be
(club.scoring.standings, the default points for a place in a game). A team's line holds
its nights; a player's, the nights of the teams they sat for: their best place among
them, and the match points of the games they sat at.

A fixed number of queries, whatever the club's history: the games of the span (by the
club's index of games by day), the standings of the tournaments counted, and the names.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import zoneinfo
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from django.core.cache import caches
from django.db.models import Min, Q, TextField
from django.db.models.functions import Cast, TruncDate
from django.utils import timezone

from club.clubs import known
from club.competitions.models import Competition
from club.games.models import PLAYER_FIELDS, Game, GameTeam, Player, Team
from club.games.words import KODI, POINTS
from club.scoring import seasons
from club.scoring import standings as ranking
from club.scoring.rules import Scoring
from club.tournaments.models import Standing, Tournament, TournamentEvent
from club.tournaments.services.standings import Member, game_result, scheme_of

# A night's state on the table's page.
COUNTED, WAITING, LATE_COUNTED, LATE_DROPPED = "counted", "waiting", "late", "late_dropped"
SEATS = [f"{seat}_id" for seat in PLAYER_FIELDS]


@dataclass
class NightOf:
    """One night or event of the competition, as its page lists it."""

    key: str
    day: dt.date
    order: int = 0  # a day's club night first, then its tournaments by id
    tournament: Tournament | None = None  # None: a club night
    club_id: int | None = None
    state: str = COUNTED
    results: dict[int, seasons.Result] = field(default_factory=dict)

    @property
    def counts(self) -> bool:
        return self.state in (COUNTED, LATE_COUNTED)


@dataclass
class Table:
    competition: Competition
    nights: list[NightOf]  # every night of the span, in order (those not counted too)
    lines: list[seasons.Line]
    names: dict[int, str]

    @property
    def counted_nights(self) -> list[NightOf]:
        return [night for night in self.nights if night.counts]


def _form_q(form: str, prefix: str = "") -> Q:
    if form == POINTS:
        return Q(**{f"{prefix}scoring": Scoring.POINTS})
    return ~Q(**{f"{prefix}scoring": Scoring.POINTS}) & Q(**{f"{prefix}kodi": form == KODI})


def _zone(club_id: int | None) -> zoneinfo.ZoneInfo:
    club = known.by_id(club_id) if club_id else known.home()
    return zoneinfo.ZoneInfo(club.time_zone)


def _start_of(day: dt.date, zone: zoneinfo.ZoneInfo) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), tzinfo=zone)


def tournaments_counted(competition: Competition) -> list[Tournament]:
    """The tournaments the competition counts, whatever their state (in order of days)."""
    if competition.counts == Competition.Counts.EVENTS or competition.club_id is None:
        found = competition.events.all()
    else:
        found = Tournament.objects.filter(
            club_id=competition.club_id,
            starts_on__gte=competition.starts_on,
            starts_on__lte=competition.ends_on,
        )
        if competition.counts == Competition.Counts.FORM:
            found = found.filter(_form_q(competition.form))
    return list(found.order_by("starts_on", "id"))


def _due(competition: Competition, day: dt.date, zone: zoneinfo.ZoneInfo) -> dt.datetime | None:
    """When a night's results are due: the end of the last day allowed (None: no deadline)."""
    if competition.final_within_days is None:
        return None
    return _start_of(day + dt.timedelta(days=competition.final_within_days + 1), zone)


def _state(competition: Competition, final_at: dt.datetime | None, due: dt.datetime | None) -> str:
    if due is None:
        return COUNTED if final_at is not None else WAITING
    if final_at is None:
        return WAITING
    if final_at < due:
        return COUNTED
    return LATE_COUNTED if competition.late_counts else LATE_DROPPED


# --- tournaments ------------------------------------------------------------------------


def _tournament_nights(competition: Competition, players: bool) -> list[NightOf]:
    tournaments = tournaments_counted(competition)
    finalised = _finalised_at(tournaments) if competition.final_within_days is not None else {}
    nights = []
    for tournament in tournaments:
        day = tournament.ends_on or tournament.starts_on
        if competition.final_within_days is None:
            final_at = timezone.now() if tournament.status == Tournament.Status.FINISHED else None
        elif tournament.is_final:
            # When it was first made final (made final again after a correction, it is
            # still on time); imported already final, it was final by its last day.
            final_at = finalised.get(tournament.pk) or _start_of(day, _zone(tournament.club_id))
        else:
            final_at = None
        due = _due(competition, day, _zone(tournament.club_id))
        nights.append(
            NightOf(
                key=f"t{tournament.pk}",
                day=tournament.starts_on,
                order=tournament.pk,
                tournament=tournament,
                club_id=tournament.club_id,
                state=_state(competition, final_at, due),
            )
        )
    counted = {night.tournament.pk: night for night in nights if night.counts and night.tournament}
    if counted:
        if players:
            _players_in_tournaments(counted)
        else:
            _teams_in_tournaments(counted)
    return nights


def _finalised_at(tournaments: list[Tournament]) -> dict[int, dt.datetime]:
    """When each tournament's results were first made final."""
    return dict(
        TournamentEvent.objects.filter(
            tournament__in=[t.pk for t in tournaments if t.is_final],
            action=TournamentEvent.Action.FINALISED,
        )
        .values("tournament_id")
        .annotate(at=Min("made_at"))
        .values_list("tournament_id", "at")
        .order_by()
    )


def exact(points) -> Fraction:
    """A standing's points as they were before they were kept to the cent: a game's points
    are split among at most four teams sharing places, so every total is a whole number of
    twelfths, and the nearest twelfth to the kept figure is the total (4/3 kept as 1.33)."""
    return Fraction(round(Fraction(points) * 12), 12)


def _standings(nights: dict[int, NightOf]) -> tuple[list[tuple], Counter]:
    """The standings of the tournaments of ``nights`` (tournament, team, place, points), a
    team registered that played no game left out (docs/rules.md section F.4), and how many
    teams share each place of each."""
    rows = list(
        Standing.objects.filter(tournament__in=list(nights), games__gt=0)
        .order_by()
        .values_list("tournament_id", "entry__team_id", "place", "points")
    )
    return rows, Counter((tournament, place) for tournament, _team, place, _points in rows)


def _teams_in_tournaments(nights: dict[int, NightOf]) -> None:
    """Each team's place and points in each tournament, by its standings."""
    rows, sharing = _standings(nights)
    for tournament, team, place, points in rows:
        nights[tournament].results[team] = seasons.Result(
            place, sharing[tournament, place], exact(points)
        )


def _players_in_tournaments(nights: dict[int, NightOf]) -> None:
    """A player's result in each tournament: the best place of the teams they sat for, and
    the points of the games they sat at (by the tournament's points for a place)."""
    rows, sharing = _standings(nights)
    standing = {(tournament, team): place for tournament, team, place, _points in rows}
    games = (
        GameTeam.objects.filter(
            game__sitting_entry__sitting__tournament__in=list(nights),
            game__status=Game.Status.FINISHED,
        )
        .order_by()
        .values_list(
            "game__sitting_entry__sitting__tournament_id", "game_id", "team_id", "place", *SEATS
        )
    )
    schemes = {pk: scheme_of(night.tournament) for pk, night in nights.items() if night.tournament}
    for tournament, seat_rows in _by_event(games).items():
        night = nights[tournament]
        for player, teams, points in _sitters(seat_rows, schemes[tournament]):
            places = [
                (standing[tournament, team], team)
                for team in teams
                if (tournament, team) in standing
            ]
            if not places:
                continue
            place, _team = min(places)
            night.results[player] = seasons.Result(place, sharing[tournament, place], points)


def _by_event(rows: Iterable[tuple]) -> dict[int, list[tuple]]:
    grouped: dict[int, list[tuple]] = defaultdict(list)
    for row in rows:
        grouped[row[0]].append(row[1:])
    return grouped


def _sitters(
    rows: list[tuple], scheme: ranking.PointsScheme
) -> Iterable[tuple[int, set[int], Fraction]]:
    """From rows (game, team, place, seats...): each player, the teams they sat for and the
    points of the games they sat at."""
    by_game: dict[int, list[tuple]] = defaultdict(list)
    for row in rows:
        by_game[row[0]].append(row)
    teams: dict[int, set[int]] = defaultdict(set)
    earned: dict[int, Fraction] = defaultdict(Fraction)
    for members in by_game.values():
        count = len(members)
        places = [member[2] or count for member in members]
        for member, place in zip(members, places, strict=True):
            points = (
                ranking.points_for(scheme, count, place, places.count(place))
                if count in (2, 3, 4)
                else Fraction(0)
            )
            for player in member[3:]:
                if player is not None:
                    teams[player].add(member[1])
                    earned[player] += points
    for player, held in teams.items():
        yield player, held, earned[player]


# --- club nights ------------------------------------------------------------------------
#
# A club night's places are worked out from its games (club.scoring.standings), which is
# most of a season's cost: forty nights of fifteen games took 18 ms at every reading. So
# each night's places are kept in the pages cache under a key that says exactly which
# games, as last changed, it was placed from (a merge of two players, which moves their
# seats, moves their games' last change too; a rename changes no id): a correction to one
# night places that night again, the others are read back. Kept places are those a fresh
# placing gives; tests/competitions holds them to it.

NIGHTS_CACHE = "pages"
# A key no longer asked for ages out (an exact key needs no expiry): after one to two
# weeks, each night's own, so that nights placed together are not all placed again at once.
NIGHT_TIMEOUT = 7 * 24 * 3600

# A team's row of a game: team, place, tables, score, declared, made, then its four seats.
_TEAM_ROW = ("game_id", "team_id", "place", "tables", "score", "declared", "made", *SEATS)


@dataclass
class _Game:
    game: int
    day: dt.date
    state: str
    changed: str  # its last change as the database writes it (only ever part of a key)
    tables_start: int
    scoring: str


def _club_games(competition: Competition, club_id: int) -> list[_Game]:
    """The club's games outside tournaments started in the span, each with its day (the
    database's: the start in the club's time zone) and its state (counted, waiting, late).
    When a game finished is read only when there is a deadline."""
    zone = _zone(club_id)
    found = Game.objects.filter(
        club_id=club_id,
        created_at__gte=_start_of(competition.starts_on, zone),
        created_at__lt=_start_of(competition.ends_on + dt.timedelta(days=1), zone),
        sitting_entry__isnull=True,
    )
    if competition.counts == Competition.Counts.FORM:
        found = found.filter(_form_q(competition.form))
    deadline = competition.final_within_days is not None
    columns = ["id", "day", "status", "changed", "tables_per_team", "scoring"]
    # The last change read as text: a key needs it only to differ when it moves, and a
    # season's 600 times read as text cost no time zone's work (a third of the query).
    found = found.annotate(
        day=TruncDate("created_at", tzinfo=zone), changed=Cast("updated_at", TextField())
    ).order_by("id")
    now = timezone.now()
    games = []
    for row in found.values_list(*columns, *(["finished_at"] if deadline else [])):
        game_id, day, status, changed, tables_start, scoring = row[:6]
        final_at = None
        if status == Game.Status.FINISHED:
            # With no deadline only whether it finished counts, as for a tournament.
            final_at = row[6] if deadline else now
        state = _state(competition, final_at, _due(competition, day, zone))
        games.append(_Game(game_id, day, state, changed, tables_start, scoring))
    return games


def _club_nights(competition: Competition, players: bool) -> list[NightOf]:
    if competition.club_id is None or competition.counts == Competition.Counts.EVENTS:
        return []
    by_day: dict[dt.date, list[_Game]] = defaultdict(list)
    for game in _club_games(competition, competition.club_id):
        by_day[game.day].append(game)
    nights, counted = [], {}
    for day, games in sorted(by_day.items()):
        states = {game.state for game in games}
        state = next(
            (s for s in (LATE_COUNTED, COUNTED, LATE_DROPPED, WAITING) if s in states), WAITING
        )
        night = NightOf(
            key=f"n{day.isoformat()}", day=day, club_id=competition.club_id, state=state
        )
        nights.append(night)
        placed = [game for game in games if game.state in (COUNTED, LATE_COUNTED)]
        if placed:
            counted[night.key] = (night, placed)
    if counted:
        _placed_nights(competition.club_id, counted, players)
    return nights


def _night_key(club_id: int, players: bool, games: list[_Game]) -> str:
    """The key of a night's places: the club, teams or players, and its counted games as
    last changed."""
    made = ",".join(f"{game.game}.{game.changed}" for game in games)
    digest = hashlib.sha256(made.encode()).hexdigest()[:32]
    return f"season-night|{club_id}|{'p' if players else 't'}|{digest}"


def _placed_nights(
    club_id: int, counted: dict[str, tuple[NightOf, list[_Game]]], players: bool
) -> None:
    """Each counted night's places: kept ones read back, the others placed and kept."""
    cache = caches[NIGHTS_CACHE]
    keys = {key: _night_key(club_id, players, games) for key, (_n, games) in counted.items()}
    kept = cache.get_many(list(keys.values()))
    missing = [key for key in counted if keys[key] not in kept]
    fresh = _place_nights([counted[key] for key in missing], players) if missing else {}
    if fresh:
        for key in fresh:
            cache.set(keys[key], _kept(fresh[key]), NIGHT_TIMEOUT + _spread(keys[key]))
    known: dict[tuple, seasons.Result] = {}
    for key, (night, _games) in counted.items():
        night.results = fresh[key] if key in fresh else _unkept(kept[keys[key]], known)


def _spread(key: str) -> int:
    """Up to a week more for the night of ``key`` (the same for the same night)."""
    return int(key[-8:], 16) % NIGHT_TIMEOUT


def _kept(results: dict[int, seasons.Result]) -> list[tuple]:
    return [
        (line, r.place, r.sharing, r.points.numerator, r.points.denominator)
        for line, r in results.items()
    ]


def _unkept(rows: list[tuple], known: dict[tuple, seasons.Result]) -> dict[int, seasons.Result]:
    """Kept rows read back as results; ``known`` holds each result already read back, which
    a line of the same place, sharing and points gets too (a result is never changed; the
    1,200 results of forty nights of thirty teams are 81 different ones)."""
    results = {}
    for row in rows:
        result = known.get(row[1:])
        if result is None:
            _line, place, sharing, numerator, denominator = row
            result = known[row[1:]] = seasons.Result(
                place, sharing, Fraction(numerator, denominator)
            )
        results[row[0]] = result
    return results


def _place_nights(
    nights: list[tuple[NightOf, list[_Game]]], players: bool
) -> dict[str, dict[int, seasons.Result]]:
    """The places of ``nights``, from their games' rows (one query for them all)."""
    of_game = {game.game: game for _night, games in nights for game in games}
    rows: dict[int, list[tuple]] = defaultdict(list)
    for row in (
        GameTeam.objects.filter(game_id__in=list(of_game))
        .order_by("game_id", "position")
        .values_list(*_TEAM_ROW)
    ):
        rows[row[0]].append(row[1:])
    placed = {}
    for night, games in nights:
        results = [
            game_result(
                game.game,
                game.tables_start,
                [Member(*team[:6]) for team in rows[game.game]],
                game.scoring == Scoring.POINTS,
            )
            for game in games
        ]
        seats = [
            (game.game, team[0], team[1] or len(rows[game.game]), *team[6:10])
            for game in games
            for team in rows[game.game]
        ]
        placed[night.key] = _night_places(results, seats if players else None)
    return placed


def _night_places(
    results: list[ranking.GameResult], seats: list[tuple] | None
) -> dict[int, seasons.Result]:
    """A night's places, as a tournament of its games would have them: of its teams, or
    (given the seats) of its players."""
    teams = sorted({team for result in results for team in result.teams})
    rows = ranking.standings(teams, results)
    sharing = Counter(row.place for row in rows)
    if seats is None:
        return {row.team: seasons.Result(row.place, sharing[row.place], row.points) for row in rows}
    place_of = {row.team: row.place for row in rows}
    placed = {}
    for player, held, points in _sitters(seats, ranking.DEFAULT_POINTS):
        place = min(place_of[team] for team in held)
        placed[player] = seasons.Result(place, sharing[place], points)
    return placed


# --- the table --------------------------------------------------------------------------


def competition_table(competition: Competition) -> Table:
    """The competition's table as of now."""
    players = competition.ranks == Competition.Ranks.PLAYERS
    nights = sorted(
        _club_nights(competition, players) + _tournament_nights(competition, players),
        key=lambda night: (night.day, night.order, night.key),
    )
    counted = [night for night in nights if night.counts and night.results]
    ids = sorted({line for night in counted for line in night.results})
    names = _names(ids, players)
    order = sorted(ids, key=lambda line: (names.get(line, "").casefold(), line))
    lines = seasons.table(
        [seasons.Night(night.key, night.day, night.results, night.order) for night in counted],
        competition.rule(),
        order,
    )
    return Table(competition, nights, lines, names)


def _names(ids: list[int], players: bool) -> dict[int, str]:
    if not ids:
        return {}
    model = Player if players else Team
    return dict(model.objects.filter(pk__in=ids).order_by().values_list("pk", "name"))
