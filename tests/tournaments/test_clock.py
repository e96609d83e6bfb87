"""The sitting's clock: the director sets its length (which starts it), adds minutes or stops
it; the board, the projector and the tables' scorer pages show the time left by the
server's clock; once time is up the board lists the tables still playing.

Time is fixed with ``django.utils.timezone.now`` patched: every count below is the
server's, whatever the machine's clock says.
"""

from __future__ import annotations

import datetime
from contextlib import contextmanager
from unittest import mock

import pytest
from django.core.cache import caches
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from club.games.links import issue_links
from club.tournaments import clock, services
from club.tournaments.models import Sitting, TournamentEvent
from club.tournaments.writes import TournamentError
from tests.tournaments.helpers import make_tournament, rng, win_game

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 5, 19, 0, tzinfo=datetime.UTC)


@contextmanager
def at(moment: datetime.datetime):
    with mock.patch.object(timezone, "now", return_value=moment):
        yield


def minutes(n: float) -> datetime.timedelta:
    return datetime.timedelta(minutes=n)


def sitting_in_play(teams: int = 6) -> Sitting:
    tournament = make_tournament(teams=teams)
    return services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )


def clock_lines(sitting: Sitting) -> list[tuple[str, str]]:
    return list(
        TournamentEvent.objects.filter(
            tournament=sitting.tournament, action__startswith="clock"
        ).values_list("action", "note")
    )


# --- The service --------------------------------------------------------------------------


def test_setting_the_length_starts_the_clock_now_and_says_so_in_the_history(organiser):
    sitting = sitting_in_play()
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=45, user=organiser)
    sitting.refresh_from_db()
    assert (sitting.minutes, sitting.ends_at) == (45, NOW + minutes(45))
    assert clock_lines(sitting) == [("clock", "45")]
    event = TournamentEvent.objects.get(action="clock")
    assert event.made_by == organiser and event.sitting_number == sitting.number


@pytest.mark.parametrize("length", [5, 240])
def test_the_bounds_themselves_are_lengths(length):
    sitting = sitting_in_play()
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=length)
    sitting.refresh_from_db()
    assert sitting.ends_at == NOW + minutes(length)


def test_a_clock_set_already_is_not_started_again_by_a_page_left_open(organiser):
    """A second "Start the clock" (another director's page, or one opened before the
    clock was set) is refused by name and the time the tables were told stands, running
    or up; stopped, the clock is set anew."""
    sitting = sitting_in_play()
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=30, user=organiser)
    for moment in (NOW + minutes(10), NOW + minutes(45)):  # running, then its time up
        with at(moment), pytest.raises(TournamentError) as refused:
            clock.set_clock(sitting=sitting, minutes=90, user=organiser)
        assert refused.value.message == (
            "This sitting's clock is set already: add minutes to it, "
            "or stop it and set a new length."
        )
        sitting.refresh_from_db()
        assert (sitting.minutes, sitting.ends_at) == (30, NOW + minutes(30))
    assert clock_lines(sitting) == [("clock", "30")]
    with at(NOW + minutes(50)):
        clock.stop_clock(sitting=sitting)
        clock.set_clock(sitting=sitting, minutes=20)
    sitting.refresh_from_db()
    assert sitting.ends_at == NOW + minutes(70)


@pytest.mark.parametrize("length", [None, 0, 4, 241, 10_000])
def test_a_length_out_of_bounds_is_refused_by_name_and_nothing_is_saved(length):
    sitting = sitting_in_play()
    with pytest.raises(TournamentError) as refused:
        clock.set_clock(sitting=sitting, minutes=length)
    assert refused.value.message == ("The length must be a whole number of minutes from 5 to 240.")
    assert refused.value.field == "minutes"
    sitting.refresh_from_db()
    assert (sitting.minutes, sitting.ends_at) == (None, None)
    assert clock_lines(sitting) == []


def test_minutes_are_added_to_the_running_clock_and_from_now_once_time_is_up():
    sitting = sitting_in_play()
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=30)
    with at(NOW + minutes(10)):
        clock.add_minutes(sitting=sitting, minutes=5)
    sitting.refresh_from_db()
    assert (sitting.minutes, sitting.ends_at) == (35, NOW + minutes(35))
    # Time ran out 5 minutes ago: 10 more are 10 from now, not from when it ran out.
    with at(NOW + minutes(40)):
        clock.add_minutes(sitting=sitting, minutes=10)
    sitting.refresh_from_db()
    assert sitting.ends_at == NOW + minutes(50)
    assert clock_lines(sitting) == [("clock_add", "10"), ("clock_add", "5"), ("clock", "30")]


@pytest.mark.parametrize("added", [None, 0, 61])
def test_minutes_added_out_of_bounds_are_refused_and_nothing_changes(added):
    sitting = sitting_in_play()
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=30)
        with pytest.raises(TournamentError) as refused:
            clock.add_minutes(sitting=sitting, minutes=added)
    assert refused.value.message == "Add a whole number of minutes from 1 to 60."
    sitting.refresh_from_db()
    assert sitting.ends_at == NOW + minutes(30) and len(clock_lines(sitting)) == 1


def test_the_clock_never_runs_more_than_the_longest_sitting_from_now():
    sitting = sitting_in_play()
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=200)
        with pytest.raises(TournamentError) as refused:
            clock.add_minutes(sitting=sitting, minutes=45)
    assert refused.value.message == "The clock cannot run more than 240 minutes from now."
    sitting.refresh_from_db()
    assert sitting.ends_at == NOW + minutes(200)


def test_stopping_the_clock_clears_it_and_a_clock_not_running_cannot_be_stopped_or_added_to():
    sitting = sitting_in_play()
    for action in (clock.stop_clock, lambda **kw: clock.add_minutes(minutes=5, **kw)):
        with pytest.raises(TournamentError) as refused:
            action(sitting=sitting)
        assert refused.value.message == (
            "This sitting's clock is not running: set its length first."
        )
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=30)
        clock.stop_clock(sitting=sitting)
    sitting.refresh_from_db()
    assert (sitting.minutes, sitting.ends_at) == (None, None)
    assert clock_lines(sitting) == [("clock_stop", ""), ("clock", "30")]


def test_a_proposed_sitting_or_final_results_refuse_a_clock():
    tournament = make_tournament(teams=4)
    proposed = services.propose_sitting(tournament=tournament, rng=rng())
    with pytest.raises(TournamentError) as refused:
        clock.set_clock(sitting=proposed, minutes=30)
    assert refused.value.message == "This sitting is not confirmed yet: its clock cannot run."
    sitting = services.confirm_sitting(sitting=proposed, rng=rng())
    for entry in sitting.games.select_related("game"):
        win_game(entry.game, entry.game.teams.first().team.name)
    services.finish_tournament(tournament=tournament)
    services.make_final(tournament=tournament)
    sitting.refresh_from_db()
    with pytest.raises(TournamentError) as refused:
        clock.set_clock(sitting=sitting, minutes=30)
    assert "are final" in refused.value.message
    assert Sitting.objects.get(pk=sitting.pk).ends_at is None


# --- The pages: the time left by the server's clock --------------------------------------


def test_the_board_shows_the_time_left_by_the_servers_clock(organiser_client):
    sitting = sitting_in_play()
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=45)
    board = reverse("tournaments:board", args=[sitting.tournament_id])
    with at(NOW + datetime.timedelta(minutes=32, seconds=30)):
        page = organiser_client.get(board).text
    assert 'data-seconds-left="750"' in page  # 12 minutes 30 seconds
    assert '<b class="countdown-time" data-countdown-time>12:30</b> left' in page
    assert f'data-ends-at="{int((NOW + minutes(45)).timestamp() * 1000)}"' in page
    assert "Time is up at 19:45" in page  # the club's time zone is UTC in the tests
    assert "+5 minutes" in page and "Stop the clock" in page


def test_a_board_with_no_clock_offers_to_set_its_length(organiser_client):
    sitting = sitting_in_play()
    page = organiser_client.get(reverse("tournaments:board", args=[sitting.tournament_id])).text
    assert "Length of the sitting, in minutes" in page and "Start the clock" in page
    assert 'min="5" max="240"' in page
    assert "data-countdown" not in page


def test_when_time_is_up_the_board_lists_the_tables_still_playing_beside_call_time(
    organiser_client,
):
    sitting = sitting_in_play()
    first, *others = [entry.game for entry in sitting.games.order_by("position")]
    win_game(first, first.teams.first().team.name)
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=30)
    board = reverse("tournaments:board", args=[sitting.tournament_id])
    with at(NOW + minutes(29)):
        before = organiser_client.get(board).text
        version = organiser_client.get(board).context["board_version"]
    assert "tables are still playing" not in before
    with at(NOW + minutes(31)):
        # The moment time is up moves the board's token: its poll fetches the list.
        assert organiser_client.get(board, {"version": version}).status_code == 200
        page = organiser_client.get(board).text
    assert 'data-seconds-left="0"' in page
    assert '<b class="countdown-up" data-countdown-up>Time is up</b>' in page
    assert "2 tables are still playing:" in page
    listed = page[page.index('class="still-playing"') :]
    listed = listed[: listed.index("</ul>")]
    for game in others:
        assert game.sitting_entry.table_label in listed
    assert first.sitting_entry.table_label not in listed
    call_time = reverse("tournaments:call_time", args=[sitting.tournament_id, sitting.number])
    assert f'action="{call_time}"' in page and "Call time for this sitting" in page


def test_a_scorer_page_of_a_game_in_the_sitting_shows_the_time_left(client):
    sitting = sitting_in_play()
    game = sitting.games.order_by("position").first().game
    [link] = issue_links(game=game)
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=60)
    with at(NOW + datetime.timedelta(minutes=15, seconds=1)):
        page = client.get(reverse("games:scorer", args=[link.token])).text
        part = client.get(
            reverse("games:scorer_table", args=[link.token]), headers={"HX-Request": "true"}
        )
    assert 'data-seconds-left="2699"' in page  # 44:59, counted from the server's now
    assert '<span class="countdown-label">The sitting\'s clock</span>' in page
    assert "44:59</b> left" in page and "Time is up at 20:00" in page
    # The part the page asks for again says what is left then, and asks again.
    assert 'data-seconds-left="2699"' in part.text and 'hx-trigger="every 15s"' in part.text
    assert "no-store" in part["Cache-Control"]


def test_the_projector_carries_when_time_is_up_not_the_seconds_as_rendered():
    sitting = sitting_in_play()
    projector = reverse("tournaments:projector", args=[sitting.tournament_id])
    page = Client().get(projector)
    assert "data-countdown" not in page.text
    version = page.context["live_version"]
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=45)
    # Setting the clock moves the projector's token: its poll fetches the clock.
    polled = Client().get(projector, {"version": version}, headers={"HX-Request": "true"})
    assert polled.status_code == 200
    assert f'data-ends-at="{int((NOW + minutes(45)).timestamp() * 1000)}"' in polled.text
    assert "data-seconds-left" not in polled.text
    assert "Time is up at 19:45" in polled.text


def test_a_kept_projector_equals_a_fresh_render_whenever_it_is_read():
    sitting = sitting_in_play()
    with at(NOW):
        clock.set_clock(sitting=sitting, minutes=45)
    projector = reverse("tournaments:projector", args=[sitting.tournament_id])
    with at(NOW + minutes(1)):
        first = Client().get(projector)
    with at(NOW + minutes(20)):
        kept = Client().get(projector)
        caches["pages"].clear()
        fresh = Client().get(projector)
    assert first.content == kept.content == fresh.content
    assert first["ETag"] == kept["ETag"]
    assert "data-countdown" in fresh.text
    # Stopped: the projector's version moves, and its kept page shows no clock.
    clock.stop_clock(sitting=sitting)
    assert "data-countdown" not in Client().get(projector).text


def test_the_clock_form_refuses_bad_input_by_name_and_starts_the_clock(organiser_client):
    sitting = sitting_in_play()
    url = reverse("tournaments:sitting_clock", args=[sitting.tournament_id, sitting.number])
    board = reverse("tournaments:board", args=[sitting.tournament_id])
    for typed in ("", "abc", "4", "45.5", "-10", "4e1", "9" * 50):
        response = organiser_client.post(url, {"action": "start", "minutes": typed}, follow=True)
        assert response.redirect_chain[-1][0] == board + "#clock"
        assert "The length must be a whole number of minutes from 5 to 240." in response.text
    assert Sitting.objects.get(pk=sitting.pk).ends_at is None
    with at(NOW):
        response = organiser_client.post(url, {"action": "start", "minutes": " 45 "}, follow=True)
    assert "The clock runs: 45 minutes from now." in response.text
    assert Sitting.objects.get(pk=sitting.pk).ends_at == NOW + minutes(45)
    with at(NOW + minutes(1)):  # a second page's "Start the clock": said, nothing moved
        response = organiser_client.post(url, {"action": "start", "minutes": "90"}, follow=True)
    assert "This sitting&#x27;s clock is set already: add minutes to it" in response.text
    assert Sitting.objects.get(pk=sitting.pk).ends_at == NOW + minutes(45)
    with at(NOW + minutes(1)):
        response = organiser_client.post(url, {"action": "add", "added": "10"}, follow=True)
    assert "10 minutes added to the clock." in response.text
    response = organiser_client.post(url, {"action": "stop"}, follow=True)
    assert "The clock is stopped." in response.text
    assert Sitting.objects.get(pk=sitting.pk).ends_at is None
