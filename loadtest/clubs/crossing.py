"""An organiser of one club reaching for the other club's games, mid-night.

Each try posts a valid-looking deal (the other club's players as declarer) with a fresh
one-time key, which the check afterwards must find nowhere (no form kept, no row):

- at the other club's address, to its game: refused (403: an organiser of another club);
- at its own club's address, naming the other club's game: not found (404);
- its own game's scorer link at the other club's address: no such link there (404, or
  for htmx the reload a dead link gets);
- a correction of the other club's deal: refused (403);
- its own game's deal form with a key the other club's phone has used: refused (400),
  as a form used for something else.

An answer that says a deal was written (``Club-Deal-Sent``) is a crossed deal.
"""

from __future__ import annotations

import http.client
import time
import uuid
from typing import TYPE_CHECKING

from loadtest.clubs.browser import Answer, Browser, phone_address
from loadtest.clubs.people import Night, form_at

if TYPE_CHECKING:
    from loadtest.clubs.world import ClubNight


class Prober:
    """A club's organiser on a second browser (the same login, its session's cookies),
    trying the other club's games all night."""

    def __init__(self, night: Night, club: ClubNight, other: ClubNight, cookies: dict[str, str]):
        self.night, self.club, self.other = night, club, other
        self.rng = night.rng("prober", club.slug)
        self.browser = Browser(night.ports, self.rng, phone_address(4200 + club.pk))
        self.browser.cookies.update(cookies)

    def run(self) -> None:
        if "sessionid" not in self.browser.cookies:
            return
        while not self.night.stop.is_set():
            cross(self)
            self.night.stop.wait(self.rng.uniform(0.2, 0.8))


def _deal(organiser: Prober, game: int, token: str, number: int = 1) -> dict[str, str]:
    """A deal at ``game`` of the other club, with a fresh key and this page's CSRF token."""
    rng = organiser.rng
    seated = organiser.other.seated[game]
    return {
        "csrfmiddlewaretoken": token,
        "idempotency_key": str(uuid.uuid4()),
        "number": str(number),
        "declarer": str(rng.choice(seated)),
        "bid": str(rng.randint(28, 56)),
        "trump": rng.choice(["clubs", "hearts"]),
        "doubling": "none",
        "points_0": "20",
        "points_1": "36",
    }


def _post(organiser: Prober, path: str, form: dict, htmx: bool = False) -> Answer | None:
    for attempt in range(15):
        try:
            answer = organiser.browser.request("POST", path, form, htmx=htmx)
        except (OSError, http.client.HTTPException):
            answer = None
        if answer is not None and answer.status < 500:
            return answer
        time.sleep(0.2 * (attempt + 1))
    return None


def cross(organiser: Prober) -> None:
    """One of the tries at the other club, chosen at random; the tally learns the answer."""
    night, club, other = organiser.night, organiser.club, organiser.other
    own = organiser.rng.choice(club.games)
    form = form_at(organiser.browser, club.at(f"/games/{own}/"), night)
    if form is None:
        return
    token = form.hidden["csrfmiddlewaretoken"]
    theirs = organiser.rng.choice(other.games)
    tries = {
        "their game at their address": (other.at(f"/games/{theirs}/deals/"), {403, 404}),
        "their game at our address": (club.at(f"/games/{theirs}/deals/"), {404}),
        "our link at their address": (other.at(f"/s/{club.tokens[own]}/deals/"), {404, 200}),
        "their deal corrected": (other.at(f"/games/{theirs}/deals/1/edit/"), {403, 404}),
        "their key on our form": (club.at(f"/s/{club.tokens[own]}/deals/"), {400}),
    }
    name = organiser.rng.choice(sorted(tries))
    path, expected = tries[name]
    deal = _deal(organiser, theirs, token)
    if name == "their key on our form":
        with night.tally.lock:
            recent = night.tally.posts[-500:]
        used = [
            p.key
            for p in recent
            if p.club == other.slug and p.outcome == "recorded" and p.kind == "deal"
        ]
        if not used:
            return
        deal = form.random_deal(organiser.rng)
        deal["idempotency_key"] = organiser.rng.choice(used)
    else:
        night.tally.probe(deal["idempotency_key"])
    htmx = name == "our link at their address" and organiser.rng.random() < 0.5
    night.tally.add(f"cross-club: {name}")
    answer = _post(organiser, path, deal, htmx)
    if answer is None:
        night.tally.odd(f"cross-club {name}: {path} never answered")
        return
    if answer.header("Club-Deal-Sent"):
        night.tally.add("crossed acknowledgements")
        night.tally.odd(
            f"cross-club {name}: {path} said deal {answer.header('Club-Deal-Sent')} was written"
        )
    dead_link = answer.status == 200 and answer.header("HX-Refresh") == "true"
    if answer.status not in expected or (answer.status == 200 and not dead_link):
        night.tally.odd(
            f"cross-club {name}: {path} answered {answer.status}, not {sorted(expected)}"
        )
