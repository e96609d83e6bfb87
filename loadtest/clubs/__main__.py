"""Two clubs' nights at once on two app servers, under the attack kit's chaos.

    python -m loadtest.clubs [--duration 180] [--games 4] [--phones 3] [--readers 4]
        [--workers 2] [--chaos-every 3] [--calm] [--sabotage] [--seed 56]
        [--postgres-url URL] [--redis-url URL] [--keep] [--out DIR] [--json PATH]

Run by hand for the figures (docs/performance.md, "Two clubs' nights at once"); a short
run is a test (tests/concurrency/test_two_clubs_night.py). Everything goes over 127.0.0.1, every
loop is bounded by the clock or a count, and the run stops by itself.

1. The site (:mod:`loadtest.clubs.world`): a throwaway PostgreSQL database, two clubs
   added with ``manage.py add_club``, in each a tournament sitting of ``--games`` games
   with a scorer link each; two gunicorn servers on it, their pages in one Redis.
2. The nights (:mod:`loadtest.clubs.people`), for ``--duration`` seconds: ``--phones``
   phones a game posting deals through its scorer link, each club's organiser recording
   from the game's page, correcting earlier deals and trying the other club's games
   (:mod:`loadtest.clubs.crossing`), and ``--readers`` visitors polling both clubs'
   pages; every request to either server. Chaos all the while: the phones' own faults
   (:mod:`loadtest.clubs.send`: hung up, cut, slow, sent twice, sent again) and, every
   ``--chaos-every`` seconds, a gunicorn worker killed or the database restarted
   (:mod:`loadtest.clubs.chaos`). A form whose answer was lost is sent again with its
   key until an answer tells its fate. ``--calm``: no fault at all, for a baseline.
3. The check (:mod:`loadtest.clubs.checks`, :mod:`loadtest.clubs.kept`): every deal
   acknowledged stored exactly once, in its own game and club, saying what was last
   acknowledged; no row crossing between the clubs; the invariants; each club's kept
   pages equal to a fresh render. ``--sabotage``: then the database is broken on purpose
   (:mod:`loadtest.clubs.sabotage`) and the check must find it.
4. The figures printed and written to ``results/clubs-night.md`` (with ``--json PATH``
   the counts to that file too, for a test to read); the database
   dropped and this run's pages deleted from Redis. Exit status 1 on any loss, double,
   crossing, broken invariant, stale page or broken promise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path

from loadtest import run
from loadtest.clubs import checks, kept, report, world
from loadtest.clubs.chaos import chaos
from loadtest.clubs.crossing import Prober
from loadtest.clubs.people import Night, Organiser, phone, reader
from loadtest.clubs.sabotage import sabotage
from loadtest.clubs.send import GIVE_UP_AFTER
from loadtest.clubs.tally import Tally

DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/fiftysix_clubs_night"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/11"


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m loadtest.clubs", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--duration", type=float, default=180, help="seconds of play")
    parser.add_argument("--games", type=int, default=4, help="games of each club's sitting")
    parser.add_argument("--phones", type=int, default=3, help="phones holding each game's link")
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers a server")
    parser.add_argument("--chaos-every", type=float, default=3.0, help="seconds between faults")
    parser.add_argument(
        "--calm", action="store_true", help="no fault at all: the same nights' baseline"
    )
    parser.add_argument(
        "--sabotage",
        action="store_true",
        help="after the check, break the database on purpose: the check must find it",
    )
    parser.add_argument("--seed", type=int, default=56)
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--data", default="", help="the throwaway data folder")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--out", type=Path, default=run.BASE_DIR / "results")
    parser.add_argument("--json", type=Path, help="the counts written here too, for a program")
    args = parser.parse_args(argv)
    if not (1 <= args.duration <= 1800 and 1 <= args.games <= 20 and 1 <= args.phones <= 6):
        parser.error("--duration is 1 to 1800 s, --games 1 to 20, --phones 1 to 6")
    if not args.postgres_url.startswith("postgres"):
        parser.error("the nights run on PostgreSQL: --postgres-url postgres://...")
    args.database = "postgres"  # loadtest.run's helpers read it
    args.data = args.data or f"/tmp/fiftysix-clubs-night-{os.getpid()}"
    return args


def play(night: Night, args, arbiters: list[int]) -> float:
    """The nights, for ``--duration`` seconds; every client finishes what it was sending."""
    people = []
    index = 0
    for club, other in zip(night.site.clubs, night.site.clubs[::-1], strict=True):
        for game in club.games:
            for _ in range(args.phones):
                index += 1
                people.append(threading.Thread(target=phone, args=(night, club, game, index)))
        organiser = Organiser(night, club)
        organiser.log_in()  # before the clock starts, as before a club's first deal
        prober = Prober(night, club, other, organiser.browser.cookies)
        people += [threading.Thread(target=organiser.run), threading.Thread(target=prober.run)]
    people += [threading.Thread(target=reader, args=(night, i)) for i in range(args.readers)]
    faults = threading.Thread(
        target=chaos, args=(night, arbiters, args.postgres_url, args.chaos_every)
    )
    start = time.perf_counter()
    rng = night.rng("ends")
    for club in night.site.clubs:
        for game in club.games[: len(club.games) // 2]:
            night.ends[game] = time.monotonic() + args.duration * rng.uniform(0.6, 0.8)
    for thread in people if night.calm else [*people, faults]:
        thread.daemon = True
        thread.start()
    night.stop.wait(args.duration)
    night.stop.set()
    if faults.ident is not None:
        faults.join(30)
    for thread in people:
        thread.join(GIVE_UP_AFTER + 60)
    return time.perf_counter() - start


# The last line of a traceback that a lost database ends in: answered 503, as it should be.
DATABASE_LOST = ("OperationalError", "InterfaceError")


def tracebacks(text: str) -> list[str]:
    """The exception that ends each traceback of a server's log."""
    ends, inside, last = [], False, ""
    for line in text.splitlines():
        if line.startswith("Traceback (most recent call last):"):
            inside, last = True, ""
        elif inside and (line.startswith((" ", "During handling", "The above")) or not line):
            continue
        elif inside and re.match(r"^[\w.]+(Error|Exception|Exit|Interrupt)\b", line):
            last = line
        elif inside:
            ends.append(last or line)
            inside = False
    if inside:
        ends.append(last)
    return ends


def server_errors(site: world.Site) -> tuple[int, list[str]]:
    """(tracebacks of a lost database, every other error of the servers' logs)."""
    lost, others = 0, []
    for log in sorted(site.data.glob("server-*.log")):
        text = log.read_text(errors="replace")
        for end in tracebacks(text):
            if end.split(":", 1)[0].endswith(DATABASE_LOST):
                lost += 1
            else:
                others.append(f"{log.name}: {end}")
        for line in text.splitlines():
            if "Internal Server Error" in line or "[CRITICAL]" in line:
                others.append(f"{log.name}: {line.strip()}")
    return lost, others


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    command = "python -m loadtest.clubs " + " ".join(sys.argv[1:] if argv is None else argv)
    load = os.getloadavg()
    print(f"Preparing {args.postgres_url} ...", flush=True)
    begun = time.perf_counter()
    site = world.prepare(args)
    servers = world.start_servers(site, args.workers)
    print(f"Prepared in {time.perf_counter() - begun:.1f} s.", flush=True)
    ports = [port for port, _ in servers]
    tally = Tally()
    night = Night(site, ports, tally, args.seed, calm=args.calm)
    try:
        print(f"Servers on {ports}; the nights for {args.duration:g} s ...", flush=True)
        elapsed = play(night, args, [server.pid for _, server in servers])
        print(f"Played {elapsed:.1f} s; checking ...", flush=True)
        findings = checks.check(site, tally)
        pages = kept.compare(site, ports, args.redis_url, night.rng("pages"))
        teeth = sabotage(site, tally) if args.sabotage else None
    finally:
        world.stop_servers(servers)
        kept.forget_pages(site, args.redis_url)
    outcome = report.Outcome(
        tally, findings, pages, *server_errors(site), elapsed, command.strip(), load, teeth
    )
    text = report.text(outcome)
    print(text)
    args.out.mkdir(exist_ok=True)
    (args.out / "clubs-night.md").write_text(text)
    if args.json:
        args.json.write_text(json.dumps(report.figures(outcome), indent=1))
    if not args.keep:
        run.drop_database(args)
    if outcome.failures or args.keep:
        print(f"The servers' logs: {site.data}")
    else:
        shutil.rmtree(site.data, ignore_errors=True)
    if outcome.failures:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
