"""A club night at the venue, in a real browser on a phone on the club's Wi-Fi.

The venue is started as docs/venue.md says (``python -m club venue``: waitress, DEBUG off,
plain HTTP) on the laptop's address on a real network (tests/wifi.py); Debian's Chromium
runs inside the phone's network namespace, so every request crosses that network from
the phone's own address, and the phone's Wi-Fi drops for real (its link goes down).
Over plain HTTP off this computer the browser runs no service worker: the open scorer
page keeps the deal recorded while the Wi-Fi is down itself, and sends it once it is back.
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM_ARGS, PHONE, open_menu
from tests.browser.deal_entry import enter_deal
from tests.venue import PASSWORD, serving
from tests.wifi import phone_on_the_wifi

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        bool(os.environ.get("DATABASE_URL")),
        reason="the venue keeps the club's SQLite file of its own",
    ),
]


@pytest.fixture
def night(browser, tmp_path):
    """The venue served on the laptop's Wi-Fi address, and Chromium on the phone."""
    with phone_on_the_wifi() as phone, serving(tmp_path / "laptop", phone.laptop) as venue:
        on_phone = browser.browser_type.launch(
            executable_path=str(phone.chromium(tmp_path)), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield phone, venue, on_phone
        finally:
            on_phone.close()


def phone_page(on_phone):
    # Service workers allowed, as on a real phone: over this plain HTTP there are none.
    context = on_phone.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, service_workers="allow"
    )
    context.set_default_timeout(10_000)
    return context.new_page()


def log_in(page, url: str) -> None:
    page.goto(f"{url}/accounts/login/")
    page.locator("#id_username").fill("olive")
    page.locator("#id_password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{url}/")


def download(page, link: str) -> bytes:
    with page.expect_download() as started:
        page.get_by_role("link", name=link).first.click()
    return Path(started.value.path()).read_bytes()


def test_a_night_at_the_venue_from_the_phones_to_the_clubs_site(night, tmp_path, screenshot):
    phone, venue, on_phone = night
    organiser = phone_page(on_phone)
    log_in(organiser, venue.url)
    # Plain HTTP, off this computer: no secure context, so no service worker at all.
    assert organiser.evaluate("[window.isSecureContext, 'serviceWorker' in navigator]") == [
        False,
        False,
    ]

    organiser.goto(f"{venue.url}/games/new/")
    organiser.locator("#id_label").fill("Table 1")
    for number, (first, second) in enumerate([("Anu", "Biju"), ("Chitra", "Dev")], start=1):
        organiser.locator(f"#id_team{number}_player1").fill(first)
        organiser.locator(f"#id_team{number}_player2").fill(second)
    organiser.locator("input[name=first_dealer][value='0']").check()
    organiser.get_by_role("button", name="Start the game").click()
    expect(organiser.get_by_role("button", name="Record deal 1")).to_be_visible()

    # Connect phones: the venue's address, written and as a code, and the game's links.
    open_menu(organiser)
    organiser.get_by_role("link", name="Connect phones").click()
    expect(organiser.locator(f"a[href='{venue.url}/']")).to_be_visible()
    assert organiser.locator(f"svg title:text-is('{venue.url}/')").count() == 1
    screenshot(organiser, "connect")
    organiser.get_by_role("link", name="Table 1").click()
    organiser.get_by_role("button", name="Issue a scorer link").click()
    links = organiser.locator(".scorer-link .link-url a").evaluate_all(
        "links => links.map(a => a.href)"
    )
    assert len(links) == 1 and all(link.startswith(f"{venue.url}/s/") for link in links)

    # The table's phone opens its scorer link (the address its QR code carries).
    table = phone_page(on_phone)
    table.goto(links[0])
    enter_deal(table, declarer="Anu", bid=28, trump="clubs", piles={0: 30})
    table.get_by_role("button", name="Record deal 1").click()
    expect(table.get_by_role("button", name="Record deal 2")).to_be_visible()
    hint = table.locator("#open-only")
    expect(hint).to_contain_text("Opening it again with no network needs the club's site")

    # The Wi-Fi drops: deal 2 is kept on the phone, with the club's count of it.
    phone.wifi(False)
    enter_deal(table, declarer="Chitra", bid=30, trump="hearts", piles={0: 20})
    table.get_by_role("button", name="Record deal 2").click()
    queue = table.locator("#offline-queue")
    expect(queue).to_contain_text("Kept on this phone, waiting to send")
    expect(queue).to_contain_text("Deal 2")
    expect(table.get_by_role("button", name="Record deal 3")).to_be_visible()
    screenshot(table, "kept-while-the-wifi-is-down")

    # The Wi-Fi is back: the page sends it by itself, and the club has both deals.
    phone.wifi(True)
    expect(queue).to_have_count(0, timeout=30_000)
    expect(table.locator("#live")).to_contain_text("Deal 2")
    with urllib.request.urlopen(f"{venue.url}/api/v1/games/") as answer:  # from the laptop
        games = json.load(answer)["results"]
    assert [(game["label"], game["deals_played"]) for game in games] == [("Table 1", 2)]

    # After the night: the organiser downloads the night's results from the laptop...
    organiser.goto(f"{venue.url}/connect/")
    night_file = download(organiser, "Download every game")
    (tmp_path / "night.json").write_bytes(night_file)

    # ... and publishes them on the club's site (here a second server, its own database).
    with serving(tmp_path / "site", phone.laptop) as site:
        log_in(organiser, site.url)
        organiser.goto(f"{site.url}/")
        organiser.get_by_role("link", name="Publish results").click()
        organiser.locator("input[type=file]").set_input_files(tmp_path / "night.json")
        organiser.get_by_role("button", name="Check and preview").click()
        expect(organiser.locator(".import-preview")).to_contain_text("new: to be added")
        screenshot(organiser, "publish-preview")
        organiser.get_by_role("button", name="Import 1 game with 2 deals").click()
        expect(organiser.locator(".messages")).to_contain_text(
            "Imported 1 game with 2 deals from night.json."
        )
        assert download(organiser, "Download every game") == night_file

        # The same file again: recognised, nothing to add.
        organiser.goto(f"{site.url}/import/")
        organiser.locator("input[type=file]").set_input_files(tmp_path / "night.json")
        organiser.get_by_role("button", name="Check and preview").click()
        expect(organiser.locator("#import-preview")).to_contain_text(
            "Everything in this file is here already"
        )
