"""No page writes an error to the browser's console, htmx's swaps included.

Every page of the permission table that a GET reads (the accessibility test's list), for a
visitor and for the organiser, on a phone, under the site's own Content Security Policy
(not bypassed, so a style or script the policy refuses is an error here); and the forms
that ask the server again as they are filled (the new game's form of play and players,
the players' search). An error logged, or a script that throws, fails the test with
the page and the message.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import ORGANISER_PASSWORD, PHONE
from tests.browser.test_accessibility import pages_for, world  # noqa: F401 (a fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
    pytest.mark.django_db(transaction=True),
]


def watched(context):
    page = context.new_page()
    errors: list[tuple[str, str]] = []
    page.on(
        "console",
        lambda message: (
            errors.append((page.url, message.text)) if message.type == "error" else None
        ),
    )
    page.on("pageerror", lambda error: errors.append((page.url, str(error))))
    return page, errors


@pytest.mark.parametrize("role", ["visitor", "organiser"])
def test_no_page_logs_an_error(browser, live_server, organiser, world, role):  # noqa: F811
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(10_000)
    page, errors = watched(context)
    try:
        if role == "organiser":
            page.goto(f"{live_server.url}/accounts/login/")
            page.locator("#id_username").fill(organiser.username)
            page.locator("#id_password").fill(ORGANISER_PASSWORD)
            page.get_by_role("button", name="Log in").click()
            page.wait_for_url(f"{live_server.url}/")
        paths = pages_for(role, world)
        for path in paths:
            page.goto(f"{live_server.url}{path}")
            page.wait_for_load_state("load")
        if role == "organiser":
            # Forms that ask the server again as they change (htmx swaps them in).
            page.goto(f"{live_server.url}/games/new/")
            page.locator("select[name=preset]").select_option("kodi")
            page.wait_for_selector("#id_kodi:checked", state="attached")
            page.locator("select[name=players]").select_option("8x4")
            page.wait_for_selector("#id_team2_player4", state="attached")
        page.goto(f"{live_server.url}/players/")
        page.locator("input[type=search]").first.fill("a")
        page.wait_for_timeout(600)  # the search waits 300 ms, then swaps the results
    finally:
        context.close()
    assert len(paths) >= (15 if role == "visitor" else 30), paths
    assert errors == [], json.dumps(errors, indent=1)
