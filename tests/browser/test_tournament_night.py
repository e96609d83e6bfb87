"""A tournament night in headless Chromium: an organiser, phones at the tables and a public page.

1. An organiser creates a tournament, draws the first sitting, two games are
   recorded through scorer links on phone-sized pages while a public standings
   page updates by itself (no reload).
2. A whole night, checked by hand: an organiser runs a 12-team tournament of three
   sittings in the browser, and the standings, leaderboards, printable sheets
   and exports agree with a hand check.

Every figure asserted is worked out in this file from docs/rules.md, never read
back from the app: the default payout (bid 28-39: 1 table made, 2 failed;
40-47: 2, 3; 48-55: 3, 4; 56: 4, 5; doubled x2, redoubled x4), 12 tables a
team, and the default tournament points of a 2-team game (1st 3, 2nd 1).
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_game_flow import expect_message, record_deal
from tests.browser.test_scorer_links import phone
from tests.tournaments.helpers import PAIRS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
    pytest.mark.django_db(transaction=True),
]

TABLES = 12
POINTS = {1: 3, 2: 1}  # default scheme, game of 2 teams


# --- The hand check: docs/rules.md arithmetic for a game of two teams --------------------------


@dataclass(frozen=True)
class Deal:
    """One deal of a 2-team game: who declares (team position 0 or 1, seat first/second)."""

    team: int
    seat: int  # 0: the team's first player, 1: its second
    bid: int
    trump: str
    doubling: str
    piles: tuple[int, int]

    def tables_to_declarer(self) -> int:
        """Tables the declaring team receives (negative: pays), before any cap."""
        made_pay, failed_pay = next(
            pay
            for (low, high), pay in {
                (28, 39): (1, 2),
                (40, 47): (2, 3),
                (48, 55): (3, 4),
                (56, 56): (4, 5),
            }.items()
            if low <= self.bid <= high
        )
        factor = {"none": 1, "double": 2, "redouble": 4}[self.doubling]
        return made_pay * factor if self.made else -failed_pay * factor

    @property
    def made(self) -> bool:
        return self.piles[self.team] >= self.bid


# Enough variety to spread the standings: made and failed, doubled and redoubled,
# either team declaring, a team losing all its tables in one deal.
DEALS = [
    Deal(0, 0, 28, "hearts", "none", (30, 26)),  # made: T0 +1 -> 13/11
    Deal(1, 0, 40, "spades", "none", (20, 36)),  # T1 fails 40: pays 3 -> 15/9
    Deal(1, 1, 32, "clubs", "none", (10, 46)),  # made: T1 +1 -> 11/13
    Deal(0, 1, 48, "no-trumps", "double", (50, 6)),  # made doubled: 3 x 2 -> 18/6
    Deal(1, 0, 29, "diamonds", "none", (28, 28)),  # T1 fails 29 by one: pays 2 -> 14/10
    Deal(0, 0, 44, "hearts", "redouble", (40, 16)),  # fails redoubled: 3 x 4 = 12 -> 0/24
    Deal(1, 1, 56, "spades", "none", (0, 56)),  # made 56: T1 +4 -> 8/16
    Deal(0, 0, 36, "clubs", "double", (30, 26)),  # fails doubled: 2 x 2 -> 8/16
]


@dataclass
class Tally:
    """What a team or a player has, by the hand check."""

    points: int = 0
    games: int = 0
    won: int = 0
    net: int = 0
    declared: int = 0
    made: int = 0
    opponents: set = field(default_factory=set)


def play(deals: list[Deal], teams: list[str], players: dict[str, tuple[str, str]], tally):
    """Settle ``deals`` by hand for ``teams`` (by position); update ``tally`` (name -> Tally).

    Returns the tables each team holds at the end. ``tally`` is keyed by team
    names and by player names alike.
    """
    tables = [TABLES, TABLES]
    for deal in deals:
        moved = deal.tables_to_declarer()
        other = 1 - deal.team
        if moved < 0:
            moved = -min(-moved, tables[deal.team])  # pays at most what it holds
        else:
            moved = min(moved, tables[other])
        tables[deal.team] += moved
        tables[other] -= moved
        declarer = players[teams[deal.team]][deal.seat]
        for who in (teams[deal.team], declarer):
            tally[who].declared += 1
            tally[who].made += deal.made
        if 0 in tables:
            break
    assert tables[0] != tables[1], "the hand-made deals must not tie a game"
    winner = 0 if tables[0] > tables[1] else 1
    for position, team in enumerate(teams):
        place = 1 if position == winner else 2
        for who in (team, *players[team]):
            tally[who].games += 1
            tally[who].won += place == 1
            tally[who].points += POINTS[place]
            tally[who].net += tables[position] - TABLES
        tally[team].opponents.add(teams[1 - position])
    return tables


def expected_places(tally: dict[str, Tally], teams: list[str]) -> dict[str, range]:
    """The place range each team may hold: by points, games won, net tables, then the share
    of contracts made (none declared counts as 0). Teams equal on all four are separated by
    their result between them, which this check leaves open: any place in their block."""

    def key(team):
        row = tally[team]
        share = Fraction(row.made, row.declared) if row.declared else Fraction(0)
        return (-row.points, -row.won, -row.net, -share)

    keys = Counter(key(team) for team in teams)
    return {
        team: range(
            1 + sum(n for other, n in keys.items() if other < key(team)),
            1 + sum(n for other, n in keys.items() if other <= key(team)),
        )
        for team in teams
    }


# --- What a person reads and does in the browser ------------------------------------------


def read_standings(page: Page) -> dict[str, dict[str, str]]:
    """The standings table as shown: team name -> its cells, as text."""
    rows = page.locator("#standings tbody tr").evaluate_all(
        """rows => rows.map(row => {
            const cells = row.querySelectorAll("td");
            const made = cells[6].querySelector(".small");
            return {
                place: cells[0].textContent.trim(),
                team: row.querySelector(".team-name").textContent.trim(),
                points: cells[2].textContent.trim(),
                games: cells[3].textContent.trim(),
                won: cells[4].textContent.trim(),
                net: cells[5].textContent.trim(),
                made: made ? made.textContent.trim() : cells[6].textContent.trim(),
            };
        })"""
    )
    return {row.pop("team"): row for row in rows}


def signed(number: int) -> str:
    return f"+{number}" if number > 0 else str(number)


def shown_row(row: Tally) -> dict[str, str]:
    """How the standings table writes a team's tally."""
    return {
        "points": str(row.points),
        "games": str(row.games),
        "won": str(row.won),
        "net": signed(row.net),
        "made": f"{row.made}/{row.declared}" if row.declared else "—",
    }


def game_links(page: Page) -> list[str]:
    """The confirmed sitting page: each game's address, in table order."""
    return page.locator("#games .sitting-game a").evaluate_all("links => links.map(a => a.href)")


def pairings(page: Page) -> list[list[str]]:
    """The confirmed sitting page: the team names of each game, in table order."""
    return page.locator("#games .sitting-game").evaluate_all(
        """games => games.map(game => Array.from(game.querySelectorAll(".game-team"),
            team => team.firstChild.textContent.trim()))"""
    )


def teams_on_game_page(page: Page) -> list[str]:
    return page.locator(".scoreboard .team-name").all_inner_texts()


def record(page: Page, number: int, deal: Deal, teams: list[str], players) -> None:
    """Record ``deal`` as deal ``number`` through the deal form of the page that is open."""
    declarer = players[teams[deal.team]][deal.seat]
    record_deal(
        page,
        number,
        declarer=declarer,
        bid=deal.bid,
        trump=deal.trump,
        doubling=deal.doubling,
        piles={0: deal.piles[0], 1: deal.piles[1]},
    )


def create_tournament(page: Page, live_server, *, name: str, deal_limit: int) -> str:
    """The New tournament form, defaults kept but for the deal limit; returns its address."""
    page.goto(f"{live_server.url}/tournaments/new/")
    page.locator("#id_name").fill(name)
    page.locator("#id_venue").fill("Club hall")
    page.locator("#id_deal_limit").fill(str(deal_limit))
    page.get_by_role("button", name="Create the tournament").click()
    expect_message(page, f"Tournament “{name}” created.")
    expect(page.locator("h1")).to_have_text(name)
    return page.url.split("#")[0]


def register_teams(page: Page, pairs) -> dict[str, tuple[str, str]]:
    """Register each pair through the form on the tournament page: team name -> players."""
    players = {}
    for first, second in pairs:
        page.locator("#id_first").fill(first)
        page.locator("#id_second").fill(second)
        page.get_by_role("button", name="Register the team").click()
        team = f"{first} & {second}"
        expect_message(page, f"{team} registered.")
        players[team] = (first, second)
    expect(page.locator("#register")).to_contain_text(f"{len(pairs)} teams registered.")
    return players


def draw_and_confirm(page: Page, number: int, games: int) -> None:
    """Draw the next sitting from the tournament page and confirm it as proposed."""
    page.get_by_role("button", name="Draw the next sitting").click()
    expect(page.locator("h1")).to_have_text(f"Sitting {number}")
    expect(page.locator(".proposed-games li")).to_have_count(games)
    expect(page.locator("#proposal .errors")).to_have_count(0)  # no rematch warning
    page.get_by_role("button", name="Confirm and start the games").click()
    expect_message(page, f"Sitting {number} confirmed: its games have started.")
    expect(page.locator("#games .sitting-game")).to_have_count(games)


# --- 1. Scorer links on phones while the public standings update by themselves ----------


def test_scorer_links_on_phones_while_the_standings_update_themselves(
    browser, organiser_page, live_server, screenshot
):
    organiser = organiser_page
    url = create_tournament(organiser, live_server, name="Friday night cup", deal_limit=2)
    players = register_teams(organiser, PAIRS[:4])
    draw_and_confirm(organiser, 1, games=2)
    screenshot(organiser, "sitting-confirmed")
    sitting_url = organiser.url

    # The organiser issues a scorer link on each game's page and reads it off the links page.
    games = []
    for game_url in game_links(organiser):
        organiser.goto(game_url)
        teams = teams_on_game_page(organiser)
        organiser.get_by_role("link", name="Scorer links").click()
        organiser.get_by_role("button", name="Issue a scorer link").click()
        expect(organiser.locator(".scorer-link")).to_have_count(1)
        link = organiser.locator(".scorer-link .link-url a").get_attribute("href")
        assert link.startswith(f"{live_server.url}/s/")
        games.append((teams, link))
    screenshot(organiser, "scorer-link")

    # Game 1: T0 +1 (13/11), then T1 fails 40 and pays 3: 16/8. T0 wins, net +4 / -4.
    # Game 2: T1 makes 32 (11/13), then T1 makes 48 doubled, 3 x 2 = 6: 5/19. T1 wins, +7 / -7.
    deals = [
        [Deal(0, 0, 28, "hearts", "none", (30, 26)), Deal(1, 0, 40, "spades", "none", (20, 36))],
        [
            Deal(1, 1, 32, "clubs", "none", (10, 46)),
            Deal(1, 0, 48, "no-trumps", "double", (6, 50)),
        ],
    ]
    tally = {name: Tally() for name in [*players, *(p for pair in PAIRS[:4] for p in pair)]}
    finals = [
        play(game_deals, teams, players, tally)
        for (teams, _), game_deals in zip(games, deals, strict=True)
    ]
    assert finals == [[16, 8], [5, 19]]
    (g1_winner, g1_loser), (g2_loser, g2_winner) = (teams for teams, _ in games)

    # The public page: no login, open before anything is recorded, never reloaded.
    public_context = phone(browser)
    scorer_contexts = [phone(browser), phone(browser)]
    try:
        public = public_context.new_page()
        navigations = []
        public.on(
            "framenavigated",
            lambda frame: navigations.append(frame.url) if frame == public.main_frame else None,
        )
        public.goto(url)
        expect(public.locator(".sitting-game.playing")).to_have_count(2)
        expect(public.get_by_role("button", name="Register the team")).to_have_count(0)
        public.evaluate("window.__sameDocument = 'still here'")
        before = read_standings(public)
        assert {team: (row["points"], row["games"]) for team, row in before.items()} == {
            team: ("0", "0") for team in players
        }
        screenshot(public, "public-before")

        for index, ((teams, link), game_deals, context, final) in enumerate(
            zip(games, deals, scorer_contexts, finals, strict=True), start=1
        ):
            scorer = context.new_page()
            scorer.goto(link)
            expect(scorer.locator(".scorer-for")).to_contain_text("Scorer link of this table")
            expect(scorer.locator("#now h2")).to_have_text("Deal 1 of 2")
            for number, deal in enumerate(game_deals, start=1):
                record(scorer, number, deal, teams, players)
            for position, tables in enumerate(final):
                expect(scorer.locator(f'[data-team-tables="{position}"]')).to_have_text(str(tables))
            winner = teams[0] if final[0] > final[1] else teams[1]
            expect(scorer.locator("#result h2")).to_have_text(f"★ {winner} won the game")
            expect(scorer.locator("#deal-entry")).to_have_count(0)  # the link has expired
            screenshot(scorer, f"scorer-game-{index}")

            if index == 1:
                # The public page catches up with game 1 by itself (it polls every 5 s).
                expect(public.locator(".sitting-game.playing")).to_have_count(1, timeout=12_000)
                shown = read_standings(public)
                assert shown[g1_winner]["points"] == "3"
                assert shown[g1_winner]["place"] == "1"
                assert shown[g1_loser]["points"] == "1"
                assert shown[g2_winner]["games"] == "0"
                screenshot(public, "public-after-game-1")

        expect(public.locator(".sitting-game.playing")).to_have_count(0, timeout=12_000)
        shown = read_standings(public)
        assert {
            team: {k: v for k, v in row.items() if k != "place"} for team, row in shown.items()
        } == {team: shown_row(tally[team]) for team in players}
        # Both winners have 3 points and a game won; net tables put game 2's first (+7 > +4).
        assert [team for team, row in sorted(shown.items(), key=lambda i: int(i[1]["place"]))] == [
            g2_winner,
            g1_winner,
            g1_loser,
            g2_loser,
        ]
        assert [shown[team]["place"] for team in (g2_winner, g1_winner, g1_loser, g2_loser)] == [
            "1",
            "2",
            "3",
            "4",
        ]
        expect(public.locator("#standings tbody tr").first.locator(".team-name")).to_have_text(
            g2_winner
        )
        # Still the page first loaded: one navigation, the marker set on window survives.
        assert navigations == [url]
        assert public.evaluate("window.__sameDocument") == "still here"
        screenshot(public, "public-after")
    finally:
        for context in (public_context, *scorer_contexts):
            context.close()

    organiser.goto(sitting_url)
    expect(organiser.locator("#games .badge.finished")).to_have_count(2)


# --- 2. A 12-team tournament of three sittings, checked by hand -------------------------


def test_a_twelve_team_tournament_of_three_sittings_agrees_with_a_hand_check(
    browser, organiser_page, live_server, screenshot
):
    page = organiser_page
    url = create_tournament(page, live_server, name="Onam Open", deal_limit=1)
    players = register_teams(page, PAIRS)
    teams = list(players)
    assert len(teams) == 12
    tally = {name: Tally() for name in [*teams, *(p for pair in PAIRS for p in pair)]}
    sittings: list[list[list[str]]] = []
    deal_index = 0

    for number in (1, 2, 3):
        page.goto(url)
        draw_and_confirm(page, number, games=6)
        sitting_url = page.url
        games = pairings(page)
        assert sorted(team for game in games for team in game) == sorted(teams)  # no bye
        sittings.append(games)
        if number == 2:
            # Swiss: after sitting 1 six teams have 3 points and six have 1; winners can meet
            # winners without a rematch, so every game pairs teams equal on points.
            for game in games:
                assert len({tally[team].points for team in game}) == 1, (game, tally)
        for game_url in game_links(page):
            page.goto(game_url)
            game_teams = teams_on_game_page(page)
            deal = DEALS[deal_index % len(DEALS)]
            deal_index += 1
            record(page, 1, deal, game_teams, players)
            final = play([deal], game_teams, players, tally)
            # One deal is the whole game: it ends and is placed by tables held.
            expect(page.locator("#result h2")).to_contain_text("won the game")
            for position, tables in enumerate(final):
                expect(page.locator(f'[data-team-tables="{position}"]')).to_have_text(str(tables))
        page.goto(sitting_url)
        expect(page.locator("#games .badge.finished")).to_have_count(6)
        if number == 3:
            screenshot(page, "sitting-3")

    # Swiss sittings 2 and 3: no two teams meet twice.
    meetings = Counter(
        frozenset(pair) for games in sittings for game in games for pair in combinations(game, 2)
    )
    assert max(meetings.values()) == 1, [set(pair) for pair, n in meetings.items() if n > 1]
    for team in teams:
        assert len(tally[team].opponents) == 3

    # The hand tally itself adds up: 18 games, 3 points to a winner and 1 to a loser.
    assert sum(tally[team].points for team in teams) == 18 * 4
    assert sum(tally[team].won for team in teams) == 18
    assert sum(tally[team].net for team in teams) == 0
    places = expected_places(tally, teams)

    # The public standings (no login) agree with the tally, team by team.
    public_context = phone(browser)
    try:
        public = public_context.new_page()
        public.goto(url)
        shown = read_standings(public)
        assert set(shown) == set(teams)
        for team in teams:
            row = shown[team]
            assert {k: v for k, v in row.items() if k != "place"} == shown_row(tally[team]), team
            assert int(row["place"].rstrip("=")) in places[team], (team, row, places[team])
        screenshot(public, "standings")

        # The exports, downloaded through the links on the tournament page.
        with public.expect_download() as download:
            public.get_by_role("link", name="Standings (CSV)").click()
        assert download.value.suggested_filename == "onam-open-standings.csv"
        with open(download.value.path(), encoding="utf-8") as file:
            csv_rows = list(csv.DictReader(file))
        with public.expect_download() as download:
            public.get_by_role("link", name="Whole tournament (fiftysix-results/1 JSON)").click()
        with open(download.value.path(), encoding="utf-8") as file:
            document = json.load(file)
        response = public.request.get(f"{url}games.csv")
        assert response.ok
        games_csv = response.text()

        # The player leaderboard, for a few players.
        public.goto(f"{live_server.url}/leaderboards/players/")
        # The columns by their headings: rank and name, then each figure's (td after th).
        headings = public.locator("table.board thead th").all_inner_texts()
        column = {heading.rstrip(" ▲▼"): index - 1 for index, heading in enumerate(headings)}
        for name in ("Anu", "Latif", "Meenakshi Sundaram", "Yamuna"):
            row = public.locator("table.board tbody tr").filter(
                has=public.locator("th.board-name a").get_by_text(name, exact=True)
            )
            cells = row.locator("td").all_inner_texts()
            played, won, declared, made, net = (
                cells[column[heading]]
                for heading in ("Played", "Won", "Declared", "Made", "Tables net")
            )
            expected = tally[name]
            assert (played, won, declared, made, net) == (
                str(expected.games),
                str(expected.won),
                str(expected.declared),
                str(expected.made),
                signed(expected.net),
            ), name
        screenshot(public, "leaderboard")

        # The printable score sheets of each sitting: one per game, with its teams.
        for number, games in enumerate(sittings, start=1):
            public.goto(f"{url}sittings/{number}/")
            public.get_by_role("link", name="Score sheets to print, one per table").click()
            sheets = public.locator(".score-sheet")
            expect(sheets).to_have_count(6)
            on_sheets = sheets.evaluate_all(
                """sheets => sheets.map(sheet => Array.from(sheet.querySelectorAll(
                    ".sheet-teams li b"), b => b.textContent.trim()))"""
            )
            assert on_sheets == games
            expect(sheets.locator(".sheet-where")).to_have_text(
                [f"Onam Open, sitting {number}"] * 6
            )
            if number == 3:
                screenshot(public, "sheets", full_page=False)

        # The printable standings page lists every team with its points.
        public.goto(url)
        public.get_by_role("link", name="Standings to print").click()
        for team in teams:
            expect(public.locator("main")).to_contain_text(team)
    finally:
        public_context.close()

    assert len(csv_rows) == 12
    for row in csv_rows:
        expected = tally[row["team"]]
        assert row["results"] == "provisional"
        assert (row["points"], row["games"], row["won"], row["net_tables"]) == (
            str(expected.points),
            str(expected.games),
            str(expected.won),
            str(expected.net),
        ), row
        assert (row["declared"], row["made"], row["byes"]) == (
            str(expected.declared),
            str(expected.made),
            "0",
        ), row
        assert int(row["place"]) in places[row["team"]], row
        assert row["place"] == shown[row["team"]]["place"].rstrip("=")

    tournament = document["tournament"]
    assert document["format"] == "fiftysix-results/1"
    assert tournament["provisional"] is True
    assert tournament["deals_per_game"] == 1
    assert len(document["games"]) == 18
    assert [sitting["number"] for sitting in tournament["sittings"]] == [1, 2, 3]
    for sitting in tournament["sittings"]:
        assert len(sitting["games"]) == 6
        assert sitting["byes"] == []
    # Each game of the archive has the teams the sitting pages showed.
    archived = {
        game["label"]: sorted(team["name"] for team in game["teams"]) for game in document["games"]
    }
    for number, sitting in enumerate(tournament["sittings"], start=1):
        assert sorted(archived[game["game"]] for game in sitting["games"]) == sorted(
            sorted(game) for game in sittings[number - 1]
        )
    assert {
        row["team"]: (row["points"], row["games"], row["won"], row["net_tables"], row["made"])
        for row in tournament["standings"]
    } == {
        team: (str(t.points), t.games, t.won, t.net, t.made)
        for team, t in ((team, tally[team]) for team in teams)
    }
    games_rows = list(csv.DictReader(io.StringIO(games_csv)))
    assert len(games_rows) == 18
    assert Counter(
        row["team_1"] if row["place_1"] == "1" else row["team_2"] for row in games_rows
    ) == Counter({team: tally[team].won for team in teams if tally[team].won})
