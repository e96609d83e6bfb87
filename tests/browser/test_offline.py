"""The phone at the table without the network: Playwright's offline mode.

A scorer opens the table's link once; the service worker keeps the page. With no
network, deals recorded are kept on the phone (IndexedDB) with their one-time keys,
listed as waiting; when the network comes back they are sent by themselves, in
order, each once. A deal whose number was taken meanwhile is shown to fix, not
lost; a deal whose answer was lost on the way is answered from its one-time key.

Seats in play order (docs/rules.md A): Anu, Chitra, Biju, Dev. Each deal below: Chitra
bids 30 hearts and takes 36 of 56, made, Anu & Biju pay one table.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from club.games import links
from club.games.models import Round, SubmittedForm
from club.games.services import Deal, record_deal
from club.scoring.rules import Rules
from club.web import release
from tests.browser.conftest import PHONE
from tests.browser.deal_entry import checked, enter_deal
from tests.browser.test_accessibility import AXE, RUN_AXE, TAGS
from tests.factories import seat, start_game

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def fill_deal(page: Page, bid: str = "30", chitra: str = "36") -> None:
    enter_deal(
        page,
        declarer="Chitra",
        bid=bid,
        trump="hearts",
        piles={0: str(56 - int(chitra)), 1: chitra},
    )


QUEUE_EMPTY = "clubQueue.all().then(entries => entries.length === 0)"


def until(page: Page, expression: str, arg=None, timeout: float = 30) -> None:
    """Wait until the page's ``expression`` (a promise, awaited) comes true.

    Not ``page.wait_for_function``: it takes a promise for a true value and
    returns at once. A page that navigates meanwhile is asked again.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            if page.evaluate(expression, arg):
                return
        except PlaywrightError as error:
            # A page navigating meanwhile, or one whose scripts have not run yet.
            passing = ("context was destroyed", "navigat", "is not defined")
            if not any(words in str(error) for words in passing):
                raise
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {expression}")
        page.wait_for_timeout(100)


def installed(page: Page, url: str) -> None:
    """Open ``url`` until the service worker controls it and has kept a copy of it."""
    page.goto(url)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    page.reload()  # through the worker now: it keeps this page
    until(page, "url => caches.match(url).then(r => !!r)", url)


@pytest.fixture
def scorer(browser, live_server):
    game = start_game(2, first_dealer=0, label="Church hall table 2")
    (link,) = links.issue_links(game=game)
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, service_workers="allow"
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    url = f"{live_server.url}/s/{link.token}/"
    installed(page, url)
    yield game, context, page, url
    context.close()


def test_three_deals_recorded_offline_arrive_once_and_in_order(scorer, live_server, screenshot):
    game, context, page, url = scorer
    context.set_offline(True)
    for number in (1, 2, 3):
        fill_deal(page, bid=str(29 + number))
        page.get_by_role("button", name=f"Record deal {number}").click()
        expect(page.locator("#offline-queue li")).to_have_count(number)
        expect(page.locator("#kept-note")).to_be_visible()
    expect(page.locator("#offline-queue")).to_contain_text("waiting to send")
    expect(page.get_by_role("button", name="Record deal 4")).to_be_visible()
    # The phone's count of each, from the state the one before left: Anu & Biju pay a
    # table a deal; and who deals next (Anu dealt deal 1, so Dev deals deal 4).
    counts = page.locator("#offline-queue .phone-count")
    expect(counts).to_have_text(
        [
            f"The phone's count: made · Anu & Biju: -1 → {11 - n} · Chitra & Dev: +1 → {13 + n}"
            for n in range(3)
        ]
    )
    expect(page.locator("[data-dealer-line]")).to_have_text(
        "If the club counts the same, Dev deals next and Anu bids first."
    )
    screenshot(page, "three-deals-waiting")
    # The queue and the phone's count pass axe as the pages do (test_accessibility.py).
    if AXE.exists():
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;true")
        assert page.evaluate(RUN_AXE, TAGS) == []
    assert not Round.objects.filter(game=game).exists()  # nothing reached the club yet

    context.set_offline(False)
    # Sent by themselves (an entry leaves the phone only on the club's word that it
    # was written); the page then shows the game as the club has it.
    until(page, QUEUE_EMPTY)
    expect(page.locator("#offline-queue")).to_have_count(0)
    expect(page.locator("#kept-note")).to_have_count(0)
    bids = list(Round.objects.filter(game=game).order_by("number").values_list("number", "bid"))
    assert bids == [(1, 30), (2, 31), (3, 32)]
    # The club counted as the phone did.
    game.refresh_from_db()
    assert [team.tables for team in game.teams.order_by("position")] == [9, 15]
    assert game.dealer_seat == 3
    assert (
        SubmittedForm.objects.filter(path=url.removeprefix(live_server.url) + "deals/").count() == 3
    )
    # The public page shows the three deals, once each.
    public = context.new_page()
    public.goto(f"{live_server.url}/games/{game.pk}/")
    expect(public.locator("table.deals tbody tr")).to_have_count(3)
    screenshot(public, "public-page-after")


def test_a_deal_whose_number_was_taken_meanwhile_is_shown_to_fix(scorer, screenshot):
    game, context, page, url = scorer
    context.set_offline(True)
    fill_deal(page, bid="33")
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.locator("#offline-queue li")).to_have_count(1)
    # Meanwhile the organiser records deal 1 from another phone.
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 20, 1: 36}, declarer=seat(game, "Chitra"), bid=30, trump="hearts"),
    )
    context.set_offline(False)
    refused = page.locator("#offline-queue li.refused")
    expect(refused).to_have_count(1, timeout=30_000)
    expect(refused.get_by_role("alert")).to_contain_text("Deal 1 is already recorded")
    screenshot(page, "refused-to-fix")
    assert list(Round.objects.filter(game=game).values_list("bid", flat=True)) == [30]
    # Put back in the form at once, while the game as the club has it now may still be on
    # its way: what was typed is filled into the form that arrives, not the one it replaces.
    refused.get_by_role("button", name="Put it back in the form").click()
    expect(page.locator("#offline-queue")).to_have_count(0)
    # The page shows the game as the club has it now: deal 1 counted, deal 2 next.
    expect(page.locator(".scorer")).to_contain_text("11")
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    expect(page.locator("input[name=bid][value='33']")).to_be_checked()
    page.get_by_role("button", name="Record deal 2").click()
    expect(page.get_by_role("button", name="Record deal 3")).to_be_visible()
    assert list(
        Round.objects.filter(game=game).order_by("number").values_list("bid", flat=True)
    ) == [30, 33]


def test_a_deal_the_rules_refuse_is_stopped_on_the_phone_in_the_servers_words(scorer, screenshot):
    """With no network, a deal that cannot be is not kept to fail later: the phone says
    what is wrong at once, in the words the server would use, and keeps what was typed."""
    game, context, page, url = scorer
    context.set_offline(True)
    fill_deal(page, bid="31")
    page.locator("input[name=points_0]").fill("30")  # 30 + 36: not the 56 of the pack
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.locator("form.deal-form .errors")).to_have_text(
        "The piles add up to 66; they must add up to exactly 56."
    )
    expect(page.locator("#offline-queue")).to_have_count(0)
    expect(page.locator("input[name=points_1]")).to_have_value("36")
    screenshot(page, "refused-on-the-phone", full_page=False)
    page.locator("input[name=points_0]").fill("20")
    expect(page.locator("form.deal-form .errors")).to_be_hidden()
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.locator("#offline-queue .phone-count")).to_have_text(
        "The phone's count: made · Anu & Biju: -1 → 11 · Chitra & Dev: +1 → 13"
    )
    context.set_offline(False)
    until(page, QUEUE_EMPTY)
    assert list(Round.objects.filter(game=game).values_list("number", "bid")) == [(1, 31)]


def test_after_a_deal_is_kept_the_next_starts_empty_and_the_kept_line_says_it_all(
    scorer, screenshot
):
    """Nothing of the deal kept carries over to the next but its number and dealer, and the
    line of the deal kept says everything that was entered, doubling too."""
    game, context, page, url = scorer
    context.set_offline(True)
    enter_deal(page, declarer="Chitra", bid=34, trump="spades", doubling="double", piles={1: 40})
    page.get_by_role("button", name="Record deal 1").click()
    item = page.locator("#offline-queue li")
    expect(item).to_have_count(1)
    expect(item.locator("p").first).to_contain_text(
        "Deal 1 Chitra bid 34 Spades · Doubled, piles 16 / 40"
    )
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    for name in ("declarer", "bid", "trump", "thani_made"):
        assert checked(page, name) == "", name
    assert checked(page, "doubling") == "none"
    expect(page.locator("input[name=points_0]")).to_have_value("")
    expect(page.locator("input[name=points_1]")).to_have_value("")
    expect(page.locator("[data-dealer-line]")).to_contain_text("Chitra deals next")
    screenshot(page, "kept-and-next", full_page=False)
    context.set_offline(False)
    until(page, QUEUE_EMPTY)
    deal = Round.objects.get(game=game)
    assert (deal.bid, deal.doubling) == (34, "double")


def test_a_kept_deal_that_ends_the_game_says_so(browser, live_server):
    game = start_game(
        2, first_dealer=0, label="Church hall table 3", rules=Rules(tables_per_team=1)
    )
    (link,) = links.issue_links(game=game)
    context = browser.new_context(viewport=PHONE, is_mobile=True, service_workers="allow")
    context.set_default_timeout(10_000)
    page = context.new_page()
    installed(page, f"{live_server.url}/s/{link.token}/")
    context.set_offline(True)
    fill_deal(page, bid="30")
    page.get_by_role("button", name="Record deal 1").click()
    item = page.locator("#offline-queue li")
    expect(item.locator(".phone-count")).to_have_text(
        "The phone's count: made · Anu & Biju: -1 → 0 · Chitra & Dev: +1 → 2"
    )
    expect(item.locator(".count-news")).to_have_text(
        ["Anu & Biju has no tables left and is out.", "The game ends with this deal."]
    )
    expect(page.locator("[data-dealer-line]")).to_have_text("The game ends with this deal.")
    context.set_offline(False)
    until(page, QUEUE_EMPTY)
    game.refresh_from_db()
    assert game.is_finished and game.winner.team.name == "Chitra & Dev"
    context.close()


def test_an_answer_lost_on_the_way_is_answered_from_the_one_time_key(scorer):
    game, context, page, url = scorer
    lost = {"count": 0}

    def lose_the_answer(route):
        # The request reaches the club; its answer never reaches the phone.
        route.fetch()
        lost["count"] += 1
        route.abort("internetdisconnected")

    context.route(re.compile(r".*/s/[^/]+/deals/$"), lose_the_answer)
    fill_deal(page, bid="34")
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.locator("#offline-queue li")).to_have_count(1)
    assert lost["count"] == 1
    assert Round.objects.filter(game=game).count() == 1  # it was recorded
    context.unroute(re.compile(r".*/s/[^/]+/deals/$"))
    page.evaluate("window.dispatchEvent(new Event('online'))")
    until(page, QUEUE_EMPTY)
    assert list(Round.objects.filter(game=game).values_list("number", "bid")) == [(1, 34)]


def test_the_service_worker_updates_itself_after_a_release(scorer, monkeypatch):
    game, context, page, url = scorer
    first = page.evaluate("caches.keys()")
    assert [name for name in first if name.startswith("club-static-")] == [
        f"club-static-{release.current()}"
    ]
    monkeypatch.setenv("DJANGO_RELEASE", "the-next-release")
    release.current.cache_clear()
    try:
        page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.update())")
        until(
            page,
            "caches.keys().then(names => names.includes('club-static-the-next-release')"
            " && names.filter(n => n.startsWith('club-static-')).length === 1)",
        )
        # The page still loads with no network, from the new release's files.
        context.set_offline(True)
        page.reload()
        expect(page.locator("#kept-note")).to_be_visible()
        expect(page.get_by_role("button", name="Record deal 1")).to_be_visible()
    finally:
        release.current.cache_clear()


def test_a_public_page_shows_the_version_it_last_saw_with_its_time_offline(scorer, live_server):
    game, context, page, url = scorer
    public = f"{live_server.url}/games/{game.pk}/"
    installed(page, public)
    context.set_offline(True)
    page.reload()
    expect(page.locator("h1")).to_have_text("Church hall table 2")
    expect(page.locator("#kept-note")).to_contain_text(re.compile(r"as it was at \d\d:\d\d"))
    # A page never opened on this phone: the worker's own page says so.
    page.goto(f"{live_server.url}/tournaments/")
    expect(page.locator("h1")).to_have_text("No network")
