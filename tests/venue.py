"""The venue command as docs/venue.md gives it (``python -m club venue``), each run with a data
folder of its own (its own SQLite database and secret key)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "venue-Organiser-7421"  # noqa: S105 (a test's own)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def venue_env(folder: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(DJANGO_DATA_DIR=str(folder), **extra)
    return env


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


@contextmanager
def serving(folder: Path, address: str, organiser: str = "olive") -> Iterator[Venue]:
    """The venue started on ``address`` with ``organiser`` as its first organiser (password
    PASSWORD), until the block ends."""
    port = free_port()
    began = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-m", "club", "venue", "--address", address, "--port", str(port)]
        + ["--organiser", organiser],
        cwd=ROOT,
        env=venue_env(folder, DJANGO_ORGANISER_PASSWORD=PASSWORD),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    printed = []
    try:
        deadline = began + 90
        while time.monotonic() < deadline:
            line = server.stdout.readline()
            if not line and server.poll() is not None:
                break
            printed.append(line)
            if "Stop with Ctrl+C" in line:
                break
        url = f"http://{address}:{port}"
        while time.monotonic() < deadline and server.poll() is None:
            with socket.socket() as probe:  # waitress binds right after the banner
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield Venue(url, "".join(printed), time.monotonic() - began, server.pid)
    finally:
        server.terminate()
        server.wait(timeout=20)
