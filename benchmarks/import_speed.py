"""How fast ``import_results`` stores a big results file: ``python -m benchmarks.import_speed``.

Builds a ``fiftysix-results/1`` file of about 54,000 deals (``--deals``) the way
an export writes it, computed fields and all: games of 2, 3 and 4 teams from a
club of 240 players in 120 teams, every deal a random valid one settled by the
rules core (:func:`club.ops.synthetic.play_game`); a few games have a deal limit,
some had time called on them and some are still being played. Then, for each
database asked for, it migrates a fresh database, imports the file in a process
of its own and reports the time, the deals a second and the SQL statements.

The databases are never the club's: SQLite ``/tmp/fiftysix-import-speed.sqlite3``;
PostgreSQL ``fiftysix_import_speed`` on the server ``DATABASE_URL`` names (or
127.0.0.1 as ``postgres``), or the database ``DATABASE_URL`` names when it is a
PostgreSQL URL. Each is dropped and created again first.

    python -m benchmarks.import_speed [--database sqlite|postgres|both] [--deals N]
                                      [--seed N] [--file PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SQLITE_PATH = Path("/tmp/fiftysix-import-speed.sqlite3")
POSTGRES_NAME = "fiftysix_import_speed"

# Run in the child, against the fresh database: import the file, timed.
CHILD = """
import json, sys, time
import django
django.setup()
from django.db import connection
from club.games.models import Game, Round
from club.archive.load import import_results
from club.archive import format as archive_format

statements = 0

def count(execute, sql, params, many, context):
    global statements
    statements += 1
    return execute(sql, params, many, context)

# Who is who: the time the import spends matching the file's listed players and settling
# them (club.games.whos_who), of the whole.
from club.archive import load
from club.games import whos_who

matching = 0.0

def timed(function):
    def run(*args, **kwargs):
        global matching
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            matching += time.perf_counter() - start
    return run

load.match_players = timed(load.match_players)
whos_who.WhosWho.settle = timed(whos_who.WhosWho.settle)

text = open(sys.argv[1], encoding="utf-8").read()
with connection.execute_wrapper(count):
    start = time.perf_counter()
    summary = import_results(text)
    took = time.perf_counter() - start
print(json.dumps({
    "seconds": took,
    "games": summary.games,
    "deals": summary.deals,
    "stored_games": Game.objects.count(),
    "stored_deals": Round.objects.count(),
    "statements": statements,
    "matching": matching,
}))
"""


def build_document(deals: int, seed: int, *, listed: bool = True) -> dict:
    """A results file of at least ``deals`` deals, in the shape an export writes: with the
    ``players`` list of every player and their identifier (``listed``), or without it, as
    an older file."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "club.settings")
    django.setup()
    from club.archive import format as archive_format
    from club.archive.format import FORMAT, TeamSpec
    from club.ops.synthetic import play_game
    from club.scoring import rules as core

    rng = random.Random(seed)
    players = [f"Import Player {number:03d}" for number in range(1, 241)]
    teams = [
        TeamSpec(f"Import Team {number:03d}", players[2 * number - 2], players[2 * number - 1])
        for number in range(1, 121)
    ]
    games = []
    total = 0
    while total < deals:
        roll = rng.random()
        team_count = 2 if roll < 0.8 else 3 if roll < 0.9 else 4
        deal_limit = None if team_count == 2 and rng.random() < 0.8 else 40
        chosen = rng.sample(teams, team_count)
        first_dealer = rng.randrange(team_count * 2)
        deals_played, settlements, state = play_game(team_count, first_dealer, rng, deal_limit)
        ended_early = False
        if rng.random() < 0.05 and len(settlements) > 2:
            # Time called (or, without it, a game still being played): cut it short.
            cut = rng.randrange(1, len(settlements) - 1)
            settlements, state = core.replay(team_count, first_dealer, deals_played[:cut])
            ended_early = rng.random() < 0.5
        games.append(
            archive_format._game_document(
                label=f"Import game {len(games) + 1:05d}",
                rules=core.DEFAULT_RULES,
                teams=chosen,
                first_dealer=first_dealer,
                settlements=settlements,
                state=state,
                deal_limit=deal_limit,
                ended_early=ended_early,
            )
        )
        total += len(settlements)
    if not listed:
        return {"format": FORMAT, "games": games}
    ids = random.Random(seed + 1)
    register = [
        {"name": name, "id": str(uuid.UUID(int=ids.getrandbits(128), version=4))}
        for name in players
    ]
    return {"format": FORMAT, "players": register, "games": games}


def fresh_database(
    database: str,
    *,
    sqlite_path: Path = SQLITE_PATH,
    postgres_name: str = POSTGRES_NAME,
    env: dict | None = None,
) -> str:
    """A URL to an empty, migrated database of the kind asked for (migrated with ``env``
    added to this process's environment)."""
    if database == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{sqlite_path}{suffix}").unlink(missing_ok=True)
        url = f"sqlite:///{sqlite_path}"
    else:
        import psycopg

        given = os.environ.get("DATABASE_URL", "")
        if given.startswith("postgres"):
            server, name = given.rsplit("/", 1)
        else:
            server, name = "postgres://postgres@127.0.0.1:5432", postgres_name
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        url = f"{server}/{name}"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"],
        cwd=ROOT,
        env={**os.environ, **(env or {}), "DATABASE_URL": url},
        check=True,
    )
    return url


def time_import(path: Path, url: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "club.settings"},
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--deals", type=int, default=54_000)
    parser.add_argument("--seed", type=int, default=56)
    parser.add_argument("--file", type=Path, default=Path("/tmp/fiftysix-import-speed.json"))
    parser.add_argument(
        "--unlisted",
        action="store_true",
        help="leave out the players list (an older file): every name is found by name",
    )
    args = parser.parse_args(argv)

    document = build_document(args.deals, args.seed, listed=not args.unlisted)
    text = json.dumps(document, ensure_ascii=False)
    args.file.write_text(text, encoding="utf-8")
    deals = sum(len(game["rounds"]) for game in document["games"])
    print(
        f"{args.file}: {len(document['games']):,} games, {deals:,} deals, "
        f"{len(text.encode()) / 1e6:.1f} MB",
        flush=True,
    )
    databases = ("sqlite", "postgres") if args.database == "both" else (args.database,)
    for database in databases:
        url = fresh_database(database)
        result = time_import(args.file, url)
        assert result["stored_deals"] == result["deals"] == deals, result
        print(
            f"{database:<8} {result['deals']:,} deals in {result['seconds']:.1f} s = "
            f"{result['deals'] / result['seconds']:,.0f} deals/s "
            f"({result['deals'] / result['seconds'] * 60:,.0f} a minute), "
            f"{result['statements']:,} SQL statements "
            f"({result['statements'] / result['deals']:.1f} a deal); matching the players "
            f"{result['matching'] * 1000:.0f} ms "
            f"({100 * result['matching'] / result['seconds']:.2f} % of the import)",
            flush=True,
        )


if __name__ == "__main__":
    main()
