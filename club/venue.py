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
  hostile phone: a cap of connections per phone, a short time for a request's headers,
  bodies no larger than the largest upload, refused before they reach the disk.

The flags and the checks of the address and the port are in club/venue_flags.py; the
server, and how it holds against one hostile phone, in club/venue_server.py.

Settings are read when Django starts, so this module sets the environment first and
imports Django after. What it prints is for the organiser at the laptop's terminal, in
English, as Django's own commands print.
"""

from __future__ import annotations

import getpass
import os
import secrets
import sys
from pathlib import Path

from club.ops.demo import DEMO_PASSWORD, DEMO_USER
from club.venue_flags import VenueError, check_address, check_port, default_address, parse
from club.venue_server import few_arenas, serve

SECRET_FILE = "venue-secret-key"
VENUE_FOLDER = "venue-data"  # in a checkout, beside the quick start's club.sqlite3
DATABASE = "club.sqlite3"  # as club.settings names it in the data folder
# The folder and what the venue keeps there are its owner's alone (keep_private).
PRIVATE_FOLDER, PRIVATE_FILE = 0o700, 0o600
KEPT_FILES = (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm", SECRET_FILE)
CHECKOUT = Path(__file__).resolve().parent.parent


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
    identifier, else member number, else name; a clash is never decided here. A laptop that
    has played nothing yet becomes the file's club first (``--adopt-club``)."""
    from django.core.management import CommandError, call_command

    try:
        call_command("import_results", path, adopt_club=True)
    except CommandError as error:
        clashes = getattr(error, "clashes", None)  # import_results: players to decide
        if clashes:
            raise VenueError(
                f"The club's players in {path} were not loaded: {clashes} Start "
                "without --roster and load the file on the Publish results page, where you "
                "say who each one is."
            ) from None
        raise VenueError(f"The club's players in {path} were not loaded: {error}") from None


def main(argv: list[str] | None = None) -> None:
    args = parse(sys.argv[1:] if argv is None else argv)
    few_arenas()  # before any thread: collectstatic's compression starts a pool of them
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


if __name__ == "__main__":
    main()
