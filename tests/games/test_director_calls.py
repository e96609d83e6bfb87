"""Calling the director from a table: one tap makes the call, one more gives its reason or
takes it back; one open call a game; the organisers answer it on their calls page or the
director's board, which read only the calls open or lately answered.

Time is fixed with ``django.utils.timezone.now`` patched where a page says it.
"""

from __future__ import annotations

import datetime
import re
import threading
import uuid
from contextlib import contextmanager
from unittest import mock

import pytest
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from club.games import calls, links
from club.games.models import DirectorCall, Game, SubmittedForm
from club.games.services import end_game
from club.tournaments import selectors
from club.tournaments import services as tournaments
from tests.factories import start_game
from tests.tournaments.helpers import make_tournament, rng

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 5, 20, 40, tzinfo=datetime.UTC)
HTMX = {"HX-Request": "true"}


@contextmanager
def at(moment: datetime.datetime):
    with mock.patch.object(timezone, "now", return_value=moment):
        yield


def later(minutes: float) -> datetime.datetime:
    return NOW + datetime.timedelta(minutes=minutes)


@pytest.fixture
def game():
    return start_game(2, first_dealer=0, label="Church hall table 2")


@pytest.fixture
def link(game):
    [link] = links.issue_links(game=game)
    return link


def url(link, name: str = "scorer_call") -> str:
    return reverse(f"games:{name}", args=[link.token])


def key() -> dict:
    return {"idempotency_key": str(uuid.uuid4())}


# --- The service ---------------------------------------------------------------------------


def test_a_second_tap_finds_the_open_call_and_a_reason_follows_with_one_more(game, link):
    with at(NOW):
        first, made = calls.call_director(game=game, link=link)
    assert made and first.is_open and first.reason == "" and first.made_at == NOW
    with at(later(1)):
        again, made = calls.call_director(game=game, link=link)
        assert not made and again.pk == first.pk
        with_reason, made = calls.call_director(game=game, link=link, reason="misdeal")
    assert not made and with_reason.pk == first.pk
    first.refresh_from_db()
    assert first.reason == "misdeal" and first.changed_at == later(1)
    assert DirectorCall.objects.count() == 1


def test_a_reason_not_on_the_list_is_refused_and_nothing_is_saved(game, link):
    with pytest.raises(calls.CallError) as refused:
        calls.call_director(game=game, link=link, reason="cheating")
    assert refused.value.message == "Choose one of the reasons listed."
    assert not DirectorCall.objects.exists()
    call, _made = calls.call_director(game=game, link=link)
    with pytest.raises(calls.CallError):
        calls.give_reason(call=call, reason="<script>")
    call.refresh_from_db()
    assert call.reason == ""


def test_the_database_holds_one_open_call_a_game(game):
    calls.call_director(game=game)
    with pytest.raises(IntegrityError), transaction.atomic():
        DirectorCall.objects.create(game=game, made_at=NOW, changed_at=NOW)


def test_a_call_taken_back_leaves_and_the_next_tap_makes_a_new_one(game, link):
    call, _made = calls.call_director(game=game, link=link)
    calls.withdraw_call(game=game)
    call.refresh_from_db()
    assert call.withdrawn_at is not None and not call.is_open
    with pytest.raises(calls.CallError) as refused:
        calls.withdraw_call(game=game)
    assert refused.value.message == "This table has no call open: there is nothing to take back."
    with pytest.raises(calls.CallError) as refused:
        calls.answer_call(call=call)
    assert refused.value.message == "The table took this call back: there is nothing to answer."
    new, made = calls.call_director(game=game, link=link)
    assert made and new.pk != call.pk


def test_answering_twice_keeps_the_first_answer(game, organiser, django_user_model):
    call, _made = calls.call_director(game=game)
    with at(NOW):
        calls.answer_call(call=call, user=organiser)
    other = django_user_model.objects.create_user(username="second", is_staff=True)
    with at(later(1)):
        calls.answer_call(call=call, user=other)
    call.refresh_from_db()
    assert (call.answered_at, call.answered_by) == (NOW, organiser)


def test_a_finished_game_cannot_call(game):
    end_game(game=game)
    with pytest.raises(calls.CallError) as refused:
        calls.call_director(game=game)
    assert refused.value.message.startswith("The game is over")
    assert not DirectorCall.objects.exists()


# --- The scorer's page ---------------------------------------------------------------------


def test_one_tap_calls_and_the_page_says_when(client, game, link):
    page = client.get(url(link, "scorer")).text
    assert "Call the director" in page and "data-director-call" in page
    with at(NOW):
        answer = client.post(url(link), key(), headers=HTMX)
    assert answer.status_code == 200 and "no-store" in answer["Cache-Control"]
    assert answer.text.lstrip().startswith('<section id="table-status"')
    assert "Director called at 20:40" in answer.text
    assert "Take the call back" in answer.text and "Why? One tap, if you like:" in answer.text
    # While the call is open the part asks again, quickly, to show it answered.
    assert 'hx-trigger="every 3s"' in answer.text
    for value, _words in DirectorCall.Reason.choices:
        assert f'name="reason" value="{value}"' in answer.text
    call = DirectorCall.objects.get()
    assert call.game == game and call.scorer_link == link and call.made_at == NOW


def test_a_second_tap_or_a_resend_makes_no_second_call(client, game, link):
    sent = key()
    first = client.post(url(link), sent, headers=HTMX)
    resent = client.post(url(link), sent, headers=HTMX)
    assert resent["X-Idempotent-Replay"] == "true" and resent.content == first.content
    client.post(url(link), key(), headers=HTMX)  # a second tap, a new form
    assert DirectorCall.objects.count() == 1
    assert SubmittedForm.objects.count() == 2


def test_the_reason_and_taking_the_call_back(client, game, link):
    client.post(url(link), key(), headers=HTMX)
    answer = client.post(url(link), {**key(), "reason": "card_shown"}, headers=HTMX)
    assert 'value="card_shown" aria-pressed="true"' in answer.text
    assert "A card shown, or a revoke" in answer.text
    assert DirectorCall.objects.get().reason == "card_shown"
    refused = client.post(url(link), {**key(), "reason": "bribery"}, headers=HTMX)
    assert "Choose one of the reasons listed." in refused.text
    assert DirectorCall.objects.get().reason == "card_shown"
    back = client.post(url(link, "scorer_call_withdraw"), key(), headers=HTMX)
    assert "Call the director" in back.text and "Director called" not in back.text
    assert DirectorCall.objects.get().withdrawn_at is not None
    # Without scripts: the page itself, at the call's part.
    plain = client.post(url(link), key())
    assert plain.status_code == 302 and plain["Location"] == url(link, "scorer") + "#table-status"


def test_the_table_sees_its_call_answered_for_a_while(client, game, link, organiser):
    with at(NOW):
        call, _made = calls.call_director(game=game, link=link)
    with at(later(2)):
        calls.answer_call(call=call, user=organiser)
        part = client.get(url(link, "scorer_table"), headers=HTMX).text
    assert "The director answered the call at 20:42." in part
    assert "Call the director" in part and "hx-trigger" not in part  # a club night: no clock
    with at(later(2) + calls.RECENT + datetime.timedelta(seconds=1)):
        assert "answered the call" not in client.get(url(link, "scorer_table"), headers=HTMX).text
    # A part of the page, never kept by the phone nor any cache: the call as it stands now.
    plain = client.get(url(link, "scorer_table"))
    assert plain.status_code == 200 and "no-store" in plain["Cache-Control"]
    assert "<html" not in plain.text and 'id="table-status"' in plain.text


def test_a_withdrawn_link_cannot_call(client, game, link):
    links.revoke_link(link=link)
    assert client.post(url(link), key()).status_code == 403
    assert client.get(url(link, "scorer_table")).status_code == 403
    assert not DirectorCall.objects.exists()


# --- The organisers' calls page ------------------------------------------------------------


def test_the_calls_page_lists_open_calls_oldest_first_and_polls(organiser_client, link):
    other = start_game(2, label="Verandah table 5")
    [other_link] = links.issue_links(game=other)
    with at(NOW):
        calls.call_director(game=other, link=other_link, reason="leaving")
    with at(later(3)):
        calls.call_director(game=link.game, link=link)
    page_url = reverse("games:calls")
    with at(later(5)):
        response = organiser_client.get(page_url)
    page = response.text
    assert "no-store" in response["Cache-Control"]
    assert page.index("Verandah table 5") < page.index("Church hall table 2")
    assert "2 tables call the director" in page
    assert "Called at 20:40, 5 minutes ago" in page and "A player must leave the table" in page
    assert "No reason given yet" in page
    version = response.context["calls_version"]
    with at(later(5)):
        assert organiser_client.get(page_url, {"version": version}).status_code == 204
        calls.answer_call(call=DirectorCall.objects.get(game=other))
        fresh = organiser_client.get(page_url, {"version": version}, headers=HTMX)
    assert fresh.status_code == 200 and "<html" not in fresh.text
    assert "1 table calls the director" in fresh.text
    assert "Calls answered lately" in fresh.text and "answered at 20:45" in fresh.text


def test_answering_goes_back_to_the_page_it_was_answered_from(organiser_client, organiser, link):
    call, _made = calls.call_director(game=link.game, link=link)
    answer = reverse("games:call_answer", args=[call.pk])
    response = organiser_client.post(answer, key())
    assert response.status_code == 302 and response["Location"] == reverse("games:calls")
    call.refresh_from_db()
    assert call.answered_by == organiser and not call.is_open
    again, _made = calls.call_director(game=link.game, link=link)
    board = "http://testserver/tournaments/1/board/"
    response = organiser_client.post(
        reverse("games:call_answer", args=[again.pk]), key(), headers={"Referer": board}
    )
    assert response["Location"] == board


def test_a_player_or_a_visitor_cannot_answer(link, django_user_model):
    call, _made = calls.call_director(game=link.game, link=link)
    player = Client()
    player.force_login(django_user_model.objects.create_user(username="pat"))
    for browser in (Client(), player):
        browser.post(reverse("games:call_answer", args=[call.pk]), key())
        assert browser.get(reverse("games:calls")).status_code in (302, 403)
    call.refresh_from_db()
    assert call.is_open


# --- The director's board ------------------------------------------------------------------


def _tournament_tables():
    tournament = make_tournament(teams=6)
    sitting = tournaments.confirm_sitting(
        sitting=tournaments.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    games = [entry.game for entry in sitting.games.order_by("position")]
    return tournament, sitting, games


def test_the_board_shows_the_calls_on_top_with_their_table_and_time(organiser_client):
    tournament, sitting, (first, second, third) = _tournament_tables()
    [link] = links.issue_links(game=third)
    with at(NOW):
        calls.call_director(game=third, link=link, reason="score")
    with at(later(2)):
        calls.call_director(game=first)
    board = reverse("tournaments:board", args=[tournament.pk])
    with at(later(4)):
        page = organiser_client.get(board).text
    assert page.index('id="calls"') < page.index('class="board-counts"')
    called = page[page.index('id="calls"') : page.index("</section>", page.index('id="calls"'))]
    third_label = third.sitting_entry.table_label
    first_label = first.sitting_entry.table_label
    assert called.index(third_label) < called.index(first_label)  # the oldest first
    assert "The count or the score is disputed" in called
    assert "Called at 20:40, 4 minutes ago" in called
    teams = " · ".join(third.teams.order_by("position").values_list("team__name", flat=True))
    assert teams.replace("&", "&amp;") in called
    assert called.count("Answered") == 2


def test_a_call_made_or_answered_moves_the_boards_token(organiser_client):
    tournament, sitting, (first, _second, _third) = _tournament_tables()
    board = reverse("tournaments:board", args=[tournament.pk])
    with at(NOW):
        version = selectors.board_version(tournament, sitting)
        assert organiser_client.get(board, {"version": version}).status_code == 204
        call, _made = calls.call_director(game=first)
        moved = selectors.board_version(tournament, sitting)
        assert moved != version
        response = organiser_client.get(board, {"version": version}, headers=HTMX)
        assert response.status_code == 200 and "1 table calls the director" in response.text
        calls.give_reason(call=call, reason="misdeal")
        reasoned = selectors.board_version(tournament, sitting)
        assert reasoned != moved
        calls.answer_call(call=call)
        answered = selectors.board_version(tournament, sitting)
        assert answered != reasoned
        page = organiser_client.get(board).text
    assert "calls the director" not in page and "Calls answered lately" in page
    # Another club's or another tournament's call leaves this board's token as it was.
    other = start_game(2)
    with at(NOW):
        calls.call_director(game=other)
        assert selectors.board_version(tournament, sitting) == answered


def test_the_boards_queries_do_not_grow_with_past_calls(organiser_client):
    tournament, sitting, games = _tournament_tables()
    board = reverse("tournaments:board", args=[tournament.pk])
    with at(NOW):
        calls.call_director(game=games[0])

    def counted() -> tuple[int, int]:
        with at(later(30)), CaptureQueriesContext(connection) as page:
            assert organiser_client.get(board).status_code == 200
        with at(later(30)), CaptureQueriesContext(connection) as poll:
            version = selectors.board_version(tournament, sitting)
            assert organiser_client.get(board, {"version": version}).status_code == 204
        return len(page), len(poll)

    before = counted()
    # Forty past calls, answered long ago: never read again.
    for number in range(40):
        with at(NOW - datetime.timedelta(hours=2, minutes=number)):
            call, _made = calls.call_director(game=games[1 + number % 2])
            calls.answer_call(call=call)
    with CaptureQueriesContext(connection) as read:
        with at(later(30)):
            organiser_client.get(board)
    assert counted() == before
    shown = [q["sql"] for q in read.captured_queries if "games_directorcall" in q["sql"]]
    assert len(shown) == 2  # the board's token and the calls it shows


# --- What the review found -----------------------------------------------------------------


def test_the_calls_page_moves_on_with_the_minutes_while_a_call_is_open(organiser_client, link):
    with at(NOW):
        calls.call_director(game=link.game, link=link)
        first = organiser_client.get(reverse("games:calls"))
    assert "Called at 20:40, just now" in first.text
    version = first.context["calls_version"]
    with at(later(0.5)):  # the same minute: nothing to send
        assert organiser_client.get(reverse("games:calls"), {"version": version}).status_code == 204
    with at(later(7)):
        polled = organiser_client.get(reverse("games:calls"), {"version": version}, headers=HTMX)
    assert polled.status_code == 200 and "Called at 20:40, 7 minutes ago" in polled.text
    # With no call open the minutes change nothing on the page: the poll stays quiet.
    with at(later(8)):
        calls.answer_call(call=DirectorCall.objects.get())
        quiet = organiser_client.get(reverse("games:calls")).context["calls_version"]
    with at(later(9)):
        assert organiser_client.get(reverse("games:calls"), {"version": quiet}).status_code == 204


def test_calls_answered_lately_are_listed_the_last_answered_first(organiser_client, link):
    other = start_game(2, label="Verandah table 5")
    with at(NOW):
        first, _made = calls.call_director(game=link.game, link=link)
    with at(later(1)):
        second, _made = calls.call_director(game=other)
    with at(later(2)):
        calls.answer_call(call=second)
    with at(later(3)):
        calls.answer_call(call=first)
        shown = calls.shown_calls(calls.club_calls(link.game.club_id))
        page = organiser_client.get(reverse("games:calls")).text
    assert [call["id"] for call in shown["answered"]] == [first.pk, second.pk]
    done = page[page.index("Calls answered lately") :]
    assert done.index("Church hall table 2") < done.index("Verandah table 5")


def _calls_page_queries(client) -> tuple[int, int]:
    with at(later(3)), CaptureQueriesContext(connection) as page:
        response = client.get(reverse("games:calls"))
    assert response.status_code == 200 and "1 table calls the director" in response.text
    with at(later(3)), CaptureQueriesContext(connection) as poll:
        again = client.get(reverse("games:calls"), {"version": response.context["calls_version"]})
    assert again.status_code == 204
    return len(page), len(poll)


def test_the_calls_page_reads_the_calls_shown_never_the_clubs_games(organiser_client, link):
    start_game(2, label="Verandah table 5")
    start_game(2, label="Porch table 1")
    with at(NOW):
        calls.call_director(game=link.game, link=link)
    before = _calls_page_queries(organiser_client)
    # Sixty finished games of past nights, each with a call answered long ago.
    for number in range(60):
        past = start_game(2, label=f"Past table {number}")
        with at(NOW - datetime.timedelta(days=1, minutes=number)):
            call, _made = calls.call_director(game=past)
            calls.answer_call(call=call)
        end_game(game=past)
    assert _calls_page_queries(organiser_client) == before
    if connection.vendor != "sqlite":
        return  # PostgreSQL plans by the tables' sizes: see docs/developers (checked by hand)
    # SQLite starts from the calls' index, and looks at each call's game by its key.
    shown = calls._shown(calls.club_calls(link.game.club_id), NOW)
    for query in (shown.values("id", "game__label"), shown.values("id").order_by()):
        sql, params = query.query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
            plan = " | ".join(row[-1] for row in cursor.fetchall())
        assert "USING INDEX directorcall_shown (answered_at=? AND withdrawn_at=?)" in plan
        assert "USING INDEX directorcall_shown (answered_at>?)" in plan
        assert "SEARCH games_game USING INTEGER PRIMARY KEY" in plan, plan
        assert "club_id" not in plan, plan


def test_a_reason_just_after_the_call_was_taken_back_or_answered_calls_again(client, link):
    game = link.game
    call, _made = calls.call_director(game=game, link=link)
    calls.withdraw_call(game=game)
    reasoned = calls.give_reason(call=call, reason="misdeal")
    assert reasoned.pk != call.pk and reasoned.is_open and reasoned.reason == "misdeal"
    calls.answer_call(call=reasoned)
    answer = client.post(url(link), {**key(), "reason": "score"}, headers=HTMX)
    assert "Director called at" in answer.text and "This table has no call open" not in answer.text
    assert DirectorCall.objects.filter(answered_at=None, withdrawn_at=None).get().reason == "score"


def _waits_for_the_games_row(game, change) -> None:
    """``change`` waits while another transaction holds ``game``'s row, and then runs."""
    held, release, done = threading.Event(), threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=game.pk)
            held.set()
            release.wait(10)
        connection.close()

    def run() -> None:
        change()
        done.set()
        connection.close()

    holder, changer = threading.Thread(target=hold), threading.Thread(target=run)
    holder.start()
    assert held.wait(10)
    changer.start()
    waited = not done.wait(0.5)
    release.set()
    holder.join(10)
    changer.join(10)
    assert waited, "the change did not wait for the game's row"
    assert done.is_set()


@pytest.mark.django_db(transaction=True)
def test_a_reason_taking_back_and_answering_wait_for_the_games_row():
    """Each change of a game's calls locks the game's row first, as a call does, so a
    reason arriving as the call is taken back or answered queues behind it."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no row lock: one transaction writes at a time")
    game = start_game(2, label="Church hall table 2")
    call, _made = calls.call_director(game=game)
    _waits_for_the_games_row(game, lambda: calls.give_reason(call=call, reason="misdeal"))
    _waits_for_the_games_row(game, lambda: calls.withdraw_call(game=game))
    again, _made = calls.call_director(game=game)
    _waits_for_the_games_row(game, lambda: calls.answer_call(call=again))
    call.refresh_from_db()
    again.refresh_from_db()
    assert call.reason == "misdeal" and call.withdrawn_at is not None
    assert again.answered_at is not None


def test_each_reason_has_its_own_key_so_a_second_reason_after_a_lost_answer_lands(client, link):
    client.post(url(link), key(), headers=HTMX)
    page = client.get(url(link, "scorer")).text
    forms = re.findall(r"<form [^>]*data-director-call[^>]*>.*?</form>", page, re.S)
    keys = {}
    for form in forms:
        reason = re.search(r'name="reason" value="([a-z_]+)"', form)
        if reason:
            keys[reason[1]] = re.search(r'name="idempotency_key" value="([^"]+)"', form)[1]
            assert (
                'hx-disabled-elt="closest fieldset"' in form
            )  # every reason waits while one is sent
    assert sorted(keys) == sorted(DirectorCall.Reason.values)
    assert len(set(keys.values())) == len(keys)
    # The first reason's answer was lost: the phone still shows the page it had.
    for reason in ("misdeal", "score"):
        sent = {"idempotency_key": keys[reason], "reason": reason}
        answer = client.post(url(link), sent, headers=HTMX)
        assert answer.status_code == 200
        assert DirectorCall.objects.get().reason == reason
