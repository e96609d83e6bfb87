"""A results file published on the web takes the memory of the game it is at, not the file's.

Measured as a club runs it: the venue's production server (waitress, DEBUG off, the
club's SQLite file; ``python -m club venue``) in a process of its own, an organiser
logged in over HTTP who previews and then imports the file through **Publish
results**. The server's peak resident memory (VmHWM) is set back to what it holds
once it has served the page (its start, with the club's migrations, peaks higher
than an import: ``/proc/PID/clear_refs``), read after the preview, set back again and
read after the import: what each press took above what the server held before it. A
file five times bigger may take at most one and a half times the memory, as on the
command line (tests/archive/test_import_memory.py): the upload goes to a temporary
file, and is read from it a piece at a time; the server's threads share two malloc arenas
(club.venue_server.few_arenas), without which glibc's arena a thread kept each thread's
high-water mark and a big file's import took up to 13 MiB. Measured: a preview (the
import, undone: club.archive.publish) takes 2.4-2.9 MiB and an import 3.8-4.9 MiB, for a
1 MiB file and a 5 MiB one alike.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import requests

from tests.archive.test_import_memory import results_file
from tests.venue import PASSWORD, serving

SMALL, BIG = 1, 5  # MiB
FLOOR = 8  # MiB: presses that take less than this are not told apart from noise

pytestmark = [
    pytest.mark.skipif(
        not Path("/proc/self/status").exists(), reason="reads the server's peak memory in /proc"
    ),
    pytest.mark.skipif(
        bool(os.environ.get("DATABASE_URL")),
        reason="the venue keeps the club's SQLite file of its own: once, in the SQLite half",
    ),
]


def peak_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))


def publish(folder: Path, path: Path) -> tuple[float, float, str]:
    """A venue started afresh on ``folder``; the organiser previews and imports ``path``.
    The MiB the server's peak rose by for the preview, and for the import (each from
    what it held before it), and the import's answer."""
    with serving(folder, "127.0.0.1") as venue:
        session = requests.Session()
        page = session.get(f"{venue.url}/accounts/login/", timeout=30)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        session.post(
            f"{venue.url}/accounts/login/",
            data={"csrfmiddlewaretoken": token, "username": "olive", "password": PASSWORD},
            headers={"Referer": f"{venue.url}/accounts/login/"},
            timeout=30,
        )
        session.get(f"{venue.url}/import/", timeout=30)
        Path(f"/proc/{venue.pid}/clear_refs").write_text("5")  # the peak, from here
        before = peak_kib(venue.pid)
        form = {"csrfmiddlewaretoken": session.cookies["csrftoken"]}
        with path.open("rb") as handle:
            shown = session.post(
                f"{venue.url}/import/",
                data=form,
                files={"file": (path.name, handle, "application/json")},
                headers={"Referer": f"{venue.url}/import/"},
                timeout=300,
            ).text
        previewing = (peak_kib(venue.pid) - before) / 1024
        Path(f"/proc/{venue.pid}/clear_refs").write_text("5")  # and again, for the import
        before = peak_kib(venue.pid)
        previewed = re.search(r'name="previewed" value="([0-9a-f]+)"', shown).group(1)
        key = re.search(r'name="idempotency_key" value="([^"]+)"', shown).group(1)
        with path.open("rb") as handle:
            text = session.post(
                f"{venue.url}/import/store/",
                data={**form, "previewed": previewed, "idempotency_key": key},
                files={"file": (path.name, handle, "application/json")},
                headers={"Referer": f"{venue.url}/import/"},
                timeout=300,
            ).text
        return previewing, (peak_kib(venue.pid) - before) / 1024, text


def test_a_five_times_bigger_file_takes_no_more_memory_on_the_web(tmp_path):
    small = results_file(tmp_path / "small.json", SMALL, "Small")
    results_file(tmp_path / "big.json", BIG, "Big")

    small_preview, small_import, answer = publish(tmp_path / "small", tmp_path / "small.json")
    games = len(small["games"])
    assert f"Imported {games} games with {games * 200} deals from small.json." in answer
    big_preview, big_import, answer = publish(tmp_path / "big", tmp_path / "big.json")
    assert "Imported " in answer and " from big.json." in answer

    figures = (
        f"preview: {SMALL} MiB +{small_preview:.1f} MiB, {BIG} MiB +{big_preview:.1f} MiB; "
        f"import: {SMALL} MiB +{small_import:.1f} MiB, {BIG} MiB +{big_import:.1f} MiB"
    )
    print(figures)
    # A MiB or two either way are the allocator's (an import took 4.2 and 4.6 MiB on one
    # run, 4.7 and 4.9 on another); the big file held whole takes several times its 5 MiB (its
    # JSON decoded in the preview, tried: 25 MiB).
    assert big_preview <= 1.5 * max(small_preview, FLOOR), figures
    assert big_import <= 1.5 * max(small_import, FLOOR), figures
