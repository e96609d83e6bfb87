"""Synthetic club data for benchmarks: players, teams, tournaments and their finished games.

Every deal is settled by the rules core (:func:`club.scoring.rules.settle`),
one deal after another from the game's first dealer, exactly as
:func:`club.games.services.record_deal` would settle it; only the writing is
different: the rows a service would write (rounds, piles, ledger entries,
changes, teams' tables and places, the game's result) are collected in memory
and written with ``bulk_create`` by :func:`club.games.bulk.write_games` (the
importer's writer too), one transaction per tournament. Standings are
then rebuilt per tournament by the tournament service and ratings once at the
end by the leaderboards service, so what they hold is what the app derives.

:func:`club.ops.synthetic_check.check_games` replays stored games through
:func:`club.games.services.replay_game` and compares every derived row with
what was written; :func:`generate` runs it on a sample at the end.

The draws come from :func:`club.scoring.draws.propose_draw` (random first,
Swiss after, with the standings so far), the same as ``propose_sitting``.

A site of many clubs, each played as this module plays one (:func:`play_tournament`,
:func:`play_forms`), is :mod:`club.ops.synthetic_clubs`.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta

from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from club.clubs.models import Club
from club.games import bulk
from club.games import services as scoring
from club.games.models import (
    Game,
    GameTeam,
    LedgerEntry,
    Pile,
    Player,
    Round,
    Team,
)
from club.leaderboards import figures
from club.leaderboards.services import rebuild_ratings
from club.ops.synthetic_check import check_games
from club.scoring import draws
from club.scoring import rules as core
from club.scoring import standings as ranking
from club.tournaments.models import (
    Bye,
    Sitting,
    SittingGame,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)
from club.tournaments.services import rebuild_standings

BATCH = 2000
FIRST_DAY = date(2016, 1, 9)  # the first tournament's day
TRUMPS = [trump.value for trump in core.Trump]


@dataclass(frozen=True)
class Plan:
    """How much to generate. ``four_team_every``: every n-th tournament plays 4-team games."""

    players: int
    tournaments: int
    teams: int  # registered teams per tournament
    sittings: int  # sittings per tournament
    four_team_every: int = 0
    deal_limit_every: int = 0  # every n-th tournament ends games after 30 deals
    seed: int = 56
    # games of each form of play (docs/rules.md section D) beside the tournaments
    form_games: int = 0


# Measured with play_game: a 2-team game lasts about 32 deals (21 with a limit of
# 30), a 4-team game about 30 with a limit of 60 (their unlimited games run to
# hundreds of deals, so 4-team tournaments always have a limit). large is 28
# tournaments x 24 teams x 10 sittings = about 3,200 games and 100,000 deals;
# federation 200 x 40 x 9 = about 34,000 games and 1,000,000 deals.
PRESETS = {
    "small": Plan(players=24, tournaments=1, teams=8, sittings=3, form_games=2),
    "large": Plan(
        players=600,
        tournaments=28,
        teams=24,
        sittings=10,
        four_team_every=4,
        deal_limit_every=5,
        form_games=10,
    ),
    "federation": Plan(
        players=5000,
        tournaments=200,
        teams=40,
        sittings=9,
        four_team_every=4,
        deal_limit_every=5,
        form_games=40,
    ),
}

# The forms of play the club's games beside its tournaments are played in: each a
# name, its settings and how many teams sit at its table.
FORMS_OF_PLAY = (
    ("International", core.preset_rules(core.Preset.INTERNATIONAL, 6), 2),
    ("Kodi night", replace(core.preset_rules(core.Preset.KODI, 6), deal_limit=40), 2),
    ("Thani tables", core.Rules(thani=core.Thani(6, 8)), 3),
    (
        "Four a side",
        core.Rules(
            team_size=4,
            tables_per_team=8,
            doubling_mode=core.DoublingMode.ADD,
            double_factor=1,
            redouble_factor=2,
        ),
        2,
    ),
)


@dataclass
class Report:
    players: int = 0
    teams: int = 0
    tournaments: int = 0
    games: int = 0
    deals: int = 0
    seconds: float = 0.0
    standings_seconds: float = 0.0
    figures_seconds: float = 0.0
    ratings_seconds: float = 0.0
    check_seconds: float = 0.0
    checked: int = 0


# --- Deals -------------------------------------------------------------------


def random_deal(state: core.GameState, rng: random.Random) -> core.Deal:
    """A deal that could have happened: declarer seated and in play, piles adding to 56.

    A game that plays thani has one now and then; where the first bidder must
    open, the deals everyone would have passed are bid instead.
    """
    in_play = state.teams_in_play
    if state.rules.thani is not None and rng.random() < 0.03:
        seats = [seat for seat in range(len(state.seats)) if state.in_play(state.team_of(seat))]
        return core.Deal({}, thani=rng.choice(seats), made=rng.random() < 0.5)
    if rng.random() < 0.04 and state.rules.all_pass:
        declarer = None
        bid = state.rules.min_bid
        trump: core.Trump | str = core.Trump.NO_TRUMPS
        doubling = core.Doubling.NONE
        declaring_team = state.team_of(state.first_bidder)
    else:
        seats = [seat for seat in range(len(state.seats)) if state.in_play(state.team_of(seat))]
        declarer = rng.choice(seats)
        declaring_team = state.team_of(declarer)
        # Most contracts are low; a few reach for the top bands.
        bid = min(56, 28 + int(rng.expovariate(1 / 6)))
        trump = rng.choice(TRUMPS)
        roll = rng.random()
        doubling = (
            core.Doubling.REDOUBLE
            if roll < 0.04
            else core.Doubling.DOUBLE
            if roll < 0.16
            else core.Doubling.NONE
        )
    made = rng.random() < 0.62
    own = rng.randint(bid, 56) if made else rng.randint(0, bid - 1)
    others = [team for team in in_play if team != declaring_team]
    rest = 56 - own
    cuts = sorted(rng.randint(0, rest) for _ in range(len(others) - 1))
    shares = [b - a for a, b in zip([0, *cuts], [*cuts, rest], strict=True)]
    points = {declaring_team: own, **dict(zip(others, shares, strict=True))}
    return core.Deal(points=points, declarer=declarer, bid=bid, trump=trump, doubling=doubling)


def play_game(
    team_count: int,
    first_dealer: int,
    rng: random.Random,
    deal_limit: int | None,
    rules: core.Rules = core.DEFAULT_RULES,
) -> tuple[list[core.Deal], list[core.Settlement], core.GameState]:
    """Deal random valid deals through the rules core until one team is left or the limit."""
    if deal_limit and rules.deal_limit != deal_limit:
        # The state knows its limit (GameState.limit_reached): the game is over at it,
        # as the deal services decide when they replay it.
        rules = replace(rules, deal_limit=deal_limit)
    state = core.initial_state(team_count, first_dealer, rules)
    deals, settlements = [], []
    while not state.finished and not state.limit_reached:
        deal = random_deal(state, rng)
        settlement, state = core.settle(state, deal)
        deals.append(deal)
        settlements.append(settlement)
    return deals, settlements, state


# --- Writing -------------------------------------------------------------------


@dataclass
class _PlayedGame:
    game: Game
    teams: list[GameTeam]
    entries: list[int]  # tournament-team ids in seat order
    deals: list[core.Deal]
    settlements: list[core.Settlement]
    state: core.GameState
    sitting: Sitting
    table_label: str
    position: int


def _players_and_teams(plan: Plan, rng: random.Random, say) -> tuple[list[Player], list[Team]]:
    tag = f"S{plan.seed}"
    players = Player.objects.bulk_create(
        (
            Player(name=f"{tag} Player {number:05d}", member_number=f"{tag}-{number:05d}")
            for number in range(1, plan.players + 1)
        ),
        batch_size=BATCH,
    )
    order = list(players)
    rng.shuffle(order)
    teams = Team.objects.bulk_create(
        (
            Team(name=f"{first.name} & {second.name}", first_player=first, second_player=second)
            for first, second in zip(order[0::2], order[1::2], strict=False)
        ),
        batch_size=BATCH,
    )
    say(f"{len(players)} players, {len(teams)} teams")
    return players, teams


def _ranking_order(entries, results, names) -> list[int] | None:
    if not results:
        return None
    table = ranking.standings(entries, results, ranking.DEFAULT_POINTS)
    return [row.team for row in sorted(table, key=lambda row: (row.place, names[row.team]))]


def _result_of(played: _PlayedGame) -> ranking.GameResult:
    places = core.final_places(played.state)
    declared: Counter = Counter()
    made: Counter = Counter()
    for settlement in played.settlements:
        declared[settlement.declaring_team] += 1
        made[settlement.declaring_team] += settlement.made
    ids = played.entries
    return ranking.GameResult(
        game=id(played),
        teams=tuple(ids),
        places={ids[i]: places[i] for i in range(len(ids))},
        tables_start=played.state.rules.tables_per_team,
        tables_end={ids[i]: played.state.tables[i] for i in range(len(ids))},
        declared={ids[i]: declared[i] for i in range(len(ids))},
        made={ids[i]: made[i] for i in range(len(ids))},
    )


def play_tournament(
    plan: Plan,
    number: int,
    teams: list[Team],
    rng: random.Random,
    report: Report,
    *,
    club: Club | None = None,
    first_day: date = FIRST_DAY,
    copy: bool = False,
) -> Tournament:
    """The plan's ``number``-th tournament, its sittings drawn and played, its rows written.

    ``club`` holds it (the home club when None); its first day is a week after the one
    before, from ``first_day``; ``copy``: its games go in by ``COPY`` (bulk.write_games)."""
    last = number == plan.tournaments
    tournament = _new_tournament(plan, number, last, club, first_day)
    chosen = rng.sample(teams, min(plan.teams, len(teams)))
    entries = TournamentTeam.objects.bulk_create(
        TournamentTeam(tournament=tournament, team=team) for team in chosen
    )
    events = [TournamentEvent(tournament=tournament, action=TournamentEvent.Action.CREATED)]
    events.append(TournamentEvent(tournament=tournament, action=TournamentEvent.Action.STARTED))
    played_games, byes = _play_sittings(plan, number, tournament, entries, rng, events)
    _write_games(played_games, copy=copy)
    Bye.objects.bulk_create(byes, batch_size=BATCH)
    if not last:
        events.append(
            TournamentEvent(tournament=tournament, action=TournamentEvent.Action.FINISHED)
        )
    if tournament.is_final:
        events.append(
            TournamentEvent(tournament=tournament, action=TournamentEvent.Action.FINALISED)
        )
    TournamentEvent.objects.bulk_create(events, batch_size=BATCH)
    report.games += len(played_games)
    report.deals += sum(len(p.deals) for p in played_games)
    return tournament


def _game_size(plan: Plan, number: int) -> int:
    """How many teams sit at each table of the plan's ``number``-th tournament."""
    return 4 if plan.four_team_every and number % plan.four_team_every == 0 else 2


def _new_tournament(
    plan: Plan, number: int, last: bool, club: Club | None = None, first_day: date = FIRST_DAY
) -> Tournament:
    """The tournament row: a week after the one before, the last running, all but two final."""
    deal_limit = 30 if plan.deal_limit_every and number % plan.deal_limit_every == 0 else None
    if _game_size(plan, number) == 4:
        deal_limit = 60  # four teams of 12 tables play hundreds of deals without a limit
    return Tournament.objects.create(
        **({"club": club} if club is not None else {}),
        name=f"S{plan.seed} Cup {number:03d}",
        starts_on=first_day + timedelta(days=7 * (number - 1)),
        venue="Synthetic hall",
        status=Tournament.Status.RUNNING if last else Tournament.Status.FINISHED,
        is_final=number <= plan.tournaments - 2,
        deal_limit=deal_limit,
    )


def _play_sittings(
    plan: Plan,
    number: int,
    tournament: Tournament,
    entries: list[TournamentTeam],
    rng: random.Random,
    events: list[TournamentEvent],
) -> tuple[list[_PlayedGame], list[Bye]]:
    """Each sitting drawn as ``propose_sitting`` draws it, confirmed, and its games played."""
    game_size = _game_size(plan, number)
    team_of = {entry.pk: entry.team for entry in entries}
    names = {entry.pk: entry.team.name for entry in entries}
    entry_ids = [entry.pk for entry in entries]
    history: list[list[int]] = []
    results: list[ranking.GameResult] = []
    byes_so_far: Counter = Counter()
    played_games: list[_PlayedGame] = []
    byes: list[Bye] = []
    starts_on = tournament.starts_on
    start = datetime(starts_on.year, starts_on.month, starts_on.day, 10, tzinfo=UTC)
    for sitting_number in range(1, plan.sittings + 1):
        draw = draws.propose_draw(
            entry_ids,
            ranking=_ranking_order(entry_ids, results, names),
            history=history,
            byes_so_far=byes_so_far,
            game_size=game_size,
            rng=rng,
        )
        confirmed_at = start + timedelta(minutes=45 * (sitting_number - 1))
        sitting = _confirmed_sitting(tournament, sitting_number, game_size, draw, confirmed_at)
        events.extend(_sitting_events(tournament, sitting_number))
        byes.extend(Bye(sitting=sitting, entry_id=entry) for entry in draw.byes)
        byes_so_far.update(draw.byes)
        sitting_games = _play_sitting(tournament, sitting, draw, team_of, rng, confirmed_at)
        played_games.extend(sitting_games)
        results.extend(_result_of(played) for played in sitting_games)
        history.extend(list(played.entries) for played in sitting_games)
    return played_games, byes


def _confirmed_sitting(
    tournament: Tournament,
    number: int,
    game_size: int,
    draw: draws.Draw,
    confirmed_at: datetime,
) -> Sitting:
    """The sitting of ``draw``, confirmed at ``confirmed_at``."""
    return Sitting.objects.create(
        tournament=tournament,
        number=number,
        status=Sitting.Status.CONFIRMED,
        game_size=game_size,
        proposal=[list(game) for game in draw.games],
        proposed_byes=list(draw.byes),
        confirmed_at=confirmed_at,
    )


def _sitting_events(tournament: Tournament, number: int) -> list[TournamentEvent]:
    """The tournament's history of a sitting: drawn, then confirmed."""
    return [
        TournamentEvent(tournament=tournament, action=action, sitting_number=number)
        for action in (TournamentEvent.Action.DRAWN, TournamentEvent.Action.CONFIRMED)
    ]


def _play_sitting(
    tournament: Tournament,
    sitting: Sitting,
    draw: draws.Draw,
    team_of: dict[int, Team],
    rng: random.Random,
    confirmed_at: datetime,
) -> list[_PlayedGame]:
    """Each table of the sitting played to its end, its games finishing in the sitting's time."""
    played_games = []
    labels = draws.table_labels(len(draw.games))
    for position, (game_entries, label) in enumerate(zip(draw.games, labels, strict=True)):
        team_count = len(game_entries)
        first_dealer = rng.randrange(team_count * 2)
        deals, settlements, state = play_game(team_count, first_dealer, rng, tournament.deal_limit)
        finished_at = confirmed_at + timedelta(minutes=5 + 2 * len(deals), seconds=position)
        game = Game(
            club_id=tournament.club_id,
            label=f"{tournament.name} · sitting {sitting.number} · {label}",
            first_dealer_seat=first_dealer,
            deal_limit=tournament.deal_limit,
            results_locked=tournament.is_final,
            finished_at=finished_at,
        )
        game_teams = _game_teams(game, game_entries, team_of)
        played_games.append(
            _PlayedGame(
                game,
                game_teams,
                list(game_entries),
                deals,
                settlements,
                state,
                sitting,
                label,
                position,
            )
        )
    return played_games


def _game_teams(game: Game, game_entries, team_of: dict[int, Team]) -> list[GameTeam]:
    """The game's teams, seated in the draw's order, each with today's tables to start."""
    return [
        GameTeam(
            game=game,
            team=team_of[entry],
            position=index,
            first_player=team_of[entry].first_player,
            second_player=team_of[entry].second_player,
            tables=core.DEFAULT_RULES.tables_per_team,
        )
        for index, entry in enumerate(game_entries)
    ]


def _write_games(played_games: list[_PlayedGame], *, copy: bool = False) -> None:
    """Write games and every row the deal services derive from their deals.

    The rows are those of :func:`club.games.bulk.write_games`, the importer's
    writer too (``copy``: by ``COPY``, on PostgreSQL); then each game joins its sitting.
    """
    bulk.write_games(
        [
            bulk.PlayedGame(
                game=played.game,
                seating=scoring.Seating(played.teams),
                settlements=played.settlements,
                state=played.state,
                finished_at=played.game.finished_at,
            )
            for played in played_games
        ],
        copy=copy,
    )
    entries = [
        SittingGame(sitting=p.sitting, game=p.game, table_label=p.table_label, position=p.position)
        for p in played_games
    ]
    if copy and bulk.can_copy():
        bulk.copy_objects(SittingGame, entries)
    else:
        SittingGame.objects.bulk_create(entries, batch_size=BATCH)


def _team_entry(players: list[Player]) -> scoring.TeamEntry:
    """A team of no name for ``players`` (two, three or four), in seat order."""
    first, second, third, fourth = [player.name for player in players] + [""] * (4 - len(players))
    return scoring.TeamEntry(first, second, third=third, fourth=fourth)


def play_forms(
    plan: Plan,
    players: list[Player],
    rng: random.Random,
    report: Report,
    *,
    club: Club | None = None,
    copy: bool = False,
) -> None:
    """``plan.form_games`` games of each form of play, started by the services, dealt in bulk
    (``club`` plays them, the home club when None; ``copy``: as :func:`_write_games`)."""
    tag = f"S{plan.seed}"
    played_games = []
    for form, rules, team_count in FORMS_OF_PLAY:
        for number in range(1, plan.form_games + 1):
            seated = rng.sample(players, team_count * rules.team_size)
            teams = [
                _team_entry(seated[at : at + rules.team_size])
                for at in range(0, len(seated), rules.team_size)
            ]
            game = scoring.create_game(
                label=f"{tag} {form} {number:03d}",
                teams=teams,
                first_dealer=rng.randrange(len(seated)),
                rules=rules,
                club=club,
            )
            seating = scoring.load_seating(game)
            _deals, settlements, state = play_game(
                team_count, game.first_dealer_seat, rng, rules.deal_limit, rules
            )
            played_games.append(
                bulk.PlayedGame(
                    game=game,
                    seating=seating,
                    settlements=settlements,
                    state=state,
                    finished_at=timezone.now(),
                )
            )
            report.games += 1
            report.deals += len(settlements)
    bulk.write_games(played_games, copy=copy)


def generate(plan: Plan, *, say: Callable[[str], None] = print, check: int = 20) -> Report:
    """Write the plan's club into the database; returns counts and timings."""
    report = Report()
    started = time.perf_counter()
    _skip_waiting_for_the_disk()
    rng = random.Random(plan.seed)
    with transaction.atomic():
        players, teams = _players_and_teams(plan, rng, say)
    report.players, report.teams = len(players), len(teams)
    _tournaments(plan, teams, rng, report, say, started)
    if plan.form_games:
        with transaction.atomic():
            play_forms(plan, players, rng, report)
        say(f"{plan.form_games} games of each of {len(FORMS_OF_PLAY)} forms of play")
    rebuild_boards(report, say)
    if check:
        check_sample(plan.seed, check, report, say)
    report.seconds = time.perf_counter() - started
    return report


def _skip_waiting_for_the_disk() -> None:
    """On SQLite, outside a transaction: commit without waiting for the disk."""
    if connection.vendor == "sqlite" and not connection.in_atomic_block:
        # Regenerable data: skip waiting for each commit to reach the disk (this
        # connection only; the app's own connections keep SQLite's default).
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA synchronous=OFF")


def _tournaments(
    plan: Plan,
    teams: list[Team],
    rng: random.Random,
    report: Report,
    say: Callable[[str], None],
    started: float,
) -> None:
    """The plan's tournaments, one transaction each, their standings rebuilt as they end."""
    for number in range(1, plan.tournaments + 1):
        with transaction.atomic():
            tournament = play_tournament(plan, number, teams, rng, report)
            tick = time.perf_counter()
            rebuild_standings(tournament)
            report.standings_seconds += time.perf_counter() - tick
        report.tournaments += 1
        if number == plan.tournaments or number % max(1, plan.tournaments // 20) == 0:
            say(
                f"tournament {number}/{plan.tournaments}: {report.games} games, "
                f"{report.deals} deals, {time.perf_counter() - started:.1f} s"
            )


def rebuild_boards(report: Report, say: Callable[[str], None]) -> None:
    """The leaderboards' figures and the ratings, derived from every game written."""
    tick = time.perf_counter()
    with transaction.atomic():
        figures.rebuild_all()
    report.figures_seconds = time.perf_counter() - tick
    say(f"leaderboard figures rebuilt in {report.figures_seconds:.1f} s")
    tick = time.perf_counter()
    rated = rebuild_ratings()
    report.ratings_seconds = time.perf_counter() - tick
    say(f"ratings rebuilt from {rated} games in {report.ratings_seconds:.1f} s")
    if connection.vendor == "postgresql":
        # A live server's autovacuum gathers the planner's statistics as tables
        # grow; after a bulk load they are missing until it gets round to it,
        # and without them PostgreSQL scans whole tables for one game's rows.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def check_sample(seed: int, check: int, report: Report, say: Callable[[str], None]) -> None:
    """Replay ``check`` games sampled from the tournaments of seed ``seed``, and as many of
    the forms of play."""
    tick = time.perf_counter()
    game_ids = list(
        Game.objects.filter(sitting_entry__sitting__tournament__name__startswith=f"S{seed} ")
        .order_by("id")
        .values_list("id", flat=True)
    )
    sample = random.Random(seed + 1).sample(game_ids, min(check, len(game_ids)))
    sample += Game.objects.filter(label__startswith=f"S{seed} ", sitting_entry=None)[
        :check
    ].values_list("id", flat=True)  # the games of every form of play
    report.checked = check_games(sample)
    report.check_seconds = time.perf_counter() - tick
    say(f"replayed {report.checked} sampled games: all match ({report.check_seconds:.1f} s)")


def ledger_sums(prefix: str) -> dict[str, int]:
    """Totals that a deterministic run reproduces (used by the tests)."""
    games = Game.objects.filter(label__startswith=prefix)
    return {
        "games": games.count(),
        "deals": Round.objects.filter(game__in=games).count(),
        "piles": Pile.objects.filter(round__game__in=games).aggregate(s=Sum("points"))["s"] or 0,
        "balance": LedgerEntry.objects.filter(round__game__in=games).aggregate(s=Sum("balance"))[
            "s"
        ]
        or 0,
        "bids": Round.objects.filter(game__in=games).aggregate(s=Sum("bid"))["s"] or 0,
    }
