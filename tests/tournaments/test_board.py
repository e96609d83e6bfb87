"""The director's board: every table of the sitting in play
with its state, the ones that need the director first, in the same few queries however
many tables there are."""

from __future__ import annotations

import datetime
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone

from club.games.links import issue_links
from club.games.models import Round
from club.games.services import Deal, submit_deal
from club.tournaments import selectors, services
from club.tournaments.models import Sitting
from tests.tournaments.helpers import make_tournament, rng, win_game

pytestmark = pytest.mark.django_db


def _deal(game):
    return Deal(points={0: 30, 1: 26}, declarer=0, bid=28, trump="hearts")


def four_tables():
    """Eight teams at four tables: one finished, one waiting for a confirmation, one
    playing (a deal recorded 20 minutes ago), one not started."""
    tournament = make_tournament(teams=8, tables_per_team=2, require_confirmation=True)
    sitting = services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    Sitting.objects.filter(pk=sitting.pk).update(
        confirmed_at=timezone.now() - datetime.timedelta(minutes=40)
    )
    finished, waiting, playing, idle = [
        entry.game for entry in sitting.games.select_related("game").order_by("position")
    ]
    for _ in range(2):  # two made contracts: the other team's two tables are gone
        win_game(finished, finished.teams.first().team.name)
        finished.refresh_from_db()
    [link, _other] = issue_links(game=waiting)
    submit_deal(game=waiting, number=1, entry=_deal(waiting), link=link)
    win_game(playing, playing.teams.first().team.name)
    Round.objects.filter(game=playing).update(
        recorded_at=timezone.now() - datetime.timedelta(minutes=20)
    )
    return tournament, sitting, (finished, waiting, playing, idle)


def test_the_board_puts_the_tables_that_need_the_director_first(organiser_client):
    tournament, sitting, (finished, waiting, playing, idle) = four_tables()
    finished.refresh_from_db()
    assert finished.is_finished
    board = selectors.director_board(tournament, selectors.current_sitting(tournament))
    assert [(t["game"], t["state"]) for t in board["tables"]] == [
        (waiting.pk, "waiting"),
        (idle.pk, "not_started"),
        (playing.pk, "playing"),
        (finished.pk, "finished"),
    ]
    idle_row, playing_row = board["tables"][1], board["tables"][2]
    assert 39 <= idle_row["quiet_minutes"] <= 41  # since the sitting was confirmed
    assert 19 <= playing_row["quiet_minutes"] <= 21  # since its last deal
    assert board["counts"] == {"waiting": 1, "not_started": 1, "playing": 1, "finished": 1}
    page = organiser_client.get(reverse("tournaments:board", args=[tournament.pk])).text
    sender = waiting.teams.order_by("position").first().team.name
    assert f"Deal 1 waits for confirmation (sent by {sender})".replace("&", "&amp;") in page
    assert "Not started: no deal yet" in page and "Playing deal 2 of" not in page
    assert "Playing deal 2" in page and "Finished after 2 deals" in page
    assert "40 minutes since the sitting began" in page
    assert "20 minutes since the last deal" in page
    assert (
        page.index("waits for confirmation")
        < page.index("Not started")
        < page.index("Playing deal 2")
    )


def test_the_board_polls_like_the_public_pages(organiser_client):
    tournament, sitting, (finished, waiting, playing, idle) = four_tables()
    url = reverse("tournaments:board", args=[tournament.pk])
    now = timezone.now()
    with mock.patch.object(timezone, "now", return_value=now):  # one minute
        tournament.refresh_from_db()
        version = selectors.board_version(tournament, sitting)
        assert organiser_client.get(url, {"version": version}).status_code == 204
        win_game(idle, idle.teams.first().team.name)  # a table reports: the token moves
        fresh = organiser_client.get(url, {"version": version}, headers={"HX-Request": "true"})
        assert fresh.status_code == 200 and 'id="board-live"' in fresh.text
        assert "<html" not in fresh.text  # only the live part
        tournament.refresh_from_db()
        current = selectors.board_version(tournament, sitting)
        assert organiser_client.get(url, {"version": current}).status_code == 204
    # A minute later the quiet tables' minutes move, so the board is sent again.
    later = now + datetime.timedelta(minutes=1)
    with mock.patch.object(timezone, "now", return_value=later):
        assert organiser_client.get(url, {"version": current}).status_code == 200


def test_the_board_costs_the_same_queries_for_any_number_of_tables(
    organiser_client, django_assert_max_num_queries
):
    small = make_tournament(name="Small", teams=2)
    services.confirm_sitting(
        sitting=services.propose_sitting(tournament=small, rng=rng()), rng=rng()
    )
    big, _sitting, _games = four_tables()
    counts = []
    for tournament in (small, big):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as queries:
            response = organiser_client.get(reverse("tournaments:board", args=[tournament.pk]))
        assert response.status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]
    with django_assert_max_num_queries(counts[1]):
        organiser_client.get(reverse("tournaments:board", args=[big.pk]))


def test_before_any_sitting_the_board_says_so(organiser_client):
    tournament = make_tournament(teams=2)
    page = organiser_client.get(reverse("tournaments:board", args=[tournament.pk])).text
    assert "No sitting is confirmed yet" in page


# --- The projector pages through every team and game ---------------------------------


def test_the_projector_shows_every_team_and_game_a_panel_at_a_time(client):
    from tests.tournaments.helpers import PAIRS

    tournament = make_tournament(teams=0, tables_per_team=2)
    names = [f"{first} {n}" for n in range(3) for first, _second in PAIRS[:10]]
    for number, name in enumerate(names):
        services.register_team(tournament=tournament, first=name, second=f"Partner {number}")
    services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    page = client.get(reverse("tournaments:projector", args=[tournament.pk])).text
    assert page.count('data-panel="standings"') == 3  # 30 teams, 12 a panel
    assert page.count('data-panel="games"') == 2  # 15 games in progress
    assert "1/3" in page and "3/3" in page and "2/2" in page
    for name in names:
        assert f"<td>{name} &amp; Partner" in page
    assert "· Sitting 1" in page and "data-clock" in page
