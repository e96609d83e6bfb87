"""A club night at the venue: the laptop serves every phone on the club's Wi-Fi.

``python3 dev.py start --venue`` in a checkout, ``fiftysix-club venue`` for the installed
package. One command, and the organiser is told the address the phones open:

- the address phones use is the laptop's own on the network of its default route (the
  club's Wi-Fi), or ``--address``; one that is not the laptop's is refused, with the
  laptop's addresses named;
- the port (``--port``, 8000 by default) must be free: a port taken is said so, with
  what to do;
- the app runs as in production (DEBUG off, static files through WhiteNoise, a secret
  key made once and kept beside the database in ``venue-secret-key``), the allowed
  hosts and the public address set from the venue address, on plain HTTP: the venue's
  Wi-Fi has no certificate, so cookies are not marked secure and nothing redirects to
  HTTPS (``DJANGO_VENUE``);
- the club's database is the one ``start`` keeps, so the same laptop's games are there
  in both modes; the demo club is never loaded here;
- a club with no organiser gets its first one: asked in the terminal, or for scripts
  ``--organiser NAME`` with the password in ``DJANGO_ORGANISER_PASSWORD``, refused if
  Django's password validators find it weak;
- the server is waitress: pure Python, so the same command works on a Windows, macOS or
  Linux laptop.

Settings are read when Django starts, so this module sets the environment first and
imports Django after.
"""

from __future__ import annotations

import argparse
import getpass
import os
import secrets
import socket
import sys
from pathlib import Path

DEFAULT_PORT = 8000
THREADS = 12  # phones polling every 5 s and scorers recording: waits are on the database
SECRET_FILE = "venue-secret-key"


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
    """Whether ``address`` is one of this laptop's (a socket can be bound to it)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind((address, 0))
    except (OSError, UnicodeError):
        return False
    return True


def own_addresses() -> list[str]:
    """This laptop's IPv4 addresses, as far as its name tells them, and the default one."""
    found = {default_address()}
    try:
        found.update(info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None))
    except OSError:
        pass
    return sorted(address for address in found if ":" not in address)


def port_is_free(port: int) -> bool:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("0.0.0.0", port))  # noqa: S104 (the venue serves every interface)
    except OSError:
        return False
    return True


def data_dir() -> Path:
    """Where ``start`` keeps the club's database: DJANGO_DATA_DIR, else the checkout."""
    if os.environ.get("DJANGO_DATA_DIR"):
        return Path(os.environ["DJANGO_DATA_DIR"]).resolve()
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "manage.py").exists():
        return checkout
    return Path.cwd()


def secret_key(folder: Path) -> str:
    """The venue's secret key: made once, kept beside the database, readable by its owner."""
    path = folder / SECRET_FILE
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


def configure(address: str, port: int, folder: Path) -> str:
    """Set the environment the app reads at start; the address phones open."""
    url = f"http://{address}:{port}" if port != 80 else f"http://{address}"
    os.environ.update(
        DJANGO_SETTINGS_MODULE="club.settings",
        DJANGO_DATA_DIR=str(folder),
        DJANGO_DEBUG="0",
        DJANGO_VENUE="1",
        DJANGO_SECRET_KEY=secret_key(folder),
        DJANGO_ALLOWED_HOSTS=",".join(dict.fromkeys([address, "127.0.0.1", "localhost"])),
        DJANGO_PUBLIC_URL=url,
    )
    return url


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="venue", description="Serve the club's phones from this laptop at the venue."
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="default 8000")
    parser.add_argument(
        "--address", help="the address phones open (default: this laptop's on the Wi-Fi)"
    )
    parser.add_argument(
        "--organiser",
        help="the first organiser's name, when the club has none (its password in "
        "DJANGO_ORGANISER_PASSWORD)",
    )
    return parser.parse_args(argv)


def first_organiser(name: str | None) -> None:
    """A club with no organiser gets one, with a password Django's validators accept."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError

    users = get_user_model()
    if users.objects.filter(is_staff=True, is_active=True).exists():
        return
    if name:
        password = os.environ.get("DJANGO_ORGANISER_PASSWORD", "")
        if not password:
            raise VenueError(
                f"The club has no organiser yet: set DJANGO_ORGANISER_PASSWORD to {name}'s "
                "password, or start without --organiser to be asked for it."
            )
    elif sys.stdin.isatty():
        print("The club has no organiser yet. Choose the first one's name and password.")
        name = input("Organiser's name: ").strip()
        password = getpass.getpass("Password: ")
        if getpass.getpass("The password again: ") != password:
            raise VenueError("The two passwords differ: nothing was saved. Start again.")
    else:
        raise VenueError(
            "The club has no organiser yet: start in a terminal to be asked for one, or give "
            "--organiser NAME with the password in DJANGO_ORGANISER_PASSWORD."
        )
    if not name:
        raise VenueError("The organiser needs a name: nothing was saved. Start again.")
    user = users(username=name)
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise VenueError(
            "That password is too weak: " + " ".join(error.messages) + " Nothing was saved."
        ) from None
    users.objects.create_superuser(username=name, password=password)
    print(f"Organiser {name} created.")


def main(argv: list[str] | None = None) -> None:
    args = parse(sys.argv[1:] if argv is None else argv)
    address = args.address or default_address()
    if not is_own_address(address):
        raise VenueError(
            f"{address} is not an address of this laptop, so phones could not reach it here. "
            f"This laptop's addresses: {', '.join(own_addresses())}. "
            "Leave out --address to use the one on the Wi-Fi."
        )
    if not port_is_free(args.port):
        raise VenueError(
            f"Port {args.port} is taken: another program, or the venue already running "
            f"(its window shows the address). Choose another, for example --port {args.port + 1}."
        )
    folder = data_dir()
    url = configure(address, args.port, folder)

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    first_organiser(args.organiser)

    import segno
    import waitress
    from django.core.wsgi import get_wsgi_application

    print("\nThe club's phones open:\n")
    print(f"    {url}\n")
    print("on the same Wi-Fi as this laptop. Scan this with a phone's camera:")
    segno.make(url, error="m").terminal(compact=True)
    print(f"\nThe club's database: {folder}. Stop with Ctrl+C.", flush=True)
    waitress.serve(
        get_wsgi_application(),
        host="0.0.0.0",  # noqa: S104 (every phone on the Wi-Fi)
        port=args.port,
        threads=THREADS,
        ident="56 club",
        clear_untrusted_proxy_headers=True,
    )


if __name__ == "__main__":
    main()
