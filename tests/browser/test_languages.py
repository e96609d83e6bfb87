"""The game page and the standings in Malayalam and Thai on a phone, as a player sees them.

Each page must load the Noto face for its script from our own static files (no
boxes for missing glyphs), show the interface in that language, and fit the
phone's width. Screenshots are kept in test-artifacts/screenshots/ for a person
to look at.
"""

import datetime

import pytest
from playwright.sync_api import expect

from club.games.services import Deal, record_deal
from club.tournaments import services as tournaments

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A letter of each script, the face that must have loaded for it, and words of
# the interface that must show in that language (from its catalogue).
SCRIPTS = {
    "ml": ("മ", "noto-sans-malayalam", {"game": "ടേബിൾ", "standings": "നില"}),
    "th": ("ท", "noto-sans-thai", {"game": "โต๊ะ", "standings": "ตารางคะแนน"}),
}


@pytest.fixture
def club(db):
    tournament = tournaments.create_tournament(
        name="Onam cup", starts_on=datetime.date(2026, 9, 1), venue="Kochi club"
    )
    for first, second in [("അനു", "ബിജു"), ("Chitra", "Dev"), ("สมชาย", "Farid"), ("Gita", "Hari")]:
        tournaments.register_team(tournament=tournament, first=first, second=second)
    sitting = tournaments.propose_sitting(tournament=tournament)
    tournaments.confirm_sitting(sitting=sitting)
    game = sitting.games.order_by("position").first().game
    record_deal(  # the player in seat 1 (second in play order) declares
        game=game,
        number=1,
        entry=Deal(points={0: 20, 1: 36}, declarer=1, bid=32, trump="hearts", doubling="double"),
    )
    return tournament, game


def in_language(browser, live_server, code):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True
    )
    context.add_cookies([{"name": "django_language", "value": code, "url": live_server.url}])
    context.set_default_timeout(5_000)
    return context


def fonts_loaded(page, letter):
    """Wait for the page's fonts, then say which of our font files were loaded."""
    page.evaluate("document.fonts.ready")
    page.evaluate(f"document.fonts.load('16px \"Club Noto\"', {letter!r})")
    return page.evaluate(
        "performance.getEntriesByType('resource').map(e => e.name)"
        ".filter(n => n.includes('/static/fonts/'))"
    )


def fits_the_phone(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.parametrize("code", sorted(SCRIPTS))
def test_game_page_and_standings_read_well_on_a_phone(code, browser, live_server, club, screenshot):
    letter, face, words = SCRIPTS[code]
    tournament, game = club
    context = in_language(browser, live_server, code)
    page = context.new_page()
    try:
        for name, url in [
            ("game", game.get_absolute_url()),
            ("standings", tournament.get_absolute_url()),
        ]:
            page.goto(f"{live_server.url}{url}")
            expect(page.locator("html")).to_have_attribute("lang", code)
            loaded = fonts_loaded(page, letter)
            assert any(face in entry for entry in loaded), (name, loaded)
            assert page.evaluate(f"document.fonts.check('16px \"Club Noto\"', {letter!r})")
            assert words[name] in page.locator("main").inner_text(), (name, code)
            assert fits_the_phone(page), f"{name} in {code} is wider than the phone"
            screenshot(page, f"{code}-{name}")
    finally:
        context.close()
