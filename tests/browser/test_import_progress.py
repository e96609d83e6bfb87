"""Publishing a large file in a real browser: the form shows how far the file has gone,
the upload first and then the site's own check and import, and the page goes on to the
games once the file is stored.

The site is the venue's own server on its own SQLite file (tests/venue.py), as a club
publishes at the venue: a file's write-ahead log lets the page ask how far the import
has gone while the import writes, where the tests' in-memory database would lock it."""

from __future__ import annotations

import json
import os
import re
import sqlite3

import pytest
from playwright.sync_api import expect

from benchmarks.import_speed import build_document
from tests.browser.test_venue_night import log_in
from tests.venue import serving

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        bool(os.environ.get("DATABASE_URL")),
        reason="the venue keeps the club's SQLite file of its own",
    ),
]

STEP = re.compile(r"(Checking the games|Trying the games against this site): [\d,]+ of 406")
STORING = re.compile(r"(Storing the games: [\d,]+ of 406|Bringing the leaderboards)")


def test_a_large_file_shows_how_far_it_has_gone(browser, tmp_path, screenshot):
    document = build_document(12_500, seed=56)  # 406 games, about 5 MB
    games = len(document["games"])
    deals = sum(len(game["rounds"]) for game in document["games"])
    assert games == 406
    path = tmp_path / "club-history.json"
    path.write_text(json.dumps(document), encoding="utf-8")

    with serving(tmp_path / "venue", "127.0.0.1") as site:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(10_000)
        page = context.new_page()
        log_in(page, site.url)
        publish(page, site.url, path, games, deals, screenshot)
        context.close()
    with sqlite3.connect(tmp_path / "venue" / "club.sqlite3") as stored:
        assert stored.execute("SELECT count(*) FROM games_game").fetchone() == (games,)
        assert stored.execute("SELECT count(*) FROM games_round").fetchone() == (deals,)


def publish(page, url, path, games, deals, screenshot) -> None:
    page.goto(f"{url}/import/")
    progress = page.locator(".import-progress")
    expect(progress).to_be_hidden()
    page.locator("input[type=file]").set_input_files(path)
    page.get_by_role("button", name="Check and preview").click()

    # The site's own words while it reads the file: the game it is at, of all of them.
    expect(progress.get_by_role("status")).to_have_text(STEP, timeout=30_000)
    value = int(progress.locator("progress").get_attribute("value") or 0)
    assert 0 <= value < 100
    screenshot(page, "preview-under-way", full_page=False)
    expect(page.locator(".import-preview")).to_contain_text("new: to be added", timeout=60_000)
    expect(page.locator(".import-progress")).to_be_hidden()  # the new form's, not yet used

    page.get_by_role("button", name=f"Import {games} games with {deals} deals").click()
    expect(page.locator(".import-progress").get_by_role("status")).to_have_text(
        STORING, timeout=30_000
    )
    screenshot(page, "import-under-way", full_page=False)
    expect(page.locator(".messages")).to_contain_text(
        f"Imported {games} games with {deals} deals from club-history.json.", timeout=120_000
    )
    assert page.url == f"{url}/"
