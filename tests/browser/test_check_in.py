"""Check-in on phones: the director taps teams in on the board, a captain checks the team in
from the card's code, and the draw takes only the teams that are here.

Six pairs (tests/tournaments/helpers.py); Kavya & Latif and Indu & Jacob are late.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from club.tournaments import checkin
from club.tournaments.models import CheckIn, Sitting, TournamentTeam
from tests.browser.conftest import PHONE
from tests.tournaments.helpers import make_tournament

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def test_a_sitting_drawn_from_the_teams_checked_in_on_phones(
    browser, organiser_page, live_server, screenshot
):
    tournament = make_tournament(teams=6, check_in=True)
    director = organiser_page
    director.goto(f"{live_server.url}/tournaments/{tournament.pk}/board/")
    card = director.locator("#check-in")
    expect(card).to_contain_text("Checked in: 0 of 6.")
    # One tap a team: the list answers in place.
    for name in ("Anu & Biju", "Chitra & Dev", "Esha & Farid"):
        card.get_by_role("button", name=name).click()
        expect(card.get_by_role("button", name=name)).to_have_attribute("aria-pressed", "true")
    expect(card).to_contain_text("Checked in: 3 of 6.")
    screenshot(director, "board")

    # Gita & Hari's captain scans the team's card.
    gita = TournamentTeam.objects.get(team__name="Gita & Hari")
    captain = browser.new_context(viewport=PHONE, is_mobile=True).new_page()
    captain.goto(f"{live_server.url}/tournaments/captain/{checkin.captain_key(gita)}/")
    captain.get_by_role("button", name="We are here: check in for sitting 1").click()
    expect(captain.locator("#check-in")).to_contain_text("Checked in for sitting 1 at")
    screenshot(captain, "captain")
    assert CheckIn.objects.get(entry=gita).by_captain

    # The director's board shows the captain's check-in by itself, at its next poll.
    expect(card).to_contain_text("Checked in: 4 of 6.", timeout=12_000)
    expect(card.get_by_role("button", name="Gita & Hari")).to_contain_text("by the captain")

    director.goto(f"{live_server.url}{tournament.get_absolute_url()}")
    director.get_by_role("button", name="Draw the next sitting").click()
    expect(director.locator("p.absent")).to_contain_text("Indu & Jacob")
    expect(director.locator("p.absent")).to_contain_text("Kavya & Latif")
    screenshot(director, "draw")
    sitting = Sitting.objects.get()
    drawn = {team for game in sitting.proposal for team in game}
    assert drawn == set(CheckIn.objects.values_list("entry_id", flat=True))
    captain.context.close()
