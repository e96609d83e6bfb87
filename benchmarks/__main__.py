"""Run the benchmarks: ``python -m benchmarks --preset large --database sqlite``.

The benchmark database is never the club's: SQLite files live in /tmp
(``/tmp/fiftysix-bench-<preset>.sqlite3``) and PostgreSQL databases are called
``fiftysix_bench_<preset>`` unless ``DATABASE_URL`` names another. A database
without the preset's club is migrated and filled by ``generate_club`` first.

Every request goes through ``django.test.Client`` (middleware, URL resolution,
view, templates; no sockets), with DEBUG off so that no query is logged while
timing. The harness adds a sitting of its own to the tournament measured (fresh
games to record into and a 60-deal game to correct) and removes it at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def database_url(preset: str, database: str) -> str:
    given = os.environ.get("DATABASE_URL", "")
    if database == "sqlite":
        if given.startswith("sqlite"):
            return given
        return f"sqlite:////tmp/fiftysix-bench-{preset}.sqlite3"
    if given.startswith("postgres"):
        return given
    return f"postgres://postgres@127.0.0.1:5432/fiftysix_bench_{preset}"


def ensure_postgres_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    server = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(server, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def manage(*args: str, env: dict) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True)


def prepare(preset: str, url: str) -> None:
    """Migrate and generate the preset's club unless the database holds one already, and
    the season of club nights on top of it unless it holds that too."""
    env = {**os.environ, "DATABASE_URL": url}
    if url.startswith("postgres"):
        ensure_postgres_database(url)
    manage("migrate", "-v0", env=env)
    found = _ask(
        "from club.tournaments.models import Tournament;"
        "print(Tournament.objects.filter(name__startswith='S56 Cup').count())",
        env,
    )
    if found in ("", "0"):
        print(f"==> generating the {preset} club into {url}", flush=True)
        manage("generate_club", "--preset", preset, env=env)
    else:
        _figures_kept(env)
    # The season of club nights (benchmarks/season.py), on top of the preset's history.
    season = _ask(
        "from club.competitions.models import Competition;"
        "print(Competition.objects.filter(name__startswith='S56 Season ').count())",
        env,
    )
    if season in ("", "0"):
        print(f"==> adding a season of 40 club nights to the {preset} club", flush=True)
        manage("generate_club", "--preset", "season", env=env)


def _figures_kept(env: dict) -> None:
    """A club generated before the leaderboard figures were kept: compute them once."""
    kept = _ask(
        "from club.leaderboards.models import PlayerTotals;print(PlayerTotals.objects.exists())",
        env,
    )
    if kept == "False":
        print("==> computing the leaderboard figures of this club once", flush=True)
        manage("rebuild_leaderboards", env=env)


def _ask(code: str, env: dict) -> str:
    """The last word ``code`` prints in ``manage.py shell`` against the benchmark database."""
    words = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return words[-1] if words else ""


def archive_export(url: str, fmt: str) -> dict:
    """Stream the whole archive to /dev/null in a process of its own: time and peak memory.

    This is the path ``export_results`` and the downloads take: the text is
    made piece by piece and written as it comes, never held whole. ``bytes``
    counts what was written (UTF-8).
    """
    env = {**os.environ, "DATABASE_URL": url}
    script = (
        "import resource, time, django, sys\n"
        # VmHWM is this process's own peak: ru_maxrss would carry the harness's
        # peak over, since Linux keeps it across the exec that starts the child.
        "def peak_kb():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1])\n"
        "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "django.setup()\n"
        f"from club.archive.export import stream_{fmt}\n"
        "from club.games.models import Round\n"
        "size = 0\n"
        "start = time.perf_counter()\n"
        "with open('/dev/null', 'wb') as sink:\n"
        f"    for piece in stream_{fmt}():\n"
        "        data = piece.encode()\n"
        "        size += len(data)\n"
        "        sink.write(data)\n"
        "took = time.perf_counter() - start\n"
        "print(took, Round.objects.count(), size,"
        " peak_kb())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "club.settings"},
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    took, deals, size, maxrss_kb = done.stdout.split()
    return {
        "seconds": float(took),
        "deals": int(deals),
        "bytes": int(size),
        "deals_per_second": int(deals) / float(took),
        "peak_rss_mb": int(maxrss_kb) / 1024,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "--preset", choices=["small", "large", "federation", "clubs"], default="small"
    )
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--repeat", type=int, default=30, help="requests per scenario")
    parser.add_argument(
        "--budget", type=float, default=20.0, help="seconds per scenario before fewer repeats"
    )
    parser.add_argument("--out", default="results", help="folder for the table and JSON")
    parser.add_argument("--plot", default="docs/bench.png", help="where the plot goes")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="WORD",
        help="skip the scenarios whose name holds WORD (e.g. leaderboard: minutes at large)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="WORD",
        help="measure only the scenarios whose name holds WORD (e.g. api)",
    )
    parser.add_argument(
        "--skip-archive", action="store_true", help="skip exporting the whole archive"
    )
    parser.add_argument(
        "--cache",
        default="redis://127.0.0.1:6379/11",
        help="the pages cache (DJANGO_CACHE_URL), emptied first: Redis as production runs it "
        "(a kept page is read with no query), or locmem (the key read from the database)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a run's JSON to compare each scenario with (default: the small preset's in --out)",
    )
    parser.add_argument(
        "--summary",
        action="store_true",
        help="print one table of every preset and database found in --out, and stop",
    )
    args = parser.parse_args(argv)
    if args.summary:
        from benchmarks import report

        print(report.summary(ROOT / args.out), end="")
        return 0

    url = database_url(args.preset, args.database)
    if "club.sqlite3" in url:
        raise SystemExit("The benchmark never runs on the club's own database.")
    prepare(args.preset, url)
    os.environ["DATABASE_URL"] = url
    os.environ["DJANGO_CACHE_URL"] = args.cache
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "club.settings")
    sys.path.insert(0, str(ROOT))

    import django
    from django.conf import settings

    django.setup()
    settings.DEBUG = False  # no query log while timing; static files stay as in development
    settings.ROOT_URLCONF = "benchmarks.urls"

    from django.core.cache import caches

    from benchmarks import report, run

    caches["pages"].clear()  # no page kept by an earlier run (Redis outlives the process)
    started = time.perf_counter()
    results = run.run_all(
        repeat=args.repeat, budget=args.budget, skip=tuple(args.skip), only=tuple(args.only)
    )
    if not args.skip_archive:
        print("==> exporting the whole archive (JSON, then CSV) in a process of its own")
        results["archive"] = {fmt: archive_export(url, fmt) for fmt in ("json", "csv")}
    results["meta"].update(
        preset=args.preset,
        database=args.database,
        cache=args.cache,
        seconds=time.perf_counter() - started,
        python=platform.python_version(),
        machine=f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
        harness_peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    )
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{args.database}-{args.preset}"
    stem.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n")
    text = report.markdown(results, ROOT / args.out, args.baseline)
    stem.with_suffix(".md").write_text(text)
    print(text)
    report.plot(out, ROOT / args.plot)
    print(f"==> wrote {stem}.md, {stem}.json and {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
