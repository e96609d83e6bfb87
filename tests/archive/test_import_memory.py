"""An import's memory follows the game it is at, not the size of the file.

Measured as a club runs it: ``manage.py import_results FILE`` in a process of its
own, with production settings, against a real database; the process's peak
resident memory (VmHWM) is read as it ends. An archive with no game gives the
process's floor (Python, Django and the app). A file five times bigger may take
at most one and a half times the memory above that floor: read whole, as it was,
the file's JSON and every game checked were held at once, and the figure grew
with the file (the guide's Performance page has the measured figures). What was
imported then exports as the file's games.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from benchmarks.import_memory import LAUNCH
from club.archive import format as archive_format
from club.archive.format import FORMAT, TeamSpec
from club.ops.synthetic import random_deal
from club.scoring import rules as core

ROOT = Path(settings.BASE_DIR)
SMALL, BIG = 2, 10  # MiB
PRODUCTION = {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "memory", "DJANGO_ALLOWED_HOSTS": "x"}


def long_game() -> dict:
    """A game of 200 deals still being played (100 tables a team: nobody goes out), as an
    export writes it: most of a file's bytes are deals, and its time is spent on them."""
    rules = core.Rules(tables_per_team=100)
    rng = random.Random(56)
    state = core.initial_state(2, 0, rules)
    settlements = []
    for _ in range(200):
        settlement, state = core.settle(state, random_deal(state, rng))
        settlements.append(settlement)
    return archive_format._game_document(
        label="",
        rules=rules,
        teams=[
            TeamSpec("Memory & Lane", "Memory", "Lane"),
            TeamSpec("Peak & Floor", "Peak", "Floor"),
        ],
        first_dealer=0,
        settlements=settlements,
        state=state,
    )


def results_file(path: Path, mib: int, name: str) -> dict:
    """Copies of the long game under their own labels, until the file is ``mib`` MiB."""
    game = long_game()
    size = len(json.dumps(game))
    games = [{**game, "label": f"{name} {n}"} for n in range(mib * 1024 * 1024 // size + 1)]
    document = {"format": FORMAT, "games": games}
    path.write_text(json.dumps(document), encoding="utf-8")
    assert path.stat().st_size >= mib * 1024 * 1024
    return document


@pytest.fixture
def club_url(tmp_path) -> str:
    """The test database, for processes of their own: PostgreSQL's as it is; SQLite's,
    which lives in this process's memory, copied to a file."""
    connection.ensure_connection()
    if connection.vendor == "postgresql":
        server = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
        return f"{server}/{connection.settings_dict['NAME']}"
    path = tmp_path / "club.sqlite3"
    copy = sqlite3.connect(path)
    connection.connection.backup(copy)
    copy.close()
    return f"sqlite:///{path}"


def manage(url: str, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH, *args],
        cwd=ROOT,
        env={**os.environ, **PRODUCTION, "DATABASE_URL": url},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done


def peak_mib(url: str, path: Path) -> float:
    """The peak resident memory of ``manage.py import_results path``, in MiB."""
    done = manage(url, "import_results", str(path))
    return int(done.stderr.rsplit("peak-kib ", 1)[1].split()[0]) / 1024


@pytest.mark.django_db(transaction=True)
def test_a_five_times_bigger_file_takes_no_more_memory_than_the_game_it_is_at(tmp_path, club_url):
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"format": FORMAT, "games": []}))
    small = results_file(tmp_path / "small.json", SMALL, "Small")
    big = results_file(tmp_path / "big.json", BIG, "Big")

    floor = peak_mib(club_url, empty)
    above_small = peak_mib(club_url, tmp_path / "small.json") - floor
    above_big = peak_mib(club_url, tmp_path / "big.json") - floor

    figures = f"floor {floor:.0f} MiB, {SMALL} MiB +{above_small:.0f}, {BIG} MiB +{above_big:.0f}"
    assert above_big <= 1.5 * max(above_small, 1), figures
    # What was imported exports as the file's games, every deal's computed fields and all.
    exported = tmp_path / "exported.json"
    manage(club_url, "export_results", "--output", str(exported))
    games = {game["label"]: game for game in json.loads(exported.read_text())["games"]}
    assert games == {game["label"]: game for game in small["games"] + big["games"]}
