"""Tournament pages in a real headless Chromium: the public standings refresh by themselves,
the organiser's pages fit a phone, and the projector cycles its panels."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from club.games.models import Game
from club.tournaments import services
from tests.tournaments.helpers import make_tournament, play_sitting, rng, win_game

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
    pytest.mark.django_db(transaction=True),
]


def running_tournament(tables_per_team=12, teams=5):
    tournament = make_tournament(teams=teams, tables_per_team=tables_per_team)
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    services.confirm_sitting(sitting=sitting, rng=rng())
    return tournament


def test_the_public_standings_update_by_themselves(phone_context, live_server, screenshot):
    tournament = running_tournament(tables_per_team=1)
    page = phone_context.new_page()
    page.goto(f"{live_server.url}{tournament.get_absolute_url()}")
    expect(page.locator(".sitting-game.playing")).to_have_count(2)
    screenshot(page, "before")
    game = Game.objects.filter(sitting_entry__isnull=False).order_by("pk").first()
    winner = sorted(game.teams.values_list("team__name", flat=True))[0]
    win_game(game, winner)
    # No reload: the poll (every 5 s) brings the new standings and the finished game.
    expect(page.locator(".sitting-game.playing")).to_have_count(1, timeout=12_000)
    expect(page.locator("#standings tbody tr").first).to_contain_text(winner)
    expect(page.locator("#standings tbody tr").first.locator(".points")).to_have_text("3")
    screenshot(page, "after")


def test_the_organiser_pages_on_a_phone(organiser_page, live_server, screenshot):
    page = organiser_page
    tournament = make_tournament(teams=5)
    page.goto(f"{live_server.url}/tournaments/new/")
    screenshot(page, "new")
    page.goto(f"{live_server.url}{tournament.get_absolute_url()}")
    page.locator("#id_first").fill("Anu")
    page.locator("#id_second").fill("Zara")
    page.get_by_role("button", name="Register the team").click()
    expect(page.locator("#register .errors")).to_contain_text(
        "Anu already plays for Anu & Biju in this tournament."
    )
    screenshot(page, "register-error")
    page.get_by_role("button", name="Draw the next sitting").click()
    expect(page.locator("h1")).to_have_text("Sitting 1")
    expect(page.locator(".proposed-games li")).to_have_count(2)
    screenshot(page, "proposed")
    page.get_by_role("button", name="Confirm and start the games").click()
    expect(page.get_by_role("button", name="Call time for this sitting")).to_be_visible()
    screenshot(page, "confirmed")
    play_sitting(tournament.sittings.get())
    page.goto(f"{live_server.url}{tournament.get_absolute_url()}")
    screenshot(page, "standings")


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_the_projector_fits_and_cycles(browser, live_server, screenshot, size):
    tournament = running_tournament(tables_per_team=1, teams=12)
    play_sitting(tournament.sittings.get())
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    services.confirm_sitting(sitting=sitting, rng=rng())
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.clock.install()  # the panels turn every 12 s: the test moves the clock on itself
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/projector/")
    standings = page.locator("[data-panel=standings]")
    games = page.locator("[data-panel=games]")
    expect(standings).to_be_visible()
    expect(games).to_be_hidden()
    # Nothing spills past the screen.
    assert page.evaluate("document.documentElement.scrollHeight") <= height
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, "standings", full_page=False)
    expect(games).to_be_hidden()
    page.clock.run_for(12_500)
    expect(games).to_be_visible()
    expect(standings).to_be_hidden()
    screenshot(page, "games", full_page=False)
    context.close()


def first_screen(page, target) -> bool:
    box = target.bounding_box()
    return box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 844


def test_the_organisers_next_step_is_the_first_thing_on_a_phone(
    organiser_page, live_server, screenshot
):
    """Draw, review the draw, follow the sitting, make the results final: each in the
    first screen of the tournament page, the rest below."""
    page = organiser_page
    tournament = make_tournament(teams=6, tables_per_team=1)
    url = f"{live_server.url}{tournament.get_absolute_url()}"
    page.goto(url)
    draw = page.get_by_role("button", name="Draw the next sitting")
    assert first_screen(page, draw)
    screenshot(page, "next-step-draw", full_page=False)
    draw.click()
    review = page.locator("#next-step").get_by_role("link", name="Review the draw")
    page.goto(url)
    assert first_screen(page, review)
    services.confirm_sitting(sitting=tournament.sittings.get(), rng=rng())
    page.goto(url)
    board = page.locator("#next-step").get_by_role("link", name="Director's board")
    expect(page.locator("#next-step")).to_contain_text("3 games of the sitting are still")
    assert first_screen(page, board)
    screenshot(page, "next-step-playing", full_page=False)
    play_sitting(tournament.sittings.get())
    services.finish_tournament(tournament=tournament, user=None)
    page.goto(url)
    final = page.locator("#next-step").get_by_role("button", name="Make the results final")
    assert first_screen(page, final)
