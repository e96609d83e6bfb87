"""The header's menu on a phone: every item in sight, or one button away.

On phones 320 and 390 px wide, as a visitor and as the organiser, each item of the menu
(club/templates/base.html) is either wholly on the screen, or hidden behind the menu's
button, which is on the screen and opens them all, each then wholly on the screen, not
clipped by a box that scrolls, and the one thing a thumb there would touch. Nothing in the
header scrolls sideways. The button is a <details>, so the menu opens without scripts too.
On a desktop the items are a row, with no button.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ORGANISER_PASSWORD

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
    pytest.mark.django_db(transaction=True),
]

VISITOR = ["Games", "Rules", "Tournaments", "Players", "Leaderboards", "Organiser log in"]
ORGANISER = VISITOR[:-1] + ["New game", "Connect phones", "Log out olive"]

# Why an element is not wholly seen, or "" when it is: off the screen, cut by a box around
# it that clips, or under something else where a thumb would touch it.
UNSEEN = """(el) => {
  const box = el.getBoundingClientRect();
  if (!el.checkVisibility()) return 'not shown';  // a closed menu's content is skipped
  if (box.left < 0 || box.top < 0 || box.right > innerWidth + 0.5 || box.bottom > innerHeight + 0.5)
    return `off the screen at ${Math.round(box.left)},${Math.round(box.top)}`;
  for (let up = el.parentElement; up; up = up.parentElement) {
    const style = getComputedStyle(up);
    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
    const clip = up.getBoundingClientRect();
    if (box.left < clip.left - 0.5 || box.right > clip.right + 0.5
        || box.top < clip.top - 0.5 || box.bottom > clip.bottom + 0.5)
      return `cut by ${up.tagName.toLowerCase()}.${up.className}`;
  }
  const at = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  if (!at || !(el.contains(at) || at.contains(el))) return 'covered';
  return '';
}"""


def items(page: Page, names: list[str]):
    header = page.locator("header")
    return {
        name: header.get_by_role(
            "button" if name.startswith("Log out") else "link",
            name=name,
            exact=True,
            include_hidden=True,  # folded in the menu, out of the page's reading
        )
        for name in names
    }


def unseen(page: Page, names: list[str]) -> dict[str, str]:
    found = {}
    for name, item in items(page, names).items():
        assert item.count() == 1, f"{name} is not in the menu"
        found[name] = item.evaluate(UNSEEN)
    return {name: why for name, why in found.items() if why}


def phone(browser, live_server, width: int, *, role: str, scripts: bool = True) -> Page:
    context = browser.new_context(
        viewport={"width": width, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        java_script_enabled=scripts,
    )
    context.set_default_timeout(5_000)
    page = context.new_page()
    if role == "organiser":
        page.goto(f"{live_server.url}/accounts/login/")
        page.locator("#id_username").fill("olive")
        page.locator("#id_password").fill(ORGANISER_PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_server.url}/")
    return page


@pytest.mark.parametrize("scripts", [True, False], ids=["scripts", "no-scripts"])
@pytest.mark.parametrize("role", ["visitor", "organiser"])
@pytest.mark.parametrize("width", [320, 390])
def test_every_menu_item_is_in_sight_or_one_button_away(
    browser, live_server, organiser, width, role, scripts, screenshot
):
    names = ORGANISER if role == "organiser" else VISITOR
    page = phone(browser, live_server, width, role=role, scripts=scripts)
    try:
        page.goto(f"{live_server.url}/rules/")
        header = page.locator("header")
        assert header.evaluate("h => h.scrollWidth <= h.clientWidth"), "the header scrolls"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        hidden = unseen(page, names)
        if hidden:
            # Hidden, each behind the one button, which is in sight.
            assert set(hidden.values()) == {"not shown"}, hidden
            button = header.locator(".site-menu > summary")
            assert button.evaluate(UNSEEN) == "", "the menu's button is out of sight"
            assert button.bounding_box()["height"] >= 36
            button.click()
            expect(header.locator(".site-menu")).to_have_attribute("open", "")
            if scripts:
                screenshot(page, "open", full_page=False)
            assert unseen(page, names) == {}
            assert header.evaluate("h => h.scrollWidth <= h.clientWidth"), "the header scrolls"
            for item in items(page, names).values():
                box = item.bounding_box()
                assert box["height"] >= 36 and box["width"] >= 36
        # The items lead where they say, from the menu.
        name = "Connect phones" if role == "organiser" else "Organiser log in"
        items(page, [name])[name].click()
        expect(page.locator("h1")).to_have_text(
            "Connect phones" if role == "organiser" else "Organiser log in"
        )
    finally:
        page.context.close()


def test_on_a_desktop_the_menu_is_a_row_with_no_button(browser, live_server, organiser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.locator("#id_username").fill("olive")
        page.locator("#id_password").fill(ORGANISER_PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_server.url}/")
        expect(page.locator("header .site-menu > summary")).to_be_hidden()
        assert unseen(page, ORGANISER) == {}
        tops = {round(item.bounding_box()["y"]) for item in items(page, ORGANISER).values()}
        assert len(tops) == 1, tops
    finally:
        context.close()
