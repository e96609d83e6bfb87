"""A club's website shows the standings and a game's live card in an <iframe>.

The club's site is a web server of its own, at an origin of its own
(http://127.0.0.1:<port>; the app is at http://localhost:<port>). With that
origin listed in CLUB_EMBED_ORIGINS the frames show the standings and the card,
in the reader's language, and the card moves on by itself when a deal is
recorded; a site not listed (another server, another port) gets nothing in its
frames: Chromium refuses to draw them.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from club.games.services import record_deal
from tests.factories import deal, start_game
from tests.tournaments.helpers import make_tournament

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


@pytest.fixture
def club_site():
    """``club_site(frames)``: a website of its own serving a page with ``frames`` as
    iframes; returns its origin."""
    servers = []

    def serve(frames: list[str]) -> str:
        html = "<!doctype html><html><head><title>Our club</title></head><body><h1>Our club</h1>"
        html += "".join(
            f'<iframe title="{n}" src="{src}" width="360" height="420"></iframe>'
            for n, src in enumerate(frames)
        )
        body = (html + "</body></html>").encode()

        class Page(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


def test_the_listed_site_shows_standings_and_a_live_card_and_another_is_refused(
    browser, live_server, settings, screenshot, club_site
):
    tournament = make_tournament("Monsoon Cup", teams=4)
    game = start_game(2, label="Church hall table 1")
    frames = [
        f"{live_server.url}/tournaments/{tournament.pk}/embed/",
        f"{live_server.url}/games/{game.pk}/embed/",
    ]
    allowed, other = club_site(frames), club_site(frames)
    settings.CLUB_EMBED_ORIGINS = [allowed]
    context = browser.new_context(viewport={"width": 800, "height": 900}, locale="es-ES")
    page = context.new_page()
    page.goto(f"{allowed}/results.html")
    standings = page.frame_locator("iframe[title='0']")
    card = page.frame_locator("iframe[title='1']")
    expect(standings.locator("h1")).to_have_text("Monsoon Cup")
    expect(standings.locator("table.standings tbody tr")).to_have_count(4)
    expect(standings.locator("#standings h2")).to_have_text("Clasificación")  # Spanish reader
    expect(card.locator("h1")).to_have_text("Church hall table 1")
    expect(card.locator("[data-team-tables]")).to_have_text(["12", "12"])
    # A deal is recorded at the club: the card moves on by itself.
    record_deal(game=game, number=1, entry=deal(game, {0: 20, 1: 36}, "Chitra", 30))
    expect(card.locator("[data-team-tables]")).to_have_text(["11", "13"], timeout=15_000)
    screenshot(page, "club-site")

    refused = context.new_page()
    blocked = []
    refused.on("console", lambda message: blocked.append(message.text))
    refused.goto(f"{other}/results.html")
    refused.wait_for_timeout(1500)
    # Chromium draws its own error page in each frame, none of the club's.
    for name, shown in (("0", "Monsoon Cup"), ("1", "Church hall table 1")):
        frame = refused.frame_locator(f"iframe[title='{name}']")
        expect(frame.locator("body")).not_to_contain_text(shown)
    assert [frame.url for frame in refused.frames[1:]] == ["chrome-error://chromewebdata/"] * 2
    assert sum("frame-ancestors" in text for text in blocked) == 2, blocked
    screenshot(refused, "other-site")
    context.close()
