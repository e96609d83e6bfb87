"""A club night at the venue: the laptop serves every phone on the club's Wi-Fi.

``python3 dev.py start --venue`` in a checkout, ``fiftysix-club venue`` for the installed
package. One command, and the organiser is told the address the phones open:

- the address phones use is the laptop's own on the network of its default route (the
  club's Wi-Fi), or ``--address``, one of the laptop's interfaces' addresses; any other is
  refused, with exactly the addresses it would accept named;
- the port (``--port``, 8000 by default) must be free: a port taken is said so, with one
  that is free now to try;
- the app runs as in production (DEBUG off, static files through WhiteNoise, a secret
  key made once and kept beside the database in ``venue-secret-key``), the allowed
  hosts and the public address set from the venue address, on plain HTTP: the venue's
  Wi-Fi has no certificate, so cookies are not marked secure, nothing redirects to
  HTTPS and no Cross-Origin-Opener-Policy is sent (``DJANGO_VENUE``);
- the club's database is the venue's own, apart from the quick start's demo club: in a
  checkout the folder ``venue-data``, else ``DJANGO_DATA_DIR`` or the folder it runs in.
  A database that has the demo's organiser login (printed in the README) is refused, and
  ``load_demo`` never loads the demo into a folder the venue has used;
- the folder, the database (and SQLite's -wal and -shm) and the key are the organiser's
  alone (0700 and 0600, by a umask of 077 set first); what an earlier start left open to
  other accounts is closed, and said so;
- ``--organiser NAME`` makes NAME an organiser, with the password in
  ``DJANGO_ORGANISER_PASSWORD`` or asked in the terminal, or says that NAME exists;
  ``--change-password`` gives NAME a new one. A club with no organiser gets its first
  one, asked in the terminal. A weak password (Django's validators) is refused;
- ``--roster FILE`` loads the club's players (the site's "Download the club's players")
  before the night, so the laptop knows everyone by the identifier that travels with
  their results; a clash (a name the laptop gives to another person) stops the start,
  named, to be decided on the Publish results page;
- the server is waitress: pure Python, so the same command works on a Windows, macOS or
  Linux laptop. It listens on the venue address and the loopback only, and holds against one
  hostile phone (see ``serve``): a cap of connections per phone, a short time for a
  request's headers, bodies no larger than the largest upload, refused before they reach
  the disk.

Settings are read when Django starts, so this module sets the environment first and
imports Django after. What it prints is for the organiser at the laptop's terminal, in
English, as Django's own commands print.
"""

from __future__ import annotations

import argparse
import ctypes
import getpass
import ipaddress
import os
import secrets
import socket
import sys
from pathlib import Path

from club.ops.demo import DEMO_PASSWORD, DEMO_USER

DEFAULT_PORT = 8000
THREADS = 12  # phones polling every 5 s and scorers recording: waits are on the database
SECRET_FILE = "venue-secret-key"
VENUE_FOLDER = "venue-data"  # in a checkout, beside the quick start's club.sqlite3
DATABASE = "club.sqlite3"  # as club.settings names it in the data folder
# The folder and what the venue keeps there are its owner's alone (keep_private).
PRIVATE_FOLDER, PRIVATE_FILE = 0o700, 0o600
KEPT_FILES = (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm", SECRET_FILE)
CHECKOUT = Path(__file__).resolve().parent.parent


class VenueError(SystemExit):
    """A start the organiser can fix: the message says how; the exit status is 2."""

    def __init__(self, message: str):
        print(message, file=sys.stderr)
        super().__init__(2)


def default_address() -> str:
    """The laptop's address on the network of its default route: the club's Wi-Fi.

    A UDP socket "connected" to an address of the documentation range picks the way out
    without sending a packet; with no route at all, the loopback.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def is_own_address(address: str) -> bool:
    """Whether a socket can be bound to ``address`` on this laptop."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind((address, 0))
    except (OSError, UnicodeError, OverflowError):
        return False
    return True


class _InterfaceAddress(ctypes.Structure):
    """``struct ifaddrs`` of getifaddrs(3), the same on Linux, macOS and the BSDs."""


_InterfaceAddress._fields_ = [
    ("ifa_next", ctypes.POINTER(_InterfaceAddress)),
    ("ifa_name", ctypes.c_char_p),
    ("ifa_flags", ctypes.c_uint),
    ("ifa_addr", ctypes.c_void_p),
    ("ifa_netmask", ctypes.c_void_p),
    ("ifa_ifu", ctypes.c_void_p),
    ("ifa_data", ctypes.c_void_p),
]


def interface_addresses() -> set[str]:
    """The IPv4 addresses of this laptop's network interfaces, read from the system
    (getifaddrs); on Windows, which has none, those the laptop's own name resolves to,
    which there are all of them."""
    found = None if os.name == "nt" else _getifaddrs()
    if found is None:
        try:
            named = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        except OSError:
            named = []
        found = {info[4][0] for info in named} | {"127.0.0.1"}
    return found


def _getifaddrs() -> set[str] | None:
    try:
        system = ctypes.CDLL(None)
        first = ctypes.POINTER(_InterfaceAddress)()
        if system.getifaddrs(ctypes.byref(first)) != 0:
            return None
    except (OSError, AttributeError):
        return None
    found = set()
    try:
        entry = first
        while entry:
            if entry.contents.ifa_addr:
                # sockaddr_in: the family (two bytes on Linux; on BSD a length byte, then
                # the family's byte), the port, then the address's four bytes.
                raw = ctypes.string_at(entry.contents.ifa_addr, 8)
                linux = sys.platform == "linux"
                family = int.from_bytes(raw[:2], sys.byteorder) if linux else raw[1]
                if family == socket.AF_INET:
                    found.add(socket.inet_ntoa(raw[4:8]))
            entry = entry.contents.ifa_next
    finally:
        system.freeifaddrs(first)
    return found


def own_addresses() -> list[str]:
    """This laptop's IPv4 addresses: its interfaces' and the default one, each one a server
    can be bound to. The venue accepts these and no other, and names these when it refuses."""
    found = interface_addresses() | {default_address()}
    return sorted((a for a in found if is_own_address(a)), key=ipaddress.IPv4Address)


def check_address(address: str) -> None:
    addresses = own_addresses()
    if address not in addresses:
        raise VenueError(
            f"{address} is not an address of this laptop, so phones could not reach it here. "
            f"This laptop's addresses: {', '.join(addresses)}. "
            "Leave out --address to use the one on the Wi-Fi."
        )


def port_is_free(port: int) -> bool:
    """Whether the venue's server could listen on ``port`` now: bound on every interface (a
    port free there is free on the venue's address and the loopback, where it listens),
    reusing, as waitress does, a port whose last connections are only closing (POSIX): the
    venue starts again at once after a crash, on the same port, with the same links."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            if os.name != "nt":  # on Windows the option would take a port another listens on
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(("0.0.0.0", port))  # noqa: S104 (the venue serves every interface)
    except (OSError, OverflowError):
        return False
    return True


def free_port_after(port: int) -> int:
    """A port free now to suggest: the first free one after ``port``, else one the
    system gives."""
    for candidate in range(port + 1, min(port + 100, 65536)):
        if port_is_free(candidate):
            return candidate
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("0.0.0.0", 0))  # noqa: S104
        return probe.getsockname()[1]


def check_port(port: int) -> None:
    if not port_is_free(port):
        raise VenueError(
            f"Port {port} is taken: another program, or the venue already running "
            f"(its window shows the address). Choose another: --port {free_port_after(port)} "
            "is free now."
        )


def data_dir() -> Path:
    """The venue's folder for the club's database: DJANGO_DATA_DIR when set, else its own."""
    if os.environ.get("DJANGO_DATA_DIR"):
        return Path(os.environ["DJANGO_DATA_DIR"]).resolve()
    return own_data_dir()


def own_data_dir() -> Path:
    """The venue's own folder, never the quick start's with the demo club: in a checkout its
    ``venue-data`` folder; else the folder it runs in (the installed package has no demo)."""
    if (CHECKOUT / "manage.py").exists():
        return CHECKOUT / VENUE_FOLDER
    return Path.cwd()


def is_venue_folder(folder: Path) -> bool:
    """Whether the venue has served from ``folder`` (its secret key is there)."""
    return (folder / SECRET_FILE).exists()


def secret_key(folder: Path) -> str:
    """The venue's secret key: the one kept beside the database, else a new one."""
    path = folder / SECRET_FILE
    return path.read_text().strip() if path.exists() else secrets.token_urlsafe(50)


def keep_private(folder: Path) -> None:
    """The venue's folder, its database (with SQLite's -wal and -shm beside it) and its
    secret key, the organiser's alone: others with an account on the laptop could read
    every player's name and the key that signs the organiser's login. Files made after this
    are so by the umask set at the start; what an earlier start left wider is narrowed, and
    the organiser told. Windows keeps a user's folders private by their owner's rights."""
    if os.name == "nt":
        return
    narrowed = []
    kept = [(folder, PRIVATE_FOLDER), *((folder / name, PRIVATE_FILE) for name in KEPT_FILES)]
    for path, private in kept:
        try:
            if path.stat().st_mode & 0o077:
                path.chmod(private)
                narrowed.append("folder" if path == folder else path.name)
        except FileNotFoundError:
            continue
    if narrowed:
        print(
            f"Other accounts on this laptop could read the venue's {', '.join(narrowed)} in "
            f"{folder}: now only this account can."
        )


def keep_secret_key(folder: Path, key: str) -> None:
    """Keep ``key`` beside the database, unless one is kept: made readable by its owner
    only as it is made (never made wider and narrowed after), whatever the umask."""
    folder.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)
    try:
        kept = os.open(folder / SECRET_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return
    with os.fdopen(kept, "w") as file:
        file.write(key)


def configure(address: str, port: int, folder: Path, key: str) -> str:
    """Set the environment the app reads at start; the address phones open."""
    url = f"http://{address}:{port}" if port != 80 else f"http://{address}"
    os.environ.update(
        DJANGO_SETTINGS_MODULE="club.settings",
        DJANGO_DATA_DIR=str(folder),
        DJANGO_DEBUG="0",
        DJANGO_VENUE="1",
        DJANGO_SECRET_KEY=key,
        DJANGO_ALLOWED_HOSTS=",".join(dict.fromkeys([address, "127.0.0.1", "localhost"])),
        DJANGO_PUBLIC_URL=url,
    )
    return url


def add_arguments(parser) -> None:
    """The venue's flags, on its own parser and on ``python3 dev.py start``'s."""
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="the port phones open (default 8000)"
    )
    parser.add_argument(
        "--address", help="the address phones open (default: this laptop's on the Wi-Fi)"
    )
    parser.add_argument(
        "--organiser",
        metavar="NAME",
        help="make NAME an organiser (its password in DJANGO_ORGANISER_PASSWORD, or asked "
        "in the terminal); if NAME exists, nothing changes",
    )
    parser.add_argument(
        "--change-password",
        action="store_true",
        help="with --organiser NAME: give NAME a new password (as above)",
    )
    parser.add_argument(
        "--roster",
        metavar="FILE",
        help="load the club's players from FILE (the club's site: Players, Download the "
        "club's players) before serving, so the laptop knows everyone",
    )


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="fiftysix-club venue",
        description="Serve the club's phones from this laptop at the venue, from the venue's "
        "own database (never the demo club's).",
        allow_abbrev=False,
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.change_password and not args.organiser:
        parser.error("--change-password needs --organiser NAME: whose password to change")
    return args


def refuse_the_demo(folder: Path) -> None:
    """The demo's organiser login is printed in the README: a database that has it is the
    quick start's demo club, whose organiser anyone on the Wi-Fi could log in as."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    users = get_user_model()
    if users._meta.db_table not in connection.introspection.table_names():
        return  # a new database
    demo = users.objects.filter(username=DEMO_USER).first()
    if demo is None or not demo.check_password(DEMO_PASSWORD):
        return
    own = own_data_dir()
    remedy = (
        f"Move {folder} aside and start again: the venue makes a new database there."
        if folder == own
        else f"Leave DJANGO_DATA_DIR unset for the venue's own folder, {own}, or set it to "
        "another folder."
    )
    raise VenueError(
        f"The database in {folder} has the demo club's organiser login ({DEMO_USER} / "
        f"{DEMO_PASSWORD}, printed in the README for anyone to read): it is the quick "
        "start's demo club, and the venue never serves the demo club. "
        f"{remedy} Nothing was changed."
    )


def organiser_password(name: str) -> str:
    """NAME's password: DJANGO_ORGANISER_PASSWORD, else asked twice in the terminal."""
    password = os.environ.get("DJANGO_ORGANISER_PASSWORD", "")
    if password:
        return password
    if not sys.stdin.isatty():
        raise VenueError(
            f"Set DJANGO_ORGANISER_PASSWORD to {name}'s password, or start in a terminal to "
            "be asked for it. Nothing was saved."
        )
    password = getpass.getpass(f"{name}'s password: ")
    if getpass.getpass("The password again: ") != password:
        raise VenueError("The two passwords differ: nothing was saved. Start again.")
    return password


def checked_password(name: str) -> str:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError

    password = organiser_password(name)
    if password == DEMO_PASSWORD:
        raise VenueError(
            "That is the demo organiser's password, printed in the README for anyone to "
            "read: choose another. Nothing was saved."
        )
    try:
        validate_password(password, get_user_model()(username=name))
    except ValidationError as error:
        raise VenueError(
            "That password is too weak: " + " ".join(error.messages) + " Nothing was saved."
        ) from None
    return password


def organiser(name: str | None, change_password: bool = False) -> None:
    """``--organiser NAME`` made, or said to exist; a club with none is asked for its first."""
    from django.contrib.auth import get_user_model

    users = get_user_model()
    if not name:
        if users.objects.filter(is_staff=True, is_active=True).exists():
            return
        if not sys.stdin.isatty():
            raise VenueError(
                "The club has no organiser yet: start in a terminal to be asked for one, or "
                "give --organiser NAME with the password in DJANGO_ORGANISER_PASSWORD."
            )
        print("The club has no organiser yet. Choose the first one's name and password.")
        name = input("Organiser's name: ").strip()
        if not name:
            raise VenueError("The organiser needs a name: nothing was saved. Start again.")
    existing = users.objects.filter(username=name).first()
    if existing is None:
        make_organiser(name)
    elif change_password:
        new_password(existing)
    elif existing.is_active and existing.is_staff:
        print(
            f"Organiser {name} already exists here; nothing was changed. To give {name} a new "
            f"password, start again with --organiser {name} --change-password."
        )
    else:
        print(
            f"{name} exists here but is not an organiser; nothing was changed. To make {name} "
            f"an organiser, with a new password, start again with --organiser {name} "
            "--change-password."
        )


def make_organiser(name: str) -> None:
    from django.contrib.auth import get_user_model
    from django.core.exceptions import ValidationError
    from django.db import IntegrityError, transaction

    users = get_user_model()
    try:
        users._meta.get_field("username").clean(name, None)
    except ValidationError as error:
        raise VenueError(
            f"“{name}” cannot be an organiser's name: "
            + " ".join(error.messages)
            + " Nothing was saved."
        ) from None
    password = checked_password(name)
    try:
        with transaction.atomic():
            users.objects.create_superuser(username=name, password=password)
    except IntegrityError:  # made meanwhile, by the same command started twice at once
        raise VenueError(
            f"Organiser {name} was made meanwhile by another start: nothing was changed. "
            f"To give {name} a new password, start again with --organiser {name} "
            "--change-password."
        ) from None
    print(f"Organiser {name} created.")


def new_password(user) -> None:
    """A new password for an account that exists, which becomes an active organiser; its
    lock-out after wrong passwords, if any, is lifted."""
    from axes.utils import reset

    user.set_password(checked_password(user.username))
    user.is_active = user.is_staff = user.is_superuser = True
    user.save(update_fields=["password", "is_active", "is_staff", "is_superuser"])
    reset(username=user.username)
    print(f"Organiser {user.username}'s new password is saved.")


def load_roster(path: str) -> None:
    """The club's players, loaded as any results file is (``import_results``): found by
    identifier, else member number, else name; a clash is never decided here."""
    from django.core.management import CommandError, call_command

    try:
        call_command("import_results", path)
    except CommandError as error:
        if getattr(error, "clashes", None):  # import_results: players to decide
            raise VenueError(
                f"The club's players in {path} were not loaded: {error.clashes} Start "
                "without --roster and load the file on the Publish results page, where you "
                "say who each one is."
            ) from None
        raise VenueError(f"The club's players in {path} were not loaded: {error}") from None


def main(argv: list[str] | None = None) -> None:
    args = parse(sys.argv[1:] if argv is None else argv)
    # Before anything is made: every folder and file this process makes (the database,
    # SQLite's -wal and -shm, which take the database's mode, the static files) is its
    # owner's alone. The secret key is made so by its own open (keep_secret_key).
    os.umask(0o077)
    address = args.address or default_address()
    check_address(address)
    check_port(args.port)
    folder = data_dir()
    key = secret_key(folder)
    url = configure(address, args.port, folder, key)

    import django

    django.setup()
    from django.core.management import call_command

    folder.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)
    refuse_the_demo(folder)
    # Only now: a refused start leaves the quick start's folder as it was (the key marks a
    # folder the venue has served from, where load_demo never loads the demo).
    keep_private(folder)
    keep_secret_key(folder, key)
    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    organiser(args.organiser, args.change_password)
    if args.roster:
        load_roster(args.roster)

    import segno
    from django.core.wsgi import get_wsgi_application

    print("\nThe club's phones open:\n")
    print(f"    {url}\n")
    print("on the same Wi-Fi as this laptop. Scan this with a phone's camera:")
    segno.make(url, error="m").terminal(compact=True)
    print(f"\nThe club's database: {folder}. Stop with Ctrl+C.", flush=True)
    serve(get_wsgi_application(), address, args.port)


# --- One hostile phone on the hall's Wi-Fi ---------------------------------------------------
# Waitress's defaults let one phone stop every other: 100 connections in all, from anyone,
# each kept open as long as a byte arrives every two minutes (a header line every few
# seconds, never ending the headers, holds it for ever); and a body of up to 1 GB is written
# to a temporary file before the app sees it. So: a cap per phone, a short time for a
# request's headers, a limit of connections a hall's phones fit in, bodies no larger than
# the largest upload, and only the venue's address and the laptop's own listened on.
PER_PHONE = 20  # a phone's browser opens at most 6 connections to a server, for all its tabs
CONNECTIONS = 500  # a hall's phones, a few connections each; beyond it new ones wait
HEADERS_WITHIN = 10  # seconds from a request's first byte to the end of its headers
IDLE = 30  # seconds a connection is kept with nothing said (the pages poll every 5 s)
# The largest request body the app takes: Publish results' file, the largest upload
# (club.archive.forms.MAX_UPLOAD_BYTES), and its form's other fields (club.web.uploads.
# FORM_ROOM), written out here as this module imports no Django; a test holds them equal.
# Waitress refuses a longer body, 413, as soon as its Content-Length says so, before writing
# any of it to disk; one sent in chunks, once past it. The refusal is the club's page, in the
# phone's language (club_error_task, club.web.uploads), not waitress's English one.
LARGEST_BODY = 50_000_000 + 256_000


def connection_limit() -> int:
    """CONNECTIONS, or fewer where the laptop lets a program have fewer open files (macOS
    starts at 256): raised as far as the system allows, and some kept for the database and
    the static files."""
    try:
        import resource
    except ImportError:  # Windows: no such limit on sockets
        return CONNECTIONS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = CONNECTIONS + 100
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    return CONNECTIONS if soft == resource.RLIM_INFINITY else min(CONNECTIONS, soft - 100)


def guarded_channel():
    """Waitress's connection, with the cap per phone and the time for a request's headers.
    (Made here, not at import: dev.py imports this module with no waitress installed.)"""
    import time
    from collections import Counter

    from waitress.channel import HTTPChannel

    class GuardedChannel(HTTPChannel):
        per_phone: Counter = Counter()  # open connections by the phone's address
        counted = False
        request_began = 0.0
        error_task_class = club_error_task()

        def __init__(self, server, sock, addr, adj, map=None):
            super().__init__(server, sock, addr, adj, map=map)
            self.phone = addr[0] if isinstance(addr, tuple) else addr
            self.per_phone[self.phone] += 1
            self.counted = True
            if self.per_phone[self.phone] > PER_PHONE:
                self.handle_close()  # closed unanswered: a phone past its share

        def del_channel(self, map=None):
            if self.counted:
                self.counted = False
                self.per_phone[self.phone] -= 1
                if not self.per_phone[self.phone]:
                    del self.per_phone[self.phone]
            super().del_channel(map)

        def received(self, data):
            if self.request is None:  # a request's first bytes: its headers' time starts
                self.request_began = time.monotonic()
            return super().received(data)

        def writable(self):
            # Asked at every turn of the server's loop (at least once a second).
            if (
                self.request is not None
                and not self.request.headers_finished
                and not self.requests
                and time.monotonic() - self.request_began > HEADERS_WITHIN
            ):
                self.will_close = True  # headers too slow: closed at once
            return super().writable()

    return GuardedChannel


def club_error_task():
    """Waitress's answer to a request it refuses itself, but a body past LARGEST_BODY
    answered by the app, in the club's words and the phone's language (413), instead of
    waitress's plain English. The app is asked with the request's line and headers only
    (the body is never read) and the WSGI key ``club.refused_body``, which only the server
    can set (a header arrives as HTTP_...); should that fail, waitress's own answer goes."""
    import io
    import logging

    from waitress.task import ErrorTask
    from waitress.utilities import RequestEntityTooLarge

    class ClubErrorTask(ErrorTask):
        def execute(self):
            if not isinstance(self.request.error, RequestEntityTooLarge):
                return super().execute()
            try:
                status, headers, body = self.refusal()
            except Exception:
                logging.getLogger(__name__).exception("The club's 413 page failed")
                return super().execute()
            self.status = status
            self.response_headers.extend(headers)
            self.set_close_on_finish()  # the body is left unread: the connection goes
            self.content_length = len(body)
            self.write(body)

        def refusal(self) -> tuple[str, list[tuple[str, str]], bytes]:
            request, server = self.request, self.channel.server
            told = request.headers.get("CONTENT_LENGTH", "")
            environ = {
                "REQUEST_METHOD": request.command or "POST",
                "SCRIPT_NAME": "",
                "PATH_INFO": request.path or "/",
                "QUERY_STRING": request.query or "",
                "SERVER_NAME": server.server_name,
                "SERVER_PORT": str(server.effective_port),
                "SERVER_PROTOCOL": f"HTTP/{request.version}",
                "REMOTE_ADDR": self.channel.addr[0],
                "wsgi.url_scheme": "http",
                "wsgi.input": io.BytesIO(),  # nothing of the body is read
                "wsgi.errors": io.StringIO(),
                "wsgi.multithread": True,
                "wsgi.multiprocess": False,
                "wsgi.run_once": False,
                "wsgi.version": (1, 0),
                "CONTENT_LENGTH": "0",
                "club.refused_body": (LARGEST_BODY, int(told) if told.isdigit() else None),
            }
            for name, value in request.headers.items():
                if name not in ("CONTENT_LENGTH", "CONTENT_TYPE"):
                    environ[f"HTTP_{name}"] = value
            answered = []
            chunks = server.application(environ, lambda *answer: answered.extend(answer[:2]))
            try:
                body = b"".join(chunks)
            finally:
                if hasattr(chunks, "close"):
                    chunks.close()
            status, headers = answered
            if not status.startswith("413"):
                raise RuntimeError(f"the app answered {status}")
            kept = [(n, v) for n, v in headers if n.lower() not in ("content-length", "connection")]
            return f"413 {RequestEntityTooLarge.reason}", kept, body

    return ClubErrorTask


def serve(app, address: str, port: int) -> None:
    """Serve ``app`` with waitress on the venue's address and the laptop's own (127.0.0.1,
    for the organiser's browser on the laptop), against one hostile phone as above."""
    import waitress
    from waitress.server import BaseWSGIServer, MultiSocketServer

    listen = dict.fromkeys([f"{address}:{port}", f"127.0.0.1:{port}"])
    server = waitress.create_server(
        app,
        listen=" ".join(listen),
        threads=THREADS,
        ident="56 club",
        clear_untrusted_proxy_headers=True,
        connection_limit=connection_limit(),
        channel_timeout=IDLE,
        cleanup_interval=1,
        max_request_body_size=LARGEST_BODY,
        asyncore_use_poll=True,  # select() takes no more than 1,024 connections
    )
    channel = guarded_channel()
    listeners = server.map.values() if isinstance(server, MultiSocketServer) else [server]
    for listener in listeners:
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = channel
    server.run()


if __name__ == "__main__":
    main()
