"""The site of the two clubs' nights: its database, its clubs and games, its two servers.

A throwaway PostgreSQL database (dropped and made again), migrated, its static files
collected into a throwaway data folder; two clubs added as a site administrator adds
them (``manage.py add_club --name --slug --organiser``, the organiser's password from
``DJANGO_ORGANISER_PASSWORD``); in each, a tournament whose first sitting the
tournament services draw and confirm, one scorer link issued for each of its games.
One player plays in both clubs (players are the site's), as a person may.

Then two gunicorn servers (``club.wsgi``, sync workers) on two ports of 127.0.0.1, in
production mode (``DJANGO_DEBUG=0``, one secret key for both, no TLS redirect on
loopback), on that database, their pages kept in one Redis (``DJANGO_CACHE_URL``)
under a release name of this run's own, so no other run's or test's keys are met.
"""

from __future__ import annotations

import datetime
import io
import os
import random
import secrets
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from loadtest import run

HOST = run.HOST
TABLES_PER_TEAM = 1000  # the most the rules allow: no game ends in a night of a few minutes
SHARED_PLAYER = "Sam Both"  # plays in both clubs
CLUBS = [
    # name, short name, organiser, time zone
    ("North Hall 56", "north", "north-organiser", "Asia/Kolkata"),
    ("South Bay 56", "south", "south-organiser", "Asia/Dubai"),
]


@dataclass
class ClubNight:
    """One club's night as its clients know it: its games, their links and players."""

    name: str
    slug: str
    organiser: str
    pk: int = 0
    tournament: int = 0
    games: list[int] = field(default_factory=list)
    tokens: dict[int, str] = field(default_factory=dict)  # game -> its scorer link's token
    seated: dict[int, list[int]] = field(default_factory=dict)  # game -> its players' keys

    def at(self, path: str) -> str:
        """``path`` of this club's pages: under /clubs/<slug>/."""
        return f"/clubs/{self.slug}{path}"


@dataclass
class Site:
    clubs: list[ClubNight]
    password: str  # every organiser's
    env: dict[str, str]  # the servers' environment
    data: Path  # the throwaway data folder: static files, server logs
    release: str  # the pages' keys in Redis carry it


def environment(args, data: Path) -> dict[str, str]:
    """The servers' (and this process's) environment: production, on our database and Redis."""
    release = f"two-clubs-{secrets.token_hex(6)}"
    return {
        **os.environ,
        "DATABASE_URL": args.postgres_url,
        "DJANGO_SETTINGS_MODULE": "club.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": HOST,
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_LOG_LEVEL": "WARNING",
        "DJANGO_CACHE_URL": args.redis_url,
        "DJANGO_RELEASE": release,
        "DJANGO_DATA_DIR": str(data),
        # Short-lived connections are what a restart cuts; kept ones are checked first.
        "DJANGO_CONN_MAX_AGE": "60",
        "PYTHONPATH": str(run.BASE_DIR),
    }


def prepare(args) -> Site:
    """A fresh database with the two clubs and their games; nothing served yet."""
    data = Path(args.data)
    data.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = environment(args, data)
    os.environ.update(env)
    sys.path.insert(0, str(run.BASE_DIR))
    run.fresh_database(args)
    # The static files need no database: collected while it is migrated.
    collect = subprocess.Popen(
        [sys.executable, "manage.py", "collectstatic", "--no-input"],
        cwd=run.BASE_DIR,
        stdout=subprocess.DEVNULL,
    )
    run.manage("migrate", "--no-input")
    if collect.wait() != 0:
        raise SystemExit("collectstatic failed")
    import django

    django.setup()
    from django.core.management import call_command

    password = "night-" + secrets.token_urlsafe(12)
    os.environ["DJANGO_ORGANISER_PASSWORD"] = password
    clubs = [ClubNight(name, slug, organiser) for name, slug, organiser, _zone in CLUBS]
    for night, (_name, _slug, _organiser, zone) in zip(clubs, CLUBS, strict=True):
        # What a site administrator types: manage.py add_club, its organiser made new.
        call_command(
            "add_club",
            name=night.name,
            slug=night.slug,
            organiser=[night.organiser],
            time_zone=zone,
            stdout=io.StringIO(),
        )
    rng = random.Random(args.seed)
    for night in clubs:
        lay_out(night, args.games, rng)
    return Site(clubs, password, env, data, env["DJANGO_RELEASE"])


def lay_out(night: ClubNight, games: int, rng: random.Random) -> None:
    """The club's tournament, its first sitting drawn and confirmed, a link for each game."""
    from django.contrib.auth import get_user_model

    from club.clubs.models import Club
    from club.games.links import issue_links
    from club.games.models import Player
    from club.games.people import join
    from club.games.services import load_seating
    from club.scoring import rules as core
    from club.tournaments import services as tournaments

    club = Club.objects.get(slug=night.slug)
    organiser = get_user_model().objects.get(username=night.organiser)
    night.pk = club.pk
    tournament = tournaments.create_tournament(
        name=f"{night.name} night",
        starts_on=datetime.date.today(),
        rules=core.Rules(tables_per_team=TABLES_PER_TEAM),
        user=organiser,
        club=club,
    )
    word = night.name.split()[0]
    # The player of both clubs is in this club's register before its teams are typed, as a
    # club adds a player it knows from another (a name of another club's player alone is
    # asked about, as a name typed may be someone else).
    join(club.pk, Player.objects.filter(name=SHARED_PLAYER).values_list("pk", flat=True))
    for i in range(2 * games):
        first = SHARED_PLAYER if i == 0 else f"{word} {i + 1:02d}a"
        tournaments.register_team(
            tournament=tournament, first=first, second=f"{word} {i + 1:02d}b", user=organiser
        )
    sitting = tournaments.propose_sitting(tournament=tournament, user=organiser, rng=rng)
    sitting = tournaments.confirm_sitting(sitting=sitting, user=organiser, rng=rng)
    night.tournament = tournament.pk
    for entry in sitting.games.order_by("position").select_related("game"):
        game = entry.game
        [link] = issue_links(game=game, user=organiser)
        night.games.append(game.pk)
        night.tokens[game.pk] = link.token
        night.seated[game.pk] = [player.pk for player in load_seating(game).players]


def start_servers(site: Site, workers: int) -> list[tuple[int, subprocess.Popen]]:
    """The two app servers, started side by side, each answering /health/: (port, process)."""
    ports = [run.free_port()]
    while len(ports) < 2:
        ports = list(dict.fromkeys([*ports, run.free_port()]))
    started: list[subprocess.Popen | BaseException | None] = [None, None]

    def start(number: int) -> None:
        log = site.data / f"server-{number + 1}.log"
        try:
            started[number] = run.start_gunicorn(ports[number], workers, log, env=site.env)
        except BaseException as error:  # noqa: BLE001 - raised below, once both are done
            started[number] = error

    threads = [threading.Thread(target=start, args=(number,)) for number in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    servers = [
        (port, s) for port, s in zip(ports, started, strict=True) if isinstance(s, subprocess.Popen)
    ]
    failed = [s for s in started if not isinstance(s, subprocess.Popen)]
    if failed:
        stop_servers(servers)
        raise failed[0] or SystemExit("a server did not start")
    return servers


def stop_servers(servers: list[tuple[int, subprocess.Popen]]) -> None:
    for _port, server in servers:
        run.stop_gunicorn(server)
