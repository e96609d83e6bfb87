"""Who plays for a team tonight, on phones: the night of tests/tournaments/
substitution_night.py, six teams of three of the 56 International.

The director checks teams in on the board, one tap a team (the Panthers are late for
sitting 1, and their captain checks them in for sitting 2 from the team card's code),
draws each sitting (set to the night's pairings, as a director adjusts a draw), hands
out the tables' scorer links, and calls time; each table's scorer records its deal on a
phone. Sunil sits in for Biju of the Tuskers in sitting 2 through the substitution form,
and Biju is back for sitting 3. The standings, the player board, the ratings and the
export are checked against the figures worked out by hand in that module; the same night
is checked through the services on both databases by tests/tournaments/
test_substitution_night.py.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from club.leaderboards.models import PlayerRating, TeamTotals
from club.tournaments import checkin
from club.tournaments.models import Standing, TournamentTeam
from tests.browser.deal_entry import enter_deal
from tests.browser.test_game_flow import expect_message
from tests.browser.test_scorer_links import phone
from tests.tournaments import substitution_night as night

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def check_in(page: Page, board: str, teams: list[str], *, already: int = 0) -> None:
    """Tap each team in on the director's board; the list answers in place."""
    page.goto(board)
    card = page.locator("#check-in")
    for count, team in enumerate(teams, start=already + 1):
        card.get_by_role("button", name=team).click()
        expect(card.get_by_role("button", name=team)).to_have_attribute("aria-pressed", "true")
        expect(card).to_contain_text(f"Checked in: {count} of 6.")


def draw(page: Page, url: str, number: int, plan: dict) -> list[str]:
    """Draw the sitting, set it to the night's pairings, confirm it, and hand out the
    tables' scorer links (one a table: deals need no other team's confirmation), in table
    order."""
    page.goto(url)
    page.get_by_role("button", name="Draw the next sitting").click()
    expect(page.locator("h1")).to_have_text(f"Sitting {number}")
    tables = page.locator("fieldset.adjust-table").count()
    for table in range(tables):
        game = plan["games"][table] if table < len(plan["games"]) else None
        for seat in range(2):
            select = page.get_by_label(f"Table {table + 1}, team {seat + 1}")
            select.select_option(label=game.teams[seat] if game else "— empty —")
    byes = page.locator("fieldset.adjust-byes")
    for team in night.TEAMS:
        box = byes.get_by_label(team, exact=True)
        if box.count():
            box.set_checked(team in plan["byes"])
    page.get_by_role("button", name="Save the changes").click()
    expect(page.locator("#adjust .errors")).to_have_count(0)
    page.get_by_role("button", name="Confirm and start the games").click()
    expect_message(page, f"Sitting {number} confirmed: its games have started.")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Scorer links for every table").click()
    expect(page.locator(".print-link")).to_have_count(len(plan["games"]))
    return page.locator(".print-link .link-url").all_inner_texts()


def test_a_late_team_and_a_substitute_on_phones_agree_with_the_hand_check(
    browser, organiser_page, live_server, screenshot
):
    tournament = night.register()
    url = f"{live_server.url}{tournament.get_absolute_url()}"
    board = f"{url}board/"
    director = organiser_page
    scorers = phone(browser)
    scorer = scorers.new_page()
    captain = phone(browser).new_page()
    players_page = ""
    try:
        for number, plan in enumerate(night.SITTINGS, start=1):
            if number == 1:
                check_in(director, board, plan["present"])
                expect(director.locator("#check-in")).to_contain_text("Panthers")
                screenshot(director, "check-in-list")
            elif number == 2:
                # The Panthers' captain scans the team's card: checked in for sitting 2.
                panthers = TournamentTeam.objects.get(team__name=night.LATE)
                captain.goto(
                    f"{live_server.url}/tournaments/captain/{checkin.captain_key(panthers)}/"
                )
                captain.get_by_role("button", name="We are here: check in for sitting 2").click()
                expect(captain.locator("#check-in")).to_contain_text("Checked in for sitting 2 at")
                check_in(
                    director, board, [t for t in plan["present"] if t != night.LATE], already=1
                )
                # Sunil sits in for Biju from sitting 2: the team's page, from the team list.
                director.goto(url)
                director.locator("li.team-line", has_text="Tuskers").get_by_role(
                    "link", name="Substitute"
                ).click()
                expect(director.locator("h1")).to_have_text("Who plays for Tuskers")
                players_page = director.url
                director.get_by_label("Player out").select_option(label="Biju")
                director.locator("#id_player_in").fill("Sunil")
                expect(director.get_by_label("From sitting")).to_have_value("2")
                screenshot(director, "substitution-form")
                director.get_by_role("button", name="Make the substitution").click()
                expect_message(director, "Sunil sits in for Biju from sitting 2.")
                expect(director.locator("#line-up + ul")).to_contain_text("Sunil")
                screenshot(director, "substitution-made")
            else:
                director.goto(players_page)
                expect(director.get_by_label("Back from sitting")).to_have_value("3")
                director.get_by_role("button", name="Biju is back").click()
                expect_message(director, "Biju is back from sitting 3.")
                expect(director.locator("#made")).to_be_visible()
                expect(director.locator("section[aria-labelledby=made]")).to_contain_text(
                    "Sunil for Biju in sitting 2"
                )
                check_in(director, board, plan["present"])

            links = draw(director, url, number, plan)
            if number == 1:
                # The late team is left out, and said so.
                director.goto(f"{url}sittings/1/")
                expect(director.locator("p.absent")).to_contain_text(night.LATE)
            for link, game in zip(links, plan["games"], strict=True):
                scorer.goto(link)
                expect(scorer.locator(".scorer-for")).to_contain_text("Scorer link of this table")
                enter_deal(
                    scorer,
                    declarer=game.declarer,
                    bid=game.bid,
                    trump="hearts",
                    piles=game.piles(),
                )
                scorer.get_by_role("button", name="Record deal 1").click()
                expect(scorer.locator("#settlement h2")).to_contain_text("Deal 1:")
            director.goto(f"{url}sittings/{number}/")
            director.once("dialog", lambda dialog: dialog.accept())
            director.get_by_role("button", name="Call time for this sitting").click()
            expect(director.locator("#games .badge.finished")).to_have_count(len(plan["games"]))

        # The standings, as anyone reads them.
        public = phone(browser).new_page()
        public.goto(url)
        shown = public.locator("#standings tbody tr .team-name").all_inner_texts()
        assert shown == [team for _place, team, *_ in night.STANDINGS]
        stored = [
            (s.place, s.entry.team.name, int(s.points), s.games, s.won, s.score_difference, s.byes)
            for s in Standing.objects.select_related("entry__team").order_by("place")
        ]
        assert stored == night.STANDINGS
        screenshot(public, "standings")

        # The player board credits each player with the games they sat in.
        public.goto(f"{live_server.url}/leaderboards/players/")
        headings = public.locator("table.board thead th").all_inner_texts()
        column = {heading.rstrip(" ▲▼"): index - 1 for index, heading in enumerate(headings)}
        for name, expected in night.PLAYERS.items():
            row = public.locator("table.board tbody tr").filter(
                has=public.locator("th.board-name a").get_by_text(name, exact=True)
            )
            cells = row.locator("td").all_inner_texts()
            # A points sheet's board counts sessions won, and the points scored while sitting.
            figures = ("Played", "Sessions won", "Declared", "Made")
            assert tuple(int(cells[column[heading]]) for heading in figures) == expected, name
            if name in night.POINTS:
                figures = ("Points for", "Points against")
                shown = tuple(int(cells[column[heading]]) for heading in figures)
                assert shown == night.POINTS[name], name
        screenshot(public, "player-board")
        rated = dict(PlayerRating.objects.values_list("player__name", "games"))
        assert {name: rated[name] for name in night.RATED_GAMES} == night.RATED_GAMES
        assert TeamTotals.objects.get(team__name="Tuskers").rated_games == 3

        # The export says who sat in, and for which sittings.
        answer = public.request.get(f"{url}export.json")
        assert answer.ok
        document = json.loads(answer.text())
        assert document["tournament"]["substitutions"] == [
            {"team": "Tuskers", "out": "Biju", "in": "Sunil", "from": 2, "until": 2}
        ]
        tuskers = [
            next(team["players"] for team in game["teams"] if team["name"] == "Tuskers")
            for game in document["games"]
            if any(team["name"] == "Tuskers" for team in game["teams"])
        ]
        assert tuskers == night.TUSKERS_SAT
        public.context.close()
    finally:
        scorers.close()
        captain.context.close()
