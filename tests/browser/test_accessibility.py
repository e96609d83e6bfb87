"""WCAG 2.2 AA in a real browser: axe-core on every page that renders HTML.

Every page of the permission table (tests/test_permissions.py) that a GET
reads, for the roles that may read it (a visitor: the public pages and the
scorer's link; the organiser: those and the organiser's pages), on a phone
(390x844) and a desktop (1280x900), checked by axe-core with the WCAG 2.0 to
2.2 A and AA rules and the best-practice ones: no serious or critical
violation anywhere. axe-core comes from npm, pinned in package-lock.json
(``npm ci`` in .ci/run and in ``dev.py test`` where npm is found).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from django.urls import reverse

from tests import test_permissions
from tests.browser.conftest import ORGANISER_PASSWORD
from tests.test_permissions import CAPTAIN, ORGANISER, PUBLIC, RULES, SCORER, kwargs_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
    pytest.mark.django_db(transaction=True),
]

# The permission table's club (a tournament, its sittings, games, a deal, links, a
# stage), as the fixture ``world``: made for each test, as the live server's database is
# emptied after it.
world = test_permissions.fresh_world

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
NOT_PAGES = {"health", "tournaments:live", "games:scorer_table", "service_worker", "manifest"}
# The pictures of the link previews (club.web.preview): a PNG each, no page of their own.
PICTURES = {
    "games:preview",
    "tournaments:preview",
    "tournaments:sitting_preview",
    "leaderboards:player_preview",
    "competitions:preview",
    "circuits:preview",
}
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
RUN_AXE = """async (tags) => {
  const found = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
  return found.violations
    .filter((rule) => rule.impact === 'serious' || rule.impact === 'critical')
    .map((rule) => ({rule: rule.id, impact: rule.impact,
                     where: rule.nodes.slice(0, 3).map((node) => node.target.join(' '))}));
}"""


@pytest.fixture(scope="module")
def axe_source():
    if not AXE.exists():
        reason = f"{AXE} is missing: run `npm ci` (package-lock.json pins axe-core)"
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return AXE.read_text(encoding="utf-8")


def pages_for(role: str, world) -> list[str]:
    """The pages a GET reads that ``role`` may open, as paths."""
    readable = {"visitor": {PUBLIC, SCORER, CAPTAIN}, "organiser": {PUBLIC, ORGANISER}}[role]
    return [
        reverse(name, kwargs=kwargs_for(key, world))
        for name, (rule, methods, key) in RULES.items()
        # Not the health check, the live fragments the tournament page and the scorer's
        # page poll (checked inside those pages), the downloads (archive:, but its import
        # page) nor the API (api:): no page of their own (the API's docs page is Swagger
        # UI's, tests/api/test_docs.py).
        if rule in readable
        and "get" in methods
        and name not in NOT_PAGES | PICTURES
        and (name == "archive:import" or not name.startswith(("archive:", "api:")))
    ]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("role", ["visitor", "organiser"])
def test_no_page_has_a_serious_violation(
    browser, live_server, organiser, world, axe_source, role, size
):
    # The strict Content Security Policy forbids the page running a script it did not
    # serve; the test's own (axe) is let in, and only for this browser profile.
    context = browser.new_context(viewport=SIZES[size], bypass_csp=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    if role == "organiser":
        page.goto(f"{live_server.url}/accounts/login/")
        page.locator("#id_username").fill(organiser.username)
        page.locator("#id_password").fill(ORGANISER_PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_server.url}/")
    found, checked = {}, []
    try:
        for path in pages_for(role, world):
            response = page.goto(f"{live_server.url}{path}")
            assert response is not None and response.ok, (path, response and response.status)
            assert response.headers.get("content-type", "").startswith("text/html"), path
            page.evaluate(axe_source)
            violations = page.evaluate(RUN_AXE, TAGS)
            checked.append(path)
            if violations:
                found[path] = violations
    finally:
        context.close()
    assert len(checked) >= (15 if role == "visitor" else 30), checked  # every page, not a few
    assert found == {}, json.dumps(found, indent=1)
