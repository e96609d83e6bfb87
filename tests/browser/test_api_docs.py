"""The API's docs page (/api/v1/docs/) in Chromium: Swagger UI from the app's own
static files, drawn under the strict Content Security Policy with nothing refused, and its
"Try it out" answered by the API itself."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.factories import start_game

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


@pytest.mark.parametrize("viewport", [PHONE, {"width": 1280, "height": 900}])
def test_the_docs_draw_every_operation_under_the_csp(browser, live_server, screenshot, viewport):
    start_game(2, label="Church hall table 1")
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    refused, asked = [], []
    page.on(
        "console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None
    )
    page.on("request", lambda r: asked.append(r.url))
    page.goto(f"{live_server.url}/api/v1/docs/")
    for path in (
        "/api/v1/games/",
        "/api/v1/games/{pk}/",
        "/api/v1/tournaments/",
        "/api/v1/tournaments/{pk}/",
    ):
        expect(page.locator(".opblock-summary-path", has_text=path).first).to_be_visible()
    # Try the games list from the page: the API answers it.
    page.locator(".opblock-summary-path", has_text="/api/v1/games/").first.click()
    page.get_by_role("button", name="Try it out").click()
    page.get_by_role("button", name="Execute").click()
    expect(page.locator(".responses-wrapper .response .response-col_status").first).to_contain_text(
        "200"
    )
    expect(page.locator(".responses-wrapper")).to_contain_text("Church hall table 1")
    screenshot(page, f"api-docs-{viewport['width']}")
    context.close()
    assert refused == []
    assert all(url.startswith(live_server.url) for url in asked), "nothing from a CDN"
