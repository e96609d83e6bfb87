"""On a phone, what an action did is in sight where the page lands, and the longest
team names never run under the change badge."""

from __future__ import annotations

import pytest

from club.games.services import Deal, TeamEntry, create_game, record_deal
from tests.tournaments.helpers import make_tournament

pytestmark = pytest.mark.django_db(transaction=True)


def _in_view(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def test_a_registration_message_is_on_screen_beside_the_form(
    organiser_page, live_server, screenshot
):
    tournament = make_tournament(teams=2)
    page = organiser_page
    page.goto(f"{live_server.url}{tournament.get_absolute_url()}#register")
    page.locator("#register input[name=first]").fill("Usha")
    page.locator("#register input[name=second]").fill("Vinod")
    page.get_by_role("button", name="Register the team").click()
    page.wait_for_load_state()
    assert page.url.endswith("#register")
    assert page.locator("main > .messages").inner_text().strip() == "Usha & Vinod registered."
    assert _in_view(page, "main > .messages")
    # The form it landed on starts below the message, not under it.
    message = page.locator("main > .messages").bounding_box()
    heading = page.locator("#register h2").bounding_box()
    assert heading["y"] >= message["y"] + message["height"]
    screenshot(page, "registered")


def test_the_longest_names_wrap_clear_of_the_change_badge(organiser_page, live_server, screenshot):
    long_name = "Thiruvananthapuram" * 9  # 162 letters and not one space
    game = create_game(
        label="Long names",
        teams=[TeamEntry("Anu", "Biju", long_name), TeamEntry("Chitra", "Dev", "W" * 170)],
        first_dealer=0,
    )
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 40, 1: 16}, declarer=0, bid=32, trump="spades"),
    )
    page = organiser_page
    page.goto(f"{live_server.url}{game.get_absolute_url()}")
    for card in page.locator(".scoreboard .team-score").all():
        badge = card.locator(".change").bounding_box()
        # The text itself, not the box around it (which leaves the badge its corner).
        name = card.locator(".team-name").evaluate(
            "e => { const r = document.createRange(); r.selectNodeContents(e);"
            " const b = r.getBoundingClientRect();"
            " return {x: b.x, y: b.y, width: b.width, height: b.height}; }"
        )
        box = card.bounding_box()
        assert badge is not None
        # Side by side, never on top of each other, and both inside the card.
        assert name["x"] + name["width"] <= badge["x"] or name["y"] >= badge["y"] + badge["height"]
        assert name["x"] + name["width"] <= box["x"] + box["width"] + 0.5
    # Nothing pushes the page sideways: what is wider than the phone scrolls in its own box.
    wide = page.evaluate(
        "() => [...document.querySelectorAll('main *')].filter(e => {"
        " if (e.getBoundingClientRect().right <= 391) return false;"
        " for (let p = e.parentElement; p; p = p.parentElement)"
        "   if (getComputedStyle(p).overflowX !== 'visible') return false;"
        " return true; }).map(e => e.tagName + '.' + e.className).join(' ')"
    )
    assert wide == ""
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "long-names")
