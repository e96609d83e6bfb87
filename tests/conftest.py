import datetime
import os
import threading

import pytest
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from club.clubs import known
from club.leaderboards import own_parts
from club.web import after

# Playwright's sync API runs an event loop in the test thread; Django's ORM
# would otherwise refuse to be called from the live-server tests.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(autouse=True)
def no_page_from_another_test():
    """Each test's database starts again at id 1: the pages one test cached (club.web.pages)
    must not meet the next test's pages under the same key.

    Only a cache in this process's memory is emptied. A test that keeps pages in Redis
    (tests/web) owns a key prefix and deletes its own keys: emptying the database
    (FLUSHDB) here, at a teardown that may still see that test's settings, emptied it
    under the other half of CI, which runs the same test on the same Redis at once."""
    _clear_local_pages()
    yield
    _clear_local_pages()


def _clear_local_pages() -> None:
    cache = caches["pages"]
    if isinstance(cache, LocMemCache):
        cache.clear()
    own_parts.forget()  # the players' own parts a process keeps, under ids that start again


@pytest.fixture(autouse=True, scope="session")
def own_parts_checked():
    """Every player's part read from what a process keeps (club.leaderboards.own_parts) is
    compared with a fresh reading: every path that writes checks that its key moves."""
    from django.conf import settings

    settings.PROFILE_PARTS_CHECK = True
    # Kept at once: every game here was changed a moment ago (own_parts.SETTLED).
    own_parts.SETTLED = datetime.timedelta(0)


def _one_request_at_a_time(live_server) -> None:
    """On the in-memory SQLite test database the live server's request threads share the
    test's one connection: two requests at once interleave their queries on it (a scorer
    link read as missing while another phone's poll ran, seen in the event test on a
    loaded machine). There, the app answers one request at a time, each whole (a streamed
    answer is read out inside the turn); threads still keep connections open. PostgreSQL,
    with a connection per thread, keeps its concurrency (tests/concurrency)."""
    server = getattr(live_server.thread, "httpd", None)
    if server is None or getattr(server, "one_at_a_time", False):
        return
    if not live_server.thread.connections_override:
        return  # every thread has a connection of its own
    app, turn = server.get_app(), threading.Lock()

    def in_turn(environ, start_response):
        with turn:
            result = app(environ, start_response)
            try:
                return [b"".join(result)]
            finally:
                if hasattr(result, "close"):
                    result.close()

    server.set_app(in_turn)
    server.one_at_a_time = True


@pytest.fixture
def rendered_queries(client):
    """``rendered_queries(url)``: the queries of a visitor's GET of ``url`` rendered afresh
    (nothing kept in this process's pages cache), asserting it answers 200."""

    def count(url: str) -> int:
        _clear_local_pages()
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200, url
        return len(captured)

    return count


@pytest.fixture
def live_server(live_server, settings):
    """The live server does at once what an answer may leave until after it is sent
    (club.web.after): its request threads share the test's database (one connection on
    SQLite), and a test that has its answer goes on reading, or empties the database,
    while the work would still be running. The work after the answer is tested through
    the test client, which runs it before the call returns (tests/leaderboards/test_owed.py)."""
    settings.CLUB_WORK_AFTER_ANSWER = False
    _one_request_at_a_time(live_server)
    yield live_server
    assert after.wait_until_done(), "work left after an answer was still running after 30 s"


DATABASE_FIXTURES = {"db", "transactional_db", "live_server", "django_db_reset_sequences"}
# The tests forget the clubs themselves (below): a long test must not read them again in the
# middle of a count of its queries because half a minute has passed.
known.KEEP_SECONDS = float("inf")


@pytest.fixture(autouse=True)
def clubs_known(request):
    """The clubs are read before a test that uses the database (club.clubs.known keeps them
    in the process), so that its count of queries is its own; read again after a test that
    changed them, or whose database was emptied, so the next test does not meet clubs it
    never made. A test without the database reads none."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None and not DATABASE_FIXTURES & set(request.fixturenames):
        yield
        return
    request.getfixturevalue("django_db_setup")
    known.changed = False
    emptied = {"transactional_db", "live_server"} & set(request.fixturenames) or (
        marker is not None and marker.kwargs.get("transaction")
    )
    if emptied:  # a live server's late answer to the last test may have read them since
        known.forget()
    with request.getfixturevalue("django_db_blocker").unblock():
        known.clubs()  # a club made here (the database was emptied) is read again after
    yield
    if known.changed or emptied:
        known.forget()


@pytest.fixture(autouse=True)
def no_api_rate(settings):
    """The suite asks the API far more than a client may (club/api); tests/api checks the
    limit with a rate of its own."""
    settings.CLUB_API_RATE = ""


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # The real hasher is slow on purpose; tests only need logins to work.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def organiser(django_user_model):
    return django_user_model.objects.create_user(
        username="olive", password="olive-organiser-pw", is_staff=True
    )


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    return client
