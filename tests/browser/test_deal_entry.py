"""A deal in six presses on a phone, and a thumb's reach for every key.

Each press is counted as a scorer makes it: a tap on a key or a button, or a key typed
on the phone's keyboard. A tap is only made on what is wholly in sight, a key typed only
into a field wholly in sight, and no test here scrolls the page: a control out of sight,
or a page that had to move, fails the test. The targets: a plain two-team deal in at
most six presses, a doubled or redoubled one in seven, a three-team deal in eight, a
thani or an all-pass deal in five.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from club.games.models import Round
from club.games.services import Deal, TeamEntry, create_game, record_deal
from club.scoring import rules as core
from club.scoring.rules import Preset, Rules, Thani
from tests.browser.conftest import PHONE
from tests.browser.deal_entry import declarer_key, enter_deal, key
from tests.factories import seat, start_game

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


class Thumb:
    """Taps and key presses on a phone's page, counted; each only on what is in sight and,
    unless ``still`` is false, on a page that never moved since it was opened (a page may
    bring a field lower down into sight by itself, where ``still`` is false)."""

    def __init__(self, page: Page, *, still: bool = True) -> None:
        self.page = page
        self.presses = 0
        self.scrolled = page.evaluate("[window.scrollX, window.scrollY]") if still else None

    def in_sight(self, box: dict | None, what: object) -> None:
        assert box is not None, f"{what} is not on the page"
        if self.scrolled is not None:
            assert self.page.evaluate("[window.scrollX, window.scrollY]") == self.scrolled, (
                f"the page moved before {what} was pressed"
            )
        assert 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"], (
            f"{what} is out of sight at y={box['y']}"
        )
        assert 0 <= box["x"] and box["x"] + box["width"] <= PHONE["width"], (
            f"{what} is out of sight at x={box['x']}"
        )

    def tap(self, target: Locator) -> None:
        box = target.bounding_box()
        self.in_sight(box, target)
        centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        # Not under the button bar or anything else: what a thumb there would touch.
        hit = self.page.evaluate(
            "([x, y, el]) => { const at = document.elementFromPoint(x, y);"
            " return !!at && (el.contains(at) || at.contains(el)); }",
            [centre[0], centre[1], target.element_handle()],
        )
        assert hit, f"{target} is covered where a thumb would tap it"
        self.page.mouse.click(*centre)
        self.presses += 1

    def type(self, text: str) -> None:
        for character in text:
            # Into the field the cursor is in, which the scorer sees.
            focused = self.page.evaluate_handle("document.activeElement")
            name = self.page.evaluate("el => el.name || el.tagName", focused)
            self.in_sight(focused.as_element().bounding_box(), f"the field {name}")
            self.page.keyboard.press(character)
            self.presses += 1


def game_page(page: Page, live_server, game, *, still: bool = True) -> Thumb:
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert page.evaluate("window.scrollY") == 0
    return Thumb(page, still=still)


def assert_no_scroll(page: Page) -> None:
    assert page.evaluate("window.scrollY") == 0, "the page was scrolled"


def test_an_international_deal_takes_six_presses_and_no_scroll(
    organiser_page, live_server, screenshot
):
    game = create_game(
        label="International sitting 1",
        teams=[
            TeamEntry("Anu", "Biju", third="Chitra"),
            TeamEntry("Dev", "Esha", third="Farid"),
        ],
        first_dealer=0,
        rules=core.preset_rules(Preset.INTERNATIONAL, 6),
    )
    page = organiser_page
    thumb = game_page(page, live_server, game)
    screenshot(page, "first-sight", full_page=False)
    # Dev bids first (Anu deals), and his key says so.
    expect(declarer_key(page, "Dev")).to_contain_text("bids first")
    thumb.tap(declarer_key(page, "Dev"))
    thumb.tap(key(page, "bid", "32"))
    thumb.tap(key(page, "trump", "spades"))
    # The cursor is in Dev's team's pile: two digits, and the other pile is 56 minus them.
    thumb.type("30")
    expect(page.locator("input[name=points_0]")).to_have_value("26")
    expect(page.locator("[data-preview]")).to_have_text(
        "If recorded: failed · Anu & Biju & Chitra: +2 → 2"
    )
    assert_no_scroll(page)
    screenshot(page, "ready", full_page=False)
    thumb.tap(page.get_by_role("button", name="Record deal 1"))
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    assert thumb.presses == 6
    deal = Round.objects.get(game=game)
    assert (deal.bid, deal.trump, deal.doubling, deal.made) == (32, "spades", "none", False)
    # The next deal starts empty, the score and its form in sight without scrolling.
    assert page.locator("input[name=declarer]:checked, input[name=bid]:checked").count() == 0
    expect(page.locator("input[name=doubling][value=none]")).to_be_checked()
    expect(page.locator("input[name=points_0]")).to_have_value("")
    for seen in (
        page.locator(".scoreboard"),
        page.locator("#settlement"),
        declarer_key(page, "Biju"),
    ):
        box = seen.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
    screenshot(page, "next-deal", full_page=False)


def test_a_kodi_deal_with_four_a_team_takes_six_presses(organiser_page, live_server, screenshot):
    game = create_game(
        label="Kodi night",
        teams=[
            TeamEntry("Anu", "Biju", third="Chitra", fourth="Gita"),
            TeamEntry("Dev", "Esha", third="Farid", fourth="Hari"),
        ],
        first_dealer=0,
        rules=core.preset_rules(Preset.KODI, 8),
    )
    page = organiser_page
    thumb = game_page(page, live_server, game)
    thumb.tap(declarer_key(page, "Hari"))
    thumb.tap(key(page, "bid", "40"))
    thumb.tap(key(page, "trump", "no-trumps"))
    thumb.type("41")
    expect(page.locator("input[name=points_0]")).to_have_value("15")
    assert_no_scroll(page)
    screenshot(page, "ready", full_page=False)
    thumb.tap(page.get_by_role("button", name="Record deal 1"))
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    assert thumb.presses == 6
    assert Round.objects.get(game=game).made


def test_a_doubled_deal_takes_seven_presses_and_no_scroll(organiser_page, live_server, screenshot):
    """Doubled after the trumps, as it is called at the table: the tap on Doubled leaves
    the cursor in the pile it was in, and the pile is typed at once."""
    game = start_game(2, first_dealer=0)
    page = organiser_page
    thumb = game_page(page, live_server, game)
    thumb.tap(declarer_key(page, "Dev"))
    thumb.tap(key(page, "bid", "30"))
    thumb.tap(key(page, "trump", "hearts"))
    expect(page.locator("input[name=points_1]")).to_be_focused()
    thumb.tap(key(page, "doubling", "double"))
    expect(page.locator("input[name=points_1]")).to_be_focused()
    thumb.type("26")
    expect(page.locator("input[name=points_0]")).to_have_value("30")
    # Failed at 30: two tables, doubled four, paid to Anu & Biju.
    expect(page.locator("[data-preview]")).to_have_text(
        "If recorded: failed · Anu & Biju: +4 → 16 · Chitra & Dev: -4 → 8"
    )
    screenshot(page, "ready", full_page=False)
    thumb.tap(page.get_by_role("button", name="Record deal 1"))
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    assert thumb.presses == 7
    deal = Round.objects.get(game=game)
    assert (deal.bid, deal.trump, deal.doubling, deal.made) == (30, "hearts", "double", False)


def test_a_redoubled_deal_doubled_before_the_trumps_takes_seven_presses(
    organiser_page, live_server, screenshot
):
    """Redoubled before the trumps are tapped, at a table of three a team: the doubling
    keys are in sight once the declarer and the bid fold, and the trumps still take the
    cursor to the pile."""
    game = create_game(
        label="International sitting 2",
        teams=[
            TeamEntry("Anu", "Biju", third="Chitra"),
            TeamEntry("Dev", "Esha", third="Farid"),
        ],
        first_dealer=0,
        rules=core.preset_rules(Preset.INTERNATIONAL, 6),
    )
    page = organiser_page
    thumb = game_page(page, live_server, game)
    thumb.tap(declarer_key(page, "Esha"))
    thumb.tap(key(page, "bid", "40"))
    thumb.tap(key(page, "doubling", "redouble"))
    thumb.tap(key(page, "trump", "no-trumps"))
    expect(page.locator("input[name=points_1]")).to_be_focused()
    thumb.type("41")
    expect(page.locator("input[name=points_0]")).to_have_value("15")
    screenshot(page, "ready", full_page=False)
    thumb.tap(page.get_by_role("button", name="Record deal 1"))
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    assert thumb.presses == 7
    deal = Round.objects.get(game=game)
    assert (deal.bid, deal.trump, deal.doubling, deal.made) == (40, "no-trumps", "redouble", True)


def test_a_three_team_deal_takes_eight_presses(organiser_page, live_server):
    game = start_game(3, first_dealer=0)
    page = organiser_page
    thumb = game_page(page, live_server, game)
    thumb.tap(declarer_key(page, "Chitra"))
    thumb.tap(key(page, "bid", "30"))
    thumb.tap(key(page, "trump", "hearts"))
    # Chitra's team's pile first, then the next; the last is filled in.
    thumb.type("31")
    thumb.type("15")
    expect(page.locator("input[name=points_2]")).to_have_value("10")
    thumb.tap(page.get_by_role("button", name="Record deal 1"))
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    assert thumb.presses == 8
    piles = dict(Round.objects.get(game=game).piles.values_list("game_team__position", "points"))
    assert piles == {1: 31, 0: 15, 2: 10} or piles == {1: 31, 2: 15, 0: 10}


def test_a_four_team_deal_types_three_piles(organiser_page, live_server):
    """Four teams type three piles (the fourth is filled in): a pile of 0 or of 6 to 9 is
    one key, two digits otherwise; the deal is at most ten presses."""
    game = start_game(4, first_dealer=0)
    page = organiser_page
    # The third pile is below the fold: the cursor brings it into sight.
    thumb = game_page(page, live_server, game, still=False)
    thumb.tap(declarer_key(page, "Chitra"))
    thumb.tap(key(page, "bid", "28"))
    thumb.tap(key(page, "trump", "clubs"))
    thumb.type("30")
    thumb.type("16")
    thumb.type("6")
    expect(page.locator("[data-pile-total]")).to_have_text("56")
    thumb.tap(page.get_by_role("button", name="Record deal 1"))
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    assert thumb.presses == 9


def test_a_thani_takes_four_presses_and_shows_only_what_a_thani_needs(
    organiser_page, live_server, screenshot
):
    game = start_game(2, first_dealer=0, rules=Rules(thani=Thani(6, 8)))
    page = organiser_page
    thumb = game_page(page, live_server, game)
    thumb.tap(declarer_key(page, "Chitra"))
    thumb.tap(key(page, "bid", "thani"))
    # A thani has no trumps, doubling or piles: they go, and "made or failed" comes.
    for gone in ("trump", "doubling"):
        expect(page.locator(f"fieldset[data-group={gone}]")).to_be_hidden()
    expect(page.locator("fieldset[data-piles]")).to_be_hidden()
    thumb.tap(key(page, "thani_made", "no"))
    screenshot(page, "ready", full_page=False)
    thumb.tap(page.get_by_role("button", name="Record deal 1"))
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    assert thumb.presses == 4
    deal = Round.objects.get(game=game)
    assert (deal.thani, deal.made, deal.bid, deal.doubling) == (True, False, None, "none")


def test_an_all_pass_deal_takes_four_presses(organiser_page, live_server):
    game = start_game(2, first_dealer=0)
    page = organiser_page
    thumb = game_page(page, live_server, game)
    thumb.tap(key(page, "declarer", "pass"))
    expect(page.locator("fieldset[data-group=bid]")).to_be_hidden()
    # Chitra bids first: her team is held to 28, and its pile is where the cursor is.
    thumb.type("30")
    expect(page.locator("input[name=points_0]")).to_have_value("26")
    thumb.tap(page.get_by_role("button", name="Record deal 1"))
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    assert thumb.presses == 4
    assert Round.objects.get(game=game).all_pass


def test_a_mistake_is_told_at_its_field_before_sending_and_nothing_is_sent(
    organiser_page, live_server, screenshot
):
    game = start_game(2, first_dealer=0)
    page = organiser_page
    thumb = game_page(page, live_server, game)
    thumb.tap(declarer_key(page, "Chitra"))
    thumb.tap(key(page, "bid", "30"))
    # No trumps chosen, and a pile typed over to make 66.
    page.locator("input[name=points_0]").fill("30")
    page.locator("input[name=points_1]").fill("36")
    requests = []
    page.on(
        "request", lambda request: requests.append(request) if request.method == "POST" else None
    )
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.locator("#id_trump_error")).to_have_text("Choose the trumps, or no trumps.")
    expect(page.locator("form.deal-form .errors")).to_have_text(
        "The piles add up to 66; they must add up to exactly 56."
    )
    expect(page.locator("fieldset[data-group=trump]")).to_have_attribute("aria-invalid", "true")
    screenshot(page, "told-before-sending", full_page=False)
    assert requests == [] and not Round.objects.exists()
    key(page, "trump", "hearts").click()
    page.locator("input[name=points_1]").fill("26")
    expect(page.locator("#id_trump_error")).to_be_hidden()
    page.get_by_role("button", name="Record deal 1").click()
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    assert Round.objects.count() == 1


def test_every_control_of_the_deal_is_a_thumbs_width(organiser_page, live_server):
    game = start_game(2, first_dealer=0, rules=Rules(thani=Thani(6, 8)))
    page = organiser_page
    page.goto(f"{live_server.url}/games/{game.pk}/")
    declarer_key(page, "Chitra").click()  # its group folds: "Change" comes
    controls = page.locator(
        "form.deal-form label.key:visible, form.deal-form input[data-pile]:visible,"
        " form.deal-form [data-change]:visible, form.deal-form button[type=submit]"
    )
    sizes = controls.evaluate_all(
        "els => els.map(el => { const r = el.getBoundingClientRect();"
        " return [el.textContent.trim() || el.name, r.width, r.height]; })"
    )
    assert len(sizes) > 30
    small = [(name, width, height) for name, width, height in sizes if width < 44 or height < 44]
    assert small == []


def test_a_deal_entered_with_the_keyboard_alone(organiser_page, live_server):
    """Tab to a group, arrows to a key, as a screen reader's user does; Enter records.
    Arrows fold nothing: every key of a group stays within their reach."""
    game = start_game(2, first_dealer=0)
    page = organiser_page
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator("input[name=declarer]").first.focus()
    page.keyboard.press("ArrowRight")  # Anu, then Chitra: the keys go in seat order
    chosen = page.locator("input[name=declarer]:checked").get_attribute("value")
    page.keyboard.press("Tab")  # to the bid pad
    for _ in range(4):  # 28, then 29, 30, 31, 32
        page.keyboard.press("ArrowRight")
    expect(page.locator("input[name=bid]:checked")).to_have_value("32")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("input[name=bid]:checked")).to_have_value("31")
    expect(page.locator("fieldset.folded")).to_have_count(0)
    page.keyboard.press("Tab")  # to the trumps
    page.keyboard.press("Space")  # clubs
    page.keyboard.press("ArrowRight")  # diamonds
    expect(page.locator("input[name=trump]:checked")).to_have_value("diamonds")
    page.keyboard.press("Tab")  # to the doubling: Not doubled, as it is
    page.keyboard.press("Tab")  # to Anu & Biju's pile
    expect(page.locator("input[name=points_0]")).to_be_focused()
    page.keyboard.type("25")  # the cursor moves on; Chitra & Dev's is filled in as 31
    expect(page.locator("input[name=points_1]")).to_have_value("31")
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Record deal 2")).to_be_visible()
    deal = Round.objects.get(game=game)
    assert (str(deal.declarer_id), deal.bid, deal.trump, deal.made) == (
        chosen,
        31,
        "diamonds",
        True,
    )


def test_a_race_lost_to_another_phone_keeps_what_was_typed(organiser_page, live_server, screenshot):
    game = start_game(2, first_dealer=0)
    page = organiser_page
    page.goto(f"{live_server.url}/games/{game.pk}/")
    enter_deal(page, declarer="Dev", bid=35, trump="spades", doubling="double", piles={1: 40})
    # Meanwhile another phone records deal 1, otherwise.
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 20, 1: 36}, declarer=seat(game, "Chitra"), bid=30, trump="hearts"),
    )
    page.get_by_role("button", name="Record deal 1").click()
    race = page.locator(".lost-race")
    expect(race).to_contain_text("Deal 1 is already recorded: Chitra bid 30 Hearts.")
    expect(race.locator(".typed-entry")).to_have_text(
        "Dev bid 35 Spades · Doubled · Anu & Biju 16 · Chitra & Dev 40"
    )
    screenshot(page, "lost-race", full_page=False)
    # The form is for deal 2, empty, until what was typed is put in it.
    expect(page.locator("input[name=declarer]:checked")).to_have_count(0)
    race.get_by_role("button", name="Put it in the form as deal 2").click()
    expect(page.locator("input[name=bid]:checked")).to_have_value("35")
    expect(page.locator("input[name=doubling]:checked")).to_have_value("double")
    expect(page.locator("form.deal-form input[name=points_1]")).to_have_value("40")
    # Or the organiser corrects deal 1 to it: the history keeps both.
    race.get_by_role("button", name="Correct deal 1 to what you entered").click()
    expect(page.locator(".messages")).to_contain_text("Deal 1 corrected")
    deal = Round.objects.get(game=game, number=1)
    assert (deal.bid, deal.trump, deal.doubling) == (35, "spades", "double")
