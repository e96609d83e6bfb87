"""The shared cache's write counter (club.web.pages): a kept page read with no query.

Every test of test_pages_cache runs here again with the counter on, in transactions
that commit as a server's do (the counter moves after a commit, never before): each
change still shows at once. Then what is the counter's own: a read from the memo asks
the database nothing, a transaction moves it once, a write no page shows (a session, a
one-time key) and a write rolled back do not move it, and a savepoint rolled back does
not lose the move its transaction still owes.
"""

from __future__ import annotations

import gzip

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.core.cache import caches
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from club.games.models import Player
from club.games.services import record_deal
from club.games.views import live_version
from club.web import pages, writes
from tests.factories import start_game
from tests.web.test_pages_cache import *  # noqa: F403  (the same tests, with the counter)
from tests.web.test_pages_cache import made

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def write_counter(settings):
    settings.PAGES_WRITE_COUNTER = True
    pages.forget()


def queries_of(request) -> int:
    with CaptureQueriesContext(connection) as captured:
        request()
    return len(captured.captured_queries)


def counter():
    return caches["pages"].get(writes.WRITES)


def test_a_page_read_from_the_memo_asks_the_database_nothing(django_assert_num_queries):
    game = start_game(2)
    url = game.get_absolute_url()
    first = Client().get(url)
    with django_assert_num_queries(0):
        again = Client().get(url)
        reload = Client().get(url, headers={"if-none-match": first["ETag"]})
    assert again.content == first.content and again["ETag"] == first["ETag"]
    assert reload.status_code == 304
    record_deal(game=game, number=1, entry=made(game, 1))
    moved = Client().get(url)  # the counter moved: the key is read again, the page anew
    assert moved.content != first.content and 'class="declaring"' in moved.text


def test_a_live_poll_with_nothing_new_is_answered_from_the_memo(django_assert_num_queries):
    game = start_game(2)
    url = game.get_absolute_url()
    token = live_version(game)
    assert Client().get(url, {"version": token}).status_code == 204  # read from the database
    with django_assert_num_queries(0):
        assert Client().get(url, {"version": token}).status_code == 204


def test_a_poll_reads_the_counters_alone_and_a_page_its_one_kept_copy(
    monkeypatch, django_assert_num_queries
):
    game = start_game(2)
    url = game.get_absolute_url()
    token = live_version(game)
    Client().get(url, {"version": token})  # each memo made: the poll's, then the page's
    first = Client().get(url, headers={"accept-encoding": "gzip"})
    cache, read, inside = caches["pages"], [], []
    get, get_many = cache.get, cache.get_many

    def reading_one(key, *args, **kwargs):
        value = get(key, *args, **kwargs)
        if not inside:  # (the memory's get_many asks get for each key)
            read.append(value)
        return value

    def reading_many(keys, *args, **kwargs):
        inside.append(True)
        try:
            found = get_many(keys, *args, **kwargs)
        finally:
            inside.pop()
        read.extend(found.values())
        return found

    monkeypatch.setattr(cache, "get", reading_one)
    monkeypatch.setattr(cache, "get_many", reading_many)
    with django_assert_num_queries(0):
        assert Client().get(url, {"version": token}).status_code == 204
        assert read and all(type(value) is int for value in read)  # the counters, no page
        read.clear()
        again = Client().get(url, headers={"accept-encoding": "gzip"})
        plain = Client().get(url)  # a reader that takes no gzip
    copies = [value for value in read if type(value) is not int]
    assert len(copies) == 2 and all(value == copies[0] for value in copies)
    content_type, packed = copies[0]  # one copy, gzipped, the memo not among what was read
    assert again.content == first.content == packed and again["Content-Encoding"] == "gzip"
    assert plain.content == gzip.decompress(packed) and "Content-Encoding" not in plain
    assert plain["Content-Type"] == content_type and plain["ETag"] == again["ETag"]


def test_a_page_gone_from_the_cache_is_made_again_from_its_memo_as_it_was(
    django_assert_max_num_queries,
):
    game = start_game(2)
    url = game.get_absolute_url()
    first = Client().get(url)
    fresh = queries_of(lambda: Client().get(url, {"fresh": "1"}))  # a render and a key
    key = next(memo[2] for memo in pages._local.values() if memo[2])
    caches["pages"].delete(key)  # evicted while its memo lives
    with django_assert_max_num_queries(fresh - 1):  # the render, not the key again
        again = Client().get(url)
    assert again.content == first.content and again["ETag"] == first["ETag"]


def test_a_shared_cache_that_fails_to_keep_a_page_still_answers_it(monkeypatch):
    game = start_game(2)
    url = game.get_absolute_url()

    def down(*args, **kwargs):
        raise ConnectionError("the shared cache is down")

    monkeypatch.setattr(caches["pages"], "set", down)
    page = Client().get(url)
    assert page.status_code == 200 and 'class="declaring"' not in page.text


def test_a_transaction_moves_the_counter_once_however_many_rows_it_writes():
    game = start_game(2)
    before = counter() or 0
    record_deal(game=game, number=1, entry=made(game, 1))  # a dozen rows, one commit
    assert counter() == before + 1


def test_a_write_no_page_shows_and_a_write_rolled_back_leave_it():
    start_game(2)
    Client().get("/")  # the counter exists
    before = counter()
    SessionStore().create()  # a session: no page shows it
    assert counter() == before
    with pytest.raises(RuntimeError), transaction.atomic():
        Player.objects.create(name="Never saved")
        raise RuntimeError
    assert counter() == before
    assert not Player.objects.filter(name="Never saved").exists()


def test_a_savepoint_rolled_back_does_not_lose_the_move_its_transaction_owes():
    start_game(2)
    Client().get("/")
    before = counter()
    with transaction.atomic():
        try:
            with transaction.atomic():  # a savepoint: its write registers the move
                Player.objects.create(name="Rolled back")
                raise RuntimeError
        except RuntimeError:
            pass
        Player.objects.create(name="Kept")  # the transaction still writes
    assert counter() == before + 1


def test_a_counter_the_cache_lost_starts_past_every_value_it_had():
    game = start_game(2)
    url = game.get_absolute_url()
    Client().get(url)
    old = counter()
    caches["pages"].delete(writes.WRITES)  # evicted, or Redis restarted empty
    page = Client().get(url)
    assert page.status_code == 200 and counter() > old


def test_every_kept_page_is_read_again_with_no_query(django_assert_num_queries):
    from django.urls import reverse

    from club.tournaments import services as tournaments
    from tests.tournaments.helpers import make_tournament, rng

    tournament = make_tournament(teams=4)
    sitting = tournaments.confirm_sitting(
        sitting=tournaments.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    game = sitting.games.first().game
    record_deal(game=game, number=1, entry=made(game, 1))
    anu = Player.objects.get(name="Anu")
    urls = [
        game.get_absolute_url(),
        tournament.get_absolute_url(),
        reverse("tournaments:live", args=[tournament.pk]),
        reverse("tournaments:projector", args=[tournament.pk]),
        reverse("tournaments:seats", args=[tournament.pk]),
        reverse("tournaments:player", args=[tournament.pk, anu.pk]),
        reverse("leaderboards:player_board"),
        reverse("leaderboards:team_board"),
        anu.get_absolute_url(),
    ]
    for url in urls:
        first = Client().get(url)
        assert first.status_code == 200, url
        with django_assert_num_queries(0):
            again = Client().get(url)
        assert again.content == first.content, url
