"""A player's night in review in a real browser: no serious axe violation on a phone or a
desktop (a night, a span, a date refused), nothing wider than the phone, and the date
field and the night before step to another night."""

from __future__ import annotations

import datetime as dt

import pytest

from club.games.models import Game, Player
from club.games.services import Deal, TeamEntry, create_game, record_deal
from club.scoring import rules as core
from tests.browser.test_accessibility import AXE, RUN_AXE, SIZES, TAGS
from tests.factories import PAIRS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
    pytest.mark.django_db(transaction=True),
]


def _night_of(label: str, day: dt.date, teams) -> None:
    game = create_game(
        label=label, teams=teams, first_dealer=0, rules=core.Rules(tables_per_team=1)
    )
    deal = Deal(points={0: 30, 1: 26}, declarer=0, bid=30, trump="hearts", doubling="double")
    record_deal(game=game, number=1, entry=deal)
    start = dt.datetime.combine(day, dt.time(20), tzinfo=dt.UTC)
    Game.objects.filter(pk=game.pk).update(created_at=start)


@pytest.fixture
def anu():
    ab, cd, ae = TeamEntry(*PAIRS[0]), TeamEntry(*PAIRS[1]), TeamEntry("Anu", "Esha")
    _night_of("First night", dt.date(2026, 3, 7), [ab, cd])
    _night_of("Second night, 1", dt.date(2026, 3, 14), [ab, cd])
    _night_of("Second night, 2", dt.date(2026, 3, 14), [ae, cd])
    return Player.objects.get(name="Anu")


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed (npm ci)")
@pytest.mark.parametrize("size", SIZES)
def test_the_night_reads_well_on_a_phone_and_a_desktop(browser, live_server, anu, size):
    context = browser.new_context(viewport=SIZES[size], bypass_csp=True)
    page = context.new_page()
    base = f"{live_server.url}{anu.get_absolute_url()}"
    found = {}
    try:
        for query in ("", "?from=2026-03-01&to=2026-03-31", "?night=2026-02-30"):
            page.goto(base + query)
            assert page.locator("#night").count() == 1, query
            page.evaluate(AXE.read_text(encoding="utf-8"))
            violations = page.evaluate(RUN_AXE, TAGS)
            if violations:
                found[query] = violations
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= SIZES[size]["width"], (query, width)
        assert found == {}
        # The latest night, then the night before it by its link, then a day by the field.
        page.goto(base)
        night = page.locator("#night")
        assert "Second night, 2" in night.inner_text()
        night.get_by_role("link", name="Night before").click()
        page.wait_for_url("**night=2026-03-07**")
        assert "First night" in page.locator("#night").inner_text()
        page.locator("#night-day").fill("2026-03-14")
        page.locator("#night").get_by_role("button", name="Show", exact=True).click()
        page.wait_for_url("**night=2026-03-14**")
        assert "Best with" in page.locator("#night").inner_text()
    finally:
        context.close()
