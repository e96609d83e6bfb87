"""One phone handed round the club: what stays readable on it, with and without the network.

The organiser logs in on the club's phone, opens the scorer links, the score
sheets with their QR codes and the admin's list of accounts, and logs out; the
next person to hold the phone, with no network, can read none of it. A scorer
who opened their table's link on the same phone keeps that page and the deals
waiting on it; logging out with deals waiting says so first. Chromium with the
service worker running, as tests/browser/test_offline.py.
"""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import Page, expect

from club.games import links
from club.games.models import Round
from club.tournaments import services as tournaments
from tests.browser.conftest import ORGANISER_PASSWORD, PHONE, open_menu
from tests.browser.test_offline import QUEUE_EMPTY, fill_deal, installed, until
from tests.factories import start_game

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]

# Every token of a live scorer link, in any page the phone's caches hold.
TOKENS_KEPT = """tokens => caches.keys().then(names => Promise.all(names.map(name =>
  caches.open(name).then(cache => cache.keys().then(keys => Promise.all(keys.map(key =>
    cache.match(key).then(r => r.text()).then(text => tokens.filter(t => text.includes(t))))))))))
  .then(found => [...new Set(found.flat(2))])"""
KEPT_ADDRESSES = """() => caches.keys().then(names => Promise.all(names.map(name =>
  caches.open(name).then(cache => cache.keys()).then(keys => keys.map(k => [name, k.url])))))
  .then(found => found.flat())"""


@pytest.fixture
def phone(browser):
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, service_workers="allow"
    )
    context.set_default_timeout(10_000)
    yield context
    context.close()


@pytest.fixture
def admin_user(db):
    return get_user_model().objects.create_user(
        username="olive", password=ORGANISER_PASSWORD, is_staff=True, is_superuser=True
    )


def log_in(page: Page, base: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.locator("#id_username").fill("olive")
    page.locator("#id_password").fill(ORGANISER_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")


def an_evening():
    """A tournament's sitting in play, both tables with their scorer links, and a game
    of the club night with its own."""
    tournament = tournaments.create_tournament(name="Onam cup", starts_on=datetime.date(2026, 9, 1))
    pairs = [("Anu", "Biju"), ("Chitra", "Dev"), ("Esha", "Farid"), ("Gita", "Hari")]
    for first, second in pairs:
        tournaments.register_team(tournament=tournament, first=first, second=second)
    sitting = tournaments.confirm_sitting(
        sitting=tournaments.propose_sitting(tournament=tournament)
    )
    games = [entry.game for entry in sitting.games.order_by("position")]
    night = start_game(2, first_dealer=0, label="Church hall table 2")
    tokens = [link.token for game in [*games, night] for link in links.issue_links(game=game)]
    return tournament, sitting, games, night, tokens


def test_nothing_the_organiser_opened_can_be_read_after_logging_out(
    phone, live_server, admin_user, screenshot
):
    tournament, sitting, games, night, tokens = an_evening()
    base = live_server.url
    page = phone.new_page()
    installed(page, f"{base}/")  # the worker runs before anything is opened
    log_in(page, base)
    opened = [
        reverse("games:links", args=[night.pk]),
        reverse("games:links_print", args=[night.pk]),
        reverse("tournaments:sitting_sheets", args=[tournament.pk, sitting.number]),
        reverse("tournaments:sitting_links_print", args=[tournament.pk, sitting.number]),
        reverse("admin:auth_user_changelist"),
        reverse("tournaments:board", args=[tournament.pk]),
        reverse("games:detail", args=[games[0].pk]),
    ]
    for path in opened:
        page.goto(base + path)
        if "admin" in path:
            expect(page.locator("#result_list")).to_contain_text("olive")  # the accounts
    # While logged in the phone keeps nothing the organiser opens: no token, and no copy
    # of any page opened, in any of its caches.
    assert page.evaluate(TOKENS_KEPT, tokens) == []
    kept = page.evaluate(KEPT_ADDRESSES)
    assert not [url for _name, url in kept if url.removeprefix(base) in opened]

    open_menu(page)
    page.get_by_role("button", name="Log out olive").click()
    expect(page.locator("h1")).to_have_text("You are logged out")
    screenshot(page, "logged-out", full_page=False)

    phone.set_offline(True)
    readable = []
    for path in opened:
        page.goto(base + path)
        expect(page.locator("h1")).to_have_text("No network")
        readable += [token for token in tokens if token in page.content()]
        if path == opened[0]:
            screenshot(page, "links-page-offline-after-logout", full_page=False)
    assert readable == []
    # Nor back through the history to a page the organiser had open.
    page.go_back()
    assert not [token for token in tokens if token in page.content()]
    assert "olive" not in page.locator("header").inner_text()


def test_a_scorers_page_and_its_waiting_deals_outlive_an_organisers_logout(
    phone, live_server, admin_user, screenshot
):
    game = start_game(2, first_dealer=0, label="Church hall table 2")
    (link,) = links.issue_links(game=game)
    base = live_server.url
    scorer_url = f"{base}/s/{link.token}/"
    page = phone.new_page()
    installed(page, scorer_url)
    # The club's server cannot be reached for deals (the hall's Wi-Fi lets pages through,
    # say): the deal recorded waits on the phone.
    phone.route(f"**/s/{link.token}/deals/", lambda route: route.abort())
    fill_deal(page)
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.locator("#offline-queue li")).to_have_count(1)

    # The organiser borrows the phone, opens the game's links, and logs out.
    organiser = phone.new_page()
    log_in(organiser, base)
    organiser.goto(base + reverse("games:links", args=[game.pk]))
    open_menu(organiser)
    organiser.get_by_role("button", name="Log out olive").click()
    warning = organiser.get_by_role("alertdialog")
    expect(warning).to_contain_text(
        "One deal recorded on this phone is still waiting to send. It stays on this phone"
    )
    screenshot(organiser, "logout-with-a-deal-waiting", full_page=False)
    organiser.get_by_role("button", name="Stay logged in").click()
    expect(warning).to_have_count(0)
    expect(organiser.get_by_role("button", name="Log out olive")).to_be_visible()
    organiser.get_by_role("button", name="Log out olive").click()
    organiser.get_by_role("button", name="Log out anyway").click()
    expect(organiser.locator("h1")).to_have_text("You are logged out")
    organiser.close()

    # With no network the scorer's page still opens, its deal still waiting.
    phone.set_offline(True)
    page.goto(scorer_url)
    expect(page.locator("#kept-note")).to_be_visible()
    expect(page.locator("#offline-queue li")).to_have_count(1)
    expect(page.locator("#offline-queue")).to_contain_text("waiting to send")
    screenshot(page, "scorer-page-offline-after-logout", full_page=False)
    page.goto(base + reverse("games:links", args=[game.pk]))
    expect(page.locator("h1")).to_have_text("No network")

    # The network back, the deal goes, once.
    phone.unroute(f"**/s/{link.token}/deals/")
    phone.set_offline(False)
    # The page sends on its own when the network comes back, and reloads once it is sent:
    # a navigation of the test's at that moment would be cut by the page's own.
    page.wait_for_load_state()
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    until(page, QUEUE_EMPTY)
    page.wait_for_load_state()
    assert list(Round.objects.filter(game=game).values_list("number", "bid")) == [(1, 30)]


def test_one_page_is_kept_once_whatever_its_address_adds(phone, live_server):
    """Seventy visits to the rules with a made-up parameter are one kept page, and no
    browsing pushes the scorer's own page out."""
    game = start_game(2, first_dealer=0, label="Church hall table 2")
    (link,) = links.issue_links(game=game)
    base = live_server.url
    page = phone.new_page()
    scorer_url = f"{base}/s/{link.token}/"
    installed(page, scorer_url)
    for x in range(70):
        page.goto(f"{base}/rules/?x={x}")
    for number in range(1, 66):  # more pages than the phone keeps of the others
        page.goto(f"{base}/?page={number}")
    until(page, "() => caches.open('club-pages-2').then(c => c.keys()).then(k => k.length >= 60)")
    kept = [url.removeprefix(base) for _name, url in page.evaluate(KEPT_ADDRESSES)]
    assert not [url for url in kept if url.startswith("/rules/")]  # pushed out by the games
    assert f"/s/{link.token}/" in kept
    page.goto(f"{base}/rules/?x=1")
    until(page, "() => caches.match('/rules/').then(r => !!r)")
    assert [url for url in page.evaluate(KEPT_ADDRESSES) if "/rules/" in url[1]] == [
        ["club-pages-2", f"{base}/rules/"]
    ]

    phone.set_offline(True)
    page.goto(f"{base}/rules/?x=69&utm=poster")
    expect(page.locator("#kept-note")).to_be_visible()
    expect(page.locator("h1")).not_to_have_text("No network")
    page.goto(scorer_url)
    expect(page.get_by_role("button", name="Record deal 1")).to_be_visible()
    page.goto(f"{base}/?page=3")  # its own copy, not page 1's or page 65's
    expect(page.locator("#kept-note")).to_be_visible()
    assert page.evaluate("location.search") == "?page=3"
