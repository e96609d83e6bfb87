"""The last pile on a phone: a greyed suggestion the scorer may clear or type over.

With every pile but one typed, the page fills the last in with what is left of 56, greyed
(club/static/js/entry.js). It is the scorer's to change with the keys a thumb presses: a
digit typed in it replaces it, a deletion empties it, and an emptied pile stays empty
while the cursor is in it; left empty, it takes the suggestion again. Piles that do not
make 56 are told before anything is sent.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from club.games.models import Round
from tests.browser.deal_entry import declarer_key, key
from tests.factories import start_game

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def pile(page: Page, team: int):
    return page.locator(f"form.deal-form input[name=points_{team}]")


def contract_typed(page: Page, live_server, game) -> None:
    """Dev bids 30 in hearts, and his team's pile is typed: 30, the other greyed at 26."""
    page.goto(f"{live_server.url}/games/{game.pk}/")
    declarer_key(page, "Dev").click()
    key(page, "bid", "30").click()
    key(page, "trump", "hearts").click()
    expect(pile(page, 1)).to_be_focused()
    page.keyboard.type("30")
    expect(pile(page, 0)).to_have_value("26")
    expect(pile(page, 0)).to_have_class("filled")


def test_the_greyed_pile_cleared_stays_empty_until_the_scorer_leaves_it(
    organiser_page, live_server, screenshot
):
    game = start_game(2, first_dealer=0)
    page = organiser_page
    contract_typed(page, live_server, game)
    pile(page, 0).click()
    page.keyboard.press("Backspace")
    # Cleared: not filled in again under the scorer's thumb.
    expect(pile(page, 0)).to_have_value("")
    expect(pile(page, 0)).to_be_focused()
    expect(page.locator("[data-pile-total]")).to_have_text("30")
    # Nor told off for it while the cursor is in it.
    expect(page.locator("#id_points_0_error")).to_be_empty()
    screenshot(page, "cleared", full_page=False)
    # Left empty (a tap on another key): the suggestion comes back, greyed.
    key(page, "doubling", "double").click()
    expect(pile(page, 0)).to_have_value("26")
    expect(pile(page, 0)).to_have_class("filled")
    expect(page.locator("[data-pile-total]")).to_have_text("56")
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    deal = Round.objects.get(game=game)
    piles = dict(deal.piles.values_list("game_team__position", "points"))
    assert (piles, deal.doubling) == ({0: 26, 1: 30}, "double")


def test_a_pile_typed_over_the_suggestion_replaces_it_and_a_mismatch_is_told(
    organiser_page, live_server, screenshot
):
    game = start_game(2, first_dealer=0)
    page = organiser_page
    contract_typed(page, live_server, game)
    pile(page, 0).click()
    # Typed straight over the suggestion, with no selecting: "2" is 2, not 262 or 26 and 2.
    page.keyboard.press("2")
    expect(pile(page, 0)).to_have_value("2")
    page.keyboard.press("8")
    expect(pile(page, 0)).to_have_value("28")
    expect(pile(page, 0)).not_to_have_class("filled")
    expect(page.locator("[data-pile-total]")).to_have_text("58")
    # Both piles are the scorer's now: 58 is told, and nothing is sent.
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.locator("form.deal-form .errors")).to_have_text(
        "The piles add up to 58; they must add up to exactly 56."
    )
    screenshot(page, "mismatch-told", full_page=False)
    assert posts == [] and not Round.objects.exists()
    # The scorer empties the other pile and leaves it: it is what is left of 56.
    pile(page, 1).click()
    page.keyboard.press("End")  # a typed pile is edited as any field: from the caret
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    expect(pile(page, 1)).to_have_value("")
    page.locator("form.deal-form .running-total").click()
    expect(pile(page, 1)).to_have_value("28")
    expect(page.locator("form.deal-form .errors")).to_be_hidden()
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    piles = dict(Round.objects.get(game=game).piles.values_list("game_team__position", "points"))
    assert piles == {0: 28, 1: 28}


def test_the_last_of_three_piles_cleared_waits_for_the_scorer(organiser_page, live_server):
    game = start_game(3, first_dealer=0)
    page = organiser_page
    page.goto(f"{live_server.url}/games/{game.pk}/")
    declarer_key(page, "Chitra").click()
    key(page, "bid", "30").click()
    key(page, "trump", "hearts").click()
    page.keyboard.type("3115")
    expect(pile(page, 2)).to_have_value("10")
    pile(page, 2).click()
    page.keyboard.press("Delete")
    page.keyboard.press("Backspace")
    expect(pile(page, 2)).to_have_value("")
    page.keyboard.type("9")
    expect(pile(page, 2)).to_have_value("9")
    expect(page.locator("[data-pile-total]")).to_have_text("55")
