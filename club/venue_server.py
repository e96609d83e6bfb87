"""The venue's server: waitress, holding against one hostile phone on the hall's Wi-Fi.

Part of the venue command (club/venue.py), which sets the environment and starts Django
first, then serves the app with :func:`serve`. Waitress is pure Python, so the same command
works on a Windows, macOS or Linux laptop.

Waitress's defaults let one phone stop every other: 100 connections in all, from anyone,
each kept open as long as a byte arrives every two minutes (a header line every few
seconds, never ending the headers, holds it for ever); and a body of up to 1 GB is written
to a temporary file before the app sees it. So: a cap per phone, a short time for a
request's headers, a limit of connections a hall's phones fit in, bodies no larger than
the largest upload, and only the venue's address and the laptop's own listened on.

Plain Python at import: waitress is imported only as the server is made (dev.py imports
the venue with no waitress installed).
"""

from __future__ import annotations

import ctypes
import io
import logging
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the type checker only: waitress is imported as the server is made
    from waitress.channel import HTTPChannel

THREADS = 12  # phones polling every 5 s and scorers recording: waits are on the database
PER_PHONE = 20  # a phone's browser opens at most 6 connections to a server, for all its tabs
CONNECTIONS = 500  # a hall's phones, a few connections each; beyond it new ones wait
HEADERS_WITHIN = 10  # seconds from a request's first byte to the end of its headers
ARENAS = 2  # glibc's malloc arenas the server's threads share (few_arenas)
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


def guarded_channel() -> type[HTTPChannel]:
    """Waitress's connection, with the cap per phone and the time for a request's headers.
    (Made here, not at import: dev.py imports this module with no waitress installed.)"""
    import time

    from waitress.channel import HTTPChannel

    class GuardedChannel(HTTPChannel):
        per_phone: Counter[str] = Counter()  # open connections by the phone's address
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
            server = self.channel.server
            environ = refused_environ(self.request, server, self.channel.addr[0])
            status, headers, body = answer_of(server.application, environ)
            if not status.startswith("413"):
                raise RuntimeError(f"the app answered {status}")
            kept = [(n, v) for n, v in headers if n.lower() not in ("content-length", "connection")]
            return f"413 {RequestEntityTooLarge.reason}", kept, body

    return ClubErrorTask


def refused_environ(request, server, phone: str) -> dict:
    """The WSGI environ the app is asked with for a request whose body was refused unread:
    its line and headers, an empty body, and ``club.refused_body`` (the most taken, and the
    length the request gave, if any)."""
    told = request.headers.get("CONTENT_LENGTH", "")
    environ = {
        "REQUEST_METHOD": request.command or "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": request.path or "/",
        "QUERY_STRING": request.query or "",
        "SERVER_NAME": server.server_name,
        "SERVER_PORT": str(server.effective_port),
        "SERVER_PROTOCOL": f"HTTP/{request.version}",
        "REMOTE_ADDR": phone,
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
    return environ


def answer_of(application, environ: dict) -> tuple[str, list[tuple[str, str]], bytes]:
    """The app's whole answer to ``environ``: its status, headers and body."""
    answered: list = []
    chunks = application(environ, lambda *answer: answered.extend(answer[:2]))
    try:
        body = b"".join(chunks)
    finally:
        if hasattr(chunks, "close"):
            chunks.close()
    status, headers = answered
    return status, headers, body


def few_arenas() -> None:
    """The process's threads share two of glibc's malloc arenas (as MALLOC_ARENA_MAX=2).

    glibc gives each thread that allocates an arena of its own, up to eight a core, and
    each keeps what it has once held: waitress's twelve threads, each in turn holding a
    large import's pieces, kept several times what one import needs, and the laptop's
    memory grew with the file (a 5 MiB file's import 8.6-13.1 MiB above the server's
    floor, a 1 MiB one's 4.7-7.8; with two arenas 3.8-4.9 for both:
    tests/archive/test_web_import_memory.py). Called first thing: once more than eight
    arenas exist (collectstatic compresses in a pool of threads) glibc has fixed its limit
    and takes no other. Elsewhere (macOS, Windows, a libc without ``mallopt``) nothing is
    done."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, TypeError):
        return
    mallopt(-8, ARENAS)  # M_ARENA_MAX in glibc's malloc.h


def serve(app, address: str, port: int) -> None:
    """Serve ``app`` with waitress on the venue's address and the laptop's own (127.0.0.1,
    for the organiser's browser on the laptop), against one hostile phone as above."""
    from waitress.server import BaseWSGIServer, MultiSocketServer, create_server

    listen = dict.fromkeys([f"{address}:{port}", f"127.0.0.1:{port}"])
    server = create_server(
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
    listeners = (server.map or {}).values() if isinstance(server, MultiSocketServer) else [server]
    for listener in listeners:
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = channel
    server.run()
