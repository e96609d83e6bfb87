"""What the harness measures: each scenario, its request, and the hand-written SQL floor.

Requests go through ``django.test.Client``, which runs the whole middleware
stack, URL resolution, the view and the template (no network or WSGI server).
Each scenario pairs with a function that fetches (or writes) the same figures
with hand-written SQL on ``connection.cursor()``: what the database needs at
least. The framework's floor is a view that returns "ok" through the same
middleware (``benchmarks/urls.py``).
"""

from __future__ import annotations

import datetime as dt
import statistics
import time
import tracemalloc
import zoneinfo
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import connection, transaction
from django.db.models import F, Func, Max
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from club.clubs import known
from club.clubs.addresses import part_of
from club.clubs.models import Club
from club.games import calls, links
from club.games import services as scoring
from club.games.models import (
    Change,
    DirectorCall,
    Game,
    GameTeam,
    LedgerEntry,
    Pile,
    Player,
    Round,
    Team,
    in_a_seat,
)
from club.leaderboards import figures, own_parts
from club.leaderboards.models import PlayerGameFigures, PlayerRating, PlayerTotals, TeamTotals
from club.leaderboards.night import MAX_SPAN_DAYS
from club.leaderboards.profile import PROFILE_GAMES
from club.leaderboards.selectors import PER_PAGE
from club.scoring import rules as core
from club.scoring import stages as charts
from club.tournaments.models import (
    Sitting,
    SittingGame,
    Stage,
    Standing,
    Tournament,
    TournamentTeam,
)

HTMX = {"HTTP_HX_REQUEST": "true"}
SEASON_TAG = "S56 Season "  # the games of generate_club's season (club/ops/synthetic_season.py)
WON = "SUM(CASE WHEN place = 1 THEN 1 ELSE 0 END)"


def table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@dataclass
class Timing:
    name: str
    what: str
    samples: list[float]
    queries: int | None = None
    status: int | None = None
    floor_sql: list[float] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def p95(self) -> float:
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]

    @property
    def sql_median(self) -> float | None:
        return statistics.median(self.floor_sql) if self.floor_sql else None


def timed(action: Callable[[], object], repeat: int, budget: float) -> list[float]:
    """Run ``action`` up to ``repeat`` times (at least 3), stopping once ``budget`` s are spent."""
    action()  # warm up: imports, template loading, connection
    samples: list[float] = []
    spent = 0.0
    while len(samples) < repeat and (len(samples) < 3 or spent < budget):
        start = time.perf_counter()
        action()
        took = time.perf_counter() - start
        samples.append(took)
        spent += took
    return samples


def consume(response) -> int:
    if response.streaming:
        return sum(len(chunk) for chunk in response.streaming_content)
    return len(response.content)


# --- The data the scenarios use ------------------------------------------------------


@dataclass
class World:
    tournament: Tournament
    game: Game  # a finished game of the tournament of typical length
    player: Player  # the player with the most games
    deals: int  # deals in the whole database
    tournament_deals: int
    organiser: Client
    public: Client
    club: Club  # the tournament's: the club whose pages are measured
    prefix: str  # its part of their addresses: "/clubs/<slug>", "" on a site of one club
    clubs: int  # clubs on the site
    slugs: list[str]  # their short names
    bench_sitting: Sitting | None = None
    # A groups stage's chart and a knockout's bracket, for their pages (removed after).
    bench_stages: list[Stage] = field(default_factory=list)
    long_game: Game | None = None
    fresh_games: list[Game] = field(default_factory=list)
    ending_games: list[Game] = field(default_factory=list)  # one deal from their end


def find_world() -> World:
    """The newest 2-team tournament without a deal limit, and its typical game; the busiest
    player of its club (of the site's, on a site of one club); that club's addresses."""
    tournament = (
        Tournament.objects.filter(deal_limit__isnull=True)
        .exclude(sittings__game_size__gt=2)
        .exclude(name__startswith="bench")
        .order_by("-id")
        .first()
    )
    if tournament is None:
        raise SystemExit("No tournament found: run manage.py generate_club first.")
    games = Game.objects.filter(
        sitting_entry__sitting__tournament=tournament, status=Game.Status.FINISHED
    )
    # A game of typical length (a 2-team game averages 32 deals), the same at every preset.
    game = (
        games.annotate(distance=Func(F("deals_played") - 32, function="ABS"))
        .order_by("distance", "id")
        .first()
    )
    counts: dict[int, int] = {}
    # The club's history: the harness's season (benchmarks/season.py) is measured apart.
    seats = GameTeam.objects.filter(game__club=tournament.club_id).exclude(
        game__label__startswith=SEASON_TAG
    )
    for first, second in seats.values_list("first_player_id", "second_player_id"):
        counts[first] = counts.get(first, 0) + 1
        counts[second] = counts.get(second, 0) + 1
    player_id = max(counts, key=lambda pk: (counts[pk], -pk))
    user, _ = get_user_model().objects.update_or_create(
        username="bench-organiser", defaults={"is_staff": True, "is_superuser": True}
    )
    organiser = Client()
    organiser.force_login(user)
    club = known.by_id(tournament.club_id)
    return World(
        tournament=tournament,
        game=game,
        player=Player.objects.get(pk=player_id),
        deals=Round.objects.count(),
        tournament_deals=Round.objects.filter(
            game__sitting_entry__sitting__tournament=tournament
        ).count(),
        organiser=organiser,
        public=Client(),
        club=club,
        prefix="/" + part_of(club).rstrip("/") if part_of(club) else "",
        clubs=Club.objects.count(),
        slugs=list(Club.objects.order_by("pk").values_list("slug", flat=True)),
    )


def _deal(seating: scoring.Seating, number: int, variant: int = 0) -> scoring.Deal:
    """Teams take turns declaring 28 and making it: the tables swing 13-11 and back, forever.

    The deal is in seats, as the services take it; the deal form names its declarer
    by player id instead: ``seating.player_id(deal.declarer)``.
    """
    seat = (number - 1) % 2
    declaring = seat  # seats 0 and 1 are the first players of teams 0 and 1
    points = {declaring: 30 + variant, 1 - declaring: 26 - variant}
    return scoring.Deal(points=points, declarer=seat, bid=28, trump="spades")


def two_teams(world: World) -> list[scoring.TeamEntry]:
    """Two of the measured tournament's teams, for the harness's own games: no player is
    added to the club."""
    entries = TournamentTeam.objects.filter(tournament=world.tournament).select_related(
        "team__first_player", "team__second_player"
    )[:2]
    return [
        scoring.TeamEntry(e.team.first_player.name, e.team.second_player.name, e.team.name)
        for e in entries
    ]


def add_bench_games(world: World, fresh: int) -> None:
    """A sitting of its own in the tournament: fresh games to record into, a 60-deal game,
    and games of one table a team, which their first deal ends (standings, figures and
    ratings follow, as on the night)."""
    tournament = world.tournament
    number = (tournament.sittings.aggregate(n=Max("number"))["n"] or 0) + 1
    sitting = Sitting.objects.create(
        tournament=tournament, number=number, status=Sitting.Status.CONFIRMED, game_size=2
    )
    world.bench_sitting = sitting
    _add_bench_stages(world, sitting)
    teams = two_teams(world)
    games = []
    for index in range(fresh + 1):
        game = scoring.create_game(
            label=f"bench {sitting.pk} game {index}",
            teams=teams,
            first_dealer=0,
            club=world.club,
        )
        SittingGame.objects.create(
            sitting=sitting, game=game, table_label=f"Bench {index}", position=index
        )
        games.append(game)
    world.long_game, world.fresh_games = games[0], games[1:]
    for index in range(fresh * 10):
        game = scoring.create_game(
            label=f"bench {sitting.pk} ending {index}",
            teams=teams,
            first_dealer=0,
            rules=core.Rules(tables_per_team=1),
            club=world.club,
        )
        SittingGame.objects.create(
            sitting=sitting, game=game, table_label=f"Ending {index}", position=fresh + 1 + index
        )
        world.ending_games.append(game)
    seating = scoring.load_seating(world.long_game)
    for number in range(1, 61):
        scoring.record_deal(game=world.long_game, number=number, entry=_deal(seating, number))


def add_bench_calls(world: World, past: int = 200) -> str:
    """The harness's sitting at the table: its clock running, three tables calling the
    director, and ``past`` calls answered hours ago that no page reads again; returns the
    scorer link of the first table calling, for its phone's part of the page."""
    assert world.bench_sitting is not None and world.long_game is not None
    now = timezone.now()
    Sitting.objects.filter(pk=world.bench_sitting.pk).update(
        minutes=45, ends_at=now + dt.timedelta(minutes=45)
    )
    calling = [world.long_game, *world.fresh_games[:2]]
    DirectorCall.objects.bulk_create(
        DirectorCall(
            game=calling[number % len(calling)],
            made_at=now - dt.timedelta(hours=3, minutes=number),
            changed_at=now - dt.timedelta(hours=3, minutes=number),
            answered_at=now - dt.timedelta(hours=3, minutes=number),
        )
        for number in range(past)
    )
    [link] = links.issue_links(game=calling[0])
    for game in calling:
        calls.call_director(game=game, link=link if game is calling[0] else None)
    return link.token


def _add_bench_stages(world: World, sitting: Sitting) -> None:
    """A chart of groups A and B (8 sittings) and a 16-team knockout whose stage holds the
    harness's sitting, so its bracket page looks among every bench game for its matches."""
    tournament = world.tournament
    entries = list(
        TournamentTeam.objects.filter(tournament=tournament)
        .order_by("id")
        .values_list("id", flat=True)
    )
    number = tournament.stages.aggregate(n=Max("number"))["n"] or 0
    group_a, group_b = charts.split_groups(entries, seeded=True)
    chart = charts.group_chart(group_a, group_b, min(8, len(group_b)))
    world.bench_stages = [
        Stage.objects.create(
            tournament=tournament,
            number=number + 1,
            kind=Stage.Kind.GROUPS,
            status=Stage.Status.CONFIRMED,
            groups={"a": group_a, "b": group_b},
            chart=[
                {"games": [list(game) for game in row.games], "byes": list(row.byes)}
                for row in chart
            ],
        ),
        Stage.objects.create(
            tournament=tournament,
            number=number + 2,
            kind=Stage.Kind.KNOCKOUT,
            status=Stage.Status.CONFIRMED,
            seeds=entries[: min(16, len(entries))],
            tie_deals=2,
        ),
    ]
    sitting.stage = world.bench_stages[1]
    sitting.save(update_fields=["stage"])


def remove_bench_games(world: World) -> None:
    if world.bench_sitting is None:
        return
    games = Game.objects.filter(sitting_entry__sitting=world.bench_sitting)
    with transaction.atomic():
        Round.objects.filter(game__in=games).delete()
        Game.objects.filter(pk__in=list(games.values_list("pk", flat=True))).delete()
        world.bench_sitting.delete()
        Stage.objects.filter(pk__in=[stage.pk for stage in world.bench_stages]).delete()


# --- Hand-written SQL: the database's floor ----------------------------------------


def fetch(sql: str, params=()) -> list:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def sql_game_page(game_id: int) -> None:
    fetch(f"SELECT * FROM {table(Game)} WHERE id = %s", [game_id])
    fetch(f"SELECT * FROM {table(GameTeam)} WHERE game_id = %s ORDER BY position", [game_id])
    fetch(f"SELECT * FROM {table(Round)} WHERE game_id = %s ORDER BY number", [game_id])
    fetch(
        f"SELECT p.round_id, p.game_team_id, p.points FROM {table(Pile)} p "
        f"JOIN {table(Round)} r ON r.id = p.round_id WHERE r.game_id = %s",
        [game_id],
    )
    fetch(
        f"SELECT l.round_id, l.game_team_id, l.change, l.balance FROM {table(LedgerEntry)} l "
        f"JOIN {table(Round)} r ON r.id = l.round_id WHERE r.game_id = %s",
        [game_id],
    )
    fetch(
        f"SELECT * FROM {table(Change)} WHERE game_id = %s ORDER BY made_at DESC, id DESC",
        [game_id],
    )


def sql_game_version(game_id: int) -> None:
    fetch(f"SELECT updated_at FROM {table(Game)} WHERE id = %s", [game_id])


def sql_standings(tournament_id: int) -> None:
    fetch(f"SELECT * FROM {table(Tournament)} WHERE id = %s", [tournament_id])
    fetch(
        f"SELECT s.*, t.name FROM {table(Standing)} s "
        f"JOIN {table(TournamentTeam)} e ON e.id = s.entry_id "
        "JOIN games_team t ON t.id = e.team_id WHERE s.tournament_id = %s ORDER BY s.place",
        [tournament_id],
    )
    fetch(
        f"SELECT sg.sitting_id, sg.table_label, g.id, g.status, g.deals_played "
        f"FROM {table(SittingGame)} sg JOIN {table(Game)} g ON g.id = sg.game_id "
        f"JOIN {table(Sitting)} st ON st.id = sg.sitting_id WHERE st.tournament_id = %s",
        [tournament_id],
    )
    fetch(
        f"SELECT gt.game_id, gt.team_id, gt.tables, gt.place FROM {table(GameTeam)} gt "
        f"JOIN {table(SittingGame)} sg ON sg.game_id = gt.game_id "
        f"JOIN {table(Sitting)} st ON st.id = sg.sitting_id WHERE st.tournament_id = %s",
        [tournament_id],
    )


def sql_tournament_version(tournament_id: int) -> None:
    fetch(f"SELECT results_version FROM {table(Tournament)} WHERE id = %s", [tournament_id])
    fetch(
        f"SELECT MAX(g.updated_at) FROM {table(Game)} g "
        f"JOIN {table(SittingGame)} sg ON sg.game_id = g.id "
        f"JOIN {table(Sitting)} st ON st.id = sg.sitting_id "
        "WHERE st.tournament_id = %s AND g.status = 'in_progress'",
        [tournament_id],
    )


BOARD_COLUMNS = (
    "t.played, t.won, t.declared, t.made, t.doubles_won, t.doubles_lost, "
    "t.redoubles_won, t.redoubles_lost, t.tables_net, t.biggest_bid"
)


def sql_leaderboard() -> None:
    # The first page of the kept totals, by rating, and how many there are.
    fetch(f"SELECT COUNT(*) FROM {table(PlayerTotals)} WHERE played > 0")
    fetch(
        f"SELECT p.id, p.name, r.rating, {BOARD_COLUMNS} FROM {table(PlayerTotals)} t "
        f"JOIN {table(Player)} p ON p.id = t.player_id "
        f"LEFT JOIN {table(PlayerRating)} r ON r.player_id = p.id WHERE t.played > 0 "
        f"ORDER BY r.rating DESC, LOWER(p.name) LIMIT {PER_PAGE}"
    )


def sql_team_board() -> None:
    fetch(f"SELECT COUNT(*) FROM {table(TeamTotals)} WHERE played > 0")
    fetch(
        f"SELECT tm.id, tm.name, t.rating, a.name, b.name, {BOARD_COLUMNS} "
        f"FROM {table(TeamTotals)} t JOIN {table(Team)} tm ON tm.id = t.team_id "
        f"JOIN {table(Player)} a ON a.id = tm.first_player_id "
        f"JOIN {table(Player)} b ON b.id = tm.second_player_id WHERE t.played > 0 "
        f"ORDER BY t.rating DESC, LOWER(tm.name) LIMIT {PER_PAGE}"
    )


def sql_tournament_board(tournament_id: int) -> None:
    sums = ", ".join(f"SUM(f.{name})" for name in figures.COUNTS)
    fetch(
        f"SELECT f.player_id, p.name, r.rating, {sums}, MAX(f.biggest_bid) "
        f"FROM {table(PlayerGameFigures)} f JOIN {table(Player)} p ON p.id = f.player_id "
        f"LEFT JOIN {table(PlayerRating)} r ON r.player_id = p.id "
        "WHERE f.tournament_id = %s GROUP BY f.player_id, p.name, r.rating "
        f"ORDER BY r.rating DESC, LOWER(p.name) LIMIT {PER_PAGE}",
        [tournament_id],
    )


NIGHT_GAMES = 4  # the busiest player's night measured: its games, the same at every preset


@contextmanager
def nights_apart(world: World):
    """Within it, the busiest player's finished games at the club are a night each, but
    the latest :data:`NIGHT_GAMES`, which are the latest night; put back after.

    ``generate_club`` starts every game on the day it runs, so its whole history is one
    night: the night measured at large would be the player's whole history, not a night."""
    games = list(
        Game.objects.filter(
            pk__in=GameTeam.objects.filter(
                in_a_seat(world.player), game__club=world.club, game__status=Game.Status.FINISHED
            ).values("game_id")
        )
        .order_by("-created_at", "-id")
        .values_list("pk", "created_at")
    )
    latest = games[0][1]
    try:
        with transaction.atomic():
            for back, (pk, _started) in enumerate(games[NIGHT_GAMES:], start=1):
                Game.objects.filter(pk=pk).update(created_at=latest - dt.timedelta(days=back))
        yield
    finally:
        with transaction.atomic():
            for pk, started in games:
                Game.objects.filter(pk=pk).update(created_at=started)
        drop_kept_pages()  # kept inside it: an update() moves no page's key


def nights_of(world: World) -> tuple[str, str]:
    """The busiest player's latest night at the club (a day in its time zone), and the first
    day of the longest span ending on it: the profile's night in review and span measured."""
    started = GameTeam.objects.filter(
        in_a_seat(world.player), game__club=world.club, game__status=Game.Status.FINISHED
    ).aggregate(latest=Max("game__created_at"))["latest"]
    night = started.astimezone(zoneinfo.ZoneInfo(world.club.time_zone)).date()
    return night.isoformat(), (night - dt.timedelta(days=MAX_SPAN_DAYS - 1)).isoformat()


def sql_profile(player_id: int) -> None:
    fetch(f"SELECT * FROM {table(Player)} WHERE id = %s", [player_id])
    fetch(f"SELECT * FROM {table(PlayerRating)} WHERE player_id = %s", [player_id])
    fetch(f"SELECT * FROM {table(PlayerTotals)} WHERE player_id = %s", [player_id])
    fetch(
        f"SELECT gt.*, g.label, g.status, g.finished_at FROM {table(GameTeam)} gt "
        f"JOIN {table(Game)} g ON g.id = gt.game_id "
        "WHERE gt.first_player_id = %s OR gt.second_player_id = %s "
        f"ORDER BY g.finished_at DESC LIMIT {PROFILE_GAMES}",
        [player_id, player_id],
    )
    fetch(
        "SELECT game_id, before, after FROM leaderboards_ratingchange WHERE player_id = %s "
        "ORDER BY position",
        [player_id],
    )


def sql_export(tournament_id: int) -> int:
    rows = 0
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT r.game_id, r.number, r.declarer_id, r.bid, r.trump, r.doubling, r.made, "
            f"p.game_team_id, p.points FROM {table(Round)} r "
            f"JOIN {table(Pile)} p ON p.round_id = r.id "
            f"JOIN {table(SittingGame)} sg ON sg.game_id = r.game_id "
            f"JOIN {table(Sitting)} st ON st.id = sg.sitting_id "
            "WHERE st.tournament_id = %s ORDER BY r.game_id, r.number",
            [tournament_id],
        )
        while batch := cursor.fetchmany(2000):
            rows += len(batch)
    return rows


class SqlWriter:
    """The writes of recording a deal and of correcting deal 1, by hand, on a game of its own."""

    def __init__(self, world: World):
        entries = list(world.tournament.entries.select_related("team")[:2])
        teams = [
            scoring.TeamEntry(e.team.first_player.name, e.team.second_player.name, e.team.name)
            for e in entries
        ]
        self.game = scoring.create_game(
            label=f"bench sql {time.time_ns()}", teams=teams, first_dealer=0, club=world.club
        )
        self.seating = scoring.load_seating(self.game)
        self.number = 0

    def record(self) -> None:
        game, teams, players = self.game, self.seating.teams, self.seating.players
        self.number += 1
        declaring = (self.number - 1) % 2
        with transaction.atomic():
            fetch(f"SELECT * FROM {table(Game)} WHERE id = %s", [game.pk])
            fetch(
                f"SELECT r.id, r.number, p.game_team_id, p.points FROM {table(Round)} r "
                f"JOIN {table(Pile)} p ON p.round_id = r.id WHERE r.game_id = %s",
                [game.pk],
            )
            with connection.cursor() as cursor:
                now = timezone.now()
                cursor.execute(
                    f"INSERT INTO {table(Round)} (game_id, number, all_pass, declarer_id, bid, "
                    "trump, doubling, dealer_id, declaring_team_id, made, recorded_at) "
                    "VALUES (%s, %s, %s, %s, 28, 'spades', 'none', %s, %s, %s, %s)",
                    [
                        game.pk,
                        self.number,
                        False,
                        players[declaring].pk,
                        players[0].pk,
                        teams[declaring].pk,
                        True,
                        now,
                    ],
                )
                round_id = fetch(
                    f"SELECT id FROM {table(Round)} WHERE game_id = %s AND number = %s",
                    [game.pk, self.number],
                )[0][0]
                for team, points in ((teams[declaring], 30), (teams[1 - declaring], 26)):
                    cursor.execute(
                        f"INSERT INTO {table(Pile)} (round_id, game_team_id, points) "
                        "VALUES (%s, %s, %s)",
                        [round_id, team.pk, points],
                    )
                    cursor.execute(
                        f"INSERT INTO {table(LedgerEntry)} (round_id, game_team_id, change, "
                        "balance) VALUES (%s, %s, %s, %s)",
                        [round_id, team.pk, 1, 12],
                    )
                    cursor.execute(
                        f"UPDATE {table(GameTeam)} SET tables = %s WHERE id = %s", [12, team.pk]
                    )
                cursor.execute(
                    f"UPDATE {table(Game)} SET deals_played = %s, updated_at = %s WHERE id = %s",
                    [self.number, now, game.pk],
                )
                cursor.execute(
                    f"INSERT INTO {table(Change)} (game_id, number, action, made_at) "
                    "VALUES (%s, %s, 'recorded', %s)",
                    [game.pk, self.number, now],
                )

    def correct_first(self) -> None:
        """Rewrite deal 1 and the whole ledger of the (60-deal) game."""
        game, teams = self.game, self.seating.teams
        with transaction.atomic():
            rounds = fetch(
                f"SELECT id, number FROM {table(Round)} WHERE game_id = %s ORDER BY number",
                [game.pk],
            )
            fetch(
                f"SELECT p.round_id, p.game_team_id, p.points FROM {table(Pile)} p "
                f"JOIN {table(Round)} r ON r.id = p.round_id WHERE r.game_id = %s",
                [game.pk],
            )
            first = rounds[0][0]
            with connection.cursor() as cursor:
                cursor.execute(f"UPDATE {table(Round)} SET bid = 28 WHERE id = %s", [first])
                cursor.execute(f"DELETE FROM {table(Pile)} WHERE round_id = %s", [first])
                cursor.executemany(
                    f"INSERT INTO {table(Pile)} (round_id, game_team_id, points) "
                    "VALUES (%s, %s, %s)",
                    [(first, teams[0].pk, 30), (first, teams[1].pk, 26)],
                )
                cursor.execute(
                    f"DELETE FROM {table(LedgerEntry)} WHERE round_id IN "
                    f"(SELECT id FROM {table(Round)} WHERE game_id = %s)",
                    [game.pk],
                )
                cursor.executemany(
                    f"INSERT INTO {table(LedgerEntry)} (round_id, game_team_id, change, balance) "
                    "VALUES (%s, %s, %s, %s)",
                    [(round_id, team.pk, 1, 12) for round_id, _ in rounds for team in teams],
                )
                cursor.execute(
                    f"UPDATE {table(Game)} SET updated_at = %s WHERE id = %s",
                    [timezone.now(), game.pk],
                )
                cursor.execute(
                    f"INSERT INTO {table(Change)} (game_id, number, action, made_at) "
                    "VALUES (%s, 1, 'edited', %s)",
                    [game.pk, timezone.now()],
                )

    def remove(self) -> None:
        Game.objects.filter(pk=self.game.pk).delete()


# --- Peak memory -------------------------------------------------------------------


def peak_memory(action: Callable[[], object]) -> int:
    """Peak bytes Python allocated while ``action`` ran (tracemalloc)."""
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def count_queries(action: Callable[[], object]) -> int:
    with CaptureQueriesContext(connection) as captured:
        action()
    return len(captured.captured_queries)


def drop_kept_pages(own: bool = True) -> None:
    """Empty the pages cache (club.web.pages), so the next public page is rendered; and,
    unless ``own`` is False, the players' own parts each process keeps
    (club.leaderboards.own_parts), as a change to their games would move them.

    Redis is emptied in the background (FLUSHDB ASYNC): Django's ``clear()`` waits
    while Redis frees every key the run has kept, which is the harness's cost, not
    the page's."""
    if own:
        own_parts.forget()
    cache = caches["pages"]
    client = getattr(cache, "_cache", None)
    if client is not None and hasattr(client, "get_client"):
        client.get_client(write=True).flushdb(asynchronous=True)
    else:
        cache.clear()
