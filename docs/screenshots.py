"""Every picture of the guide, taken again from the demo club in headless Chromium.

    python3 dev.py screenshots

Starts the demo club on a throwaway SQLite file (``load_demo``: its games, a final
tournament and one still running) with Django's development server on a free port,
then walks through a first club night as an organiser and a scorer would, in English, on
a phone (390 x 844) and a desktop (1280 x 900), and writes each picture to
``docs/images/``. A change of the interface is one command away from a current guide.

It needs Debian's Chromium at /usr/bin/chromium (``apt-get install chromium``), as the
browser tests do.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
CHROMIUM = "/usr/bin/chromium"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
ORGANISER = ("demo", "demo-organiser")  # the demo club's organiser (DEBUG only)
# The address the pictures show for the club, as a laptop at the venue has it on the
# hall's Wi-Fi; the links built on it are opened here on the real address instead.
PUBLIC = "http://192.168.1.10:8000"
TEAMS = """Anu & Biju
Chitra & Dev
Esha & Farid
Gita & Hari
Indu & Jacob
Kavya & Latif"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def demo_club():
    """The demo club served on 127.0.0.1 from a throwaway database; yields its address."""
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{folder}/club.sqlite3",
            "DJANGO_DEBUG": "1",
            "LANGUAGE_CODE": "en",
            "DJANGO_PUBLIC_URL": PUBLIC,
        }
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], env=env, check=True)
        subprocess.run([*manage, "load_demo"], env=env, check=True, stdout=subprocess.DEVNULL)
        port = free_port()
        server = subprocess.Popen(
            [*manage, "runserver", f"127.0.0.1:{port}", "--noreload"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        address = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"{address}/health/", timeout=1)
                    break
                except OSError:
                    time.sleep(0.2)
            yield address
        finally:
            server.terminate()
            server.wait(timeout=10)


def visit(page: Page, url: str) -> None:
    """Open ``url``; a page that does not answer 200 stops the command, never a picture."""
    answer = page.goto(url)
    if answer is None or not answer.ok:
        raise SystemExit(f"{url} answered {answer.status if answer else 'nothing'}")


def shoot(page: Page, name: str, *, full_page: bool = False) -> None:
    page.wait_for_load_state("networkidle")
    page.screenshot(path=IMAGES / f"{name}.png", full_page=full_page)
    print(f"docs/images/{name}.png")


def log_in(page: Page, address: str) -> None:
    visit(page, f"{address}/accounts/login/")
    page.locator("#id_username").fill(ORGANISER[0])
    page.locator("#id_password").fill(ORGANISER[1])
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{address}/")


def first_night(address: str, phone: Page, desktop: Page) -> None:
    """A tournament of six pairs from nothing to its first sitting's standings."""
    # The public front page, and the running demo tournament, as anyone sees them.
    visit(desktop, f"{address}/tournaments/")
    desktop.get_by_role("link", name="Kerala Piravi Cup 2025").first.click()
    shoot(desktop, "tournament-desktop")

    log_in(desktop, address)
    log_in(phone, address)
    visit(desktop, f"{address}/tournaments/new/")
    desktop.locator("#id_name").fill("Thursday club night")
    desktop.locator("#id_venue").fill("Club hall")
    shoot(desktop, "new-tournament-desktop")
    desktop.get_by_role("button", name="Create the tournament").click()
    expect(desktop.locator("h1")).to_have_text("Thursday club night")
    tournament = desktop.url.split("#")[0]
    visit(phone, tournament)
    shoot(phone, "next-step-phone")

    desktop.locator("summary", has_text="Register many teams at once").click()
    desktop.locator("textarea[name=teams]").fill(TEAMS)
    shoot(desktop, "register-teams-desktop")
    desktop.get_by_role("button", name="Register these teams").click()
    expect(desktop.locator("#register")).to_contain_text("6 teams registered.")

    visit(phone, tournament)
    phone.get_by_role("button", name="Draw the next sitting").click()
    expect(phone.locator("h1")).to_have_text("Sitting 1")
    shoot(phone, "draw-phone", full_page=True)
    phone.get_by_role("button", name="Confirm and start the games").click()
    phone.once("dialog", lambda dialog: dialog.accept())
    phone.get_by_role("button", name="Scorer links for every table").click()
    expect(phone.locator(".print-link")).to_have_count(3)
    links = [
        link.replace(PUBLIC, address)
        for link in phone.locator(".print-link .link-url").all_inner_texts()
    ]
    shoot(phone, "scorer-links-phone")

    # A scorer at table 1 records the first deal.
    scorer = phone.context.browser.new_context(**PHONE).new_page()
    visit(scorer, links[0])
    scorer.locator("details.how-to summary").click()
    scorer.evaluate("window.scrollTo(0, 0)")
    shoot(scorer, "scorer-how-to-phone")
    scorer.locator("details.how-to summary").click()
    scorer.evaluate("window.scrollTo(0, 0)")
    names = scorer.locator("fieldset[data-group=declarer] .key-name").all_inner_texts()
    scorer.locator("fieldset[data-group=declarer] label.key").filter(
        has_text=names[0].strip()
    ).first.click()
    scorer.locator("label.key:has(input[name=bid][value='30'])").click()
    scorer.locator("label.key:has(input[name=trump][value='spades'])").click()
    scorer.locator("input[name=points_0]").fill("34")
    scorer.evaluate("window.scrollTo(0, 0)")
    shoot(scorer, "scorer-phone")
    scorer.get_by_role("button", name="Record deal 1").click()
    expect(scorer.locator("#settlement h2")).to_contain_text("Deal 1:")
    shoot(scorer, "scorer-recorded-phone")
    scorer.context.close()

    visit(phone, f"{tournament}board/")
    shoot(phone, "director-board-phone", full_page=True)
    visit(desktop, f"{address}/connect/")
    shoot(desktop, "connect-phones-desktop")


def for_players(address: str, phone: Page, desktop: Page) -> None:
    visit(desktop, f"{address}/leaderboards/players/")
    shoot(desktop, "player-board-desktop")
    visit(phone, f"{address}/leaderboards/players/")
    phone.locator("table.board tbody th.board-name a").first.click()
    shoot(phone, "player-profile-phone", full_page=True)


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with demo_club() as address, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        phone = browser.new_context(**PHONE).new_page()
        desktop = browser.new_context(**DESKTOP).new_page()
        for page in (phone, desktop):
            page.set_default_timeout(10_000)
        for_players(address, phone, desktop)
        first_night(address, phone, desktop)
        browser.close()


if __name__ == "__main__":
    main()
