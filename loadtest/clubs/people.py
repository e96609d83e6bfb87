"""The people of the two nights: scorers' phones, each club's organiser, and readers.

- A **phone** holds its game's scorer link (several phones a game, as when both teams'
  phones have the link open) and records deal after deal through it, as the scorer's
  page sends them: the form's deal number and one-time key, a random valid deal, the
  next form read from the answer. Phones of one game race for each deal number: one is
  told its deal was recorded, the others that the deal is already recorded.
- The **organiser** of each club, logged in through the real login form, records deals
  from the game's page (racing the phones), corrects earlier deals while the phones go
  on (out of order: any deal already acknowledged), sends an older correction again
  (its kept answer must come back, and the newer correction stay), reads the club's
  links page; logged in on a second browser, they try the other club's games all night
  (:mod:`loadtest.clubs.crossing`).
- **Readers** (no session) poll the games' and tournaments' pages of both clubs, so that
  both servers keep pages in the shared Redis all night.

Every request goes to either server (:class:`~loadtest.clubs.browser.Browser`).
"""

from __future__ import annotations

import http.client
import random
import threading
import time
from dataclasses import dataclass, field

from loadtest.clubs.browser import Answer, Browser, phone_address
from loadtest.clubs.forms import DealForm, login_token, posted
from loadtest.clubs.send import Sender, fault
from loadtest.clubs.tally import Post, Tally
from loadtest.clubs.world import ClubNight, Site

PAUSE = (0.05, 0.4)  # seconds between one person's actions, drawn


@dataclass
class Night:
    """What every client shares: the site, the servers' ports, the tally, the clock."""

    site: Site
    ports: list[int]
    tally: Tally
    seed: int
    stop: threading.Event = field(default_factory=threading.Event)
    # When each game's play ends (time.monotonic()): some end early, so that their pages
    # are kept during the night, under its chaos, while the other games play on.
    ends: dict[int, float] = field(default_factory=dict)
    calm: bool = False  # no fault at all: the same nights' baseline

    def fault(self, rng: random.Random) -> str:
        """The first send's fault (:data:`loadtest.clubs.send.FAULTS`), none when calm."""
        return "none" if self.calm else fault(rng)

    def playing(self, game: int) -> bool:
        return not self.stop.is_set() and time.monotonic() < self.ends.get(game, float("inf"))

    def rng(self, *name) -> random.Random:
        return random.Random("-".join(map(str, (self.seed, *name))))

    def pause(self, rng: random.Random) -> None:
        self.stop.wait(rng.uniform(*PAUSE))


def fetch(browser: Browser, path: str, night: Night, tries: int = 40) -> Answer | None:
    """GET ``path`` until a server answers it without a 5xx (a restart passes), or give up."""
    for attempt in range(tries):
        try:
            answer = browser.request("GET", path)
        except (OSError, http.client.HTTPException):
            answer = None
        if answer is not None and answer.status < 500:
            return answer
        time.sleep(min(1.0, 0.1 * (attempt + 1)))
    night.tally.odd(f"GET {path}: no answer in {tries} tries")
    return None


def form_at(browser: Browser, path: str, night: Night) -> DealForm | None:
    answer = fetch(browser, path, night)
    return DealForm.parse(answer.body) if answer is not None else None


def phone(night: Night, club: ClubNight, game: int, index: int) -> None:
    """Phone ``index`` (its own loopback address) with the game's scorer link: deal after
    deal until the night ends."""
    rng = night.rng("phone", club.slug, game, index)
    browser = Browser(night.ports, rng, phone_address(index))
    sender = Sender(browser, night.tally, rng)
    page = club.at(f"/s/{club.tokens[game]}/")
    form: DealForm | None = None
    night.pause(rng)
    while night.playing(game):
        form = form or form_at(browser, page, night)
        if form is None:
            night.tally.odd(f"{page}: no deal form")
            night.pause(rng)
            continue
        data = form.random_deal(rng)
        htmx = rng.random() < 0.6  # the page's htmx; else the plain form, as without script
        post = Post(
            club.slug, game, form.number, posted(data), data["idempotency_key"], "deal", "link"
        )
        night.tally.add("deals sent by phones")
        answer = sender.send(post, page + "deals/", data, htmx=htmx, first=night.fault(rng))
        form = None
        if answer is not None and htmx and answer.status == 200:
            form = DealForm.parse(answer.body)  # the next deal's form, in the answer
        night.pause(rng)


def log_in(browser: Browser, username: str, password: str, night: Night) -> bool:
    for _attempt in range(20):
        page = fetch(browser, "/accounts/login/", night)
        token = login_token(page.body) if page is not None else ""
        form = {"csrfmiddlewaretoken": token, "username": username, "password": password}
        try:
            answer = browser.request("POST", "/accounts/login/", form)
        except (OSError, http.client.HTTPException):
            continue
        if answer.status == 302 and "sessionid" in browser.cookies:
            return True
        time.sleep(0.3)
    night.tally.odd(f"{username} could not log in")
    return False


class Organiser:
    """One club's organiser: deals from the game's page, corrections, the links page."""

    def __init__(self, night: Night, club: ClubNight):
        self.night, self.club = night, club
        self.rng = night.rng("organiser", club.slug)
        self.browser = Browser(night.ports, self.rng, phone_address(4000 + club.pk))
        self.sender = Sender(self.browser, night.tally, self.rng)
        self.ready = False
        # Corrections sent: (post, path, form), to send an older one again.
        self.corrections: list[tuple[Post, str, dict]] = []

    def log_in(self) -> bool:
        """Logged in before the night starts, as an organiser is before the first deal."""
        self.ready = log_in(self.browser, self.club.organiser, self.night.site.password, self.night)
        return self.ready

    def run(self) -> None:
        if not self.ready:
            return
        actions = [
            (self.record, 40),
            (self.correct, 30),
            (self.correct_again, 10),
            (self.read, 5),
        ]
        while not self.night.stop.is_set():
            action = self.rng.choices([a for a, _ in actions], [w for _, w in actions])[0]
            action()
            self.night.pause(self.rng)

    def record(self) -> None:
        """A deal from the game's page, as the organiser records one for a table."""
        playing = [game for game in self.club.games if self.night.playing(game)]
        if not playing:
            return
        game = self.rng.choice(playing)
        form = form_at(self.browser, self.club.at(f"/games/{game}/"), self.night)
        if form is None:
            return
        data = form.random_deal(self.rng)
        post = Post(
            self.club.slug,
            game,
            form.number,
            posted(data),
            data["idempotency_key"],
            "deal",
            "organiser",
        )
        self.night.tally.add("deals sent by organisers")
        htmx = self.rng.random() < 0.5
        path = self.club.at(f"/games/{game}/deals/")
        self.sender.send(post, path, data, htmx=htmx, first=self.night.fault(self.rng))

    def acknowledged(self) -> list[Post]:
        tally = self.night.tally
        with tally.lock:
            return [
                p
                for p in tally.posts
                if p.club == self.club.slug
                and p.kind == "deal"
                and p.outcome == "recorded"
                and self.night.playing(p.game)
            ]

    def correct(self) -> None:
        """An earlier deal corrected while the phones go on recording later ones."""
        done = self.acknowledged()
        if not done:
            return
        deal = self.rng.choice(done)
        path = self.club.at(f"/games/{deal.game}/deals/{deal.number}/edit/")
        form = form_at(self.browser, path, self.night)
        if form is None:
            return
        data = form.random_deal(self.rng)
        post = Post(
            self.club.slug,
            deal.game,
            deal.number,
            posted(data),
            data["idempotency_key"],
            "correction",
            "organiser",
        )
        answer = self.sender.send(post, path, data, htmx=False, first=self.night.fault(self.rng))
        if answer is not None and post.outcome == "recorded":
            self.corrections.append((post, path, data))

    def correct_again(self) -> None:
        """An older correction's form sent again, after newer ones: the kept answer comes
        back, and what the deal says now stays."""
        if len(self.corrections) < 2:
            return
        post, path, data = self.rng.choice(self.corrections[:-1])
        self.night.tally.add("fault: older correction sent again")
        try:
            answer = self.browser.request("POST", path, data)
        except (OSError, http.client.HTTPException):
            return  # the kept answer is asked for again another time
        if answer.status >= 500:
            return
        if answer.header("X-Idempotent-Replay") != "true" or answer.status != 302:
            self.night.tally.odd(
                f"{path}: an older correction sent again got {answer.status}, not its kept answer"
            )

    def read(self) -> None:
        fetch(
            self.browser,
            self.club.at(f"/games/{self.rng.choice(self.club.games)}/links/"),
            self.night,
        )


def reader(night: Night, index: int) -> None:
    """A phone watching the clubs' public pages, as live.js polls them, on either server."""
    rng = night.rng("reader", index)
    browser = Browser(night.ports, rng, phone_address(4500 + index))
    while not night.stop.is_set():
        club = rng.choice(night.site.clubs)
        path = rng.choices(
            [
                club.at(f"/games/{rng.choice(club.games)}/"),
                club.at(f"/tournaments/{club.tournament}/live/"),
                club.at(f"/tournaments/{club.tournament}/"),
                club.at("/"),
            ],
            [70, 15, 10, 5],
        )[0]
        try:
            answer = browser.request("GET", path, htmx=rng.random() < 0.5)
            night.tally.add("pages read")
            if answer.status >= 500:
                night.tally.add(f"pages read: {answer.status}")
        except (OSError, http.client.HTTPException):
            night.tally.add("pages read: no answer")
        night.pause(rng)
