"""A synthetic season of club nights for the benchmarks: a club's weekly nights, each team
at one table a night, and the competition that counts them (docs/rules.md section F).

``generate_club --preset season`` adds it to the club a database already holds (the home
club), on top of whatever history the club has: the ``small``, ``large`` or
``federation`` preset run first gives the same season over a history of 12, 3,000 or
31,500 games, which is how the table is shown flat with the club's history
(docs/performance.md, "A season's table").

The preset's season: 40 nights, a week apart in 2025 (a span no preset's tournaments or
other games reach: their tournaments are weekly from 2016, their other games are played
on the day they are generated), 30 teams of the season's own 60 players, drawn at random
into 15 two-team games a night. Every deal is settled by the rules core, one after
another, as :mod:`club.ops.synthetic` plays a tournament's games, and the games go in with
:func:`club.games.bulk.write_games` (``COPY`` on PostgreSQL); each game is then given the
evening it was played (its start, and its end after two minutes a deal). The competition
counts all the club's games and tournaments of 2025, ranks teams by the points of the
F1 table for a place, and counts each team's best 30 of 40 nights, 5 to be ranked. The
leaderboards' figures and ratings are then derived again over every game, and a sample
of the season's games is replayed through the deal services and compared with what was
stored, as for the rest of the club.
"""

from __future__ import annotations

import datetime as dt
import random
import time
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction

from club.clubs import known
from club.clubs.models import Club
from club.competitions.models import Competition
from club.competitions.services import Terms, save_competition
from club.games import bulk
from club.games import services as scoring
from club.games.models import Game, GameTeam, Player, Team
from club.ops import synthetic
from club.ops.synthetic_check import check_games
from club.scoring import rules as core
from club.scoring import seasons

BATCH = synthetic.BATCH


@dataclass(frozen=True)
class SeasonPlan:
    """How big a season: ``nights`` a week apart from ``first_night``, ``teams`` teams (an
    even number: every team sits at a table every night), the best ``best`` nights of each
    team counted and ``minimum`` to be ranked."""

    nights: int = 40
    teams: int = 30
    best: int = 30
    minimum: int = 5
    first_night: dt.date = dt.date(2025, 1, 7)
    seed: int = 56

    @property
    def name(self) -> str:
        return f"S{self.seed} Season {self.first_night.year}"

    @property
    def tag(self) -> str:
        return f"S{self.seed} Season"


SEASON_PRESETS = {"season": SeasonPlan()}


@dataclass
class SeasonReport(synthetic.Report):
    nights: int = 0
    write_seconds: float = 0.0
    competition: int = 0


def _teams(plan: SeasonPlan) -> list[Team]:
    """The season's own players, and their teams of two."""
    players = Player.objects.bulk_create(
        (
            Player(
                name=f"{plan.tag} Player {number:03d}", member_number=f"S{plan.seed}-S{number:03d}"
            )
            for number in range(1, 2 * plan.teams + 1)
        ),
        batch_size=BATCH,
    )
    return Team.objects.bulk_create(
        (
            Team(name=f"{first.name} & {second.name}", first_player=first, second_player=second)
            for first, second in zip(players[0::2], players[1::2], strict=True)
        ),
        batch_size=BATCH,
    )


def _evening(day: dt.date, zone: zoneinfo.ZoneInfo) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(19), tzinfo=zone)


def _night(
    plan: SeasonPlan, number: int, club: Club, teams: list[Team], rng: random.Random
) -> list[bulk.PlayedGame]:
    """Night ``number``'s games: the teams drawn in pairs, each game played to its end."""
    zone = zoneinfo.ZoneInfo(club.time_zone)
    start = _evening(plan.first_night + dt.timedelta(weeks=number - 1), zone)
    drawn = rng.sample(teams, len(teams))
    played = []
    for table, at in enumerate(range(0, len(drawn) - 1, 2), start=1):
        first_dealer = rng.randrange(4)
        _deals, settlements, state = synthetic.play_game(2, first_dealer, rng, None)
        game = Game(
            club=club,
            label=f"{plan.tag} night {number:02d} · table {table:02d}",
            first_dealer_seat=first_dealer,
        )
        seats = [
            GameTeam(
                game=game,
                team=team,
                position=position,
                first_player=team.first_player,
                second_player=team.second_player,
                tables=core.DEFAULT_RULES.tables_per_team,
            )
            for position, team in enumerate(drawn[at : at + 2])
        ]
        finished_at = start + dt.timedelta(minutes=2 * len(settlements), seconds=table)
        played.append(
            bulk.PlayedGame(
                game=game,
                seating=scoring.Seating(seats),
                settlements=settlements,
                state=state,
                finished_at=finished_at,
            )
        )
    return played


def _started_on_their_nights(nights: dict[dt.datetime, list[int]]) -> None:
    """Each game started the evening of its night (a new row is stamped as it is written)."""
    for start, games in nights.items():
        Game.objects.filter(pk__in=games).update(created_at=start)


def _competition(plan: SeasonPlan, club: Club) -> Competition:
    last = plan.first_night + dt.timedelta(weeks=plan.nights - 1)
    return save_competition(
        club=club,
        terms=Terms(
            name=plan.name,
            starts_on=dt.date(plan.first_night.year, 1, 1),
            ends_on=max(last, dt.date(plan.first_night.year, 12, 31)),
            counts=Competition.Counts.ALL,
            ranks=Competition.Ranks.TEAMS,
            method=seasons.PLACES,
            place_points=seasons.PRESETS["f1"],
            best=plan.best,
            minimum=plan.minimum,
        ),
    )


def play_season(
    plan: SeasonPlan, report: SeasonReport, *, club: Club | None = None, copy: bool = True
) -> Competition:
    """Write the season's players, teams, nights and competition into ``club`` (the home
    club when None), in the caller's transaction."""
    club = club or known.home()
    rng = random.Random(plan.seed * 1_000 + plan.nights)
    teams = _teams(plan)
    report.players, report.teams = 2 * len(teams), len(teams)
    played: list[bulk.PlayedGame] = []
    nights: dict[dt.datetime, list[bulk.PlayedGame]] = {}
    zone = zoneinfo.ZoneInfo(club.time_zone)
    for number in range(1, plan.nights + 1):
        games = _night(plan, number, club, teams, rng)
        nights[_evening(plan.first_night + dt.timedelta(weeks=number - 1), zone)] = games
        played.extend(games)
    tick = time.perf_counter()
    bulk.write_games(played, copy=copy)
    report.write_seconds = time.perf_counter() - tick
    _started_on_their_nights(
        {start: [game.game.pk for game in games] for start, games in nights.items()}
    )
    report.nights = len(nights)
    report.games = len(played)
    report.deals = sum(len(game.settlements) for game in played)
    return _competition(plan, club)


def add_season(
    plan: SeasonPlan, *, say: Callable[[str], None] = print, check: int = 20
) -> SeasonReport:
    """Add the plan's season to the home club, then derive the boards again over every game
    and replay ``check`` of the season's games."""
    report = SeasonReport()
    started = time.perf_counter()
    with transaction.atomic():
        competition = play_season(plan, report)
    report.competition = competition.pk
    say(
        f"{report.nights} nights of {report.teams} teams: {report.games} games, "
        f"{report.deals} deals (written in {report.write_seconds:.1f} s); "
        f"“{competition.name}” counts them"
    )
    synthetic.rebuild_boards(report, say)
    if check:
        tick = time.perf_counter()
        games = list(
            Game.objects.filter(label__startswith=f"{plan.tag} night ")
            .order_by("id")
            .values_list("id", flat=True)
        )
        sample = random.Random(plan.seed + 1).sample(games, min(check, len(games)))
        report.checked = check_games(sample)
        report.check_seconds = time.perf_counter() - tick
        say(f"replayed {report.checked} sampled games: all match ({report.check_seconds:.1f} s)")
    report.seconds = time.perf_counter() - started
    return report
