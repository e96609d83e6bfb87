"""Back and Forward never leave a form for a deal already recorded on the screen.

A page a browser brings back with Back or Forward may be the copy from before a write:
the scorer's page is one the browser may keep, and its deal form was swapped in place by
htmx, so the copy still asks for the deal just recorded. Such a page asks the server
again as it is shown (live.js): the scorer's page is loaded again, the game page's live
part read again. Tried on a phone, with the service worker and without it, and on the
organiser's game page; and after a write the address is the page that shows its result.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from club.games import links
from club.games.models import Round
from tests.browser.conftest import PHONE
from tests.browser.test_offline import fill_deal, installed
from tests.factories import start_game

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def record(page: Page, number: int) -> None:
    fill_deal(page, bid=str(29 + number))
    page.get_by_role("button", name=f"Record deal {number}").click()
    expect(page.get_by_role("button", name=f"Record deal {number + 1}")).to_be_visible()


def shows_only_the_next_deal(page: Page, number: int) -> None:
    expect(page.get_by_role("button", name=f"Record deal {number}")).to_be_visible()
    expect(page.get_by_role("button", name=f"Record deal {number - 1}")).to_have_count(0)


def away_and_back(page: Page, elsewhere: str, number: int) -> None:
    """Leave for another page, come Back, go Forward and Back again: deal ``number``."""
    here = page.url
    page.goto(elsewhere)
    page.go_back()
    assert page.url == here
    shows_only_the_next_deal(page, number)
    page.go_forward()
    page.go_back()
    shows_only_the_next_deal(page, number)


@pytest.mark.parametrize("workers", ["block", "allow"])
def test_the_scorers_page_after_back_and_forward_asks_for_the_next_deal(
    browser, live_server, workers
):
    game = start_game(2, first_dealer=0, label="Back and forth")
    (link,) = links.issue_links(game=game)
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, service_workers=workers
    )
    context.set_default_timeout(10_000)
    try:
        page = context.new_page()
        url = f"{live_server.url}/s/{link.token}/"
        if workers == "allow":
            installed(page, url)
        else:
            page.goto(url)
        for number in (1, 2):
            record(page, number)
            away_and_back(page, f"{live_server.url}/rules/", number + 1)
        assert Round.objects.filter(game=game).count() == 2
    finally:
        context.close()


def test_the_game_page_after_back_and_forward_asks_for_the_next_deal(organiser_page, live_server):
    game = start_game(2, first_dealer=0, label="Organiser's table")
    page = organiser_page
    page.goto(f"{live_server.url}{game.get_absolute_url()}")
    for number in (1, 2):
        record(page, number)
        away_and_back(page, f"{live_server.url}/games/", number + 1)
    # A correction lands on the game's history, not on the form it was made in.
    page.goto(f"{live_server.url}/games/{game.pk}/deals/1/edit/")
    page.get_by_role("button", name="Save deal 1").click()
    expect(page).to_have_url(f"{live_server.url}{game.get_absolute_url()}#history")
    shows_only_the_next_deal(page, 3)
    assert Round.objects.filter(game=game).count() == 2
