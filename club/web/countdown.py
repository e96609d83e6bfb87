"""What a page's countdown carries: the time left on a clock by the server's time, never
the phone's.

A page that shows a sitting's clock (the director's board, a scorer's page, the
projector) carries the moment time is up (``ends_at_ms``, the server's clock) and, when
the page is rendered for one reader, the seconds left as the server counted them as it
rendered (``seconds_left``). ``static/js/live.js`` counts down from those seconds with
the phone's own timer (how long since the page came, not the phone's date and time), and
starts again from each fresh copy a poll brings. A page kept for every visitor
(club.web.pages: the projector) carries no seconds left, since its bytes must not depend
on when it was rendered: live.js counts from ``ends_at_ms`` and the server's time read
from the ``Date`` of its polls' answers.
"""

from __future__ import annotations

import datetime
from typing import TypedDict

from django.utils import timezone


class Countdown(TypedDict):
    ends_at: datetime.datetime
    ends_at_ms: int
    seconds_left: int | None  # None on a page kept for everyone
    left_text: str  # "12:05", "1:02:05"; "" on a page kept for everyone
    up: bool  # time was up when the page was rendered (never said on a kept page)


def clock_text(seconds: int) -> str:
    """The time left as a clock shows it: 45:09, or 1:05:09 from an hour."""
    seconds = max(0, seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def countdown(
    ends_at: datetime.datetime | None, now: datetime.datetime | None = None, *, kept: bool = False
) -> Countdown | None:
    """A clock running out at ``ends_at``, as a page carries it; None for no clock.

    ``kept``: the page is kept for every visitor, so it carries only when time is up.
    """
    if ends_at is None:
        return None
    ends_at_ms = int(ends_at.timestamp() * 1000)
    if kept:
        return Countdown(
            ends_at=ends_at, ends_at_ms=ends_at_ms, seconds_left=None, left_text="", up=False
        )
    now = now or timezone.now()
    # Rounded up: a clock shows 0:00 only once time is up.
    left = max(0, -int((now - ends_at).total_seconds() // 1))
    return Countdown(
        ends_at=ends_at,
        ends_at_ms=ends_at_ms,
        seconds_left=left,
        left_text=clock_text(left),
        up=left == 0,
    )
