#!/usr/bin/env python3
"""Set up, serve and test the 56 club score keeper with nothing but Python 3.12+.

    python3 dev.py start   # make .venv, install the locked dependencies, migrate,
                           # load the demo club, serve it at http://127.0.0.1:8000
    python3 dev.py test    # make .venv if needed and run the whole test suite
    python3 dev.py start --venue [--port N] [--address A] [--organiser NAME]
                           # serve the club's phones on the venue's Wi-Fi (club/venue.py),
                           # from the venue's own database (venue-data/), never the demo
    python3 dev.py start 0.0.0.0:8000
                           # the development server on another address or port
    python3 dev.py docs    # build the guide (docs/) into docs/_build/html
    python3 dev.py screenshots
                           # take the guide's pictures again from the demo club

Extra arguments after ``test`` go to pytest. ``DATABASE_URL`` picks the
database (SQLite in the project folder by default). ``python3 dev.py start --help``
lists every flag of ``start``, the venue's included.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

# Plain Python at import, as this file is: the venue's flags, shown and checked here too.
from club import venue, venue_flags

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


def start_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python3 dev.py start",
        description="Serve the demo club on this computer with Django's development server; "
        "with --venue, serve the club's phones on the venue's Wi-Fi instead.",
        epilog="The demo club (organiser login demo / demo-organiser) is kept in club.sqlite3; "
        f"the venue keeps the club's own database apart, in {venue.VENUE_FOLDER}/, and never "
        "serves the demo club.",
        allow_abbrev=False,
    )
    parser.add_argument(
        "address",
        nargs="?",
        help="the development server's address and port (default 127.0.0.1:8000)",
    )
    parser.add_argument(
        "--venue",
        action="store_true",
        help="serve the club's phones on the venue's Wi-Fi (club/venue.py), with the flags below",
    )
    venue_flags.add_arguments(parser.add_argument_group("the venue (with --venue)"))
    return parser


def venue_arguments(argv: list[str]) -> list[str] | None:
    """The venue's own arguments when ``start`` is asked for the venue, else None; what
    cannot be meant (the venue's flags without --venue) stops here with a message."""
    parser = start_parser()
    args = parser.parse_args(argv)
    if not args.venue:
        given = [
            flag
            for flag in ("--port", "--address", "--organiser", "--change-password")
            if any(arg == flag or arg.startswith(flag + "=") for arg in argv)
        ]
        if given:
            parser.error(
                f"{' and '.join(given)} {'is' if len(given) == 1 else 'are'} the venue's: add "
                "--venue, or give the development server's address, such as 127.0.0.1:8080"
            )
        return None
    if args.address:
        parser.error(
            f"with --venue, the address phones open is --address (and the port --port), "
            f"not {args.address}"
        )
    return [arg for arg in argv if arg != "--venue"]


def start(argv: list[str]) -> None:
    at_the_venue = venue_arguments(argv)
    if at_the_venue is not None:  # the club night at the venue: club/venue.py
        ensure_venv()
        say("Starting the venue server for the club's phones")
        try:
            run(PYTHON, "-m", "club", "venue", *at_the_venue)
        except subprocess.CalledProcessError as error:
            sys.exit(error.returncode)
        except KeyboardInterrupt:
            pass
        return
    ensure_venv()
    say("Bringing the database up to date")
    manage("migrate", "--no-input", "-v", "0")
    say("Loading the demo club (fixtures/demo.json), unless it is already there")
    try:
        manage("load_demo")
    except subprocess.CalledProcessError as error:  # its message is printed
        sys.exit(error.returncode)
    address = start_parser().parse_args(argv).address or "127.0.0.1:8000"
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
    process = subprocess.Popen([str(PYTHON), "-m", "pytest", *argv], cwd=ROOT, env=env)
    while True:
        try:
            sys.exit(process.wait())
        except KeyboardInterrupt:
            # Ctrl-C (or CI's time limit, which interrupts the whole group) reached pytest
            # too: wait while it says where it was and prints its summary.
            continue


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
