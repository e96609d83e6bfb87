"""The Share button of a public page (templates/_share.html, static/js/share.js), on a phone.

Headless Chromium has no share sheet (``navigator.share`` is undefined there), so the
button copies the page's address: through the clipboard API where the page is a secure
context, else the old way (a field selected, ``execCommand("copy")``), which is what a
phone at the venue meets (plain HTTP); where even that fails, the field stays selected
with "Copy this link". With a share sheet, the sheet is given the page's title, its
result in a line and its address. Without scripts there is no button. axe-core finds
no serious violation with the field and its words shown.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.test_accessibility import AXE, RUN_AXE, TAGS
from tests.tournaments.helpers import make_tournament, night

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
    pytest.mark.django_db(transaction=True),
]

NO_CLIPBOARD_API = """
Object.defineProperty(Navigator.prototype, 'clipboard', {get: () => undefined});
"""
NO_COPY = "document.execCommand = () => false;"
A_SHARE_SHEET = """
navigator.share = (data) => { window.sharedWith = data; return Promise.resolve(); };
"""


@pytest.fixture
def cup(db):
    tournament = make_tournament(name="Monsoon Cup", teams=4, venue="Church hall")
    night(tournament, seed=3)
    return tournament


def _page(phone_context, live_server, cup, *scripts: str):
    for script in scripts:
        phone_context.add_init_script(script)
    page = phone_context.new_page()
    page.goto(f"{live_server.url}{cup.get_absolute_url()}")
    return page


def test_with_no_share_sheet_the_link_is_copied(phone_context, live_server, cup):
    phone_context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = _page(phone_context, live_server, cup)
    assert page.evaluate("typeof navigator.share") == "undefined"
    page.get_by_role("button", name="Share").click()
    expect(page.get_by_role("status").filter(has_text="Link copied")).to_be_visible()
    address = f"{live_server.url}{cup.get_absolute_url()}"
    assert page.evaluate("navigator.clipboard.readText()") == address


def test_on_plain_http_the_link_is_copied_the_old_way(phone_context, live_server, cup):
    page = _page(phone_context, live_server, cup, NO_CLIPBOARD_API)
    assert page.evaluate("navigator.clipboard") is None
    page.get_by_role("button", name="Share").click()
    expect(page.get_by_role("status").filter(has_text="Link copied")).to_be_visible()
    expect(page.get_by_label("The link to this page")).to_be_hidden()


def test_where_nothing_can_copy_the_link_is_left_selected(
    phone_context, live_server, cup, screenshot
):
    page = _page(phone_context, live_server, cup, NO_CLIPBOARD_API, NO_COPY)
    page.get_by_role("button", name="Share").click()
    expect(page.get_by_role("status").filter(has_text="Copy this link")).to_be_visible()
    field = page.get_by_label("The link to this page")
    expect(field).to_be_visible()
    expect(field).to_be_focused()
    address = f"{live_server.url}{cup.get_absolute_url()}"
    expect(field).to_have_value(address)
    assert field.evaluate("f => f.value.slice(f.selectionStart, f.selectionEnd)") == address
    screenshot(page, "copy-this-link", full_page=False)


def test_a_share_sheet_is_given_the_title_the_result_and_the_address(
    phone_context, live_server, cup
):
    page = _page(phone_context, live_server, cup, A_SHARE_SHEET)
    page.get_by_role("button", name="Share").click()
    page.wait_for_function("window.sharedWith !== undefined")
    shared = page.evaluate("window.sharedWith")
    assert shared["title"] == "Monsoon Cup"
    assert shared["text"].startswith("After sitting 1: 1")
    assert shared["url"] == f"{live_server.url}{cup.get_absolute_url()}"
    assert shared["text"] == page.locator('meta[property="og:description"]').get_attribute(
        "content"
    )


def test_without_scripts_there_is_no_button(browser, live_server, cup):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}{cup.get_absolute_url()}")
        assert page.locator("[data-share-button]").count() == 1  # in the page, hidden
        expect(page.get_by_role("button", name="Share")).to_be_hidden()
    finally:
        context.close()


def test_the_button_and_its_words_have_no_serious_violation(browser, live_server, cup):
    if not AXE.exists():
        pytest.skip(f"{AXE} is missing: run `npm ci`")
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    context.add_init_script(NO_CLIPBOARD_API + NO_COPY)
    try:
        page = context.new_page()
        found = {}
        game = cup.sittings.get(number=1).games.first().game
        for path in (cup.get_absolute_url(), game.get_absolute_url()):
            page.goto(f"{live_server.url}{path}")
            page.get_by_role("button", name="Share").click()
            expect(page.get_by_label("The link to this page")).to_be_visible()
            page.evaluate(AXE.read_text(encoding="utf-8"))
            violations = page.evaluate(RUN_AXE, TAGS)
            if violations:
                found[path] = violations
        assert found == {}, json.dumps(found, indent=1)
    finally:
        context.close()


def test_the_phone_shows_the_button_above_the_standings(
    phone_context, live_server, cup, screenshot
):
    page = _page(phone_context, live_server, cup)
    button = page.get_by_role("button", name="Share")
    expect(button).to_be_visible()
    heading = page.get_by_role("heading", name="Monsoon Cup", level=1)
    assert button.bounding_box()["y"] < heading.bounding_box()["y"]
    screenshot(page, "standings", full_page=False)
