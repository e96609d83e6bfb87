"""A tournament night under load: readers of the public standings and scorers recording deals.

    python -m loadtest.run --database sqlite|postgres [--duration 30] [--readers 50]
        [--scorers 20] [--workers 2] [--server gunicorn|waitress] [--seed 56] [--pause 0]
        [--postgres-url URL]

Run by hand, never in CI's pass/fail. What it does, in order:

1. A throwaway database: the SQLite file ``/tmp/fiftysix-load.sqlite3``, or the
   PostgreSQL database ``--postgres-url`` names (default
   ``postgres://postgres@127.0.0.1:5432/fiftysix_load``), dropped and created
   again. ``migrate``, ``load_demo`` and ``collectstatic`` run in it; then one
   organiser (staff) account per scorer and a tournament of ``2 x scorers``
   teams whose first sitting is drawn and confirmed by the tournament services
   (``confirm_sitting`` starts each game with ``club.games.services.create_game``),
   one game per scorer. Teams start with 1,000 tables (the most the rules allow)
   so no game ends during the run.
2. gunicorn (``club.wsgi``, ``--workers`` sync workers) on a free port of
   127.0.0.1, in production mode: ``DJANGO_DEBUG=0``, a random secret key,
   ``DJANGO_ALLOWED_HOSTS=127.0.0.1`` and ``DJANGO_SECURE_SSL_REDIRECT=0``
   (there is no TLS proxy on loopback). Production cookies are ``Secure``;
   the clients here keep them from ``Set-Cookie`` themselves and send them over
   plain HTTP, as a browser would behind the proxy.
   ``--server waitress``: the venue's server instead, exactly as ``dev.py start
   --venue`` serves (:func:`serve_venue`: ``club.venue.configure`` and
   ``club.venue.serve``, its threads, its cap of connections per phone address,
   its time limits and largest body), from a throwaway venue folder
   ``/tmp/fiftysix-load-venue`` with the venue's SQLite database in it.
3. For ``--duration`` seconds, each client a plain thread with ``http.client``, a
   phone of its own: its own address of the loopback (127.1.0.1, 127.1.0.2 ...;
   Linux answers on all of 127/8), so a cap per phone address counts each
   phone's connections as on the hall's Wi-Fi, and one connection kept open
   between its requests, as a browser keeps it (gunicorn's sync workers close
   it after each answer; the client opens another):
   - readers, phones watching a live page as club/static/js/live.js polls it:
     the page opened once, then its live area asked for with the version it
     shows (``?version=`` with ``HX-Request``; 204 when nothing changed, else
     the fresh area and its new version); even readers watch the tournament's
     page, odd ones one of its games' pages;
   - scorers, logged in beforehand through the real login form (CSRF token from
     the page), record deals on their own game through the real deal form as
     the phone's htmx sends it: the deal number and ``idempotency_key`` the
     form carries, random valid deals from a seeded RNG, the next form read
     from the answer.
   ``--pause`` seconds between one client's requests (0: as fast as it can;
   with a pause each client starts at a random moment within the first one).
4. Stops by itself, stops gunicorn, then checks the database: every deal a
   scorer was told was recorded is stored exactly once (rounds, ``deals_played``
   and the "recorded" history rows equal the scorer's own count), every
   ledger equals its replay (``club.games.services.replay_game``) and
   tables are conserved in every deal and in every game.
5. Drops the throwaway database (``--keep`` keeps it), prints the figures and
   writes them to ``results/load-<database>.md``
   (``results/load-<database>-paced.md`` with ``--pause``).

The load generator runs on the same machine as the server and the database, so
it takes part of the CPU; the report says how much.
"""

from __future__ import annotations

import argparse
import datetime
import html
import http.client
import os
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

# Plain Python at import: the venue's server's threads, cap per phone, database's name.
from club.venue import DATABASE
from club.venue_server import PER_PHONE, THREADS

BASE_DIR = Path(__file__).resolve().parent.parent
SQLITE_PATH = Path("/tmp/fiftysix-load.sqlite3")
VENUE_FOLDER = Path("/tmp/fiftysix-load-venue")  # --server waitress: the venue's folder
DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/fiftysix_load"
HOST = "127.0.0.1"
PASSWORD = "load-test-organiser-" + secrets.token_hex(4)
# The most the rules allow (core.MAX_TABLES): a deal moves at most 20 tables and a
# run is a few dozen deals a game, so no game ends in the run.
TABLES_PER_TEAM = 1000
TOURNAMENT = "Load test night"
TIMEOUT = 120.0


# --- HTTP ------------------------------------------------------------------------------


@dataclass
class Sample:
    kind: str
    seconds: float
    status: int  # 0: no answer (connection refused or reset, timeout)
    outcome: str = "ok"  # ok, error, already-recorded


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: str


class Client:
    """One person's browser: its own cookies; one connection per request, or with
    ``keep_alive`` one connection kept open between requests, as a phone's browser keeps it
    (opened again when the server closed it, as a browser does). ``source``: the phone's
    own address, a distinct one of the loopback's 127/8 for each phone (see phone_address),
    as the hall's phones each come from their own address on the Wi-Fi."""

    def __init__(self, port: int, source: str | None = None, keep_alive: bool = False):
        self.port = port
        self.source = source
        self.keep_alive = keep_alive
        self.connection: http.client.HTTPConnection | None = None
        self.cookies: dict[str, str] = {}

    def prepare(self, form: dict | None, htmx: bool, extra: dict | None = None):
        """The body and headers of a request, as the browser sends them."""
        headers = {"Host": f"{HOST}:{self.port}"}
        if not self.keep_alive:
            headers["Connection"] = "close"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if htmx:
            headers["HX-Request"] = "true"
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"http://{HOST}:{self.port}"
        headers.update(extra or {})
        return body, headers

    def connect(self) -> http.client.HTTPConnection:
        if self.connection is None:
            source = (self.source, 0) if self.source else None
            self.connection = http.client.HTTPConnection(
                HOST, self.port, timeout=TIMEOUT, source_address=source
            )
        return self.connection

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def request(
        self,
        method: str,
        path: str,
        form: dict | None = None,
        htmx=False,
        headers: dict | None = None,
    ) -> Answer:
        body, headers = self.prepare(form, htmx, headers)
        for attempt in range(2):
            reused = self.connection is not None and self.connection.sock is not None
            connection = self.connect()
            try:
                connection.request(method, path, body=body, headers=headers)
                response = connection.getresponse()
                text = response.read().decode("utf-8", "replace")
            except (ConnectionResetError, BrokenPipeError):
                self.close()
                if reused and attempt == 0:
                    continue  # a kept connection the server had closed: a browser asks again
                raise
            except BaseException:
                self.close()
                raise
            if not self.keep_alive or response.will_close:
                self.close()
            break
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                # Production cookies are Secure; we keep them anyway (see the docstring).
                cookie_name, _, rest = value.partition("=")
                self.cookies[cookie_name.strip()] = rest.split(";", 1)[0]
        return Answer(response.status, response.getheaders(), text)


def phone_address(index: int) -> str:
    """Phone ``index``'s own address: 127.1.0.1, 127.1.0.2 ... (Linux's loopback answers on
    all of 127/8), never 127.0.0.1, so the venue's cap of connections per phone counts each
    phone's own, as on the hall's Wi-Fi."""
    return f"127.1.{index // 250}.{index % 250 + 1}"


def live_version(answer: Answer | None, shown: str) -> str:
    """The version a live area shows after ``answer``: its new one, or ``shown`` (a 204)."""
    if answer is not None and answer.status == 200:
        found = re.search(r'data-live-version="([^"]*)"', answer.body)
        if found:
            return found.group(1)
    return shown


def timed(samples: list[Sample], kind: str, call) -> Answer | None:
    start = time.perf_counter()
    try:
        answer = call()
    except (OSError, http.client.HTTPException):
        samples.append(Sample(kind, time.perf_counter() - start, 0, "error"))
        return None
    took = time.perf_counter() - start
    outcome = "ok" if 200 <= answer.status < 400 else "error"
    samples.append(Sample(kind, took, answer.status, outcome))
    return answer


INPUT = re.compile(r"<input\b[^>]*>", re.I)
ATTR = re.compile(r'([\w-]+)="([^"]*)"')
DEAL_FORM = re.compile(r'<form[^>]*class="deal-form"[^>]*>(.*?)</form>', re.S)


def inputs(fragment: str) -> dict[str, str]:
    found = {}
    for tag in INPUT.findall(fragment):
        attrs = dict(ATTR.findall(tag))
        if "name" in attrs:
            found[attrs["name"]] = html.unescape(attrs.get("value", ""))
    return found


@dataclass
class DealForm:
    hidden: dict[str, str]  # csrfmiddlewaretoken, idempotency_key, number
    declarers: list[str]
    piles: list[str]

    @classmethod
    def parse(cls, page: str) -> DealForm | None:
        match = DEAL_FORM.search(page)
        if match is None:
            return None
        fields = inputs(match.group(1))
        # The declarer keys: a radio button a player (or "pass", all passed).
        declarers = [
            html.unescape(attrs.get("value", ""))
            for attrs in (dict(ATTR.findall(tag)) for tag in INPUT.findall(match.group(1)))
            if attrs.get("name") == "declarer"
        ]
        return cls(
            hidden={k: fields[k] for k in ("csrfmiddlewaretoken", "idempotency_key", "number")},
            declarers=[d for d in declarers if d],
            piles=sorted(k for k in fields if k.startswith("points_")),
        )

    def random_deal(self, rng: random.Random) -> dict[str, str]:
        data = dict(self.hidden)
        declarer = rng.choice(self.declarers)  # "pass" (all passed) is one of them
        data["declarer"] = declarer
        if declarer == "pass":
            data["doubling"] = "none"
        else:
            data["bid"] = str(rng.randint(28, 56))
            data["trump"] = rng.choice(["clubs", "diamonds", "hearts", "spades", "no-trumps"])
            data["doubling"] = rng.choices(["none", "double", "redouble"], [8, 3, 1])[0]
        cuts = sorted(rng.randint(0, 56) for _ in range(len(self.piles) - 1))
        for name, low, high in zip(self.piles, [0, *cuts], [*cuts, 56], strict=True):
            data[name] = str(high - low)
        return data


# --- The clients -------------------------------------------------------------------------


@dataclass
class World:
    tournament: int
    games: list[int]
    users: list[str]


@dataclass
class ScorerResult:
    game: int
    recorded: int = 0
    already_recorded: int = 0
    refused: list[str] = field(default_factory=list)
    problem: str = ""


class Run:
    def __init__(self, port: int, world: World, args):
        self.port, self.world, self.args = port, world, args
        self.stop = threading.Event()
        self.start_line = threading.Barrier(args.readers + args.scorers + 1)
        self.samples: list[list[Sample]] = []
        self.scorers: list[ScorerResult] = []
        self.login_samples: list[Sample] = []
        self.lock = threading.Lock()

    def pause(self):
        if self.args.pause:
            self.stop.wait(self.args.pause)

    def stagger(self, rng: random.Random):
        # With a pause, clients start at random moments within it, as people do: not all
        # 70 in the same millisecond every few seconds.
        if self.args.pause:
            self.stop.wait(rng.uniform(0, self.args.pause))

    def reader(self, index: int):
        """A phone watching a live page, as club/static/js/live.js has it: the page opened
        once, then its live area asked for every ``--pause`` seconds with the version it
        shows (``?version=``, htmx's header and live.js's): 204 while nothing changed, else
        the area's fresh HTML with the new version. Even phones watch the tournament's
        page, odd ones a game's (one of the sitting's, chosen at random)."""
        rng = random.Random(f"{self.args.seed}-reader-{index}")
        samples: list[Sample] = []
        self.samples.append(samples)
        client = Client(self.port, phone_address(index), keep_alive=True)
        if index % 2 == 0:
            page = f"/tournaments/{self.world.tournament}/"
            live, opened, polled = f"{page}live/", "tournament page", "tournament poll"
        else:
            page = f"/games/{rng.choice(self.world.games)}/"
            live, opened, polled = page, "game page", "game poll"
        self.start_line.wait()
        self.stagger(rng)
        answer = timed(samples, opened, lambda: client.request("GET", page))
        version = live_version(answer, "")
        while not self.stop.is_set():
            self.pause()
            if self.stop.is_set():
                break
            ask = f"{live}?version={urllib.parse.quote(version)}"
            answer = timed(
                samples,
                polled,
                lambda p=ask: client.request("GET", p, htmx=True, headers={"X-Live-Poll": "1"}),
            )
            version = live_version(answer, version)
        client.close()

    def scorer(self, index: int):
        rng = random.Random(f"{self.args.seed}-scorer-{index}")
        samples: list[Sample] = []
        self.samples.append(samples)
        result = ScorerResult(game=self.world.games[index])
        self.scorers.append(result)
        client = Client(self.port, phone_address(self.args.readers + index), keep_alive=True)
        try:
            form = self._log_in(client, self.world.users[index], result.game)
        except Exception as error:  # the run goes on; the report names the scorer's fault
            result.problem = f"could not start: {error!r}"
            self.start_line.wait()
            return
        self.start_line.wait()
        self.stagger(rng)
        path = f"/games/{result.game}/deals/"
        while not self.stop.is_set():
            deal = form.random_deal(rng)
            answer = timed(samples, "deal", lambda d=deal: client.request("POST", path, d, True))
            if answer is None or answer.status != 200:
                result.problem = f"deal {deal['number']}: status {answer and answer.status}"
                break
            if "is already recorded" in answer.body:
                samples[-1].outcome = "already-recorded"
                result.already_recorded += 1
            elif 'class="errors"' in answer.body or 'class="error"' in answer.body:
                samples[-1].outcome = "error"
                result.refused.append(deal["number"])
            elif f"Deal {deal['number']}:" in answer.body:
                result.recorded += 1
            else:
                samples[-1].outcome = "error"
                result.problem = f"deal {deal['number']}: an answer that says nothing"
                break
            form = DealForm.parse(answer.body)
            if form is None:
                result.problem = f"after deal {deal['number']}: no form for the next deal"
                break
            self.pause()
        client.close()

    def _log_in(self, client: Client, username: str, game: int) -> DealForm:
        page = client.request("GET", "/accounts/login/")
        token = inputs(page.body)["csrfmiddlewaretoken"]
        form = {"csrfmiddlewaretoken": token, "username": username, "password": PASSWORD}
        answer = timed(
            self.login_samples, "login", lambda: client.request("POST", "/accounts/login/", form)
        )
        if answer is None or answer.status != 302 or "sessionid" not in client.cookies:
            raise RuntimeError(f"login refused (status {answer and answer.status})")
        page = client.request("GET", f"/games/{game}/")
        deal_form = DealForm.parse(page.body)
        if deal_form is None:
            raise RuntimeError("the game page shows no deal form")
        return deal_form

    def go(self, server: int) -> float:
        """The run, ``server`` the process group of the server (for the CPU it takes)."""
        threads = [
            threading.Thread(target=self.reader, args=(i,), daemon=True)
            for i in range(self.args.readers)
        ] + [
            threading.Thread(target=self.scorer, args=(i,), daemon=True)
            for i in range(self.args.scorers)
        ]
        for thread in threads:
            thread.start()
        self.start_line.wait(timeout=600)
        cpu, start = time.process_time(), time.perf_counter()
        served = session_cpu(server)
        time.sleep(self.args.duration)
        self.stop.set()
        for thread in threads:
            thread.join(timeout=TIMEOUT)
        elapsed = time.perf_counter() - start
        self.generator_cpu = (time.process_time() - cpu) / elapsed
        self.server_cpu = (session_cpu(server) - served) / elapsed
        return elapsed


def session_cpu(session: int) -> float:
    """The CPU seconds the processes of ``session`` have used (the server started in its
    own: gunicorn's arbiter and workers, or waitress's one process), from /proc."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[3]) == session:  # after the name: state, ppid, pgrp, session ...
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


# --- Setting up and tearing down ---------------------------------------------------------


def production_environment(url: str, settings: str = "club.settings") -> None:
    """gunicorn's environment as production has it (DEBUG off, a random secret key, only
    127.0.0.1 allowed, no TLS redirect on loopback), on the database at ``url``."""
    os.environ.update(
        DATABASE_URL=url,
        DJANGO_SETTINGS_MODULE=settings,
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS=HOST,
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_LOG_LEVEL="WARNING",
    )
    sys.path.insert(0, str(BASE_DIR))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def database_url(args) -> str:
    if args.database == "sqlite":
        return f"sqlite:///{SQLITE_PATH}"
    return args.postgres_url


def fresh_database(args) -> None:
    if args.database == "sqlite":
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{SQLITE_PATH}{suffix}").unlink(missing_ok=True)
        return
    import psycopg

    parts = urllib.parse.urlsplit(args.postgres_url)
    name = parts.path.lstrip("/")
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name) or name in {"postgres", "template1"}:
        raise SystemExit(f"refusing to drop the database {name!r}: name a throwaway one")
    admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def drop_database(args) -> None:
    from django.db import connection

    connection.close()
    if args.database == "sqlite":
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{SQLITE_PATH}{suffix}").unlink(missing_ok=True)
        return
    import psycopg

    parts = urllib.parse.urlsplit(args.postgres_url)
    admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as admin_connection:
        admin_connection.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')


def manage(*command: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *command], cwd=BASE_DIR, check=True, stdout=subprocess.DEVNULL
    )


def build_world(scorers: int, seed: int) -> World:
    """Organisers, and a tournament whose first sitting has one game per scorer."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from club.scoring import rules as core
    from club.tournaments import services as tournaments

    users = get_user_model()
    password = make_password(PASSWORD)  # hashed once: the same password for every scorer
    names = [f"scorer{i + 1:02d}" for i in range(scorers)]
    users.objects.bulk_create(
        users(username=name, password=password, is_staff=True) for name in names
    )
    tournament = tournaments.create_tournament(
        name=TOURNAMENT,
        starts_on=datetime.date.today(),
        venue="127.0.0.1",
        rules=core.Rules(tables_per_team=TABLES_PER_TEAM),
    )
    for i in range(2 * scorers):
        tournaments.register_team(
            tournament=tournament, first=f"Load {i + 1:02d}a", second=f"Load {i + 1:02d}b"
        )
    rng = random.Random(seed)
    sitting = tournaments.propose_sitting(tournament=tournament, rng=rng)
    sitting = tournaments.confirm_sitting(sitting=sitting, rng=rng)
    games = list(sitting.games.order_by("position").values_list("game_id", flat=True))
    return World(tournament=tournament.pk, games=games, users=names)


def start_gunicorn(
    port: int,
    workers: int,
    log: Path,
    env: dict[str, str] | None = None,
    server_name: str = "gunicorn",
) -> subprocess.Popen:
    """gunicorn on 127.0.0.1:``port``, answering /health/; ``env``: its environment
    (this process's when None). ``server_name`` "waitress": the venue's server instead, as
    ``dev.py start --venue`` runs it (:func:`serve_venue`)."""
    if server_name == "waitress":
        command = ["-c", f"from loadtest.run import serve_venue; serve_venue({port})"]
    else:
        command = ["-m", "gunicorn", "club.wsgi", "--workers", str(workers)]
        command += ["--bind", f"{HOST}:{port}", "--backlog", "2048", "--timeout", "120"]
    server = subprocess.Popen(
        [sys.executable, *command],
        cwd=BASE_DIR,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"{server_name} stopped at start-up; see {log}")
        try:
            if Client(port).request("GET", "/health/").status == 200:
                return server
        except OSError:
            pass
        time.sleep(0.2)
    stop_gunicorn(server)
    raise SystemExit(f"{server_name} did not answer /health/ within 60 s; see {log}")


def serve_venue(port: int) -> None:
    """The venue's server, in its own process: what ``dev.py start --venue`` serves with
    (club.venue: its environment from ``configure``, then ``serve``: waitress with the
    venue's threads, its cap of connections per phone, its time limits and its largest
    body), on 127.0.0.1:``port``, from the venue's folder DJANGO_DATA_DIR and its database
    there (the SQLite file ``club.sqlite3``). Only the secret key is this run's."""
    from club import venue

    folder = Path(os.environ["DJANGO_DATA_DIR"])
    key = os.environ["DJANGO_SECRET_KEY"]
    for name in [n for n in os.environ if n.startswith("DJANGO_") or n == "DATABASE_URL"]:
        del os.environ[name]  # the venue's settings, none of the load test's
    venue.configure(HOST, port, folder, key)
    import django

    django.setup()
    from django.core.wsgi import get_wsgi_application

    venue.serve(get_wsgi_application(), HOST, port)


def stop_gunicorn(server: subprocess.Popen) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)  # the arbiter stops its own workers
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# --- Checking and reporting ----------------------------------------------------------------


def ledger_and_replay(game):
    """The game's replay through the rules (seating, settlements, final state), its stored
    ledger and the ledger the replay gives, each by (deal number, team position)."""
    from club.games.models import LedgerEntry
    from club.games.services import replay_game

    seating, settlements, state = replay_game(game)
    ledger = {
        (entry.round.number, entry.game_team.position): (entry.change, entry.balance)
        for entry in LedgerEntry.objects.filter(round__game=game).select_related(
            "round", "game_team"
        )
    }
    replayed = {
        (s.number, team): (s.transfers[team], s.tables_after[team])
        for s in settlements
        for team in range(len(seating.teams))
    }
    return seating, settlements, state, ledger, replayed


def check_database(world: World, scorers: list[ScorerResult]) -> list[str]:
    """Every deal a scorer was told was recorded is stored once; ledgers equal their replay."""
    from django.db import connection

    from club.games.models import Change, Game

    connection.close()  # a fresh connection: see what gunicorn committed
    faults = []
    told = {result.game: result.recorded for result in scorers}
    for game in Game.objects.filter(pk__in=world.games).prefetch_related("teams"):
        numbers = list(game.rounds.order_by("number").values_list("number", flat=True))
        recorded = Change.objects.filter(game=game, action=Change.Action.RECORDED).count()
        if numbers != list(range(1, told[game.pk] + 1)):
            faults.append(
                f"game {game.pk}: the scorer was told {told[game.pk]} deals were recorded, "
                f"the database holds {len(numbers)} (numbers {numbers[:3]}...{numbers[-3:]})"
            )
        if game.deals_played != len(numbers) or recorded != len(numbers):
            faults.append(
                f"game {game.pk}: {len(numbers)} rounds, deals_played {game.deals_played}, "
                f"{recorded} 'recorded' history rows"
            )
        seating, settlements, state, ledger, replayed = ledger_and_replay(game)
        if ledger != replayed:
            wrong = sorted(
                k for k in replayed.keys() | ledger.keys() if ledger.get(k) != replayed.get(k)
            )
            faults.append(f"game {game.pk}: ledger differs from its replay at {wrong[:5]}")
        total = TABLES_PER_TEAM * len(seating.teams)
        if any(sum(s.transfers.values()) != 0 for s in settlements):
            faults.append(f"game {game.pk}: a deal created or destroyed tables")
        held = [team.tables for team in game.teams.all()]
        if sum(held) != total or sorted(held) != sorted(state.tables):
            faults.append(f"game {game.pk}: teams hold {held}, the replay says {state.tables}")
    return faults


def percentile(ordered: list[float], share: float) -> float:
    """Nearest rank: the smallest value with at least ``share`` of the samples at or below it."""
    if not ordered:
        return float("nan")
    rank = max(1, -(-len(ordered) * share // 1))
    return ordered[int(rank) - 1]


def row(kind: str, samples: list[Sample], elapsed: float) -> str:
    times = sorted(s.seconds * 1000 for s in samples)
    errors = sum(s.outcome == "error" for s in samples)
    statuses = sorted({s.status for s in samples})
    return (
        f"| {kind} | {len(samples):,} | {len(samples) / elapsed:.1f} | "
        f"{percentile(times, 0.5):.0f} | {percentile(times, 0.95):.0f} | "
        f"{percentile(times, 0.99):.0f} | {times[-1] if times else float('nan'):.0f} | "
        f"{errors} | {', '.join(map(str, statuses))} |"
    )


def machine() -> str:
    model = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return f"{os.cpu_count()} cores ({model})"


def report(args, run: Run, elapsed: float, faults: list[str], log_faults: list[str], load) -> str:
    samples = [s for samples in run.samples for s in samples]
    readers = [s for s in samples if s.kind != "deal"]
    deals = [s for s in samples if s.kind == "deal"]
    scorers = run.scorers
    told = sum(r.recorded for r in scorers)
    already = sum(r.already_recorded for r in scorers)
    refused = sum(len(r.refused) for r in scorers)
    problems = [f"game {r.game}: {r.problem}" for r in scorers if r.problem]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=BASE_DIR, capture_output=True, text=True
    ).stdout.strip()
    command = (
        f"python -m loadtest.run --database {args.database} --duration {args.duration:g} "
        f"--readers {args.readers} --scorers {args.scorers} --workers {args.workers} "
        f"--seed {args.seed}" + (f" --pause {args.pause:g}" if args.pause else "")
    )
    if args.server != "gunicorn":
        command = command.replace(" --workers", f" --server {args.server} --workers")
    lines = [
        f"# Load: {args.database}" + (f", {args.pause:g} s between requests" if args.pause else ""),
        "",
        f"`{command}`",
        "",
        f"- When: {datetime.datetime.now().isoformat(timespec='seconds')}, commit {commit} "
        "(plus the working tree).",
        f"- Machine: {machine()}; load average before the run {load[0]:.2f}, {load[1]:.2f}, "
        f"{load[2]:.2f}. The server, the database and this load generator share these "
        f"cores: the server ("
        + (
            "SQLite included: it runs in the server's processes"
            if args.database == "sqlite"
            else "PostgreSQL's processes not included"
        )
        + f") used {run.server_cpu:.2f} of a core on average, the generator "
        f"{run.generator_cpu:.2f}.",
        (
            "- The venue's server as `dev.py start --venue` runs it (`club.venue.serve` and "
            f"its settings): waitress, one process of {THREADS} threads, at most {PER_PHONE} "
            "connections per phone address, on 127.0.0.1, the venue's SQLite database in its "
            "folder. Each phone comes from its own address of the loopback (127.1.0.1 on), "
            "and keeps its connection open between requests, as a browser does."
            if args.server == "waitress"
            else f"- gunicorn: `club.wsgi`, {args.workers} sync workers, DJANGO_DEBUG=0, "
            "127.0.0.1 only."
        ),
        f"- Clients: {args.readers} readers (phones watching a live page: half the "
        "tournament's, half a game's; the page once, then its live area polled with "
        f"`?version=`) and {args.scorers} scorers (one game each), each "
        + (
            f"waiting {args.pause:g} s between its requests"
            if args.pause
            else "sending its next request as soon as the last is answered (closed loop)"
        )
        + f"; {elapsed:.1f} s measured.",
        "",
        "| requests | count | per second | p50 ms | p95 ms | p99 ms | max ms | errors | statuses |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        row("**readers, all**", readers, elapsed),
        *(
            row(f"reader: {kind}", [s for s in readers if s.kind == kind], elapsed)
            for kind in ("tournament page", "tournament poll", "game page", "game poll")
        ),
        row("**deals**", deals, elapsed),
        "",
        f"Logins before the clock started: {len(run.login_samples)}, "
        f"p50 {percentile(sorted(s.seconds * 1000 for s in run.login_samples), 0.5):.0f} ms.",
        "",
        f"- Deals the scorers were told were recorded: {told:,}; "
        f'answered "already recorded": {already}; refused as invalid: {refused}.',
        "- Database afterwards: "
        + (
            "every told deal stored exactly once (rounds, deals_played and history rows), "
            "every ledger equal to its replay, tables conserved in every deal and game: "
            "0 lost, 0 doubled."
            if not faults
            else "FAULTS: " + "; ".join(faults)
        ),
        "- Scorers stopped early: " + ("none." if not problems else "; ".join(problems)),
        "- Server log: "
        + ("no tracebacks or errors." if not log_faults else "; ".join(log_faults[:5])),
        "",
    ]
    return "\n".join(lines)


def log_faults(log: Path) -> list[str]:
    text = log.read_text(errors="replace") if log.exists() else ""
    return [
        line.strip()
        for line in text.splitlines()
        if "Traceback" in line or "[ERROR]" in line or "[CRITICAL]" in line
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m loadtest.run", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--database", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--duration", type=float, default=30)
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--scorers", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    # The venue's laptop serves with waitress (club/venue.py): its figures beside gunicorn's.
    parser.add_argument("--server", choices=["gunicorn", "waitress"], default="gunicorn")
    parser.add_argument("--seed", type=int, default=56)
    parser.add_argument(
        "--pause", type=float, default=0, help="seconds between one client's requests"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the database afterwards, to look at it"
    )
    parser.add_argument("--out", type=Path, default=BASE_DIR / "results")
    args = parser.parse_args()
    if args.server == "waitress":
        if args.database != "sqlite":
            parser.error("the venue's server serves the club's SQLite file: --database sqlite")
        # The venue's own folder, a throwaway one: its database and its static files.
        global SQLITE_PATH
        SQLITE_PATH = VENUE_FOLDER / DATABASE
        VENUE_FOLDER.mkdir(mode=0o700, exist_ok=True)
        os.environ["DJANGO_DATA_DIR"] = str(VENUE_FOLDER)

    production_environment(database_url(args))
    print(f"Preparing {os.environ['DATABASE_URL']} ...", flush=True)
    fresh_database(args)
    manage("migrate", "--no-input")
    manage("load_demo")
    manage("collectstatic", "--no-input")
    world = build_world(args.scorers, args.seed)

    port = free_port()
    log = Path(f"/tmp/fiftysix-load-{args.server}-{args.database}.log")
    server = start_gunicorn(port, args.workers, log, server_name=args.server)
    try:
        load = os.getloadavg()
        print(
            f"{args.server} on {HOST}:{port}; {args.readers} readers and {args.scorers} scorers "
            f"for {args.duration:g} s ...",
            flush=True,
        )
        run = Run(port, world, args)
        elapsed = run.go(server.pid)
    finally:
        stop_gunicorn(server)
    faults = check_database(world, run.scorers)
    text = report(args, run, elapsed, faults, log_faults(log), load)
    args.out.mkdir(exist_ok=True)
    server_part = "" if args.server == "gunicorn" else f"-{args.server}"
    name = f"load-{args.database}{'-paced' if args.pause else ''}{server_part}.md"
    (args.out / name).write_text(text)
    print(text)
    print(f"Written to {args.out / name}")
    if not args.keep:
        drop_database(args)


if __name__ == "__main__":
    main()
