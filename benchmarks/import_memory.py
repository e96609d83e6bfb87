"""How much memory ``manage.py import_results FILE`` takes: ``python -m benchmarks.import_memory``.

Builds ``fiftysix-results/1`` files of the sizes asked for (10 MiB and 49 MiB by
default, just under the command's 50 MB cap), the way an export writes them
(:func:`benchmarks.import_speed.build_document`: games of 2, 3 and 4 teams, every
deal settled by the rules core, computed fields and all). Then, for each database
asked for, it migrates a fresh database for each file, imports the file with
``manage.py import_results`` in a process of its own and reports that process's
peak resident memory (``ru_maxrss`` of the child, which is the kernel's VmHWM) and
its time. An archive with no game is imported first: the process's floor (Python,
Django and the app loaded), which every figure is also given above.

The databases are never the club's: SQLite ``/tmp/fiftysix-import-memory.sqlite3``;
PostgreSQL the database ``DATABASE_URL`` names when it is a PostgreSQL URL, else
``fiftysix_import_memory`` on 127.0.0.1 as ``postgres``. Each is dropped and
created again first. Imports run with ``DJANGO_DEBUG=0``, as in production.

    python -m benchmarks.import_memory [--database sqlite|postgres|both]
                                       [--mib 10 49] [--seed N] [--folder PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import import_speed
from benchmarks.import_speed import build_document

ROOT = Path(__file__).resolve().parent.parent
SQLITE_PATH = Path("/tmp/fiftysix-import-memory.sqlite3")
POSTGRES_NAME = "fiftysix_import_memory"
BYTES_A_DEAL = 415  # what build_document's files hold a deal, measured
PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "import-memory-benchmark",
    "DJANGO_ALLOWED_HOSTS": "localhost",
}


def build_file(path: Path, mib: float, seed: int) -> dict:
    """A results file of about ``mib`` MiB (under it, never over); kept and reused."""
    if path.exists():
        document = json.loads(path.read_text(encoding="utf-8"))
        return {
            "bytes": path.stat().st_size,
            "games": len(document["games"]),
            "deals": sum(len(game["rounds"]) for game in document["games"]),
        }
    target = int(mib * 1024 * 1024)
    deals = int(target / BYTES_A_DEAL)
    while True:
        document = build_document(deals, seed)
        text = json.dumps(document, ensure_ascii=False).encode("utf-8")
        if len(text) <= target:
            break
        deals = int(deals * target / len(text) * 0.995)
    path.write_bytes(text)
    return {
        "bytes": len(text),
        "games": len(document["games"]),
        "deals": sum(len(game["rounds"]) for game in document["games"]),
    }


def fresh_database(database: str) -> str:
    """An empty, migrated database of this benchmark's own, migrated as it runs."""
    return import_speed.fresh_database(
        database, sqlite_path=SQLITE_PATH, postgres_name=POSTGRES_NAME, env=PRODUCTION
    )


# Run in the child: manage.py itself, then, as the process ends, its own high-water mark
# of resident memory (VmHWM). A child's ru_maxrss would also count the parent's pages it
# shared between fork and exec, which here are the big document just built.
LAUNCH = """
import atexit, runpy, sys

def peak():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                sys.stderr.write("\\npeak-kib " + line.split()[1] + "\\n")

atexit.register(peak)
sys.argv = ["manage.py", *sys.argv[1:]]
runpy.run_path("manage.py", run_name="__main__")
"""


def peak_of_import(path: Path, url: str) -> dict:
    """Run ``manage.py import_results path``; its peak resident memory (MiB) and time."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH, "import_results", str(path)],
        cwd=ROOT,
        env={**os.environ, **PRODUCTION, "DATABASE_URL": url},
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"import of {path} failed: {done.stderr}")
    kib = int(done.stderr.rsplit("peak-kib ", 1)[1].split()[0])
    return {"peak_mib": kib / 1024, "seconds": seconds}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--mib", type=float, nargs="+", default=[10, 49])
    parser.add_argument("--seed", type=int, default=56)
    parser.add_argument("--folder", type=Path, default=Path("/tmp"))
    args = parser.parse_args(argv)

    empty = args.folder / "fiftysix-import-memory-empty.json"
    empty.write_text(json.dumps({"format": "fiftysix-results/1", "games": []}))
    files = []
    for mib in args.mib:
        path = args.folder / f"fiftysix-import-memory-{mib:g}mib-{args.seed}.json"
        facts = build_file(path, mib, args.seed)
        print(
            f"{path}: {facts['bytes'] / 1024 / 1024:.1f} MiB, {facts['games']:,} games, "
            f"{facts['deals']:,} deals",
            flush=True,
        )
        files.append((path, facts))
    databases = ("sqlite", "postgres") if args.database == "both" else (args.database,)
    for database in databases:
        floor = peak_of_import(empty, fresh_database(database))["peak_mib"]
        print(f"{database:<8} no game: peak {floor:.0f} MiB", flush=True)
        for path, facts in files:
            result = peak_of_import(path, fresh_database(database))
            peak, mib = result["peak_mib"], facts["bytes"] / 1024 / 1024
            print(
                f"{database:<8} {mib:5.1f} MiB file: peak {peak:.0f} MiB "
                f"({peak - floor:.0f} above the floor, {peak / mib:.1f}× the file), "
                f"{result['seconds']:.0f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
