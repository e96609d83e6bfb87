"""The venue's command-line flags, and the checks of the address and the port they give.

Part of the venue command (club/venue.py): the address phones open is the laptop's own on
the network of its default route (the club's Wi-Fi), or ``--address``, one of the laptop's
interfaces' addresses, any other refused with exactly the addresses it would accept named;
the port (``--port``, 8000 by default) must be free, and a port taken is said so, with one
that is free now to try.

Plain Python at import, no Django: ``dev.py`` shows and checks these flags on its own
``start`` before anything else is set up.
"""

from __future__ import annotations

import argparse
import ctypes
import ipaddress
import os
import socket
import sys

DEFAULT_PORT = 8000


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
        found = {str(info[4][0]) for info in named} | {"127.0.0.1"}
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
    """Refuse an address that is not this laptop's, naming those it would accept."""
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
    """Refuse a port that is taken, naming one free now to try."""
    if not port_is_free(port):
        raise VenueError(
            f"Port {port} is taken: another program, or the venue already running "
            f"(its window shows the address). Choose another: --port {free_port_after(port)} "
            "is free now."
        )


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
    """The venue command's arguments; --change-password without --organiser stops here."""
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
