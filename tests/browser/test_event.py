"""A 16-team event in a real headless Chromium: groups and a knockout, run from phones.

The director, on a phone, registers 16 teams in one paste, draws groups A and B
(3 sittings), then an 8-team knockout seeded from the standings, to its champion.
Every sitting's scorer links are issued in one action and read off the printed
sheet; every deal is entered through them and confirmed by the other team's
link, over real HTTP to the live server; the director never types a result. One
deal is entered on a phone, rejected with a reason by the other team, fixed on
the sending phone and confirmed. The director's board shows a table that has not
reported. Screenshots: the board, the bracket, a player's page, the projector,
on a phone and a 1080p screen.
"""

from __future__ import annotations

import datetime
import re

import pytest
from django.utils.html import escape
from playwright.sync_api import Page, expect

from club.games.models import Change, Game, PendingDeal, Round
from club.scoring import rules as core
from club.tournaments import services
from club.tournaments.models import Stage, Standing, Tournament
from tests.browser.deal_entry import key
from tests.browser.test_game_flow import expect_message
from tests.browser.test_scorer_links import pdf_pages, phone

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
    pytest.mark.django_db(transaction=True),
]

CLUBS = [
    "Thrissur Aces",
    "Kochi Jacks",
    "Calicut Nines",
    "Palakkad Trumps",
    "Kollam Kings",
    "Kannur Queens",
    "Alappuzha Tens",
    "Kottayam Bidders",
    "Pune Doublers",
    "Mumbai Redoublers",
    "Nashik Spades",
    "Nagpur Hearts",
    "Thane Clubs",
    "Goa Diamonds",
    "Satara Sixes",
    "Sreekumar Thankamma and the Longest Team Name of the Club",
]
FIRST = ["Anu", "Biju", "Chitra", "Dev", "Esha", "Farid", "Gita", "Hari"]
SECOND = ["Indu", "Jacob", "Kavya", "Latif", "Mini", "Nabeel", "Omana", "Prakash"]
FULL_HD = {"width": 1920, "height": 1080}


def team_lines() -> str:
    return "\n".join(
        f"{club}: {FIRST[n % 8]} {SECOND[n // 8]}, {SECOND[n % 8]} {FIRST[n // 8]}"
        for n, club in enumerate(CLUBS)
    )


def form_of(html: str, action: str) -> dict[str, str]:
    """The hidden fields (CSRF token, one-time key) of the form posting to ``action``."""
    for form in html.split("<form")[1:]:
        if f'action="{action}"' in form.split(">", 1)[0]:
            return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    raise AssertionError(f"no form posts to {action}")


class Phones:
    """Two phones per table, driven over HTTP: one team sends each deal, the other confirms."""

    def __init__(self, browser, live_server):
        self.context = phone(browser)
        self.request = self.context.request
        self.base = live_server.url

    def play(self, sender: str, confirmer: str) -> None:
        """The sender's team (the first seat declares 28, takes all 56) wins in one deal."""
        page = self.request.get(sender).text()
        path = sender.removeprefix(self.base)
        fields = form_of(page, f"{path}deals/")
        declarer = re.search(r'<input type="radio" name="declarer" value="(\d+)"', page)
        answer = self.request.post(
            f"{sender}deals/",
            form={
                **fields,
                "number": "1",
                "declarer": declarer.group(1),
                "bid": "28",
                "trump": "spades",
                "doubling": "none",
                "points_0": "56",
                "points_1": "0",
            },
        )
        assert answer.ok, answer.status
        page = self.request.get(confirmer).text()
        path = confirmer.removeprefix(self.base)
        confirm = f"{path}deals/1/confirm/"
        answer = self.request.post(f"{self.base}{confirm}", form=form_of(page, confirm))
        assert answer.ok and "Deal 1 confirmed" in answer.text(), answer.status

    def close(self):
        self.context.close()


def draw_sitting(page: Page, url: str, number: int, games: int) -> list[tuple[str, str]]:
    """Draw and confirm the next sitting, issue every table's links in one action, and read
    them off the printed sheet: (link of the team at seat 1, link of the other) per table."""
    page.goto(url)
    page.get_by_role("button", name="Draw the next sitting").click()
    expect(page.locator("h1")).to_have_text(f"Sitting {number}")
    expect(page.locator(".proposed-games li")).to_have_count(games)
    page.get_by_role("button", name="Confirm and start the games").click()
    expect(page.locator("#games .sitting-game")).to_have_count(games)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Scorer links for every table").click()
    # Issued, the links open as one sheet to print.
    expect_message(page, f"Scorer links issued for {games} table")
    expect(page.locator(".print-link")).to_have_count(2 * games)
    expect(page.locator(".print-link svg.qr")).to_have_count(2 * games)
    urls = page.locator(".print-link .link-url").all_inner_texts()
    return list(zip(urls[0::2], urls[1::2], strict=True))


def test_a_16_team_event_through_groups_and_a_knockout_on_phones(
    browser, organiser_page, live_server, screenshot
):
    tournament = services.create_tournament(
        name="Kerala Open",
        starts_on=datetime.date(2026, 12, 5),
        rules=core.Rules(tables_per_team=1),
        require_confirmation=True,
    )
    url = f"{live_server.url}{tournament.get_absolute_url()}"
    page = organiser_page

    # Registration: the whole list in one paste.
    page.goto(url)
    page.locator("summary", has_text="Register many teams at once").click()
    page.locator("textarea[name=teams]").fill(team_lines())
    page.get_by_role("button", name="Register these teams").click()
    expect_message(page, "16 teams registered")
    assert tournament.entries.count() == 16

    # Groups A and B, 3 sittings: drawn, looked at, confirmed.
    page.locator("summary", has_text="Add a stage").click()
    page.locator("select[name=kind]").select_option("groups")
    page.locator("input[name=sittings]").fill("3")
    page.get_by_role("button", name="Draw the stage").click()
    expect(page.locator("h1")).to_have_text("Stage 1: Groups A and B")
    expect(page.locator("table.chart tbody tr")).to_have_count(8)
    # On a phone the chart scrolls within its card; the page itself never scrolls sideways.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "chart")
    page.get_by_role("button", name="Confirm the stage").click()
    expect_message(page, "is confirmed: draw its first sitting")

    phones = Phones(browser, live_server)
    try:
        for number in (1, 2, 3):
            tables = draw_sitting(page, url, number, games=8)
            if number == 1:
                reject_and_resend(browser, tables[0], screenshot)
                tables = tables[1:]
                # Seven tables report; the last has not: the board puts it first.
                for sender, confirmer in tables[:-1]:
                    phones.play(sender, confirmer)
                page.goto(f"{url}board/")
                first = page.locator(".board-tables > li").first
                expect(first).to_have_class(re.compile("state-not_started"))
                assert page.evaluate("document.documentElement.scrollWidth") <= 390
                screenshot(page, "board")
                page.set_viewport_size(FULL_HD)
                screenshot(page, "board-1080p")
                page.set_viewport_size({"width": 390, "height": 844})
                tables = tables[-1:]
            for sender, confirmer in tables:
                phones.play(sender, confirmer)
        assert not Game.objects.filter(status=Game.Status.IN_PROGRESS).exists()
        assert Standing.objects.filter(tournament=tournament, games=3).count() == 16

        # The knockout: the best 8 of the standings, seeded, to a champion.
        seeds = list(
            Standing.objects.filter(tournament=tournament)
            .order_by("place", "entry__team__name")
            .values_list("entry__team__name", flat=True)[:8]
        )
        page.goto(url)
        page.locator("summary", has_text="Add a stage").click()
        page.locator("select[name=kind]").select_option("knockout")
        page.locator("input[name=qualifiers]").fill("8")
        page.get_by_role("button", name="Draw the stage").click()
        expect(page.locator("h1")).to_have_text("Stage 2: Knockout")
        expect(page.locator(".bracket-round")).to_have_count(3)
        first_round = page.locator(".bracket-round").first.locator(".bracket-team")
        expect(first_round).to_have_count(8)
        assert escape(seeds[0]) in page.content() and escape(seeds[7]) in page.content()
        page.get_by_role("button", name="Confirm the stage").click()
        stage_url = page.url.split("#")[0]
        for number, games in ((4, 4), (5, 2), (6, 1)):
            for sender, confirmer in draw_sitting(page, url, number, games=games):
                phones.play(sender, confirmer)
            page.goto(stage_url)  # the winners have gone on by themselves
            expect(page.locator(".bracket-match.playing")).to_have_count(0)
    finally:
        phones.close()

    champion = page.locator(".champion")
    expect(champion).to_contain_text("Champion: ")
    name = champion.inner_text().removeprefix("Champion: ").strip()
    assert name in CLUBS
    stage = Stage.objects.get(tournament=tournament, kind="knockout")
    assert stage.sittings.count() == 3
    screenshot(page, "bracket")
    page.set_viewport_size(FULL_HD)
    screenshot(page, "bracket-1080p")
    # On paper: the bracket and nothing of the page's buttons, on one A4 sheet.
    page.emulate_media(media="print")
    expect(page.get_by_role("button", name="Print")).to_be_hidden()
    screenshot(page, "bracket-print")
    assert pdf_pages(page, "bracket-print") == 1
    page.emulate_media(media="screen")
    assert page.evaluate("document.documentElement.scrollWidth") <= FULL_HD["width"]

    # Every deal came through the links: the director recorded none.
    assert Round.objects.filter(game__sitting_entry__sitting__tournament=tournament).count() == 31
    assert not PendingDeal.objects.exists()
    recorded = Change.objects.filter(
        game__sitting_entry__sitting__tournament=tournament, action=Change.Action.RECORDED
    )
    assert recorded.count() == 31
    assert not recorded.filter(scorer_link__isnull=True).exists()
    assert not recorded.filter(made_by__isnull=False).exists()

    # The champion's player page, on a phone; the projector on a 1080p screen.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url)
    page.locator("#standings tbody tr", has_text=name).locator("a").first.click()
    expect(page.locator("#now")).to_contain_text("Sitting 6: Table 1")
    expect(page.locator("#now .game-team.own.winner")).to_contain_text(name)
    expect(page.locator("#games-played li")).not_to_have_count(0)
    screenshot(page, "player")
    page.set_viewport_size(FULL_HD)
    page.goto(f"{url}projector/")
    expect(page.locator("h1")).to_contain_text("Kerala Open")
    screenshot(page, "projector-1080p")
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.RUNNING


def reject_and_resend(browser, table: tuple[str, str], screenshot) -> None:
    """Table 1: the first team's phone sends a wrong deal, the other rejects it with a
    reason, the sender reads it with its entry back in the form, fixes it, and the other
    team confirms."""
    sender_link, confirmer_link = table
    contexts = [phone(browser), phone(browser)]
    try:
        sender, confirmer = (context.new_page() for context in contexts)
        sender.goto(sender_link)
        confirmer.goto(confirmer_link)
        # The first player seated declares (the first declarer key).
        sender.locator("fieldset[data-group=declarer] label.key").first.click()
        key(sender, "bid", "28").click()
        key(sender, "trump", "spades").click()
        sender.locator("input[name=points_0]").fill("20")  # wrong: they took all 56
        sender.locator("input[name=points_1]").fill("36")
        sender.get_by_role("button", name="Send deal 1").click()
        expect(sender.locator("#waiting")).to_contain_text("waiting for the other team")
        reject = confirmer.get_by_role("button", name="Reject: it is not what was played")
        expect(reject).to_be_visible(timeout=12_000)
        confirmer.locator("#reject-reason").fill("you took all 56, not 20")
        confirmer.once("dialog", lambda dialog: dialog.accept())
        reject.click()
        expect(confirmer.locator(".messages")).to_contain_text("Deal 1 rejected")
        # The sender's phone finds out by itself, with the reason and its entry back.
        notice = sender.locator(".rejected-notice")
        expect(notice).to_contain_text("rejected deal 1", timeout=12_000)
        expect(notice).to_contain_text("“you took all 56, not 20”")
        expect(sender.locator("input[name=points_0]")).to_have_value("20")
        expect(sender.locator("input[name=bid][value='28']")).to_be_checked()
        screenshot(sender, "rejected")
        sender.locator("input[name=points_0]").fill("56")
        sender.locator("input[name=points_1]").fill("0")
        sender.get_by_role("button", name="Send deal 1").click()
        confirm = confirmer.get_by_role("button", name="Confirm deal 1")
        expect(confirm).to_be_visible(timeout=12_000)
        confirm.click()
        expect(confirmer.locator(".messages")).to_contain_text("Deal 1 confirmed")
    finally:
        for context in contexts:
            context.close()
