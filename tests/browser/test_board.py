"""The director's board on a phone: the table that has not reported stands out, and the
board refreshes itself when a table reports."""

from __future__ import annotations

import pytest

from tests.tournaments.helpers import win_game
from tests.tournaments.test_board import four_tables

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_board_shows_the_table_that_has_not_reported(organiser_page, live_server, screenshot):
    tournament, _sitting, (_finished, waiting, _playing, idle) = four_tables()
    page = organiser_page
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/board/")
    tables = page.locator(".board-tables > li")
    assert tables.count() == 4
    assert "state-waiting" in tables.nth(0).get_attribute("class")
    assert "Deal 1 waits for confirmation" in tables.nth(0).inner_text()
    assert "state-not_started" in tables.nth(1).get_attribute("class")
    assert "Not started: no deal yet" in tables.nth(1).inner_text()
    assert "40 minutes since the sitting began" in tables.nth(1).inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "board")
    # The idle table reports: within a poll it moves down to the tables playing.
    win_game(idle, idle.teams.first().team.name)
    page.locator(".board-tables > li.state-not_started").wait_for(state="detached", timeout=12_000)
    assert page.locator(".board-tables > li.state-playing").count() == 2
    page.set_viewport_size({"width": 1280, "height": 900})
    screenshot(page, "board-desktop")
