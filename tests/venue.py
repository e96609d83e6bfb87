"""The venue command as docs/venue.md gives it (``python -m club venue``), each run with a data
folder of its own (its own SQLite database and secret key).

A start (``serving``, ``start_once``, ``in_a_terminal``) on a folder with no database finds
one there already migrated, as a venue that has served before leaves it: the club's
migrations, a few seconds a start, are run once for the whole test run. A test of what a
first start makes passes ``fresh=True``.
"""

from __future__ import annotations

import atexit
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "venue-Organiser-7421"  # noqa: S105 (a test's own)
SERVING = "Stop with Ctrl+C"  # the last line the venue prints before it serves


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def venue_env(folder: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(DJANGO_DATA_DIR=str(folder), **extra)
    return env


_migrated: list[Path] = []  # the database made once, for every start this run


def migrated_database() -> Path:
    """A venue's database with every migration applied (``manage.py migrate`` on a folder
    of its own, as the venue runs it), made on the first call of the test run."""
    if not _migrated:
        folder = Path(tempfile.mkdtemp(prefix="venue-migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        made = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
            cwd=ROOT,
            env=venue_env(folder),
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        assert made.returncode == 0, made.stderr
        _migrated.append(folder / "club.sqlite3")
    return _migrated[0]


def seed(folder: Path) -> None:
    """``folder`` (made if need be) holds the migrated database, the owner's alone as the
    venue makes it, unless it holds a database already."""
    database = folder / "club.sqlite3"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if database.exists():
        return
    with migrated_database().open("rb") as source:
        kept = os.open(database, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(kept, "wb") as copy:
            shutil.copyfileobj(source, copy)


def run_venue(folder: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "club", "venue", *args],
        cwd=ROOT,
        env=venue_env(folder, **extra),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@dataclass
class Venue:
    url: str
    terminal: str  # what the organiser's terminal showed before serving
    started_in: float  # seconds from the command to a first answer
    pid: int  # the server's process


def _launch(folder: Path, args: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "club", "venue", *args],
        cwd=ROOT,
        env=venue_env(folder, **env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _read_until_serving(server: subprocess.Popen, deadline: float) -> str:
    printed = []
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if not line and server.poll() is not None:
            break
        printed.append(line)
        if SERVING in line:
            break
    return "".join(printed)


@dataclass
class Started:
    returncode: int | None  # None: it was serving (and was stopped)
    terminal: str  # everything it printed, errors included


def start_once(folder: Path, *args: str, fresh: bool = False, **env: str) -> Started:
    """The venue started with ``args``, read until it serves or stops; then stopped."""
    if not fresh:
        seed(folder)
    server = _launch(folder, list(args), env)
    try:
        terminal = _read_until_serving(server, time.monotonic() + 90)
        returncode = server.poll()
        if returncode is None:
            time.sleep(0.2)  # a refusal printed just before the exit
            returncode = server.poll()
    finally:
        server.terminate()
        rest, _ = server.communicate(timeout=20)
    return Started(returncode, terminal + (rest or "") if returncode is not None else terminal)


@contextmanager
def serving(
    folder: Path,
    address: str,
    organiser: str = "olive",
    port: int | None = None,
    *,
    fresh: bool = False,
) -> Iterator[Venue]:
    """The venue started on ``address`` (and ``port``, else a free one) with ``organiser`` as
    its first organiser (password PASSWORD), until the block ends."""
    if not fresh:
        seed(folder)
    port = port or free_port()
    began = time.monotonic()
    args = ["--address", address, "--port", str(port), "--organiser", organiser]
    server = _launch(folder, args, {"DJANGO_ORGANISER_PASSWORD": PASSWORD})
    try:
        deadline = began + 90
        printed = _read_until_serving(server, deadline)
        # What it prints while it serves (waitress's warnings) is read on, so that a full
        # pipe never stops the server.
        threading.Thread(target=server.stdout.read, daemon=True).start()
        url = f"http://{address}:{port}"
        while time.monotonic() < deadline and server.poll() is None:
            with socket.socket() as probe:  # waitress binds right after the banner
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield Venue(url, printed, time.monotonic() - began, server.pid)
    finally:
        if server.poll() is None:  # not already killed by the test
            server.terminate()
        server.wait(timeout=20)


def in_a_terminal(folder: Path, args: list[str], answers: dict[str, str], **env: str) -> Started:
    """The venue started in a terminal of its own (a pseudo-terminal, as an organiser's
    window is), answering each prompt that ends what it printed from ``answers``; stopped
    once it serves."""
    import pty  # POSIX only; the tests that type into a terminal skip elsewhere

    seed(folder)

    command = [sys.executable, "-m", "club", "venue", *args]
    pid, terminal = pty.fork()
    if pid == 0:  # the organiser's terminal
        os.chdir(ROOT)
        os.execve(sys.executable, command, venue_env(folder, **env))
    shown, deadline = "", time.monotonic() + 90
    try:
        while time.monotonic() < deadline and SERVING not in shown:
            ready, _, _ = select.select([terminal], [], [], 1)
            if not ready:
                continue
            try:
                chunk = os.read(terminal, 4096).decode(errors="replace")
            except OSError:  # the command ended: its terminal closed
                break
            if not chunk:
                break
            shown += chunk
            for prompt, answer in answers.items():
                if shown.rstrip(" ").endswith(prompt.rstrip(" ")):
                    os.write(terminal, answer.encode() + b"\n")
                    break
    finally:
        ended, status = os.waitpid(pid, os.WNOHANG)
        if not ended:
            os.kill(pid, signal.SIGTERM)
            ended, status = os.waitpid(pid, 0)
            returncode = None
        else:
            returncode = os.waitstatus_to_exitcode(status)
        os.close(terminal)
    return Started(returncode, shown.replace("\r\n", "\n"))
