"""Fifty times a page's limit, posted to a real gunicorn worker: its memory stays put.

gunicorn (one sync worker, as production runs them) serves the club on a loopback
port from a SQLite file copied from the test database, an organiser and a tournament
in it. Each post is made a piece at a time over a socket, so that the test never holds
it: with its Content-Length, chunked, and with a length that lies. Before each, the
worker's peak resident memory is reset (``/proc/PID/clear_refs``); after it, the peak
(``VmHWM``) may have grown by the page's limit and a few MB, no more, and nothing is
saved. Before uploads were bounded, the player import read the whole file into memory
after storing it: a 50 MB post raised the worker's peak by 54 MB.

The database is a SQLite file of the test's own, whatever the suite runs on; it runs
once, in the SQLite half of CI. DEBUG is on only so that static files need no
collecting.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import socket
import sqlite3
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection

from club.leaderboards.services import MAX_IMPORT_BYTES
from club.tournaments.forms import MAX_LIST_BYTES
from loadtest.run import HOST, Client, free_port, inputs, start_gunicorn, stop_gunicorn
from tests.tournaments.helpers import make_tournament
from tests.web.helpers import PIECE, Multipart

MB = 1_000_000
FEW_MB = 4 * MB
ROOT = Path(settings.BASE_DIR)

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="the server uses a SQLite file of its own: once, in the SQLite half",
    ),
    pytest.mark.skipif(
        not Path("/proc/self/clear_refs").exists(), reason="needs Linux's /proc/PID/clear_refs"
    ),
]


def _status(pid: int, field: str) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE).group(1)) * 1024


def peak_growth(worker: int, post: Callable[[], tuple[int, str]]) -> tuple[int, str, int]:
    """What ``post`` answered, and how far the worker's resident memory rose above where
    it stood before it, at its highest."""
    Path(f"/proc/{worker}/clear_refs").write_text("5")  # VmHWM starts again from VmRSS
    before = _status(worker, "VmHWM")
    status, text = post()
    return status, text, _status(worker, "VmHWM") - before


def post_streamed(
    port: int,
    path: str,
    cookies: dict[str, str],
    content_type: str,
    pieces: Iterator[bytes],
    length: int | None,
) -> tuple[int, str]:
    """Send the body as it is made (chunked when ``length`` is None) while reading the
    answer, which may come, and the connection close, before the body is sent."""
    head = [
        f"POST {path} HTTP/1.1",
        f"Host: {HOST}:{port}",
        f"Origin: http://{HOST}:{port}",
        "Cookie: " + "; ".join(f"{name}={value}" for name, value in cookies.items()),
        f"Content-Type: {content_type}",
        "Connection: close",
        f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked",
    ]
    sock = socket.create_connection((HOST, port), timeout=60)

    def send():
        try:
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
            for piece in pieces:
                sock.sendall(piece if length is not None else b"%x\r\n%s\r\n" % (len(piece), piece))
            if length is None:
                sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the worker answered and closed without reading the rest

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    answer = bytearray()
    try:
        while chunk := sock.recv(PIECE):
            answer += chunk
    except ConnectionResetError:
        pass
    finally:
        sock.close()
        sender.join(timeout=30)
    status_line, _, rest = bytes(answer).partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 "), bytes(answer[:200])
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2].decode("utf-8", "replace")


def _copy_database(path: Path) -> None:
    connection.ensure_connection()
    target = sqlite3.connect(path)
    try:
        connection.connection.backup(target)
    finally:
        target.close()


def _counts(path: Path) -> tuple[int, int]:
    database = sqlite3.connect(path)
    try:
        players = database.execute("SELECT count(*) FROM games_player").fetchone()[0]
        teams = database.execute("SELECT count(*) FROM tournaments_tournamentteam").fetchone()[0]
        return players, teams
    finally:
        database.close()


@pytest.mark.django_db(transaction=True)  # committed, so that the copy holds them
def test_fifty_times_the_limit_leaves_the_worker_s_memory_alone(tmp_path, django_user_model):
    # A hash the server's hashers read (the tests' own is MD5, for speed), made cheaply.
    password = PBKDF2PasswordHasher().encode("olive-pw", "uploads", iterations=1_000)
    django_user_model.objects.create(username="olive", password=password, is_staff=True)
    tournament = make_tournament(teams=0)
    database = tmp_path / "club.sqlite3"
    _copy_database(database)
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{database}",
        "DJANGO_SETTINGS_MODULE": "club.settings",
        "DJANGO_DEBUG": "1",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(40),
        "DJANGO_ALLOWED_HOSTS": HOST,
        "DJANGO_CACHE_URL": "locmem",
        "DJANGO_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
    }
    port = free_port()
    server = start_gunicorn(port, 1, tmp_path / "gunicorn.log", env=env)
    try:
        (worker,) = map(
            int, Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        )
        browser = Client(port)
        login = inputs(browser.request("GET", "/accounts/login/").body)
        login.update(username="olive", password="olive-pw")
        assert browser.request("POST", "/accounts/login/", login).status == 302

        def form(path: str) -> dict[str, str]:
            fields = inputs(browser.request("GET", path).body)
            return {name: fields[name] for name in ("csrfmiddlewaretoken", "idempotency_key")}

        def upload(path, size, length=True, told=None, page=None, **fields):
            body = Multipart({**form(page or path), **fields}, file_size=size)
            sent = told if told is not None else (len(body) if length else None)
            return lambda: post_streamed(
                port, path, browser.cookies, body.content_type, body.pieces(), sent
            )

        players = "/players/import/"
        teams = f"/tournaments/{tournament.pk}/teams/list/"
        # Once first, so that what a first refusal loads (its templates) is not counted.
        peak_growth(worker, upload(players, 2 * MAX_IMPORT_BYTES))

        status, text, growth = peak_growth(worker, upload(players, 50 * MAX_IMPORT_BYTES))
        assert status == 413
        assert "The file is 50 MB; the most this page takes is 1 MB." in text
        assert growth < MAX_IMPORT_BYTES + FEW_MB, f"{growth / MB:.1f} MB"

        status, text, growth = peak_growth(
            worker, upload(teams, 50 * MAX_LIST_BYTES, page=tournament.get_absolute_url(), teams="")
        )
        assert status == 413
        assert "The file is 5 MB; the most this page takes is 100 KB." in text
        assert growth < MAX_LIST_BYTES + FEW_MB, f"{growth / MB:.1f} MB"

        # Chunked: under WSGI Django reads no body without a Content-Length, so the
        # form arrives empty, its CSRF token missing.
        status, text, growth = peak_growth(
            worker, upload(players, 50 * MAX_IMPORT_BYTES, length=False)
        )
        assert status == 403
        assert growth < MAX_IMPORT_BYTES + FEW_MB, f"{growth / MB:.1f} MB"

        # A length that lies: gunicorn gives the worker no more than it was told.
        status, text, growth = peak_growth(
            worker, upload(players, 50 * MAX_IMPORT_BYTES, told=MAX_IMPORT_BYTES - 100_000)
        )
        assert status < 500
        assert growth < MAX_IMPORT_BYTES + FEW_MB, f"{growth / MB:.1f} MB"

        # A file to a page that takes none, and a form of 50 MB without one.
        status, text, growth = peak_growth(
            worker, upload("/players/new/", 50 * MB, name="Anu Menon")
        )
        assert status == 400
        assert growth < FEW_MB, f"{growth / MB:.1f} MB"
        fields = urllib.parse.urlencode({**form("/players/new/"), "name": "Anu Menon"})
        filler = itertools.repeat(b"&nickname=" + b"A" * (PIECE - 10), 50 * MB // PIECE)
        status, text, growth = peak_growth(
            worker,
            lambda: post_streamed(
                port,
                "/players/new/",
                browser.cookies,
                "application/x-www-form-urlencoded",
                itertools.chain([fields.encode()], filler),
                len(fields) + 50 * MB // PIECE * PIECE,
            ),
        )
        assert status == 400
        assert growth < FEW_MB, f"{growth / MB:.1f} MB"
    finally:
        stop_gunicorn(server)
    assert _counts(database) == (0, 0)  # nothing saved
