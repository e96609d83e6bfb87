"""Real HTTP against the live server, one logged-in organiser per thread.

Each :class:`Scorer` is a cookie jar and a ``urllib`` opener: it logs in
through the login page, reads the CSRF token from the page it is about to
post from, and posts the form as a browser would. Redirects are not
followed, so a test sees exactly what the view answered (a deal recorded is a
302 to ``#settlement``; a refusal is a 200 page with the message).
"""

from __future__ import annotations

import http.cookiejar
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from unittest import mock

import pytest
from django.db import connection

PASSWORD = "scorer-pw-56"  # noqa: S105 - a test account's password
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def skip_without_real_locks() -> None:
    """Skip where the test database cannot hold two transactions at once.

    pytest-django gives SQLite an in-memory test database, and Django's live
    server then hands that one connection to every request thread
    (``ThreadedWSGIServer.connections_override``): two "concurrent" requests
    would share one connection and one transaction (the second ``atomic()``
    becomes a savepoint inside the first), which proves nothing about locks.
    With a file test database (``DATABASES["default"]["TEST"]["NAME"]``) every
    request has its own connection and these tests run on SQLite too.
    """
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip(
            "in-memory SQLite test database: the live server shares one connection between "
            "its request threads, so concurrent requests cannot be made; run on PostgreSQL "
            "(or SQLite with a file test database)"
        )


@dataclass
class Answer:
    status: int
    body: str
    location: str = ""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Scorer:
    """An organiser with a phone: their own session, talking HTTP to the live server."""

    def __init__(self, base_url: str, username: str):
        self.base_url = base_url
        self.username = username
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect()
        )

    def _send(self, path: str, data: dict | None = None, headers: dict | None = None) -> Answer:
        body = urllib.parse.urlencode(data, doseq=True).encode() if data is not None else None
        request = urllib.request.Request(self.base_url + path, data=body, headers=headers or {})
        try:
            with self.opener.open(request, timeout=60) as response:
                return Answer(response.status, response.read().decode(), "")
        except urllib.error.HTTPError as error:  # 3xx (not followed), 4xx and 5xx
            with error:
                return Answer(error.code, error.read().decode(), error.headers.get("Location", ""))

    def get(self, path: str) -> Answer:
        return self._send(path)

    def token(self, path: str) -> str:
        """The CSRF token of the form on ``path``, as the browser would have it."""
        page = self.get(path)
        assert page.status == 200, (path, page.status)
        match = CSRF_FIELD.search(page.body)
        assert match, f"no CSRF token on {path}"
        return match.group(1)

    def post(self, path: str, data: dict, *, token: str, headers: dict | None = None) -> Answer:
        return self._send(path, {**data, "csrfmiddlewaretoken": token}, headers)

    def log_in(self) -> Scorer:
        token = self.token("/accounts/login/")
        answer = self.post(
            "/accounts/login/", {"username": self.username, "password": PASSWORD}, token=token
        )
        assert answer.status == 302, f"{self.username} could not log in: {answer.status}"
        return self


@pytest.fixture
def scorers(live_server, django_user_model) -> Callable[[int], list[Scorer]]:
    """``scorers(n)``: n organisers, each logged in through the login page."""
    skip_without_real_locks()

    def make(count: int) -> list[Scorer]:
        made = []
        for number in range(count):
            username = f"scorer{number}"
            django_user_model.objects.create_user(
                username=username, password=PASSWORD, is_staff=True
            )
            made.append(Scorer(live_server.url, username).log_in())
        return made

    return make


def at_once(*calls: Callable[[], object], timeout: float = 60) -> list[object]:
    """Run the calls in threads released together; their results, or the exception raised."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - handed back to the test, which asserts
            results[index] = error

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a request never answered"
    return results


@contextmanager
def lock_held_longer(module, name: str, seconds: float = 0.3):
    """Slow ``module.name``, a function that runs while the row lock is held.

    The live server runs in this process, so the patch reaches its request
    threads: the first request keeps the lock a little longer, and the second
    one surely arrives while it is held and has to wait for it.
    """
    original = getattr(module, name)

    def slow(*args, **kwargs):
        time.sleep(seconds)
        return original(*args, **kwargs)

    with mock.patch.object(module, name, slow):
        yield
