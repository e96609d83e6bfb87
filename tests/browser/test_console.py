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
import os
import subprocess
import sys

import pytest

from club.venue import keep_secret_key, secret_key
from tests.browser.conftest import CHROMIUM_ARGS, ORGANISER_PASSWORD, PHONE
from tests.browser.test_accessibility import pages_for, world  # noqa: F401 (a fixture)
from tests.venue import PASSWORD, ROOT, serving, venue_env
from tests.wifi import phone_on_the_wifi

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


# --- At the venue: plain HTTP, off this computer ----------------------------------------------

# The permission table's club, made in the venue's own database before the venue starts: the
# same world the test above reads, and the paths of its pages for each role.
WORLD_SCRIPT = """
import json, django
django.setup()
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
from tests import test_permissions
from tests.browser.test_accessibility import pages_for
world = test_permissions.build_world()
print(json.dumps({role: pages_for(role, world) for role in ("visitor", "organiser")}))
"""


@pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")),
    reason="the venue keeps the club's SQLite file of its own: once, in the SQLite half",
)
def test_no_page_at_the_venue_logs_an_error(browser, tmp_path):
    """The venue as a phone on the hall's Wi-Fi opens it: ``python -m club venue`` (waitress,
    DEBUG off) at the laptop's address on a real network, Chromium in the phone's namespace.
    Plain HTTP to an address not this computer's is an origin the browser does not trust,
    where it refuses some headers a hosted HTTPS site may send, and says so in the console
    of every page."""
    folder = tmp_path / "laptop"
    key = secret_key(folder)
    keep_secret_key(folder, key)  # the venue's, as the venue keeps it, for the club made here
    built = subprocess.run(
        [sys.executable, "-c", WORLD_SCRIPT],
        cwd=ROOT,
        env=venue_env(folder, DJANGO_SETTINGS_MODULE="club.settings", DJANGO_SECRET_KEY=key),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    paths = json.loads(built.stdout.splitlines()[-1])
    errors: list[tuple[str, str]] = []
    with phone_on_the_wifi() as phone, serving(folder, phone.laptop) as venue:
        on_phone = browser.browser_type.launch(
            executable_path=str(phone.chromium(tmp_path)), headless=True, args=CHROMIUM_ARGS
        )
        try:
            for role in ("visitor", "organiser"):
                context = on_phone.new_context(viewport=PHONE)
                context.set_default_timeout(10_000)
                page, seen = watched(context)
                try:
                    if role == "organiser":
                        page.goto(f"{venue.url}/accounts/login/")
                        page.locator("#id_username").fill("olive")
                        page.locator("#id_password").fill(PASSWORD)
                        page.get_by_role("button", name="Log in").click()
                        page.wait_for_url(f"{venue.url}/")
                    for path in paths[role]:
                        response = page.goto(f"{venue.url}{path}")
                        assert response is not None and response.ok, (role, path)
                        page.wait_for_load_state("load")
                finally:
                    context.close()
                errors += seen
        finally:
            on_phone.close()
    assert len(paths["visitor"]) >= 15 and len(paths["organiser"]) >= 30, paths
    assert errors == [], json.dumps(errors, indent=1)
