#!/usr/bin/env python3
"""Set up, serve and test the 56 club score keeper with nothing but Python 3.12+.

    python3 dev.py start   # make .venv, install the locked dependencies, migrate,
                           # load the demo club, serve it at http://127.0.0.1:8000
    python3 dev.py test    # make .venv if needed and run the whole test suite
    python3 dev.py start --venue [--port N] [--address A] [--organiser NAME]
                           # serve the club's phones on the venue's Wi-Fi (club/venue.py)
    python3 dev.py start 0.0.0.0:8000
                           # the development server on another address or port
    python3 dev.py docs    # build the guide (docs/) into docs/_build/html
    python3 dev.py screenshots
                           # take the guide's pictures again from the demo club

Extra arguments after ``test`` go to pytest. ``DATABASE_URL`` picks the
database (SQLite in the project folder by default).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
LOCK = ROOT / "requirements" / "lock.txt"
STAMP = VENV / ".lock-sha256"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def say(message: str) -> None:
    print(f"==> {message}", flush=True)


def run(*args: str | os.PathLike, env: dict | None = None) -> None:
    subprocess.run([str(arg) for arg in args], cwd=ROOT, check=True, env=env)


def find_python() -> str:
    """This interpreter if it is 3.12+, else the first python3.1x on PATH that is."""
    if sys.version_info >= (3, 12):  # noqa: UP036 (dev.py may be started by an older python3)
        return sys.executable
    for name in ("python3.14", "python3.13", "python3.12"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("Python 3.12 or newer is needed; install it and run this again.")


def ensure_venv() -> None:
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    if PYTHON.exists() and STAMP.exists() and STAMP.read_text() == digest:
        return
    if not PYTHON.exists():
        say("Creating the virtual environment in .venv")
        run(find_python(), "-m", "venv", VENV)
    say("Installing the locked dependencies (requirements/lock.txt)")
    run(PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(PYTHON, "-m", "pip", "install", "--quiet", "--require-hashes", "-r", LOCK)
    STAMP.write_text(digest)


def manage(*args: str) -> None:
    run(PYTHON, ROOT / "manage.py", *args)


def start(argv: list[str]) -> None:
    if argv[:1] == ["--venue"]:  # the club night at the venue: club/venue.py
        ensure_venv()
        say("Starting the venue server for the club's phones")
        try:
            run(PYTHON, "-m", "club", "venue", *argv[1:])
        except subprocess.CalledProcessError as error:
            sys.exit(error.returncode)
        except KeyboardInterrupt:
            pass
        return
    ensure_venv()
    say("Bringing the database up to date")
    manage("migrate", "--no-input", "-v", "0")
    say("Loading the demo club (fixtures/demo.json), unless it is already there")
    manage("load_demo")
    address = argv[0] if argv else "127.0.0.1:8000"
    say(f"Serving at http://{address}/  (organiser login: demo / demo-organiser)")
    manage("runserver", address)


def ensure_test_tools() -> None:
    """axe-core for the accessibility tests (package-lock.json), where npm is found: a
    machine without it skips those tests (CI, with REQUIRE_BROWSER=1, installs npm)."""
    lock = ROOT / "package-lock.json"
    stamp = ROOT / "node_modules" / ".package-lock-digest"
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == digest:
        return
    npm = shutil.which("npm")
    if npm is None:
        return
    say("Installing the browser test tools (package-lock.json)")
    run(npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
    stamp.write_text(digest)


def test(argv: list[str]) -> None:
    ensure_venv()
    ensure_test_tools()
    env = dict(os.environ)
    database = env.get("DATABASE_URL") or "SQLite"
    say(f"Running the test suite on {database.split('@')[-1]}")
    try:
        run(PYTHON, "-m", "pytest", *argv, env=env)
    except subprocess.CalledProcessError as error:
        sys.exit(error.returncode)


def docs(argv: list[str]) -> None:
    """The guide in docs/, built into docs/_build/html with warnings as errors."""
    ensure_venv()
    say("Building the guide into docs/_build/html")
    try:
        run(
            PYTHON,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            *argv,
            ROOT / "docs",
            ROOT / "docs" / "_build" / "html",
        )
    except subprocess.CalledProcessError as error:
        sys.exit(error.returncode)


def screenshots(argv: list[str]) -> None:
    """Every picture of the guide, taken again from the demo club (docs/screenshots.py)."""
    ensure_venv()
    say("Taking the guide's pictures from the demo club into docs/images")
    try:
        run(PYTHON, ROOT / "docs" / "screenshots.py", *argv)
    except subprocess.CalledProcessError as error:
        sys.exit(error.returncode)


def main() -> None:
    commands = {"start": start, "test": test, "docs": docs, "screenshots": screenshots}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
