"""The flows an organiser uses, driven in a real headless Chromium on a phone-sized screen.

Every table count asserted here was worked out by hand from docs/rules.md; the
comment beside each deal shows the arithmetic. Default payout (docs/rules.md A):

    bid 28-39: made 1, failed 2 | 40-47: 2, 3 | 48-55: 3, 4 | 56: 4, 5
    doubled x2, redoubled x4

Seats in play order: T1.first, T2.first, ..., T1.second, T2.second, ...
"""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import call_command, get_commands
from playwright.sync_api import Page, expect

from club.games.models import Change, Game, Round
from tests.browser.deal_entry import enter_deal
from tests.factories import start_game

pytestmark = [
    pytest.mark.browser,
    # WhiteNoise warns that collectstatic has not been run; the live server serves static files.
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


# --- Helpers: what a person does on the game page ---------------------------------------


def fill_deal(
    page: Page,
    *,
    declarer: str,
    piles: dict[int, int],
    bid: int | None = None,
    trump: str | None = None,
    doubling: str = "none",
) -> None:
    """Fill the deal fields. ``declarer`` is a player's name or "pass"; piles by team position."""
    enter_deal(
        page,
        declarer=declarer,
        bid=bid,
        trump=trump,
        doubling=None if declarer == "pass" else doubling,
        piles=piles,
    )
    # The running total adds up what was typed, before anything is sent.
    expect(page.locator("[data-pile-total]")).to_have_text(str(sum(piles.values())))


def record_deal(page: Page, number: int, **deal) -> None:
    """Fill the deal form and record deal ``number``; waits for htmx to swap in the result."""
    fill_deal(page, **deal)
    page.get_by_role("button", name=f"Record deal {number}").click()
    expect(page.locator("#settlement h2")).to_contain_text(f"Deal {number}:")


def expect_tables(page: Page, expected: list[int]) -> None:
    for position, count in enumerate(expected):
        expect(page.locator(f'[data-team-tables="{position}"]')).to_have_text(str(count))


def deal_row(page: Page, number: int):
    return page.locator("#history tbody tr").filter(
        has=page.locator("td:first-child").get_by_text(str(number), exact=True)
    )


def balances(page: Page) -> dict[int, list[int]]:
    """The history table: deal number -> each team's tables after that deal."""
    result = {}
    for row in page.locator("#history tbody tr").all():
        number = int(row.locator("td").first.inner_text())
        result[number] = [
            int(text.replace("→", "").strip()) for text in row.locator(".balance").all_inner_texts()
        ]
    return result


def expect_message(page: Page, text: str) -> None:
    """A message from the server shown at the top of the page (Django's messages)."""
    expect(page.locator("ul.messages").get_by_text(text)).to_be_visible()


def open_game(page: Page, live_server, game: Game) -> None:
    page.goto(f"{live_server.url}{game.get_absolute_url()}")
    expect(page.get_by_role("heading", level=1)).to_have_text(game.label)


def start_game_in_browser(
    page: Page,
    live_server,
    *,
    label: str,
    teams: list[tuple[str, str]],
    first_dealer: str,
    tables_per_team: int | None = None,
) -> Game:
    page.goto(f"{live_server.url}/games/new/")
    page.locator("#id_label").fill(label)
    players = page.locator("select[name=players]")
    if len(teams) != 2:
        # htmx fetches the team fields for the new player count.
        players.select_option(str(len(teams) * 2))
        expect(page.locator(f"#id_team{len(teams)}_player2")).to_be_visible()
    for number, (first, second) in enumerate(teams, start=1):
        page.locator(f"#id_team{number}_player1").fill(first)
        page.locator(f"#id_team{number}_player2").fill(second)
    page.locator(f"input[name=first_dealer][value='{first_dealer}']").check()
    if tables_per_team is not None:
        page.get_by_text("Club settings").click()
        page.locator("#id_tables_per_team").fill(str(tables_per_team))
    page.get_by_role("button", name="Start the game").click()
    expect_message(page, f"Game “{label}” started.")
    return Game.objects.get(label=label)


def correct_deal(page: Page, number: int, **deal) -> None:
    """Open "Correct" for deal ``number``, change it and save (the page is left where it lands)."""
    deal_row(page, number).get_by_role("link", name="Correct").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Correct deal {number}")
    fill_deal(page, **deal)
    page.get_by_role("button", name=f"Save deal {number}").click()


# --- 1. A whole 4-player game, started and played on a phone ---------------------------


def test_four_player_game_from_new_game_form_to_winner(organiser_page, live_server, screenshot):
    page = organiser_page
    # Teams: T1 Asha & Bala, T2 Chandra & Deepa. Seats: 0 Asha, 1 Chandra, 2 Bala, 3 Deepa.
    page.goto(f"{live_server.url}/games/new/")
    screenshot(page, "01-new-game-form")
    game = start_game_in_browser(
        page,
        live_server,
        label="Friday table",
        teams=[("Asha", "Bala"), ("Chandra", "Deepa")],
        first_dealer="0",
    )
    assert game.tables_per_team == 12
    expect_tables(page, [12, 12])
    expect(page.locator("#now")).to_contain_text("Asha deals; Chandra bids first.")
    expect(page.locator("#now")).to_contain_text("4 players")
    expect(page.locator("#now")).to_contain_text("12 each")

    # Deal 1, dealt by Asha: all pass, so Chandra's team (first bidder) is held to 28, no
    # trumps. Piles 30 / 26: 26 < 28 fails, bid 28-39 failed = 2 tables to T1. 12+2, 12-2.
    fill_deal(page, declarer="pass", piles={0: 30, 1: 26})
    # Nothing to bid or double when everyone passed.
    expect(page.locator("fieldset[data-group=bid]")).to_be_hidden()
    expect(page.locator("input[name=bid][value='30']")).to_be_disabled()
    expect(page.locator("input[name=doubling][value=double]")).to_be_disabled()
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.locator("#settlement h2")).to_contain_text("Deal 1:")
    expect(page.locator("#settlement")).to_contain_text(
        "All passed: Chandra & Deepa to make 28, no trumps"
    )
    expect(page.locator("#settlement h2")).to_contain_text("failed")
    expect_tables(page, [14, 10])
    expect(page.locator("#now")).to_contain_text("Chandra deals; Bala bids first.")
    screenshot(page, "02-after-all-pass-deal")

    # Deal 2, dealt by Chandra: Chandra bids 40 hearts, T2 takes 46 >= 40, made;
    # 40-47 made = 2 from T1. 14-2, 10+2.
    record_deal(page, 2, declarer="Chandra", bid=40, trump="hearts", piles={0: 10, 1: 46})
    expect(page.locator("#settlement h2")).to_contain_text("made")
    expect_tables(page, [12, 12])

    # Deal 3, dealt by Bala: Bala 48 spades doubled, T1 takes 50, made; 48-55 made = 3, x2 = 6.
    # 12+6, 12-6.
    record_deal(
        page, 3, declarer="Bala", bid=48, trump="spades", doubling="double", piles={0: 50, 1: 6}
    )
    expect_tables(page, [18, 6])

    # Deal 4, dealt by Deepa: Deepa 56 no trumps redoubled, T2 takes all 56, made; 56 made = 4,
    # x4 = 16, and T1 holds 18 so pays all 16. 18-16, 6+16.
    record_deal(
        page,
        4,
        declarer="Deepa",
        bid=56,
        trump="no-trumps",
        doubling="redouble",
        piles={0: 0, 1: 56},
    )
    expect_tables(page, [2, 22])
    expect(page.locator("#now")).to_contain_text("Asha deals; Chandra bids first.")

    # Deal 5, dealt by Asha: Asha 35 clubs doubled, T1 takes 20 < 35, failed; 28-39 failed = 2,
    # x2 = 4 owed, but T1 holds only 2 and pays all it holds (docs/rules.md B.2). 2-2, 22+2.
    # T1 has no tables left: out, and Chandra & Deepa win.
    record_deal(
        page, 5, declarer="Asha", bid=35, trump="clubs", doubling="double", piles={0: 20, 1: 36}
    )
    expect_tables(page, [0, 24])
    winner = page.locator("#result")
    expect(winner.get_by_role("heading")).to_contain_text("Chandra & Deepa won the game")
    places = winner.locator("ol.places li")
    expect(places).to_have_count(2)
    expect(places.nth(0)).to_contain_text("1. Chandra & Deepa")
    expect(places.nth(1)).to_contain_text("2. Asha & Bala")
    expect(places.nth(1)).to_contain_text("out in deal 5")
    expect(page.locator("#settlement")).to_contain_text(
        "Asha & Bala has no tables left and is out."
    )
    # The game is over: no deal form, no next deal.
    expect(page.locator("#deal-entry")).to_have_count(0)
    expect(page.locator("input[name=declarer]")).to_have_count(0)
    expect(page.locator("#now")).to_have_count(0)
    assert balances(page) == {1: [14, 10], 2: [12, 12], 3: [18, 6], 4: [2, 22], 5: [0, 24]}
    screenshot(page, "03-winner")
    # What the phone shows right after pressing the button (htmx keeps the scroll position).
    screenshot(page, "03-winner-viewport-after-submit", full_page=False)

    # A fresh load shows the same finished game.
    page.reload()
    expect(page.locator(".badge")).to_have_text("Finished")
    expect(page.locator("#result")).to_contain_text("Chandra & Deepa won the game")
    expect(page.locator("#deal-entry")).to_have_count(0)
    expect_tables(page, [0, 24])

    game.refresh_from_db()
    assert game.is_finished
    assert game.winner.team.name == "Chandra & Deepa"
    assert game.rounds.count() == 5


# --- 2. Correcting an earlier deal ---------------------------------------------------------


def test_correction_replays_later_deals_and_impossible_one_is_refused(
    organiser_page, live_server, screenshot
):
    page = organiser_page
    # T1 Anu & Biju, T2 Chitra & Dev; seats 0 Anu, 1 Chitra, 2 Biju, 3 Dev; Anu deals first.
    game = start_game(2, first_dealer=0, label="Correction night")
    open_game(page, live_server, game)
    # Deal 1: Chitra 30 hearts, T2 36 >= 30 made, 1 table. 12-1, 12+1.
    record_deal(page, 1, declarer="Chitra", bid=30, trump="hearts", piles={0: 20, 1: 36})
    expect_tables(page, [11, 13])
    # Deal 2: Biju 40 spades, T1 44 >= 40 made, 2 tables. 11+2, 13-2.
    record_deal(page, 2, declarer="Biju", bid=40, trump="spades", piles={0: 44, 1: 12})
    expect_tables(page, [13, 11])
    # Deal 3: Dev 28 diamonds, T2 28 >= 28 made, 1 table. 13-1, 11+1.
    record_deal(page, 3, declarer="Dev", bid=28, trump="diamonds", piles={0: 28, 1: 28})
    expect_tables(page, [12, 12])
    assert balances(page) == {1: [11, 13], 2: [13, 11], 3: [12, 12]}

    # Deal 1 was doubled after all: 1 x2 = 2 tables, 12-2, 12+2 = 10 / 14.
    # Replayed: deal 2 (+2 to T1) 12 / 12; deal 3 (+1 to T2) 11 / 13.
    correct_deal(
        page, 1, declarer="Chitra", bid=30, trump="hearts", doubling="double", piles={0: 20, 1: 36}
    )
    expect_message(page, "Deal 1 corrected; the rest of the game was replayed.")
    expect_tables(page, [11, 13])
    assert balances(page) == {1: [10, 14], 2: [12, 12], 3: [11, 13]}
    correction = page.locator("#changes li").filter(has_text="Corrected deal 1")
    expect(correction).to_have_count(1)
    expect(correction).to_contain_text("Before: Chitra bid 30 Hearts, Not doubled")
    expect(correction).to_contain_text("After: Chitra bid 30 Hearts, Doubled")
    expect(correction).to_contain_text("piles: Anu & Biju 20, Chitra & Dev 36")
    screenshot(page, "01-after-correction")

    # A correction that would end the game before deal 3: Biju 56 no trumps redoubled and
    # T1 takes 0, failed; 56 failed = 5, x4 = 20 owed, T1 holds 10 after deal 1 and pays all
    # 10: T1 is out after deal 2, so deal 3 cannot have been played. Refused, naming deal 3.
    changes_before = Change.objects.filter(game=game).count()
    correct_deal(
        page,
        2,
        declarer="Biju",
        bid=56,
        trump="no-trumps",
        doubling="redouble",
        piles={0: 0, 1: 56},
    )
    expect(page.get_by_role("alert")).to_contain_text(
        "Deal 3 cannot stand: the game was already won after deal 2."
    )
    expect(page.get_by_role("heading", level=1)).to_have_text("Correct deal 2")
    screenshot(page, "02-correction-refused")

    # Nothing changed: the stored deal, the tables, the history.
    deal_2 = Round.objects.get(game=game, number=2)
    assert (deal_2.bid, deal_2.trump, deal_2.doubling) == (40, "spades", "none")
    assert Change.objects.filter(game=game).count() == changes_before
    open_game(page, live_server, game)
    expect_tables(page, [11, 13])
    assert balances(page) == {1: [10, 14], 2: [12, 12], 3: [11, 13]}
    expect(page.locator("#changes li").filter(has_text="Corrected deal")).to_have_count(1)


# --- 3. A 6-player game in the browser matches the export --------------------------------


def test_six_player_game_with_a_correction_matches_the_export(
    organiser_page, live_server, screenshot
):
    page = organiser_page
    # T1 Ravi & Sita, T2 Tara & Uma, T3 Vik & Wen, 4 tables each (12 in all).
    # Seats: 0 Ravi, 1 Tara, 2 Vik, 3 Sita, 4 Uma, 5 Wen. Uma (seat 4) deals first.
    t1, t2, t3 = "Ravi & Sita", "Tara & Uma", "Vik & Wen"
    game = start_game_in_browser(
        page,
        live_server,
        label="Six at the club",
        teams=[("Ravi", "Sita"), ("Tara", "Uma"), ("Vik", "Wen")],
        first_dealer="4",
        tables_per_team=4,
    )
    assert game.tables_per_team == 4
    expect_tables(page, [4, 4, 4])
    expect(page.locator("#now")).to_contain_text("Uma deals; Wen bids first.")
    expect(page.locator("#now")).to_contain_text("6 players")

    # Deal 1 as first (wrongly) recorded: Ravi 28 clubs *doubled*, made: 1 x2 = 2 from each.
    # 4+4, 4-2, 4-2.
    record_deal(
        page,
        1,
        declarer="Ravi",
        bid=28,
        trump="clubs",
        doubling="double",
        piles={0: 30, 1: 10, 2: 16},
    )
    expect_tables(page, [8, 2, 2])
    # Deal 2, Wen deals, Ravi bids first: all pass, T1 held to 28, takes 20, failed: 2 to each.
    # 8-4, 2+2, 2+2.
    record_deal(page, 2, declarer="pass", piles={0: 20, 1: 20, 2: 16})
    expect_tables(page, [4, 4, 4])
    # Deal 1 was not doubled: replayed, deal 1 gives 6 / 3 / 3 and deal 2 gives 2 / 5 / 5.
    correct_deal(page, 1, declarer="Ravi", bid=28, trump="clubs", piles={0: 30, 1: 10, 2: 16})
    expect_message(page, "Deal 1 corrected")
    expect_tables(page, [2, 5, 5])
    assert balances(page) == {1: [6, 3, 3], 2: [2, 5, 5]}
    expect(page.locator("#now")).to_contain_text("Ravi deals; Tara bids first.")

    # Deal 3: Vik 40 hearts doubled, made: 2 x2 = 4 from each; T1 holds 2 and pays 2, T2 pays
    # 4. 2-2, 5-4, 5+6. T1 is out.
    record_deal(
        page,
        3,
        declarer="Vik",
        bid=40,
        trump="hearts",
        doubling="double",
        piles={0: 6, 1: 10, 2: 40},
    )
    expect_tables(page, [0, 1, 11])
    expect(page.locator("#settlement")).to_contain_text(f"{t1} has no tables left and is out.")
    # Four players are left: the deal passes over Sita's seat, the 48-card pack is dealt 12
    # each, and T1 reports no pile and cannot declare.
    expect(page.locator("#now")).to_contain_text("Tara deals; Vik bids first.")
    expect(page.locator("#now")).to_contain_text("4 players")
    expect(page.locator("#now")).to_contain_text("12 each")
    expect(page.locator("input[name=points_0]")).to_have_count(0)
    declarers = page.locator("fieldset[data-group=declarer] label.key").all_inner_texts()
    assert declarers and not [name for name in declarers if t1 in name]
    screenshot(page, "01-team-out")

    # Deal 4: Uma 50 spades, T2 takes 45 < 50, failed: 48-55 failed = 4, but T2 holds 1 and
    # pays all of it to T3. 1-1, 11+1. T2 is out; Vik & Wen win.
    record_deal(page, 4, declarer="Uma", bid=50, trump="spades", piles={1: 45, 2: 11})
    expect_tables(page, [0, 0, 12])
    expect(page.locator("#result").get_by_role("heading")).to_contain_text(f"{t3} won the game")
    places = page.locator("#result ol.places li")
    expect(places).to_have_count(3)
    expect(places.nth(0)).to_contain_text(f"1. {t3}")
    expect(places.nth(1)).to_contain_text(f"2. {t2}")
    expect(places.nth(1)).to_contain_text("out in deal 4")
    expect(places.nth(2)).to_contain_text(f"3. {t1}")
    expect(places.nth(2)).to_contain_text("out in deal 3")
    expect(page.locator("#deal-entry")).to_have_count(0)
    screenshot(page, "02-winner")

    if "export_results" not in get_commands():
        pytest.skip("export_results not available yet")
    out = io.StringIO()
    call_command("export_results", stdout=out)
    exported = next(g for g in json.loads(out.getvalue())["games"] if g["label"] == game.label)
    deals = [
        {key: deal[key] for key in ("dealer", "made", "transfers", "tables_after", "eliminated")}
        for deal in exported["rounds"]
    ]
    assert deals == [
        # Deal 1 (as corrected), Uma deals: Ravi 28 clubs not doubled, T1 30 >= 28 made,
        # 1 table from each other team: T1 +2, T2 -1, T3 -1 -> 6 / 3 / 3.
        {
            "dealer": "Uma",
            "made": True,
            "transfers": {t1: 2, t2: -1, t3: -1},
            "tables_after": {t1: 6, t2: 3, t3: 3},
            "eliminated": [],
        },
        # Deal 2, Wen deals: all pass, first bidder Ravi's T1 held to 28, takes 20, failed:
        # 2 tables to each other team, T1 holds 6 >= 4: T1 -4, T2 +2, T3 +2 -> 2 / 5 / 5.
        {
            "dealer": "Wen",
            "made": False,
            "transfers": {t1: -4, t2: 2, t3: 2},
            "tables_after": {t1: 2, t2: 5, t3: 5},
            "eliminated": [],
        },
        # Deal 3, Ravi deals: Vik 40 hearts doubled, T3 40 >= 40 made, 2 x2 = 4 from each,
        # each paying at most what it holds: T1 pays 2, T2 pays 4 -> T3 +6; 0 / 1 / 11, T1 out.
        {
            "dealer": "Ravi",
            "made": True,
            "transfers": {t1: -2, t2: -4, t3: 6},
            "tables_after": {t1: 0, t2: 1, t3: 11},
            "eliminated": [t1],
        },
        # Deal 4, Tara deals (the next seat still in play after Ravi): Uma 50 spades, T2 45 <
        # 50 failed, 48-55 failed = 4 but T2 holds 1 and pays it to T3; T1 is out and moves
        # nothing -> 0 / 0 / 12, T2 out.
        {
            "dealer": "Tara",
            "made": False,
            "transfers": {t1: 0, t2: -1, t3: 1},
            "tables_after": {t1: 0, t2: 0, t3: 12},
            "eliminated": [t2],
        },
    ]
    assert exported["winner"] == t3


# --- 4. A stale form in a second tab ------------------------------------------------------


def test_stale_form_in_second_tab_is_told_the_deal_is_already_recorded(
    organiser_page, phone_context, live_server, screenshot
):
    game = start_game(2, first_dealer=0, label="Two scorers")
    first = organiser_page
    second = phone_context.new_page()  # same browser profile, so the same log-in
    open_game(first, live_server, game)
    open_game(second, live_server, game)

    # The first tab records deal 1: Chitra 30 hearts made, 11 / 13.
    record_deal(first, 1, declarer="Chitra", bid=30, trump="hearts", piles={0: 20, 1: 36})
    expect_tables(first, [11, 13])

    # The second tab, still showing the form for deal 1, sends another deal 1.
    fill_deal(second, declarer="Anu", bid=28, trump="clubs", piles={0: 30, 1: 26})
    second.get_by_role("button", name="Record deal 1").click()
    entry = second.locator("#deal-entry")
    expect(
        entry.get_by_role("alert").filter(has_text="Deal 1 is already recorded").first
    ).to_be_visible()
    expect(entry).to_contain_text("Deal 1 is already recorded: Chitra bid 30 Hearts")
    expect_tables(second, [11, 13])
    screenshot(second, "second-tab")

    assert Round.objects.filter(game=game, number=1).count() == 1
    assert Round.objects.get(game=game, number=1).declarer.name == "Chitra"
    assert Game.objects.get(pk=game.pk).deals_played == 1


# --- 5. Bad input ------------------------------------------------------------------------


def test_piles_not_adding_up_to_56_are_refused(organiser_page, live_server, screenshot):
    page = organiser_page
    game = start_game(2, first_dealer=0, label="Miscounted")
    open_game(page, live_server, game)

    fill_deal(page, declarer="Chitra", bid=30, trump="hearts", piles={0: 30, 1: 20})
    # The running total already warns before sending.
    expect(page.locator(".running-total")).to_have_class(re.compile(r"\bbad\b"))
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.locator("#deal-entry").get_by_role("alert")).to_contain_text(
        "The piles add up to 50; they must add up to exactly 56."
    )
    # What was typed is kept for fixing, and nothing was recorded.
    expect(page.locator("input[name=points_1]")).to_have_value("20")
    expect(page.locator("#settlement")).to_have_count(0)
    expect_tables(page, [12, 12])
    screenshot(page, "refused")

    assert not Round.objects.filter(game=game).exists()
    assert not Change.objects.filter(game=game).exists()
    game.refresh_from_db()
    assert game.deals_played == 0


def test_after_a_stale_refusal_the_form_records_the_next_deal(
    organiser_page, phone_context, live_server
):
    game = start_game(2, first_dealer=0, label="Two scorers, then deal 2")
    first = organiser_page
    second = phone_context.new_page()
    open_game(first, live_server, game)
    open_game(second, live_server, game)
    record_deal(first, 1, declarer="Chitra", bid=30, trump="hearts", piles={0: 20, 1: 36})
    fill_deal(second, declarer="Anu", bid=28, trump="clubs", piles={0: 30, 1: 26})
    second.get_by_role("button", name="Record deal 1").click()
    expect(second.locator("#deal-entry")).to_contain_text("Deal 1 is already recorded")

    # The refused deal is not put in the form by itself (it may have been the same cards
    # sent twice): the form is empty and expects deal 2, and what was typed is shown beside
    # what was recorded. If it was another deal, the organiser puts it in the form:
    # Anu 28 clubs, T1 takes 30 >= 28, made, 1 table: 11+1, 13-1.
    form = second.locator("form.deal-form")
    expect(form.locator("input[name=points_0]")).to_have_value("")
    expect(form.locator("input[name=number]")).to_have_value("2")
    expect(second.locator(".lost-race .typed-entry")).to_contain_text("Anu bid 28 Clubs")
    second.get_by_role("button", name="Put it in the form as deal 2").click()
    expect(form.locator("input[name=points_0]")).to_have_value("30")
    second.get_by_role("button", name="Record deal 2").click()
    expect(second.locator("#settlement h2")).to_contain_text("Deal 2:", timeout=2_000)
    expect_tables(second, [12, 12])
