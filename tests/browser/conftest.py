"""Real-browser fixtures: one headless Debian Chromium per session, driven by Playwright.

The browser is never downloaded: tests use /usr/bin/chromium. Where it is
missing the browser tests are skipped, unless REQUIRE_BROWSER=1 (set in CI),
where a missing browser is a failure.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
ORGANISER_PASSWORD = "olive-organiser-pw"  # the one tests/conftest.py's organiser has


def _browser_missing(reason: str):
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason)


class Chromium:
    """Debian's Chromium, whose new profiles run no service worker unless a test asks
    (``service_workers="allow"``: tests/browser/test_offline.py). The scorers' app
    installs one on every page; the other tests test the pages, and a worker left
    running in a profile can hold its closing up."""

    def __init__(self, browser) -> None:
        self._browser = browser

    def new_context(self, **options):
        options.setdefault("service_workers", "block")
        return self._browser.new_context(**options)

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        _browser_missing(f"{CHROMIUM} does not exist; the browser tests need Debian's Chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _browser_missing("the playwright Python package is not installed")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield Chromium(browser)
        browser.close()


@pytest.fixture
def phone_context(browser):
    """A fresh browser profile with a phone-sized screen (cookies are not shared)."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    # Fail fast instead of waiting 30 s when a selector is wrong.
    context.set_default_timeout(5_000)
    yield context
    context.close()


@pytest.fixture
def organiser_page(phone_context, live_server, organiser):
    """A phone-sized page logged in as the organiser through the real login form."""
    page = phone_context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("#id_username").fill(organiser.username)
    page.locator("#id_password").fill(ORGANISER_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")
    # The header offers log-out only to a signed-in user (on a phone, in its menu).
    open_menu(page)
    assert page.get_by_role("button", name=f"Log out {organiser.username}").is_visible()
    close_menu(page)
    return page


def open_menu(page) -> None:
    """Opens the header's menu where it is folded behind its button (a phone's screen)."""
    button = page.locator("header .site-menu > summary")
    if button.is_visible() and not page.locator("header .site-menu[open]").count():
        button.click()


def close_menu(page) -> None:
    button = page.locator("header .site-menu[open] > summary")
    if button.count() and button.is_visible():
        button.click()


@pytest.fixture
def screenshot(request):
    """``screenshot(page, "moment")`` saves test-artifacts/screenshots/<test>-<moment>.png,
    for a person to look at; none where ``CLUB_TEST_SCREENSHOTS`` is ``off`` (CI, whose
    clone nobody opens: a tall page drawn whole at a phone's density costs a second)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    test = re.sub(r"[^\w-]+", "_", request.node.name)
    wanted = os.environ.get("CLUB_TEST_SCREENSHOTS", "on") != "off"

    def take(page, moment: str, *, full_page: bool = True) -> Path:
        path = SCREENSHOTS / f"{test}-{moment}.png"
        if wanted:
            page.screenshot(path=str(path), full_page=full_page)
        return path

    return take
