"""Scorer links in a real headless Chromium: phones at the table, without accounts.

Seats in play order (docs/rules.md A): Anu, Chitra, Biju, Dev. The deal sent below:
Chitra (Chitra & Dev) bids 30 hearts and takes 36 of 56, so the contract is
made and Anu & Biju pay 1 table (bids 28-39): 12 - 1 = 11 and 12 + 1 = 13.
"""

from __future__ import annotations

import datetime
import random
import re
import shutil
import subprocess

import pytest
from playwright.sync_api import Page, expect

from club.games.models import PendingDeal, Round
from club.tournaments import services as tournaments
from tests.browser.conftest import PHONE, SCREENSHOTS
from tests.browser.deal_entry import enter_deal
from tests.factories import start_game

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def send_deal(page: Page, number: int) -> None:
    enter_deal(page, declarer="Chitra", bid=30, trump="hearts", piles={0: 20, 1: 36})
    expect(page.locator("[data-pile-total]")).to_have_text("56")
    page.get_by_role("button", name=f"Send deal {number}").click()


def phone(browser):
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    context.set_default_timeout(5_000)
    return context


def test_two_phones_send_and_confirm_a_deal(browser, organiser_page, live_server, screenshot):
    game = start_game(2, first_dealer=0, label="Friday table 3", require_confirmation=True)
    organiser = organiser_page

    # The organiser hands out a link per team from the game page.
    organiser.goto(f"{live_server.url}/games/{game.pk}/")
    organiser.get_by_role("link", name="Scorer links").click()
    organiser.get_by_role("button", name="Issue a link for each team").click()
    expect(organiser.locator(".scorer-link")).to_have_count(2)
    expect(organiser.locator(".scorer-link svg.qr")).to_have_count(2)
    urls = organiser.locator(".scorer-link .link-url a").evaluate_all(
        "links => links.map(a => a.href)"
    )
    assert all(url.startswith(f"{live_server.url}/s/") for url in urls)
    screenshot(organiser, "links")
    organiser.get_by_role("link", name="Print the links").click()
    organiser.emulate_media(media="print")
    expect(organiser.locator(".print-link h2")).to_have_text(["For Anu & Biju", "For Chitra & Dev"])
    screenshot(organiser, "links-print")
    assert pdf_pages(organiser, "links-print") == 2  # a page per team, to leave at the table
    organiser.emulate_media(media="screen")

    contexts = [phone(browser), phone(browser)]
    try:
        anu, chitra = (context.new_page() for context in contexts)
        anu.goto(urls[0])
        chitra.goto(urls[1])
        expect(anu.locator(".scorer-for")).to_contain_text("Scorer link of Anu & Biju")
        expect(anu.locator("#now")).to_contain_text("Anu deals; Chitra bids first.")

        send_deal(anu, 1)
        expect(anu.locator("#waiting")).to_contain_text(
            "Deal 1 is waiting for the other team to confirm"
        )
        expect(anu.get_by_role("button", name="Confirm deal 1")).to_have_count(0)
        screenshot(anu, "waiting")
        assert not Round.objects.filter(game=game).exists()

        # The other team's phone finds the deal by itself (it checks every few seconds).
        confirm = chitra.get_by_role("button", name="Confirm deal 1")
        expect(confirm).to_be_visible(timeout=12_000)
        expect(chitra.locator(".waiting-deal")).to_contain_text("30 Hearts")
        screenshot(chitra, "to-confirm")
        confirm.click()
        expect(chitra.locator(".messages")).to_contain_text("Deal 1 confirmed: it counts now.")
        expect(chitra.locator("#settlement h2")).to_contain_text("Deal 1:")
        expect(chitra.locator('[data-team-tables="0"]')).to_have_text("11")
        expect(chitra.locator('[data-team-tables="1"]')).to_have_text("13")
        expect(chitra.get_by_role("button", name="Send deal 2")).to_be_visible()
        screenshot(chitra, "confirmed")

        # The sender's phone moves on by itself once the deal counts.
        expect(anu.locator("#settlement h2")).to_contain_text("Deal 1:", timeout=12_000)
        expect(anu.get_by_role("button", name="Send deal 2")).to_be_visible()
    finally:
        for context in contexts:
            context.close()

    assert Round.objects.get(game=game).made
    assert not PendingDeal.objects.exists()
    organiser.goto(f"{live_server.url}/games/{game.pk}/")
    expect(organiser.locator('[data-team-tables="0"]')).to_have_text("11")
    expect(organiser.locator('[data-team-tables="1"]')).to_have_text("13")
    expect(organiser.locator("#changes")).to_contain_text("Sent for confirmation deal 1")


def pdf_pages(page: Page, name: str) -> int:
    """Print the page to an A4 PDF (kept beside the screenshots) and count its pages."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    pdf = SCREENSHOTS / f"{name}.pdf"
    page.emulate_media(media="print")
    page.pdf(path=str(pdf), format="A4", print_background=True, prefer_css_page_size=True)
    if shutil.which("pdftoppm"):  # a PNG of each page, to look at
        subprocess.run(
            ["pdftoppm", "-png", "-r", "60", str(pdf), str(SCREENSHOTS / name)], check=True
        )
    # Chromium writes one page object per page ("/Type /Page"; the tree is "/Pages").
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf.read_bytes()))


def test_score_sheet_prints_on_one_a4_page(organiser_page, live_server, screenshot):
    game = start_game(4, first_dealer=2, label="Saturday table 1", deal_limit=30)
    page = organiser_page
    page.goto(f"{live_server.url}/games/{game.pk}/sheet/")
    expect(page.locator(".sheet-seats li")).to_have_count(8)
    expect(page.locator(".sheet-dealers")).to_contain_text("Esha → Gita → Biju → Dev")
    screenshot(page, "sheet")
    assert pdf_pages(page, "sheet-4-teams") == 1
    expect(page.locator(".top")).to_be_hidden()  # no navigation on paper


def test_sitting_sheets_print_a_page_per_game(organiser_page, live_server, organiser):
    tournament = tournaments.create_tournament(
        name="Spring cup", starts_on=datetime.date(2025, 4, 5), user=organiser
    )
    for first, second in [("Anu", "Biju"), ("Chitra", "Dev"), ("Esha", "Farid"), ("Gita", "Hari")]:
        tournaments.register_team(tournament=tournament, first=first, second=second)
    sitting = tournaments.propose_sitting(tournament=tournament, rng=random.Random(1))
    tournaments.confirm_sitting(sitting=sitting, rng=random.Random(2))
    page = organiser_page
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/sittings/1/sheets/")
    expect(page.locator(".score-sheet")).to_have_count(2)
    assert pdf_pages(page, "sitting-sheets") == 2
