"""The deal entry's keys on a phone, in every language: no word broken, none cut off.

Each key (the declarer, the bid, the trumps, the doubling and a thani's made or failed) is
read on phones 320 and 390 px wide in the seven languages of the club: every word of its
text (a word as the browser's own word breaker finds it, so Thai's by its dictionary)
lies on one line and inside the key, the key inside its group and the screen, and at
least 44 px each way at 390 px (a thumb's width), 40 px at 320 px (more than the 36 px
of the header's links). Read with every group open, with the declarer, bid and
trumps chosen (each group folded to its key) and with a thani's made or failed shown.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from club.games import links
from club.games.services import TeamEntry, create_game
from club.scoring.rules import Rules, Thani
from tests.browser.deal_entry import declarer_key, key

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
    pytest.mark.django_db(transaction=True),
]

LANGUAGES = [code for code, _name in settings.LANGUAGES]
WIDTHS = [320, 390]

# For each key shown: each word that is split across lines or lies outside its key, a
# key outside its group or the screen, or a key smaller than ``least`` px.
BROKEN = """(least) => {
  const lang = document.documentElement.lang;
  const words = new Intl.Segmenter(lang, {granularity: 'word'});
  const problems = [];
  const shown = (el) => el.getClientRects().length > 0;
  for (const key of document.querySelectorAll('form.deal-form label.key')) {
    if (!shown(key)) continue;
    const group = key.closest('fieldset').dataset.group;
    const box = key.getBoundingClientRect();
    const where = key.closest('fieldset').getBoundingClientRect();
    const text = key.textContent.replace(/\\s+/g, ' ').trim();
    const say = (problem) => problems.push(`${group} "${text}": ${problem}`);
    if (box.width < least || box.height < least) say(`${box.width}x${box.height} px`);
    if (box.left < where.left - 0.5 || box.right > where.right + 0.5) say('outside its group');
    if (box.left < 0 || box.right > window.innerWidth) say('outside the screen');
    const walker = document.createTreeWalker(key, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('.visually-hidden')) continue;
      for (const part of words.segment(node.data)) {
        if (!part.isWordLike) continue;
        const range = document.createRange();
        range.setStart(node, part.index);
        range.setEnd(node, part.index + part.segment.length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        if (!rects.length) continue;  // not shown (a folded key's "bids first")
        const lines = [];
        for (const r of rects) {
          // A glyph's box is taller than a tight line: a line apart is half a box or more.
          const apart = (line) => Math.abs(r.top - line.top) >= Math.min(r.height, line.height) / 2;
          if (lines.every(apart)) lines.push(r);
        }
        if (lines.length > 1) say(`"${part.segment}" is split over ${lines.length} lines`);
        const all = range.getBoundingClientRect();
        const out = all.left < box.left - 0.5 || all.right > box.right + 0.5;
        if (out) say(`"${part.segment}" runs out of its key`);
      }
    }
  }
  return problems;
}"""


@pytest.fixture
def scorer_url(live_server):
    """A scorer's link to a table of two teams that plays thani and all pass, one of its
    players with a long name of one word."""
    game = create_game(
        label="Keys",
        teams=[TeamEntry("Anu", "Radhakrishnan"), TeamEntry("Chitra", "Dev")],
        first_dealer=0,
        rules=Rules(thani=Thani(6, 8)),
    )
    (link,) = links.issue_links(game=game)
    return f"{live_server.url}/s/{link.token}/"


def read_keys(page: Page) -> list[str]:
    page.evaluate("document.fonts.ready")
    least = 44 if page.viewport_size["width"] >= 390 else 40
    return page.evaluate(BROKEN, least)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("code", LANGUAGES)
def test_no_key_breaks_a_word(browser, live_server, scorer_url, code, width, screenshot):
    context = browser.new_context(
        viewport={"width": width, "height": 844}, device_scale_factor=2, is_mobile=True
    )
    context.add_cookies([{"name": "django_language", "value": code, "url": live_server.url}])
    context.set_default_timeout(5_000)
    page = context.new_page()
    try:
        page.goto(scorer_url)
        expect(page.locator("html")).to_have_attribute("lang", code)
        problems = {"every group open": read_keys(page)}
        if code in ("en", "ml", "th") and width == 320:
            screenshot(page, "open", full_page=False)
        # Chosen, each group folds to its key beside "Change".
        declarer_key(page, "Chitra").click()
        key(page, "bid", "28").click()
        key(page, "trump", "no-trumps").click()
        problems["folded"] = read_keys(page)
        # A thani: made or failed in place of the trumps, doubling and piles.
        page.locator("fieldset[data-group=bid] [data-change]").click()
        key(page, "bid", "thani").click()
        expect(page.locator("fieldset[data-group=thani_made]")).to_be_visible()
        problems["a thani"] = read_keys(page)
        found = [f"{moment}: {problem}" for moment, seen in problems.items() for problem in seen]
        assert found == [], "\n".join(found)
    finally:
        context.close()
