"""The harness over real HTTP: gunicorn in production mode.

    python -m benchmarks.http [--preset small|large|federation|clubs]
        [--database sqlite|postgres] [--workers 2] [--servers 1] [--seconds 6] [--out results]

Against the harness's own club (``python -m benchmarks --preset P`` makes it), it
starts ``gunicorn club.wsgi`` three times on 127.0.0.1, with ``DJANGO_DEBUG=0``, a
random secret key and the harness's URLs (``benchmarks.http_settings``: the project's
plus the trivial view that is the framework's floor): keeping public pages under their
version (club.web.pages) in the machine's Redis (``--redis``, as production runs it:
the write counter lets a kept page be served with no query), then in each worker's
own memory (the default: the key is read from the database), then with
``DJANGO_CACHE_URL=none``, so every page is rendered. For each page it sends requests
from 1 and from 16 connections (keep-alive, as browsers do) for ``--seconds`` each, and reports p50
and p95 latency, requests per second and the gunicorn workers' CPU per request
(their user and system time, from /proc, over the requests answered). Then the
capacity: spectators whose pages poll every 5 s (the tournament's live fragment,
nothing new: 204) at a rising rate from 16 connections, until the p95 passes
100 ms; the last rate under it, times 5 s, is how many spectators the workers hold.
Last, two app servers sharing the Redis: a second gunicorn beside the first, both
asked for the tournament's page at once from 8 connections each.

``--servers N`` (2 or more) measures the site as a federation runs it instead: N
gunicorns on the one database, sharing the one Redis (``--redis``), every page asked of
all of them at once, the connections spread over the servers in turn (N, then 16), first
with the pages kept in the Redis, then with none kept (``DJANGO_CACHE_URL=none``: each
rendered). On a site of several clubs the club's pages are those of the club of the
tournament measured (``/clubs/<slug>/...``) beside the site's own (its home, its clubs
and the federation's ranking).

The load generator runs on the same machine and takes CPU from the workers: the
report gives the load average before each run. Run by hand, never in CI.
"""

from __future__ import annotations

import argparse
import http.client
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.__main__ import database_url
from loadtest.run import HOST, free_port, production_environment, start_gunicorn, stop_gunicorn

BASE_DIR = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")


def workers_of(server: subprocess.Popen) -> list[int]:
    """The gunicorn arbiter's worker processes (their parent is the arbiter)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == server.pid:
                pids.append(int(entry.name))
    return pids


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def hammer(
    port: int | list[int], path: str, connections: int, seconds: float, headers: dict
) -> dict:
    """Closed loop: each connection sends the next request when the last is answered.
    Several ports (app servers): the connections are spread over them in turn."""
    ports = port if isinstance(port, list) else [port]
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def loop(port: int):
        headers_here = {**headers, "Host": f"{HOST}:{port}"}
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        mine = []
        while time.monotonic() < deadline:
            start = time.perf_counter()
            try:
                connection.request("GET", path, headers=headers_here)
                response = connection.getresponse()
                response.read()
                if response.status >= 500:
                    errors[0] += 1
            except (OSError, http.client.HTTPException):
                errors[0] += 1
                connection.close()
                connection = http.client.HTTPConnection(HOST, port, timeout=30)
                continue
            mine.append(time.perf_counter() - start)
        connection.close()
        with lock:
            latencies.extend(mine)

    threads = [
        threading.Thread(target=loop, args=(ports[index % len(ports)],))
        for index in range(connections)
    ]
    begun = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - begun
    latencies.sort()
    return {
        "requests": len(latencies),
        "per_second": len(latencies) / elapsed,
        "p50": percentile(latencies, 0.50),
        "p95": percentile(latencies, 0.95),
        "errors": errors[0],
    }


def paced(port: int, path: str, rate: float, seconds: float, headers: dict) -> float:
    """Open loop: ``rate`` requests a second spread over 16 connections, each timed from
    when it was due (so time waiting for a free connection counts). Returns the p95."""
    connections = 16
    interval = connections / rate
    latencies: list[float] = []
    lock = threading.Lock()
    start_all = time.perf_counter() + 0.05

    def loop(offset: float):
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        due = start_all + offset
        mine = []
        while due < start_all + seconds:
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            try:
                connection.request("GET", path, headers=headers)
                connection.getresponse().read()
            except (OSError, http.client.HTTPException):
                connection.close()
                connection = http.client.HTTPConnection(HOST, port, timeout=30)
                mine.append(30.0)
            else:
                mine.append(time.perf_counter() - due)
            due += interval
        connection.close()
        with lock:
            latencies.extend(mine)

    threads = [
        threading.Thread(target=loop, args=(index * interval / connections,))
        for index in range(connections)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    latencies.sort()
    return percentile(latencies, 0.95)


def percentile(ordered: list[float], share: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000


def two_servers(ports: list[int], servers, path: str, seconds: float) -> list[dict]:
    """Both servers asked at once (8 connections each): each one's latency and CPU."""
    pids = [workers_of(server) for server in servers]
    before = [cpu_seconds(p) for p in pids]
    results: list[dict] = [{} for _ in ports]

    def run(index: int) -> None:
        headers = {"Host": f"{HOST}:{ports[index]}", "Accept-Encoding": "gzip"}
        results[index] = hammer(ports[index], path, 8, seconds, headers)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(ports))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, result in enumerate(results):
        used = cpu_seconds(pids[index]) - before[index]
        result.update(
            server=index + 1,
            cpu_ms=1000 * used / max(result["requests"], 1),
            load=os.getloadavg()[0],
        )
        print(
            f"  server {index + 1}: p50 {result['p50']:6.2f} ms, p95 {result['p95']:6.2f} ms, "
            f"{result['per_second']:7.1f}/s, CPU {result['cpu_ms']:.2f} ms/request",
            flush=True,
        )
    return results


def the_club() -> dict[str, str]:
    """The pages to ask for, with the ids of the harness's club (as benchmarks.scenarios)."""
    import django

    django.setup()
    from benchmarks import scenarios as sc
    from club.tournaments.selectors import live_version

    world = sc.find_world()
    t, c = world.tournament, world.prefix
    return {
        FLOOR: f"{c}/bench/trivial/",
        "game page": f"{c}/games/{world.game.pk}/",
        "tournament standings": f"{c}/tournaments/{t.pk}/",
        "tournament live, unchanged (204)": (
            f"{c}/tournaments/{t.pk}/live/?version={live_version(t)}"
        ),
        "tournament live, changed (the fragment)": f"{c}/tournaments/{t.pk}/live/?version=0.0",
        "projector": f"{c}/tournaments/{t.pk}/projector/",
        "player leaderboard": f"{c}/leaderboards/players/",
        "team leaderboard": f"{c}/leaderboards/teams/",
        "player profile": f"{c}/players/{world.player.pk}/",
        "home page": f"{c}/",
        "the site's home": "/",
        "the site's clubs": "/clubs/",
        "the federation's ranking": "/ranking/",
        "the ranking, one club's": f"/ranking/?club={world.club.slug}",
    }


def measure(
    port: int | list[int],
    server,
    pages: dict[str, str],
    seconds: float,
    connections_asked: tuple[int, ...] = (1, 16),
) -> list[dict]:
    """Each page from 1 and from 16 connections (``connections_asked``); several servers
    (lists of ports and of servers): the connections spread over them, the CPU of all
    their workers counted."""
    rows = []
    servers = server if isinstance(server, list) else [server]
    pids = [pid for one in servers for pid in workers_of(one)]
    for name, path in pages.items():
        headers = {"Accept-Encoding": "gzip"}
        if "live" in name:
            headers["HX-Request"] = "true"
        # Warm: the first render of the version, and each server's connection pools.
        hammer(port, path, len(servers), 0.5, headers)
        for connections in connections_asked:
            before = cpu_seconds(pids)
            result = hammer(port, path, connections, seconds, headers)
            used = cpu_seconds(pids) - before
            result.update(
                page=name,
                connections=connections,
                cpu_ms=1000 * used / max(result["requests"], 1),
                load=os.getloadavg()[0],
            )
            rows.append(result)
            print(
                f"  {name:<36} {connections:>2} conn: p50 {result['p50']:6.2f} ms, "
                f"p95 {result['p95']:6.2f} ms, {result['per_second']:7.1f}/s, "
                f"CPU {result['cpu_ms']:.2f} ms/request, errors {result['errors']}",
                flush=True,
            )
    return rows


FLOOR = "framework floor (trivial view)"


ROUNDS = 5  # turns of the floor and a page, a second each


def beside_the_floor(port: int, server, pages: dict[str, str], rounds: int = ROUNDS) -> list[dict]:
    """Each page's workers' CPU a request over the floor's, measured in turns from one
    connection: the floor for a second, then the page for a second, ``rounds`` times. The
    same trivial view measured at a run's start and at its end differs by a quarter on
    this machine (its speed drifts as the load generator and the database warm up); taken
    in turns, the drift moves the page and its floor alike."""
    pids = workers_of(server)
    floor = pages[FLOOR]
    plain = {"Accept-Encoding": "gzip"}
    hammer(port, floor, 1, 1.0, plain)
    rows = []
    for name, path in pages.items():
        if path == floor:
            continue
        headers = {**plain, "HX-Request": "true"} if "live" in name else plain
        hammer(port, path, 1, 0.5, headers)  # its first render, as measure() warms
        spent = {floor: [0.0, 0], path: [0.0, 0]}
        for _ in range(rounds):
            for asked, sent in ((floor, plain), (path, headers)):
                before = cpu_seconds(pids)
                answered = hammer(port, asked, 1, 1.0, sent)["requests"]
                spent[asked][0] += cpu_seconds(pids) - before
                spent[asked][1] += answered
        floor_ms, page_ms = (1000 * used / max(count, 1) for used, count in spent.values())
        rows.append(
            {
                "page": name,
                "floor_ms": floor_ms,
                "cpu_ms": page_ms,
                "times": page_ms / floor_ms if floor_ms else float("nan"),
                "load": os.getloadavg()[0],
            }
        )
        print(
            f"  {name:<40} {page_ms:.2f} ms CPU a request, the floor {floor_ms:.2f}: "
            f"{rows[-1]['times']:.2f} times",
            flush=True,
        )
    return rows


NEVER_STALE_READS = 100  # deals recorded, each followed at once by a read of the game's page


def never_stale(port: int, reads: int = NEVER_STALE_READS) -> tuple[int, int]:
    """A deal recorded, then the game's page asked for at once over HTTP, ``reads`` times:
    how many answers showed the deal (the page's live version is the game's new one, not
    the kept copy's). The deals are recorded by this process, through the services and into
    the same database and Redis as the servers', in a game of its own that two teams'
    alternate deals never end, deleted after."""
    from benchmarks import scenarios as sc
    from club.games import services as scoring
    from club.games.views import live_version

    world = sc.find_world()
    game = scoring.create_game(
        label=f"bench never stale {time.time_ns()}",
        teams=sc.two_teams(world),
        first_dealer=0,
        club=world.club,
    )
    seating = scoring.load_seating(game)
    path = f"{world.prefix}/games/{game.pk}/"
    headers = {"Host": f"{HOST}:{port}"}
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    fresh = 0
    try:
        for number in range(1, reads + 1):
            connection.request("GET", path, headers=headers)  # the page kept before the deal
            connection.getresponse().read()
            scoring.record_deal(game=game, number=number, entry=sc._deal(seating, number))
            game.refresh_from_db(fields=["updated_at"])
            connection.request("GET", path, headers=headers)
            body = connection.getresponse().read().decode()
            fresh += f'data-live-version="{live_version(game)}"' in body
    finally:
        connection.close()
        game.delete()
    return fresh, reads


def capacity(port: int, path: str, seconds: float) -> tuple[int, list[tuple[int, float]]]:
    """The most spectators (polling every 5 s) whose polls keep a p95 under 100 ms."""
    headers = {"Host": f"{HOST}:{port}", "HX-Request": "true"}
    steps = []
    held = 0
    for rate in (100, 200, 400, 600, 800, 1000, 1200, 1400, 1600, 2000):
        p95 = paced(port, path, rate, seconds, headers)
        steps.append((rate, p95))
        print(f"  {rate:>5} polls/s ({rate * 5:>6} spectators): p95 {p95:7.2f} ms", flush=True)
        if p95 >= 100:
            break
        held = rate * 5
    return held, steps


def report(
    args,
    runs: dict[str, list[dict]],
    held,
    steps,
    pair: list[dict],
    floor: list[dict],
    fresh: tuple[int, int] = (0, 0),
) -> str:
    servers = f"{args.servers} × " if args.servers > 1 else ""
    lines = [
        f"### HTTP · {args.database} · {args.preset} · {servers}gunicorn --workers {args.workers}",
        "",
        f"{os.cpu_count()} CPUs shared by gunicorn, the database, Redis and the load "
        f"generator; {args.seconds:g} s a row; latency from the client, CPU per request the "
        "workers' own.",
        "",
        "| page | pages | connections | p50 ms | p95 ms | requests/s | workers' CPU ms/request |"
        " errors | load |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, rows in runs.items():
        for row in rows:
            lines.append(
                f"| {row['page']} | {label} | {row['connections']} | {row['p50']:.2f} | "
                f"{row['p95']:.2f} | {row['per_second']:.1f} | {row['cpu_ms']:.2f} | "
                f"{row['errors']} | {row['load']:.1f} |"
            )
    if args.servers > 1:
        lines += [
            "",
            f"{args.servers} app servers (gunicorn, {args.workers} workers each) on one "
            "PostgreSQL, sharing one Redis for kept pages; the connections spread over the "
            "servers in turn, every worker's CPU counted.",
            "",
        ]
        return "\n".join(lines)
    lines += [
        "",
        "Kept in Redis, each page beside the floor (the trivial view), in turns: a second of "
        f"each, {ROUNDS} times, from one connection; the workers' CPU a request.",
        "",
        "| page | workers' CPU ms/request | the floor's, in the same turns | times the floor "
        "| load |",
        "|---|---:|---:|---:|---:|",
        *(
            f"| {row['page']} | {row['cpu_ms']:.2f} | {row['floor_ms']:.2f} | "
            f"{row['times']:.2f} | {row['load']:.1f} |"
            for row in floor
        ),
    ]
    lines += [
        "",
        f"Capacity (kept in Redis): spectators polling the tournament's live fragment every "
        f"5 s (204), p95 under 100 ms: **{held:,}** "
        f"({', '.join(f'{rate}/s: {p95:.1f} ms' for rate, p95 in steps)}).",
        "",
        f"Never stale (kept in Redis): a deal recorded, then the game's page read at once: "
        f"**{fresh[0]} of {fresh[1]}** showed the deal.",
        "",
        "Two app servers sharing the Redis, the tournament's page from 8 connections each at "
        "once: "
        + "; ".join(
            f"server {row['server']} p50 {row['p50']:.2f} ms, p95 {row['p95']:.2f} ms, "
            f"{row['per_second']:.0f}/s, {row['cpu_ms']:.2f} ms CPU a request"
            for row in pair
        )
        + ".",
        "",
    ]
    return "\n".join(lines)


def servers_sharing_redis(args, pages: dict[str, str]) -> dict[str, list[dict]]:
    """``args.servers`` gunicorns on one database, every page asked of all of them at once:
    with the pages kept in the one Redis they share, then with none kept (each rendered)."""
    runs = {}
    for label, cache in (("kept in the shared Redis", args.redis), ("rendered", "none")):
        os.environ["DJANGO_CACHE_URL"] = cache
        ports: list[int] = []
        servers: list[subprocess.Popen] = []
        try:
            for number in range(1, args.servers + 1):
                ports.append(free_port())
                log = Path(f"/tmp/fiftysix-bench-http-server-{number}.log")
                servers.append(start_gunicorn(ports[-1], args.workers, log))
            time.sleep(1)
            print(f"==> {label}, {args.servers} app servers on ports {ports}", flush=True)
            runs[label] = measure(ports, servers, pages, args.seconds, (args.servers, 16))
        finally:
            for server in servers:
                stop_gunicorn(server)
    return runs


def flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.http", description=__doc__)
    parser.add_argument(
        "--preset", choices=["small", "large", "federation", "clubs"], default="small"
    )
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--servers",
        type=int,
        default=1,
        help="app servers sharing --redis, requests spread over them (kept and rendered only)",
    )
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12", help="emptied first")
    parser.add_argument("--out", type=Path, default=BASE_DIR / "results")
    args = parser.parse_args(argv)
    production_environment(
        database_url(args.preset, args.database), settings="benchmarks.http_settings"
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input"],
        cwd=BASE_DIR,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    # This process records the never-stale check's deals: its kept pages are the servers'.
    os.environ["DJANGO_CACHE_URL"] = args.redis
    pages = the_club()
    flush_redis(args.redis)
    runs: dict[str, list[dict]] = {}
    held, steps, pair, floor, fresh = 0, [], [], [], (0, 0)
    if args.servers > 1:
        runs = servers_sharing_redis(args, pages)
    for label, cache in (
        ()
        if args.servers > 1
        else (
            ("kept in Redis", args.redis),
            ("kept in each worker's memory", "locmem"),
            ("rendered", "none"),
        )
    ):
        os.environ["DJANGO_CACHE_URL"] = cache
        port = free_port()
        log = Path(f"/tmp/fiftysix-bench-http-{cache.split(':')[0]}.log")
        server = start_gunicorn(port, args.workers, log)
        try:
            time.sleep(1)
            print(f"==> {label}, gunicorn on {HOST}:{port}", flush=True)
            runs[label] = measure(port, server, pages, args.seconds)
            if cache == args.redis:
                print("==> each kept page beside the floor, in turns", flush=True)
                floor = beside_the_floor(port, server, pages)
                held, steps = capacity(port, pages["tournament live, unchanged (204)"], 5.0)
                print("==> never stale: a deal, then its page at once", flush=True)
                fresh = never_stale(port)
                second_port = free_port()
                second = start_gunicorn(
                    second_port, args.workers, Path("/tmp/fiftysix-bench-http-second.log")
                )
                try:
                    print("==> two app servers sharing Redis", flush=True)
                    pair = two_servers(
                        [port, second_port],
                        [server, second],
                        pages["tournament standings"],
                        args.seconds,
                    )
                finally:
                    stop_gunicorn(second)
        finally:
            stop_gunicorn(server)
    text = report(args, runs, held, steps, pair, floor, fresh)
    args.out.mkdir(exist_ok=True)
    servers = f"-{args.servers}-servers" if args.servers > 1 else ""
    path = args.out / f"http-{args.database}-{args.preset}{servers}.md"
    path.write_text(text)
    print(text)
    print(f"Written to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
