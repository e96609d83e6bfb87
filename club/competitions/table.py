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
import zoneinfo
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from django.db.models import Max, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from club.clubs import known
from club.competitions.models import Competition
from club.games.models import PLAYER_FIELDS, Game, GameTeam, Player, Team
from club.games.words import KODI, POINTS
from club.scoring import seasons
from club.scoring import standings as ranking
from club.scoring.rules import Scoring
from club.tournaments.models import Standing, Tournament, TournamentEvent
from club.tournaments.services.standings import scheme_of

# A night's state on the table's page.
COUNTED, WAITING, LATE_COUNTED, LATE_DROPPED = "counted", "waiting", "late", "late_dropped"
SEATS = [f"{seat}_id" for seat in PLAYER_FIELDS]


@dataclass
class NightOf:
    """One night or event of the competition, as its page lists it."""

    key: str
    day: dt.date
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
        else:
            # A tournament imported final was made final here when it was imported.
            final_at = (
                finalised.get(tournament.pk, tournament.created_at) if tournament.is_final else None
            )
        due = _due(competition, day, _zone(tournament.club_id))
        nights.append(
            NightOf(
                key=f"t{tournament.pk}",
                day=tournament.starts_on,
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
    """When each tournament's results were last made final."""
    return dict(
        TournamentEvent.objects.filter(
            tournament__in=[t.pk for t in tournaments if t.is_final],
            action=TournamentEvent.Action.FINALISED,
        )
        .values("tournament_id")
        .annotate(at=Max("made_at"))
        .values_list("tournament_id", "at")
        .order_by()
    )


def _teams_in_tournaments(nights: dict[int, NightOf]) -> None:
    rows = list(
        Standing.objects.filter(tournament__in=list(nights))
        .order_by()
        .values_list("tournament_id", "entry__team_id", "place", "points")
    )
    sharing: dict[tuple[int, int], int] = defaultdict(int)
    for tournament, _team, place, _points in rows:
        sharing[tournament, place] += 1
    for tournament, team, place, points in rows:
        nights[tournament].results[team] = seasons.Result(
            place, sharing[tournament, place], Fraction(points)
        )


def _players_in_tournaments(nights: dict[int, NightOf]) -> None:
    """A player's result in each tournament: the best place of the teams they sat for, and
    the points of the games they sat at (by the tournament's points for a place)."""
    standing = {}
    sharing: dict[tuple[int, int], int] = defaultdict(int)
    for tournament, team, place in (
        Standing.objects.filter(tournament__in=list(nights))
        .order_by()
        .values_list("tournament_id", "entry__team_id", "place")
    ):
        standing[tournament, team] = place
        sharing[tournament, place] += 1
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

# A team's row at a game: game, the day the game started (in the club's time zone),
# status, tables each team started with, scoring, then the team's: team, place, tables,
# score, declared, made, and its four seats; last, with a deadline, when the game finished.
_GAME_ROW = (
    "game_id",
    "day",
    "game__status",
    "game__tables_per_team",
    "game__scoring",
    "team_id",
    "place",
    "tables",
    "score",
    "declared",
    "made",
    *SEATS,
)


@dataclass
class _Game:
    day: dt.date
    state: str
    result: ranking.GameResult | None = None
    seats: list[tuple] = field(default_factory=list)  # (team, place, seat ids...)


def _club_games(competition: Competition, club_id: int, players: bool) -> dict[int, _Game]:
    """The club's games outside tournaments started in the span, each with its day and its
    state (counted, waiting, late), and the result of each counted (its seats too, for a
    table of players).

    The day is the database's (the start in the club's time zone), and when a game
    finished is read only when there is a deadline: turning each row's two times into
    Python's took a third of the query's time for a season of 600 games."""
    zone = _zone(club_id)
    found = GameTeam.objects.filter(
        game__club_id=club_id,
        game__created_at__gte=_start_of(competition.starts_on, zone),
        game__created_at__lt=_start_of(competition.ends_on + dt.timedelta(days=1), zone),
        game__sitting_entry__isnull=True,
    )
    if competition.counts == Competition.Counts.FORM:
        found = found.filter(_form_q(competition.form, "game__"))
    deadline = competition.final_within_days is not None
    columns = (*_GAME_ROW, "game__finished_at") if deadline else _GAME_ROW
    found = found.annotate(day=TruncDate("game__created_at", tzinfo=zone))
    rows: dict[int, list[tuple]] = defaultdict(list)
    for row in found.order_by("game_id", "position").values_list(*columns):
        rows[row[0]].append(row)
    games = {}
    now = timezone.now()
    for game_id, members in rows.items():
        _id, day, status, tables_start, scoring = members[0][:5]
        final_at = None
        if status == Game.Status.FINISHED:
            # With no deadline only whether it finished counts, as for a tournament.
            final_at = members[0][-1] if deadline else now
        game = _Game(day, _state(competition, final_at, _due(competition, day, zone)))
        if game.state in (COUNTED, LATE_COUNTED):
            game.result = _game_result(game_id, tables_start, scoring, [m[5:11] for m in members])
            if players:
                game.seats = [(m[5], m[6] or len(members), *m[11:15]) for m in members]
        games[game_id] = game
    return games


def _game_result(game_id: int, tables_start: int, scoring: str, teams: list[tuple]):
    """A game's result from its teams' rows (team, place, tables, score, declared, made)."""
    count = len(teams)
    return ranking.GameResult(
        game=game_id,
        teams=tuple([team[0] for team in teams]),
        places={team[0]: team[1] or count for team in teams},
        tables_start=tables_start,
        tables_end={team[0]: team[2] for team in teams},
        declared={team[0]: team[4] for team in teams},
        made={team[0]: team[5] for team in teams},
        scores={team[0]: team[3] for team in teams} if scoring == Scoring.POINTS else None,
    )


def _club_nights(competition: Competition, players: bool) -> list[NightOf]:
    if competition.club_id is None or competition.counts == Competition.Counts.EVENTS:
        return []
    by_day: dict[dt.date, list[_Game]] = defaultdict(list)
    for game in _club_games(competition, competition.club_id, players).values():
        by_day[game.day].append(game)
    nights = []
    for day, games in sorted(by_day.items()):
        counted = [game for game in games if game.result is not None]
        states = {game.state for game in games}
        state = next(
            (s for s in (LATE_COUNTED, COUNTED, LATE_DROPPED, WAITING) if s in states), WAITING
        )
        night = NightOf(
            key=f"n{day.isoformat()}", day=day, club_id=competition.club_id, state=state
        )
        if counted:
            _place_night(night, counted, players)
        nights.append(night)
    return nights


def _place_night(night: NightOf, games: list[_Game], players: bool) -> None:
    """The night's places, as a tournament of its games would have them."""
    results = [game.result for game in games if game.result is not None]
    teams = sorted({team for result in results for team in result.teams})
    rows = ranking.standings(teams, results)
    sharing: dict[int, int] = defaultdict(int)
    for row in rows:
        sharing[row.place] += 1
    if not players:
        for row in rows:
            night.results[row.team] = seasons.Result(row.place, sharing[row.place], row.points)
        return
    place_of = {row.team: row.place for row in rows}
    seat_rows = [(game_id, *seat) for game_id, game in enumerate(games) for seat in game.seats]
    for player, held, points in _sitters(seat_rows, ranking.DEFAULT_POINTS):
        place = min(place_of[team] for team in held)
        night.results[player] = seasons.Result(place, sharing[place], points)


# --- the table --------------------------------------------------------------------------


def competition_table(competition: Competition) -> Table:
    """The competition's table as of now."""
    players = competition.ranks == Competition.Ranks.PLAYERS
    nights = sorted(
        _club_nights(competition, players) + _tournament_nights(competition, players),
        key=lambda night: (night.day, night.key),
    )
    counted = [night for night in nights if night.counts and night.results]
    ids = sorted({line for night in counted for line in night.results})
    names = _names(ids, players)
    order = sorted(ids, key=lambda line: (names.get(line, "").casefold(), line))
    lines = seasons.table(
        [seasons.Night(night.key, night.day, night.results) for night in counted],
        competition.rule(),
        order,
    )
    return Table(competition, nights, lines, names)


def _names(ids: list[int], players: bool) -> dict[int, str]:
    if not ids:
        return {}
    model = Player if players else Team
    return dict(model.objects.filter(pk__in=ids).order_by().values_list("pk", "name"))
