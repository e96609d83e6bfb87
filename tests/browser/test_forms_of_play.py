"""The forms clubs play, on a phone: a whole 56 International session and a kodi night.

Every figure asserted was worked out by hand from docs/rules.md section D:

    56 International sheet: made 1 / 2 / 3 / 4 (bids 28-39, 40-47, 48-55, 56) to the
    declarers, failed 2 / 3 / 4 / 5 to the other team; doubled +1, redoubled +2.
    Seats for two teams of three: T1.p1, T2.p1, T1.p2, T2.p2, T1.p3, T2.p3.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from club.games.models import Game
from tests.browser.test_game_flow import correct_deal, expect_message, record_deal

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]

KOCHI = ("Anu", "Biju", "Chitra")  # seats 0, 2, 4
THRISSUR = ("Dev", "Esha", "Farid")  # seats 1, 3, 5


def expect_scores(page: Page, expected: list[int]) -> None:
    for position, score in enumerate(expected):
        expect(page.locator(f'[data-team-score="{position}"]')).to_have_text(str(score))


def start(page: Page, live_server, label: str, preset: str, teams, first_dealer: int):
    page.goto(f"{live_server.url}/games/new/")
    page.locator("#id_label").fill(label)
    page.locator("select[name=preset]").select_option(preset)  # htmx fills in its settings
    # Wait for the form to come back with them, before typing into it.
    expect(page.locator("#id_kodi")).to_be_checked(checked=preset == "kodi")
    expect(page.locator("#id_deal_limit")).to_have_value("18" if preset == "international" else "")
    expect(page.locator(f"#id_team2_player{len(teams[0])}")).to_be_visible()
    for number, team in enumerate(teams, start=1):
        for partner, name in enumerate(team, start=1):
            page.locator(f"#id_team{number}_player{partner}").fill(name)
    page.locator(f"input[name=first_dealer][value='{first_dealer}']").check()
    page.get_by_role("button", name="Start the game").click()
    expect_message(page, f"Game “{label}” started.")
    return Game.objects.get(label=label)


def test_a_56_international_session_of_18_deals_on_a_phone(organiser_page, live_server, screenshot):
    page = organiser_page
    # Farid (seat 6) deals first, so Anu bids first.
    game = start(page, live_server, "International final", "international", [KOCHI, THRISSUR], 5)
    assert (game.team_size, game.scoring, game.deal_limit, game.all_pass) == (
        3,
        "points",
        18,
        False,
    )
    expect(page.locator("#now")).to_contain_text("Farid deals; Anu bids first.")
    # The first bidder must open: the deal form offers no "All passed".
    expect(page.locator("input[name=declarer][value=pass]")).to_have_count(0)

    # 1: Anu 28 hearts, Kochi takes 30: made, 1 to Kochi.                     1 - 0
    record_deal(page, 1, declarer="Anu", bid=28, trump="hearts", piles={0: 30, 1: 26})
    expect_scores(page, [1, 0])
    # 2: Dev 40 spades doubled, Thrissur takes 44: made, 2 + 1 = 3.            1 - 3
    record_deal(
        page, 2, declarer="Dev", bid=40, trump="spades", doubling="double", piles={0: 12, 1: 44}
    )
    expect_scores(page, [1, 3])
    # 3: Biju 48 clubs, Kochi takes 40: failed, 4 to Thrissur.                 1 - 7
    record_deal(page, 3, declarer="Biju", bid=48, trump="clubs", piles={0: 40, 1: 16})
    expect_scores(page, [1, 7])
    screenshot(page, "01-after-three-deals")
    # 4 to 17: Anu makes 28 in the odd deals, Dev in the even ones: 1 each.
    for number in range(4, 18):
        declarer, piles = ("Dev", {0: 20, 1: 36}) if number % 2 == 0 else ("Anu", {0: 36, 1: 20})
        record_deal(page, number, declarer=declarer, bid=28, trump="diamonds", piles=piles)
    expect_scores(page, [1 + 7, 7 + 7])  # deals 5..17 odd: 7 to Kochi; 4..16 even: 7 more

    # The correction: deal 3 was made after all (Kochi took 50): 3 to Kochi, not 4 away.
    correct_deal(page, 3, declarer="Biju", bid=48, trump="clubs", piles={0: 50, 1: 6})
    expect_message(page, "Deal 3 corrected; the rest of the game was replayed.")
    expect_scores(page, [1 + 3 + 7, 3 + 7])  # 11 - 10

    # 18, the last: Dev 28 redoubled, Thrissur takes 30: 1 + 2 = 3.           11 - 13
    record_deal(
        page, 18, declarer="Dev", bid=28, trump="spades", doubling="redouble", piles={0: 26, 1: 30}
    )
    expect_scores(page, [11, 13])
    expect(page.locator("main")).to_contain_text("Dev & Esha & Farid won")
    expect(page.locator("form[action$='/deals/']")).to_have_count(0)  # no deal 19
    screenshot(page, "02-session-over")
    game.refresh_from_db()
    assert game.is_finished and game.deals_played == 18
    assert [t.score for t in game.teams.order_by("position")] == [11, 13]


def test_a_kodi_night_through_two_kodis_on_a_phone(organiser_page, live_server, screenshot):
    page = organiser_page
    # Seats: 0 Anu, 1 Chitra, 2 Biju, 3 Dev; Dev deals first, Anu bids first.
    game = start(page, live_server, "Kodi Friday", "kodi", [("Anu", "Biju"), ("Chitra", "Dev")], 3)
    assert game.kodi and game.tables_per_team == 6
    # 1: Anu 56 redoubled, all 56: 4 x 4 = 16 owed, Chitra & Dev pay their 6 and take a kodi.
    record_deal(
        page, 1, declarer="Anu", bid=56, trump="spades", doubling="redouble", piles={0: 56, 1: 0}
    )
    expect(page.locator("#settlement")).to_contain_text(
        "Chitra & Dev ran out of tables and takes a kodi: every team starts again with 6 tables."
    )
    expect(page.locator('[data-team-tables="0"]')).to_have_text("6")
    expect(page.locator(".team-score").nth(1)).to_contain_text("1 kodi")
    # 2: Chitra 56 redoubled, all 56: Anu & Biju pay their 6 and take a kodi.
    record_deal(
        page, 2, declarer="Chitra", bid=56, trump="hearts", doubling="redouble", piles={0: 0, 1: 56}
    )
    expect(page.locator(".team-score").nth(0)).to_contain_text("1 kodi")
    # 3: Biju 28, Anu & Biju take 30: made, 1 table across. 7 - 5.
    record_deal(page, 3, declarer="Biju", bid=28, trump="clubs", piles={0: 30, 1: 26})
    expect(page.locator('[data-team-tables="0"]')).to_have_text("7")
    screenshot(page, "01-two-kodis")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Call time: end the game now").click()
    # A kodi each; Anu & Biju hold more tables: first.
    expect(page.locator("main")).to_contain_text("Anu & Biju won")
    game.refresh_from_db()
    assert game.is_finished
    assert [(t.kodis, t.tables, t.place) for t in game.teams.order_by("position")] == [
        (1, 7, 1),
        (1, 5, 2),
    ]


@pytest.mark.parametrize("preset_first", [True, False])
def test_the_kodi_tables_follow_the_players_chosen_quickly_in_either_order(
    organiser_page, live_server, preset_first
):
    """Chosen one right after the other (the first answer not yet back), a Kodi night of
    eight keeps its eight players and plays 7 tables a team."""
    page = organiser_page
    page.goto(f"{live_server.url}/games/new/")
    page.locator("#id_label").fill("Quick kodi")
    choices = [("select[name=preset]", "kodi"), ("select[name=players]", "8x4")]
    for select, value in choices if preset_first else reversed(choices):
        page.locator(select).select_option(value)  # no wait between the two
    expect(page.locator("select[name=players]")).to_have_value("8x4")
    expect(page.locator("#id_tables_per_team")).to_have_value("7")
    expect(page.locator("#id_kodi")).to_be_checked()
    expect(page.locator("#id_team2_player4")).to_be_visible()
