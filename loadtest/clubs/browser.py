"""A phone's or an organiser's browser, over both app servers, and the ways a send goes wrong.

One :class:`Browser` keeps one person's cookies (the CSRF cookie, the session) and sends
each request to either server, as a load balancer in front of two app servers would: the
servers share the database (sessions included), the secret key and the pages' Redis, so
what one set the other reads. Each request has a connection of its own (gunicorn's sync
workers close it after each answer anyway), so a worker killed in the middle of one costs
only that request.

Besides a plain request it sends a form the ways a phone on a venue's Wi-Fi does when
things go wrong: whole but hung up before the answer (:meth:`Browser.hang_up`), cut in
the middle of its body (:meth:`Browser.cut`), or a few bytes at a time (:meth:`Browser.slow`).
"""

from __future__ import annotations

import http.client
import random
import socket
import time
import urllib.parse
from dataclasses import dataclass

HOST = "127.0.0.1"
TIMEOUT = 30.0  # every request: a sync worker that takes longer is killed by gunicorn too


@dataclass
class Answer:
    status: int
    headers: dict[str, str]  # names in lower case
    body: str
    port: int = 0

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")


class Browser:
    """One person's browser: its own cookies and loopback address, any server for a request."""

    def __init__(self, ports: list[int], rng: random.Random, source: str | None = None):
        self.ports = ports
        self.rng = rng
        self.source = source
        self.cookies: dict[str, str] = {}

    def pick(self) -> int:
        return self.rng.choice(self.ports)

    def _prepare(
        self, port: int, method: str, path: str, form: dict | None, htmx: bool
    ) -> tuple[bytes, dict[str, str]]:
        # Every server is asked under the site's one address, as behind its proxy: a page
        # names that address (its link preview), whichever server made it.
        headers = {"Host": HOST, "Connection": "close"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in sorted(self.cookies.items()))
        if htmx:
            headers["HX-Request"] = "true"
        body = b""
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"http://{HOST}"
            headers["Referer"] = f"http://{HOST}{path}"
        if method == "POST":
            headers["Content-Length"] = str(len(body))
        return body, headers

    def _keep_cookies(self, response: http.client.HTTPResponse) -> None:
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                # Production cookies are Secure; kept anyway, as behind the TLS proxy.
                cookie, _, rest = value.partition("=")
                self.cookies[cookie.strip()] = rest.split(";", 1)[0]

    def _connection(self, port: int) -> http.client.HTTPConnection:
        source = (self.source, 0) if self.source else None
        return http.client.HTTPConnection(HOST, port, timeout=TIMEOUT, source_address=source)

    def request(
        self,
        method: str,
        path: str,
        form: dict | None = None,
        *,
        htmx: bool = False,
        port: int | None = None,
    ) -> Answer:
        """One request and its whole answer; OSError or HTTPException when none came."""
        port = port or self.pick()
        body, headers = self._prepare(port, method, path, form, htmx)
        connection = self._connection(port)
        try:
            connection.request(method, path, body=body or None, headers=headers)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
        finally:
            connection.close()
        self._keep_cookies(response)
        found = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, found, text, port)

    def _raw(
        self, port: int, path: str, form: dict, htmx: bool
    ) -> tuple[socket.socket, bytes, bytes]:
        body, headers = self._prepare(port, "POST", path, form, htmx)
        head = f"POST {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        source = (self.source, 0) if self.source else None
        sock = socket.create_connection((HOST, port), timeout=TIMEOUT, source_address=source)
        return sock, (head + "\r\n").encode(), body

    def hang_up(
        self, path: str, form: dict, *, htmx: bool = False, port: int | None = None
    ) -> None:
        """The whole form sent, the connection closed before the answer (a phone that lost
        the Wi-Fi, or whose page was closed, just after tapping Send)."""
        sock, head, body = self._raw(port or self.pick(), path, form, htmx)
        try:
            sock.sendall(head + body)
        finally:
            sock.close()

    def cut(self, path: str, form: dict, *, htmx: bool = False, port: int | None = None) -> None:
        """Half of the form's body sent under its whole length, then the connection closed."""
        sock, head, body = self._raw(port or self.pick(), path, form, htmx)
        try:
            sock.sendall(head + body[: len(body) // 2])
        finally:
            sock.close()

    def slow(
        self,
        path: str,
        form: dict,
        *,
        htmx: bool = False,
        port: int | None = None,
        seconds: float = 1.5,
    ) -> Answer:
        """The form sent a few bytes at a time over ``seconds`` (a phone on a weak signal,
        holding a sync worker all the while), then its answer read as usual."""
        port = port or self.pick()
        sock, head, body = self._raw(port, path, form, htmx)
        data = head + body
        pieces = 12
        step = max(1, -(-len(data) // pieces))
        try:
            for start in range(0, len(data), step):
                sock.sendall(data[start : start + step])
                time.sleep(seconds / pieces)
            response = http.client.HTTPResponse(sock)
            response.begin()
            text = response.read().decode("utf-8", "replace")
        finally:
            sock.close()
        self._keep_cookies(response)
        found = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, found, text, port)


def phone_address(index: int) -> str:
    """Person ``index``'s own loopback address (127.2.0.1, 127.2.0.2 ...): Linux answers on
    all of 127/8; apart from loadtest.run's phones (127.1.x.x)."""
    return f"127.2.{index // 250}.{index % 250 + 1}"
