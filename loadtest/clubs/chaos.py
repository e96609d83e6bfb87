"""What goes wrong on the servers' side while the clubs play, in turn, every few seconds.

- **A worker killed mid-request**: ``kill -9`` of a gunicorn worker caught inside a
  transaction (its connection to the database found in ``pg_stat_activity`` with a
  transaction open, its socket found in ``/proc``), or, when none is caught within half
  a second, of a worker busy on the CPU (the arbiter starts another). Whatever it was
  serving gets no answer; its open transaction is rolled back by PostgreSQL, or had
  committed, key and all.
- **The database restarted**: this run's database (never the machine's other databases,
  nor the server itself, which other work shares) stops taking connections and every
  connection to it is ended, for a moment, then it takes them again: what a restart of
  PostgreSQL does to the app, requests in the middle of a transaction included.

The phones' own faults (a post hung up, cut, slow, sent twice) are theirs
(:mod:`loadtest.clubs.send`).
"""

from __future__ import annotations

import os
import random
import signal
import time
import urllib.parse
from pathlib import Path

from loadtest.clubs.people import Night

DOWN_FOR = (0.3, 1.5)  # seconds the database takes no connection, drawn


def workers_of(arbiter: int) -> list[tuple[int, str]]:
    """The arbiter's worker processes, as (pid, state letter), from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[1]) == arbiter:
            found.append((int(stat.parent.name), fields[0]))
    return found


def _admin(url: str) -> tuple[str, str]:
    """(the database's name, the address of the server's own database to act from)."""
    parts = urllib.parse.urlsplit(url)
    return parts.path.lstrip("/"), urllib.parse.urlunsplit(parts._replace(path="/postgres"))


def in_transaction(url: str) -> list[int]:
    """The client ports of the connections to our database in the middle of a transaction."""
    import psycopg

    name, admin = _admin(url)
    with psycopg.connect(admin, autocommit=True) as pg:
        found = pg.execute(
            "SELECT client_port FROM pg_stat_activity WHERE datname = %s "
            "AND xact_start IS NOT NULL AND backend_type = 'client backend' "
            "AND pid <> pg_backend_pid()",
            [name],
        ).fetchall()
    return [port for (port,) in found if port and port > 0]


def owner(port: int, pids: list[int]) -> int | None:
    """Which of ``pids`` holds the loopback connection from local ``port`` (/proc)."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].rsplit(":", 1)[1], 16) == port:
            inodes.add(f"socket:[{fields[9]}]")
    for pid in pids:
        try:
            if any(os.readlink(fd) in inodes for fd in Path(f"/proc/{pid}/fd").iterdir()):
                return pid
        except OSError:
            continue  # ended meanwhile
    return None


def kill_a_worker(night: Night, arbiters: list[int], url: str, rng: random.Random) -> None:
    """kill -9 a worker inside a transaction when one is caught there within half a
    second (its database connection found in pg_stat_activity), else a busy one."""
    workers = [pid for arbiter in arbiters for pid, _state in workers_of(arbiter)]
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline and not night.stop.is_set():
        ports = in_transaction(url)
        rng.shuffle(ports)
        for port in ports:
            pid = owner(port, workers)
            if pid is not None and _kill(pid):
                night.tally.add("fault: worker killed")
                night.tally.add("fault: worker killed inside its transaction")
                return
        time.sleep(0.01)
    arbiter = rng.choice(arbiters)
    found = workers_of(arbiter)
    busy = [pid for pid, state in found if state == "R"]
    if found and _kill(rng.choice(busy or [pid for pid, _ in found])):
        night.tally.add("fault: worker killed")


def _kill(pid: int) -> bool:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def restart_database(night: Night, url: str, rng: random.Random) -> None:
    import psycopg

    name, admin = _admin(url)
    with psycopg.connect(admin, autocommit=True) as pg:
        pg.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        try:
            ended = pg.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                [name],
            ).fetchone()
            night.tally.add("fault: database restarted")
            night.tally.add("database connections ended", ended[0] if ended else 0)
            night.stop.wait(rng.uniform(*DOWN_FOR))
        finally:
            pg.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')


def chaos(night: Night, arbiters: list[int], url: str, every: float) -> None:
    """Until the night ends: a worker killed, then the database restarted, in turn."""
    rng = night.rng("chaos")
    turn = 0
    while not night.stop.wait(rng.uniform(0.5 * every, 1.5 * every)):
        if turn % 2:
            restart_database(night, url, rng)
        else:
            kill_a_worker(night, arbiters, url, rng)
        turn += 1
