"""How far a web import has gone: the import tells each game it checks and writes, and
the page that sent the file asks every second or so, while it waits for the answer.

The page names its run with a random key (a form field); what the import last told is
kept under that key, the organiser's login and the club, for ten minutes, in the cache
``progress`` (the pages' Redis when there is one, so any worker or app server answers
the page; else the memory of this process, which the venue's one server shares). A key
that is not the page's own, another organiser's or another club's, reads as nothing.
"""

from __future__ import annotations

import re
import time

from django.core.cache import caches
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from club.clubs.models import Club

RUN = re.compile(r"^[0-9a-f]{32}$")
KEPT = 600  # seconds a run's progress is kept after it was last told
EVERY = 0.25  # seconds between two writes of a run's progress, at most one
# The share of the whole of each step, as measured on a 49 MB file: a preview checks,
# then tries every game against the site; an import checks, then writes every deal.
SHARES = {
    "preview": {"check": (0, 55), "write": (55, 100)},
    "import": {"check": (0, 30), "write": (30, 100)},
}


def _key(user_id: int, club_id: int, run: str) -> str:
    return f"import:{club_id}:{user_id}:{run}"


class Reporter:
    """Told ``(step, done, total)`` by the import (club.archive.load.Progress): keeps it,
    at most every quarter second, and always at the start and the end of a step."""

    def __init__(self, user_id: int, club_id: int, run: str, mode: str):
        self.key, self.mode = _key(user_id, club_id, run), mode
        self.last, self.step = 0.0, ""

    def __call__(self, step: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and step == self.step and now - self.last < EVERY:
            return
        self.last, self.step = now, step
        caches["progress"].set(
            self.key, {"mode": self.mode, "step": step, "done": done, "total": total}, KEPT
        )


def reporter(user, run: str, mode: str, *, club: Club) -> Reporter | None:
    """The reporter for a page's run in ``club``, or None when the page gave no key of its
    own."""
    if not RUN.match(run or "") or user.pk is None:
        return None
    return Reporter(user.pk, club.pk, run, mode)


def read(user, run: str, *, club: Club) -> dict:
    """What a page of ``club`` shows of its run: ``percent`` (None before the import has
    told anything) and ``words``."""
    told = caches["progress"].get(_key(user.pk, club.pk, run)) if RUN.match(run or "") else None
    if not told or told.get("mode") not in SHARES:
        return {"percent": None, "words": ""}
    mode, step = told["mode"], told["step"]
    done, total = told["done"], max(told["total"], 1)
    low, high = SHARES[mode].get(step, (0, 100))
    counts = {
        "done": number_format(told["done"], force_grouping=True),
        "total": number_format(told["total"], force_grouping=True),
    }
    if step == "check":
        words = _("Checking the games: %(done)s of %(total)s") % counts
    elif done >= total:
        words = (
            _("Undoing the trial: nothing is kept yet")
            if mode == "preview"
            else _("Bringing the leaderboards and ratings up to date")
        )
    elif mode == "preview":
        words = _("Trying the games against this site: %(done)s of %(total)s") % counts
    else:
        words = _("Storing the games: %(done)s of %(total)s") % counts
    return {"percent": min(99, low + (high - low) * done // total), "words": words}
