"""The address of the client that sent a request, through trusted proxies only.

Behind a reverse proxy every request arrives from the proxy, so ``REMOTE_ADDR``
is the proxy's address and the real client is in ``X-Forwarded-For``. Anyone can
send that header, though, so it is read only when the request comes from a
proxy named in ``settings.TRUSTED_PROXIES`` (``DJANGO_TRUSTED_PROXIES``).

Each proxy appends the address it was connected from, so the header is read
from the right: the trusted proxies' own entries are skipped and the first
address that is not a trusted proxy is the client. Whatever lies to the left of
it was written by the client and is never believed. A malformed entry stops the
walk, and the last good address is used instead.

django-axes keys its login lock-outs on this address
(``AXES_CLIENT_IP_CALLABLE = "club.web.net.client_ip"``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:  # settings import this module: keep it light
    from django.http import HttpRequest

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(text: str) -> list[IPNetwork]:
    """``"127.0.0.1, 10.0.0.0/8, ::1"`` -> networks; a bare address is a one-address network."""
    networks = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError as error:
            raise ImproperlyConfigured(
                f"DJANGO_TRUSTED_PROXIES: {item!r} is not an IP address or network ({error})."
            ) from error
    return networks


def parse_address(text: str) -> IPAddress | None:
    """An IP address, or None for anything else (a port, a name, "unknown", garbage)."""
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    # An IPv4 client seen by a server listening on IPv6 ("::ffff:192.0.2.1") is that IPv4 client.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def is_trusted(address: IPAddress, networks: Iterable[IPNetwork]) -> bool:
    return any(address.version == network.version and address in network for network in networks)


def client_ip(request: HttpRequest) -> str:
    """The real client's address (normalised), for django-axes and anything else that needs it."""
    remote_addr = request.META.get("REMOTE_ADDR", "")
    remote = parse_address(remote_addr)
    if remote is None:
        return remote_addr
    networks = getattr(settings, "TRUSTED_PROXIES", [])
    if not is_trusted(remote, networks):
        return str(remote)  # a client, not a proxy: its X-Forwarded-For is not believed
    forwarded_for = request.META.get("HTTP_X_FORWARDED_FOR", "").strip()
    if not forwarded_for:
        return str(remote)
    client = remote
    for entry in reversed(forwarded_for.split(",")):
        address = parse_address(entry)
        if address is None:
            break  # malformed (or empty): not believed, the last good address stands
        client = address
        if not is_trusted(address, networks):
            break  # the first address that is not one of our proxies is the client
    return str(client)


# --- The address phones reach the club at -------------------------------------------


def parse_public_url(text: str) -> str:
    """``DJANGO_PUBLIC_URL``: the club's address as phones reach it, without a trailing
    slash ("" when unset). Refused unless it is an http(s) address with no path."""
    text = text.strip().rstrip("/")
    if not text:
        return ""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query:
        raise ImproperlyConfigured(
            f"DJANGO_PUBLIC_URL is {text!r}; give the address phones open, such as "
            "https://club.example or http://192.168.1.10:8000, with no path."
        )
    return text


def parse_origins(text: str) -> list[str]:
    """``DJANGO_EMBED_ORIGINS``: the club websites that may frame its embeddable pages,
    comma-separated origins (``https://club.example``, ``http://localhost:8080``).
    Refused unless each is an http(s) origin: a scheme and a host, no path."""
    origins = []
    for part in text.split(","):
        part = part.strip().rstrip("/")
        if not part:
            continue
        parts = urlsplit(part)
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.path
            or parts.query
            or parts.fragment
            or parts.username
            or any(character in part for character in " ;'\"")
        ):
            raise ImproperlyConfigured(
                f"DJANGO_EMBED_ORIGINS names {part!r}; give the club websites that may show "
                "its pages, as https://club.example, comma-separated, with no path."
            )
        origins.append(f"{parts.scheme}://{parts.netloc.lower()}")
    return origins


def public_url(request: HttpRequest, path: str) -> str:
    """The address of ``path`` as a phone at a table reaches it: the club's public
    address (settings.PUBLIC_URL) when one is set, else the one this request came to."""
    base = getattr(settings, "PUBLIC_URL", "")
    if base:
        return base + path
    return request.build_absolute_uri(path)


def phones_cannot_reach(request: HttpRequest) -> bool:
    """Whether links built from this request point at this computer only (127.0.0.1 on
    the organiser's laptop) and no public address is set: phones could not open them."""
    if getattr(settings, "PUBLIC_URL", ""):
        return False
    host = request.get_host()
    if host.startswith("["):  # [::1]:8000
        host = host[1 : host.index("]")]
    elif host.count(":") == 1:  # 127.0.0.1:8000
        host = host.split(":")[0]
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
