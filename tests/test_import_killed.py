"""An import killed halfway (power cut, Ctrl-C, OOM killer) leaves nothing behind.

The import runs as a real process against a real database of its own, is
killed with SIGKILL while it is writing, and the database is then checked.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
DEMO = ROOT / "fixtures" / "demo.json"


def big_results_file(path: Path, copies: int) -> Path:
    """The demo's games many times over, each copy under its own labels."""
    demo = json.loads(DEMO.read_text())
    games = []
    for copy in range(copies):
        for game in demo["games"]:
            games.append({**game, "label": f"{game['label']} #{copy}"})
    path.write_text(json.dumps({"format": demo["format"], "games": games}))
    return path


def manage(*args, database_url, **kwargs):
    env = {**os.environ, "DATABASE_URL": database_url, "DJANGO_DEBUG": "1"}
    return subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )


def database_for_this_run(tmp_path):
    """A throwaway database of the kind the suite runs on."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        import psycopg

        base = url.rsplit("/", 1)[0]
        name = f"fiftysix_killed_{os.getpid()}"
        with psycopg.connect(f"{base}/postgres", autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
            connection.execute(f'CREATE DATABASE "{name}"')

        def count_games():
            with psycopg.connect(f"{base}/{name}") as connection:
                return connection.execute("SELECT count(*) FROM games_game").fetchone()[0]

        def writing():
            # The importer's transaction holds a write lock on the games table.
            with psycopg.connect(f"{base}/postgres") as connection:
                return (
                    connection.execute(
                        "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
                        "WHERE d.datname = %s AND l.mode = 'RowExclusiveLock'",
                        [name],
                    ).fetchone()[0]
                    > 0
                )

        def drop():
            with psycopg.connect(f"{base}/postgres", autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

        return f"{base}/{name}", count_games, writing, drop
    path = tmp_path / "club.sqlite3"

    def count_games():
        with sqlite3.connect(path) as connection:
            return connection.execute("SELECT count(*) FROM games_game").fetchone()[0]

    def writing():
        # While the importer writes, it holds SQLite's write lock: we cannot take it.
        connection = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("ROLLBACK")
            return False
        except sqlite3.OperationalError:
            return True
        finally:
            connection.close()

    return f"sqlite:///{path}", count_games, writing, lambda: None


def test_an_import_killed_while_writing_leaves_nothing(tmp_path):
    url, count_games, writing, drop = database_for_this_run(tmp_path)
    try:
        migrate = manage("migrate", "--no-input", "-v", "0", database_url=url)
        assert migrate.wait(timeout=120) == 0, migrate.stderr.read().decode()
        results = big_results_file(tmp_path / "results.json", copies=60)
        importer = manage("import_results", str(results), database_url=url)
        # Checking the whole file comes first and writes nothing; wait until the
        # import is writing games, let it write a little more, then pull the plug.
        deadline = time.monotonic() + 120
        while not writing() and importer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)
        still_running = importer.poll() is None
        importer.send_signal(signal.SIGKILL)
        importer.wait(timeout=30)
        assert still_running, "the import finished before it could be killed: use a bigger file"
        assert importer.returncode == -signal.SIGKILL
        assert count_games() == 0
    finally:
        drop()
