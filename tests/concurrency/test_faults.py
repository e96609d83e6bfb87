"""A lost database connection in the middle of a deal: a clear retry message, no half deal.

The deal's writes run in one transaction (club.games.services.record_deal);
here the database fails after the deal's row and piles are written and before
its ledger is, and the scorer must get the 503 "send it again" answer while
nothing of the deal is left behind.
"""

from __future__ import annotations

import uuid
from unittest import mock

import pytest
from django.db import OperationalError, connection
from django.urls import reverse

from club.games.models import Change, GameTeam, LedgerEntry, Pile, Round, SubmittedForm
from tests.factories import deal_form, start_game

LOST = (
    "The connection to the score database was lost before deal 1 was saved. "
    "Nothing was recorded. Please send it again."
)


def deal_1(game) -> dict:
    """Chitra bids 30 in hearts and her team takes 34 (made: 11-13)."""
    chitra = game.teams.get(position=1).first_player
    # with a one-time key, as the real form carries one
    return deal_form(1, chitra.pk, 30, "hearts", key=str(uuid.uuid4()), p0=22, p1=34)


def nothing_of_the_deal(game) -> None:
    assert not Round.objects.filter(game=game).exists()
    assert not Pile.objects.filter(round__game=game).exists()
    assert not LedgerEntry.objects.filter(round__game=game).exists()
    assert not Change.objects.filter(game=game).exists()
    game.refresh_from_db()
    assert game.deals_played == 0
    assert list(GameTeam.objects.filter(game=game).values_list("tables", flat=True)) == [12, 12]


def fail_before_the_ledger(how):
    """Patch the ledger write of record_deal to lose the database first."""
    original = LedgerEntry.objects.bulk_create

    def lose_then_write(*args, **kwargs):
        how()
        return original(*args, **kwargs)

    return mock.patch.object(LedgerEntry.objects, "bulk_create", lose_then_write)


def refuse():
    raise OperationalError("server closed the connection unexpectedly")


def drop_the_connection():
    """Really lose it: the server ends this session in the middle of the transaction."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")


@pytest.mark.django_db(transaction=True)
def test_a_deal_that_loses_the_database_says_send_again_and_leaves_nothing(organiser_client):
    game = start_game()
    data = deal_1(game)

    with fail_before_the_ledger(refuse):
        answer = organiser_client.post(
            reverse("games:record", args=[game.pk]),
            data,
            HTTP_REFERER=f"http://testserver/games/{game.pk}/",
        )

    assert answer.status_code == 503
    page = answer.content.decode()
    assert LOST in page
    assert f'href="http://testserver/games/{game.pk}/"' in page  # the button back to the form
    assert "Back to the form" in page
    nothing_of_the_deal(game)

    # Sent again, with the same form (and key): recorded once.
    again = organiser_client.post(reverse("games:record", args=[game.pk]), data)
    assert again.status_code == 302
    assert Round.objects.filter(game=game).count() == 1
    assert list(GameTeam.objects.filter(game=game).values_list("tables", flat=True)) == [11, 13]


@pytest.mark.django_db(transaction=True)
def test_the_deal_form_sent_by_htmx_gets_a_note_to_show_above_what_was_typed(organiser_client):
    game = start_game()

    with fail_before_the_ledger(refuse):
        answer = organiser_client.post(
            reverse("games:record", args=[game.pk]), deal_1(game), HTTP_HX_REQUEST="true"
        )

    assert answer.status_code == 503
    body = answer.content.decode()
    assert LOST in body
    assert "<html" not in body and 'class="errors db-retry"' in body
    assert answer["HX-Retarget"] == "this"  # the form that was sent keeps its values
    assert answer["HX-Reswap"] == "afterbegin"
    nothing_of_the_deal(game)


@pytest.mark.django_db(transaction=True)
def test_a_connection_dropped_by_the_server_mid_deal_leaves_nothing(organiser_client):
    if connection.vendor != "postgresql":
        pytest.skip("ending one's own database session needs PostgreSQL's pg_terminate_backend")
    game = start_game()

    with fail_before_the_ledger(drop_the_connection):
        answer = organiser_client.post(reverse("games:record", args=[game.pk]), deal_1(game))

    assert answer.status_code == 503
    assert LOST in answer.content.decode()
    nothing_of_the_deal(game)  # a new connection sees no trace of the deal


@pytest.mark.django_db(transaction=True)
def test_a_page_that_loses_the_database_says_try_again(client):
    game = start_game()
    with mock.patch("club.games.views.game_page", side_effect=OperationalError("gone")):
        answer = client.get(reverse("games:detail", args=[game.pk]))
    assert answer.status_code == 503
    assert "Please try again in a moment." in answer.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_key_that_cannot_be_kept_takes_its_deal_with_it(organiser_client, monkeypatch):
    """The key is written in the deal's transaction: losing the database there keeps neither."""
    game = start_game(2)

    def lost(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(SubmittedForm, "save", lost)
    organiser_client.raise_request_exception = False
    response = organiser_client.post(reverse("games:record", args=[game.pk]), deal_1(game))
    assert response.status_code == 503
    assert LOST in response.content.decode()
    nothing_of_the_deal(game)
    assert not SubmittedForm.objects.exists()


def commit_then(how):
    """Let the transaction commit, then lose the connection before the answer is sent."""
    real = connection.commit

    def commit_and_lose(*args, **kwargs):
        real(*args, **kwargs)
        how()

    return mock.patch.object(connection, "commit", commit_and_lose)


def recorded_once(game) -> None:
    assert Round.objects.filter(game=game).count() == 1
    assert Change.objects.filter(game=game).count() == 1
    assert list(GameTeam.objects.filter(game=game).values_list("tables", flat=True)) == [11, 13]


@pytest.mark.django_db(transaction=True)
def test_a_deal_committed_before_the_connection_went_is_answered_recorded(organiser_client):
    game = start_game()
    data = deal_1(game)
    with commit_then(refuse):
        answer = organiser_client.post(reverse("games:record", args=[game.pk]), data)
    # Not "nothing was recorded": the deal and its key were committed together, so
    # the answer it got is given, and the scorer moves on to deal 2.
    assert answer.status_code == 302
    assert answer["Location"].endswith("#settlement")
    assert answer["X-Idempotent-Replay"] == "true"
    recorded_once(game)
    again = organiser_client.post(reverse("games:record", args=[game.pk]), data)
    assert again.status_code == 302 and again["X-Idempotent-Replay"] == "true"
    recorded_once(game)  # and the resend is never "still being saved"


@pytest.mark.django_db(transaction=True)
def test_a_real_connection_killed_after_the_commit_is_answered_recorded(organiser_client):
    if connection.vendor != "postgresql":
        pytest.skip("ending one's own database session needs PostgreSQL's pg_terminate_backend")
    game = start_game()
    with commit_then(drop_the_connection):
        answer = organiser_client.post(
            reverse("games:record", args=[game.pk]), deal_1(game), HTTP_HX_REQUEST="true"
        )
    assert answer.status_code == 200
    assert answer["X-Idempotent-Replay"] == "true"
    assert "Record deal 2" in answer.content.decode()  # the fragment the deal got
    recorded_once(game)


@pytest.mark.django_db(transaction=True)
def test_a_database_that_cannot_be_asked_says_so_instead_of_nothing_was_recorded(
    organiser_client, monkeypatch
):
    game = start_game()

    def unreachable(*args, **kwargs):
        raise OperationalError("could not connect to server")

    with commit_then(refuse), mock.patch("club.middleware.answer_kept", unreachable):
        answer = organiser_client.post(reverse("games:record", args=[game.pk]), deal_1(game))
    assert answer.status_code == 503
    page = answer.content.decode()
    assert "we could not check whether deal 1 was saved" in page
    assert "Nothing was recorded" not in page
    assert SubmittedForm.objects.filter(path=f"/games/{game.pk}/deals/").count() == 1
    recorded_once(game)


FULL = "The score database has run out of disk space, so nothing was saved."


@pytest.mark.django_db(transaction=True)
def test_a_full_disk_says_so_instead_of_connection_lost(organiser_client):
    """The database refuses the deal's ledger for want of room (SQLite's own words)."""
    game = start_game()

    def full():
        raise OperationalError("database or disk is full")

    organiser_client.raise_request_exception = False
    with fail_before_the_ledger(full):
        answer = organiser_client.post(reverse("games:record", args=[game.pk]), deal_1(game))
    assert answer.status_code == 503
    page = answer.content.decode()
    assert FULL in page
    assert "connection" not in page.split('class="errors db-retry"')[-1][:400].lower()
    nothing_of_the_deal(game)


def test_postgresql_disk_full_is_told_apart_from_a_lost_connection():
    import psycopg

    from club.middleware import disk_is_full

    lost = OperationalError("server closed the connection unexpectedly")
    full = OperationalError('could not extend file "base/16384/2619": No space left on device')
    full.__cause__ = psycopg.errors.DiskFull("could not extend file")
    assert disk_is_full(full)
    assert not disk_is_full(lost)
    assert disk_is_full(OperationalError("database or disk is full"))  # SQLite's words
