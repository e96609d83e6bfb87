"""A synthetic site of many clubs: the federation's scale, for the benchmarks.

:func:`generate_site` writes clubs (named, with their short names and organisers), the
site's players, each a member of one club and some of two or three (a guest plays in
the clubs they joined), each club's teams of its own members, and per club the
tournaments and games of :mod:`club.ops.synthetic`'s one club: sittings drawn by the
app's draw, every deal settled by the rules core one after another, and one game of
each form of play. The ``clubs`` preset is the federation the site is sized for: 200
clubs, 20,000 players and about two million deals.

How it is fast enough (the target: ten minutes on two cores for two million deals;
docs/performance.md has the figures):

- on PostgreSQL every game, team at a game and deal's row goes in by ``COPY``
  (``bulk.write_games(copy=True)``), keys drawn from the sequences first;
- the deals' tables' foreign keys, unique constraints and indexes are set aside for the
  load and made again over the whole table at its end (:mod:`club.ops.synthetic_load`);
- the clubs are shared between worker processes (``workers``, each with a connection of
  its own: a club's rows name nothing of another club's), each club one transaction;
- the leaderboards' figures and the ratings are derived once at the end, over every
  club, as the leaderboards service derives them.

Each club's games come from a random generator seeded by the seed and the club's
number, so a club is the same whichever worker plays it. On SQLite (no ``COPY``, one
writer at a time) it runs in one process with the importer's plain inserts.

At the end, as for one club, sampled games are replayed through the deal services and
compared with what was stored (:func:`club.ops.synthetic.check_sample`).
"""

from __future__ import annotations

import gc
import multiprocessing
import queue
import random
import resource
import time
import traceback
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection, connections, transaction
from django.utils.text import slugify

from club.clubs import known
from club.clubs.models import Club
from club.games import versions
from club.games.models import Membership, Player, Team
from club.leaderboards import figures
from club.leaderboards.services import rebuild_ratings
from club.ops import synthetic, synthetic_load
from club.tournaments.services import rebuild_standings
from club.web import writes

BATCH = synthetic.BATCH

# Club names: a town and a kind of club (25 x 8 = 200 before a number is needed).
TOWNS = (
    "Aluva",
    "Kochi",
    "Thrissur",
    "Kollam",
    "Kannur",
    "Palakkad",
    "Kottayam",
    "Alappuzha",
    "Kozhikode",
    "Malappuram",
    "Pathanamthitta",
    "Idukki",
    "Wayanad",
    "Kasaragod",
    "Mumbai",
    "Pune",
    "Chennai",
    "Dubai",
    "Doha",
    "Muscat",
    "Athens",
    "Copenhagen",
    "Bangkok",
    "Madrid",
    "London",
)
KINDS = (
    "Card Club",
    "56 Circle",
    "Friends",
    "Recreation Club",
    "Arts Club",
    "Social Club",
    "Players",
    "League",
)


@dataclass(frozen=True)
class SitePlan:
    """How much to generate: ``clubs``, the site's ``players``, and per club
    ``tournaments`` of ``teams`` registered teams and ``sittings`` sittings (every
    ``four_team_every``-th plays 4-team games, every ``deal_limit_every``-th ends its
    games after 30 deals) and ``form_games`` games of each form of play. A share
    ``guests`` of the players join one or two clubs besides their own."""

    clubs: int
    players: int
    tournaments: int
    teams: int
    sittings: int
    four_team_every: int = 4
    deal_limit_every: int = 5
    form_games: int = 1
    guests: float = 0.25
    organisers: int = 2
    seed: int = 56

    def club_plan(self) -> synthetic.Plan:
        """One club's share, as :mod:`club.ops.synthetic` plays a club."""
        return synthetic.Plan(
            players=self.players // max(1, self.clubs),
            tournaments=self.tournaments,
            teams=self.teams,
            sittings=self.sittings,
            four_team_every=self.four_team_every,
            deal_limit_every=self.deal_limit_every,
            seed=self.seed,
            form_games=self.form_games,
        )


# A 2-team game lasts about 32 deals (21 with a limit of 30), a 4-team game about 30:
# a club's six tournaments of 16 teams and 7 sittings are about 310 games and 10,000
# deals, and 200 clubs about 62,000 games and two million deals.
SITE_PRESETS = {
    "clubs": SitePlan(clubs=200, players=20_000, tournaments=6, teams=16, sittings=7),
}


@dataclass
class SiteReport(synthetic.Report):
    clubs: int = 0
    memberships: int = 0
    write_seconds: float = 0.0
    constraints_seconds: float = 0.0
    peak_rss_mb: float = 0.0  # the generator's own process
    workers_peak_rss_mb: float = 0.0  # the largest of its workers


# --- The clubs and their people ------------------------------------------------------


def club_names(plan: SitePlan) -> list[tuple[str, str]]:
    """Each club's name and short name: a town and a kind of club, marked with the seed."""
    names = []
    for index in range(plan.clubs):
        town = TOWNS[index % len(TOWNS)]
        kind = KINDS[(index // len(TOWNS)) % len(KINDS)]
        round_ = index // (len(TOWNS) * len(KINDS))
        name = f"{town} {kind}" + (f" {round_ + 1}" if round_ else "")
        names.append((f"S{plan.seed} {name}", f"s{plan.seed}-{slugify(name)}"[:40].strip("-")))
    return names


def _clubs(plan: SitePlan) -> list[Club]:
    """The clubs, each with ``plan.organisers`` organisers (accounts with no password: the
    benchmarks log in as an administrator of their own)."""
    clubs = Club.objects.bulk_create(
        [Club(name=name, slug=slug) for name, slug in club_names(plan)], batch_size=BATCH
    )
    users = get_user_model()
    organisers = users.objects.bulk_create(
        [
            users(username=f"{club.slug}-organiser-{number}", password=make_password(None))
            for club in clubs
            for number in range(1, plan.organisers + 1)
        ],
        batch_size=BATCH,
    )
    through = Club.organisers.through
    through.objects.bulk_create(
        [
            through(club=club, user=user)
            for club, user in zip(
                [club for club in clubs for _ in range(plan.organisers)], organisers, strict=True
            )
        ],
        batch_size=BATCH,
    )
    known.forget()  # bulk_create sends no signal: this process reads the clubs again
    return clubs


def _players(plan: SitePlan) -> list[Player]:
    tag = f"S{plan.seed}"
    return Player.objects.bulk_create(
        (
            Player(name=f"{tag} Player {number:05d}", member_number=f"{tag}-{number:05d}")
            for number in range(1, plan.players + 1)
        ),
        batch_size=BATCH,
    )


def _members(
    plan: SitePlan, clubs: list[Club], players: list[Player], rng: random.Random
) -> dict[int, list[Player]]:
    """Each player joins one club in turn; a share ``plan.guests`` of them one or two
    clubs more. Returns each club's members, by club id, in the order they joined."""
    members: dict[int, list[Player]] = defaultdict(list)
    for number, player in enumerate(players):
        members[clubs[number % len(clubs)].pk].append(player)
    if len(clubs) > 1:
        for number in sorted(rng.sample(range(len(players)), int(plan.guests * len(players)))):
            more = min(rng.choice((1, 2)), len(clubs) - 1)
            for step in rng.sample(range(1, len(clubs)), more):
                members[clubs[(number + step) % len(clubs)].pk].append(players[number])
    Membership.objects.bulk_create(
        (
            Membership(club_id=club_id, player=player)
            for club_id, people in members.items()
            for player in people
        ),
        batch_size=BATCH,
    )
    return members


def _teams(members: dict[int, list[Player]], rng: random.Random) -> dict[int, list[Team]]:
    """Each club's teams: its members paired at random, by club id."""
    teams: dict[int, list[Team]] = {}
    for club_id, people in members.items():
        order = list(people)
        rng.shuffle(order)
        teams[club_id] = [
            Team(name=f"{first.name} & {second.name}", first_player=first, second_player=second)
            for first, second in zip(order[0::2], order[1::2], strict=False)
        ]
    Team.objects.bulk_create(
        [team for club_teams in teams.values() for team in club_teams], batch_size=BATCH
    )
    return teams


# --- Each club's tournaments and games -----------------------------------------------


def _club_games(
    plan: SitePlan,
    index: int,
    club: Club,
    teams: list[Team],
    members: list[Player],
    report: synthetic.Report,
) -> None:
    """The ``index``-th club's tournaments and games of each form of play, one
    transaction; its standings rebuilt as each tournament ends."""
    rng = random.Random(plan.seed * 1_000_003 + index)
    club_plan = plan.club_plan()
    # The clubs' seasons start a day apart: the rating order mixes their games.
    first_day = synthetic.FIRST_DAY + timedelta(days=index)
    copy = synthetic.bulk.can_copy()
    # The writes are the club's (club.web.writes), and move its token for kept pages
    # once, at the end (club.games.versions): a worker writing another club never
    # waits for this one's row, nor this one for the others'.
    with writes.writes_of(club.pk), transaction.atomic(), versions.names_moved_once():
        for number in range(1, plan.tournaments + 1):
            tournament = synthetic.play_tournament(
                club_plan, number, teams, rng, report, club=club, first_day=first_day, copy=copy
            )
            tick = time.perf_counter()
            rebuild_standings(tournament)
            report.standings_seconds += time.perf_counter() - tick
            report.tournaments += 1
        if plan.form_games:
            synthetic.play_forms(club_plan, members, rng, report, club=club, copy=copy)


@dataclass(frozen=True)
class _Job:
    """What a worker plays: clubs by their place in the plan, with their teams and members."""

    clubs: list[tuple[int, Club]]
    teams: dict[int, list[Team]]
    members: dict[int, list[Player]]


def _fast_commits() -> None:
    """Regenerable data: a commit need not wait for the disk (this connection only)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET synchronous_commit = off")
        elif not connection.in_atomic_block:
            cursor.execute("PRAGMA synchronous=OFF")


def _work(plan: SitePlan, job: _Job, answers) -> None:
    """A worker process: play its clubs, telling ``answers`` after each (counts), then
    done, or the failure's traceback."""
    # What the worker was forked with (every club's players and teams) stays as it is: the
    # collector need not walk it again each time the deals' rows fill and empty the heap.
    gc.freeze()
    try:
        _fast_commits()
        for index, club in job.clubs:
            part = synthetic.Report()
            _club_games(plan, index, club, job.teams[club.pk], job.members[club.pk], part)
            answers.put(
                ("club", (part.tournaments, part.games, part.deals, part.standings_seconds))
            )
        answers.put(("done", _peak_rss_mb()))
    except BaseException:  # told to the generator, which stops the others and says why
        answers.put(("failed", traceback.format_exc()))
    finally:
        connections.close_all()


def _counts(part: synthetic.Report) -> tuple[int, int, int, float]:
    """A club's counts, as a worker tells them: tournaments, games, deals, standings' time."""
    return (part.tournaments, part.games, part.deals, part.standings_seconds)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _play_clubs(
    plan: SitePlan,
    job: _Job,
    workers: int,
    report: SiteReport,
    say: Callable[[str], None],
    started: float,
) -> None:
    """Every club's games: in ``workers`` processes on PostgreSQL (outside a transaction),
    else one club after another in this one."""
    done = [0]

    def tell(counts: tuple[int, int, int, float]) -> None:
        tournaments, games, deals, standings = counts
        report.tournaments += tournaments
        report.games += games
        report.deals += deals
        report.standings_seconds += standings
        done[0] += 1
        if done[0] == plan.clubs or done[0] % max(1, plan.clubs // 20) == 0:
            say(
                f"club {done[0]}/{plan.clubs}: {report.games} games, {report.deals} deals, "
                f"{time.perf_counter() - started:.1f} s"
            )

    if workers <= 1 or not synthetic.bulk.can_copy() or connection.in_atomic_block:
        for index, club in job.clubs:
            part = synthetic.Report()
            _club_games(plan, index, club, job.teams[club.pk], job.members[club.pk], part)
            tell(_counts(part))
        return
    _in_workers(plan, job, workers, report, tell)


def _in_workers(
    plan: SitePlan,
    job: _Job,
    workers: int,
    report: SiteReport,
    tell: Callable[[tuple[int, int, int, float]], None],
) -> None:
    """Share the clubs between ``workers`` forked processes, each with a connection of its
    own; wait for all, telling each club's counts as they come."""
    forked = _Forked()
    for number in range(workers):
        forked.start(_work, plan, _Job(job.clubs[number::workers], job.teams, job.members))
    for kind, payload in forked.answers():
        if kind == "club":
            tell(payload)
        else:
            report.workers_peak_rss_mb = max(report.workers_peak_rss_mb, payload)


class _Forked:
    """Processes forked from this one, each with a connection of its own, answering on one
    queue: ``("done", payload)`` once at its end, any other word before, or ``("failed",
    traceback)``, which stops the others."""

    def __init__(self) -> None:
        connections.close_all()  # a child opens its own; none shares this one's socket
        self.context = multiprocessing.get_context("fork")
        self.queue = self.context.Queue()
        self.processes: list = []

    def start(self, target: Callable, *args) -> None:
        process = self.context.Process(target=target, args=(*args, self.queue), daemon=True)
        process.start()
        self.processes.append(process)

    def answers(self) -> Iterator[tuple[str, Any]]:
        """Every answer until each process said it is done; raises at a failure."""
        done = 0
        try:
            while done < len(self.processes):
                try:
                    kind, payload = self.queue.get(timeout=5)
                except queue.Empty:
                    lost = [p.pid for p in self.processes if p.exitcode not in (None, 0)]
                    if lost:
                        raise RuntimeError(f"processes {lost} stopped without a word") from None
                    continue
                if kind == "failed":
                    raise RuntimeError(f"a worker process failed:\n{payload}")
                done += kind == "done"
                yield kind, payload
        finally:
            for process in self.processes:
                if process.is_alive() and done < len(self.processes):
                    process.terminate()
                process.join()


def _rate(answers) -> None:
    """A process of its own: every rating from scratch (the leaderboards service)."""
    try:
        tick = time.perf_counter()
        rated = rebuild_ratings()
        answers.put(("done", (rated, time.perf_counter() - tick, _peak_rss_mb())))
    except BaseException:  # told to the generator, which says why
        answers.put(("failed", traceback.format_exc()))
    finally:
        connections.close_all()


def _rebuild_boards(report: SiteReport, workers: int, say: Callable[[str], None]) -> None:
    """The leaderboards' figures and the ratings, derived from every game written as the
    leaderboards derive them: at once, the ratings in a process of their own, on
    PostgreSQL with workers (outside a transaction); else one after the other.

    Neither reads what the other writes but the teams' ratings, which both rate again
    from the finished games at their end: the figures' rebuild makes the teams' totals
    anew and rates them; the ratings' finds them as the last commit left them (none yet,
    or rated already: the same numbers), so the end is the same either way."""
    if workers <= 1 or connection.vendor != "postgresql" or connection.in_atomic_block:
        synthetic.rebuild_boards(report, say)
        return
    forked = _Forked()
    forked.start(_rate)
    tick = time.perf_counter()
    with transaction.atomic():
        figures.rebuild_all()
    report.figures_seconds = time.perf_counter() - tick
    say(f"leaderboard figures rebuilt in {report.figures_seconds:.1f} s")
    for _kind, (rated, seconds, peak) in forked.answers():
        report.ratings_seconds = seconds
        report.workers_peak_rss_mb = max(report.workers_peak_rss_mb, peak)
        say(f"ratings rebuilt from {rated} games in {seconds:.1f} s, beside the figures")
    _analyze()


# --- The whole site ---------------------------------------------------------------------


def generate_site(
    plan: SitePlan, *, say: Callable[[str], None] = print, check: int = 20, workers: int = 2
) -> SiteReport:
    """Write the plan's clubs, players and games into the database; returns counts and
    timings. ``workers``: processes that write the clubs' games (PostgreSQL)."""
    report = SiteReport()
    started = time.perf_counter()
    _fast_commits()
    rng = random.Random(plan.seed)
    with transaction.atomic():
        clubs = _clubs(plan)
        players = _players(plan)
        members = _members(plan, clubs, players, rng)
        teams = _teams(members, rng)
    report.clubs, report.players = len(clubs), len(players)
    report.memberships = sum(len(people) for people in members.values())
    report.teams = sum(len(club_teams) for club_teams in teams.values())
    say(
        f"{report.clubs} clubs, {report.players} players ({report.memberships} memberships), "
        f"{report.teams} teams, {time.perf_counter() - started:.1f} s"
    )
    job = _Job(list(enumerate(clubs)), teams, members)
    tick = time.perf_counter()
    with synthetic_load.set_aside(say):
        _play_clubs(plan, job, workers, report, say, started)
        report.write_seconds = time.perf_counter() - tick
        tick = time.perf_counter()
    _fast_commits()  # a worker's end closed this process's connection too
    report.constraints_seconds = time.perf_counter() - tick
    _analyze()
    _rebuild_boards(report, workers, say)
    if check:
        synthetic.check_sample(plan.seed, check, report, say)
    report.seconds = time.perf_counter() - started
    report.peak_rss_mb = _peak_rss_mb()
    return report


def _analyze() -> None:
    """The planner's statistics after the load (PostgreSQL): the rebuilds read every table."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
