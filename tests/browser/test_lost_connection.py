"""The lost-connection note in a real browser: shown in the deal form, typed values kept."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import OperationalError
from playwright.sync_api import expect

from club.games.models import LedgerEntry, Round
from tests.browser.conftest import ORGANISER_PASSWORD, PHONE
from tests.browser.deal_entry import checked, enter_deal
from tests.factories import start_game

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]

LOST = "The connection to the score database was lost before deal 1 was saved."


def ledger_fails():
    return mock.patch.object(
        LedgerEntry.objects, "bulk_create", side_effect=OperationalError("connection lost")
    )


def fill_deal_1(page) -> None:
    """Chitra bids 30 in hearts and her team takes 34."""
    enter_deal(page, declarer="Chitra", bid=30, trump="hearts", piles={0: 22, 1: 34})


def test_the_note_appears_above_the_typed_deal_and_sending_again_records_it(
    organiser_page, live_server, screenshot
):
    page = organiser_page
    game = start_game()
    page.goto(f"{live_server.url}/games/{game.pk}/")
    fill_deal_1(page)

    with ledger_fails():
        page.get_by_role("button", name="Record deal 1").click()
        note = page.locator("form.deal-form .db-retry")
        expect(note).to_contain_text(LOST)
    note.scroll_into_view_if_needed()
    screenshot(page, "note-in-form", full_page=False)
    assert checked(page, "bid") == "30"
    assert page.locator("input[name=points_1]").input_value() == "34"
    assert not Round.objects.filter(game=game).exists()

    page.get_by_role("button", name="Record deal 1").click()
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    assert Round.objects.filter(game=game).count() == 1


def test_without_javascript_the_page_says_send_again_with_a_way_back(
    browser, live_server, organiser, screenshot
):
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("#id_username").fill(organiser.username)
    page.locator("#id_password").fill(ORGANISER_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    game = start_game()
    page.goto(f"{live_server.url}/games/{game.pk}/")
    fill_deal_1(page)

    with ledger_fails():
        page.get_by_role("button", name="Record deal 1").click()
        expect(page.locator(".db-retry")).to_contain_text(LOST)
    screenshot(page, "retry-page")
    back = page.get_by_role("link", name="Back to the form")
    assert back.get_attribute("href") == f"{live_server.url}/games/{game.pk}/"
    assert not Round.objects.filter(game=game).exists()
    context.close()
