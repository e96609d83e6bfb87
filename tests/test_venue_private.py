"""What the venue keeps on the laptop is the organiser's alone: its folder (0700), the club's
database with SQLite's -wal and -shm beside it, and the secret key that signs the organiser's
login (0600). Another account on a shared laptop reads none of it.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import urllib.request
from pathlib import Path

import pytest

from club import venue
from tests.venue import PASSWORD, free_port, serving, start_once

pytestmark = [
    pytest.mark.skipif(
        bool(os.environ.get("DATABASE_URL")),
        reason="the venue keeps the club's SQLite file of its own: once, in the SQLite half",
    ),
    pytest.mark.skipif(os.name == "nt", reason="file modes are POSIX"),
]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def open_to_others(folder: Path) -> list[str]:
    """Everything in ``folder``, itself included, that another account could read or enter,
    but the static files: every phone is sent them, and Django's storage gives them its own
    mode (only the folder, 0700, keeps them from the laptop's other accounts)."""
    return [
        f"{path} {oct(mode(path))}"
        for path in [folder, *folder.rglob("*")]
        if mode(path) & 0o077 and "staticfiles" not in path.relative_to(folder).parts
    ]


def test_what_the_venue_makes_is_its_owners_alone(tmp_path):
    folder = tmp_path / "venue"  # made by the venue
    with serving(folder, "127.0.0.1", fresh=True) as served:
        assert "Organiser olive created." in served.terminal
        assert urllib.request.urlopen(served.url + "/", timeout=10).status == 200
        made = {path.name for path in folder.iterdir()}
        assert {"club.sqlite3", "club.sqlite3-wal", "club.sqlite3-shm"} <= made  # in use
        assert mode(folder) == 0o700
        for name in venue.KEPT_FILES:
            assert mode(folder / name) == 0o600, name
        assert open_to_others(folder) == []


def test_a_folder_left_open_by_an_earlier_start_is_made_private_and_said_so(tmp_path):
    folder = tmp_path / "venue"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    with sqlite3.connect(folder / "club.sqlite3") as database:
        database.execute("CREATE TABLE earlier (night TEXT)")
    (folder / "club.sqlite3").chmod(0o644)
    (folder / venue.SECRET_FILE).write_text("a-key-an-earlier-start-kept-0123456789abcdefghijk")
    (folder / venue.SECRET_FILE).chmod(0o644)
    answer = start_once(
        folder,
        "--address",
        "127.0.0.1",
        "--port",
        str(free_port()),
        "--organiser",
        "olive",
        DJANGO_ORGANISER_PASSWORD=PASSWORD,
    )
    assert answer.returncode is None, answer.terminal  # served
    # (and SQLite's -wal and -shm, made as wide as the database when it was first opened)
    assert "Other accounts on this laptop could read the venue's folder, club.sqlite3, " in (
        answer.terminal
    )
    assert f"venue-secret-key in {folder}: now only this account can." in answer.terminal
    assert mode(folder) == 0o700
    assert mode(folder / "club.sqlite3") == 0o600
    assert mode(folder / venue.SECRET_FILE) == 0o600
    assert open_to_others(folder) == []


def test_the_secret_key_is_never_open_to_others_not_even_while_it_is_made(tmp_path, monkeypatch):
    """With no umask to narrow it, the key is still made 0600 at once: it is never made wider
    and narrowed after (which a chmod would be)."""

    def no_narrowing(*args, **kwargs):
        raise AssertionError("the key was made wider than its owner's, then narrowed")

    monkeypatch.setattr(os, "chmod", no_narrowing)
    monkeypatch.setattr(Path, "chmod", no_narrowing)
    earlier = os.umask(0)
    try:
        venue.keep_secret_key(tmp_path / "venue", "a-key-for-this-test-0123456789abcdefghijklmn")
    finally:
        os.umask(earlier)
    key = tmp_path / "venue" / venue.SECRET_FILE
    assert mode(key) == 0o600
    assert mode(key.parent) == 0o700
    assert key.read_text() == "a-key-for-this-test-0123456789abcdefghijklmn"
