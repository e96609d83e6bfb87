"""A sitting's clock: the director sets its length, which starts it, adds minutes, or stops it.

The clock is the server's: a sitting keeps its length in minutes and the moment time is
up (``Sitting.ends_at``), and every page that shows it counts down from what the server
says is left (club.web.countdown). When time is up nothing ends by itself: the director's
board lists the tables still playing beside *Call time* (club.tournaments.calling_time),
for the director to call.

Each change is a line of the tournament's history, which moves the version of the
tournament's kept pages (the projector shows the clock): a clock set on the board shows
on the projector at its next poll.
"""

from __future__ import annotations

import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy

from club.tournaments.models import Sitting, TournamentEvent
from club.tournaments.writes import TournamentError, check_editable, lock, log

# A sitting of 56 runs from a few minutes (a last deal or two) to an afternoon.
SHORTEST, LONGEST = 5, 240
# Minutes added at once: a few deals more.
MOST_ADDED = 60

BAD_LENGTH = gettext_lazy(
    "The length must be a whole number of minutes from %(shortest)d to %(longest)d."
)
BAD_ADDED = gettext_lazy("Add a whole number of minutes from 1 to %(most)d.")
TOO_LONG = gettext_lazy("The clock cannot run more than %(longest)d minutes from now.")
NOT_CONFIRMED = gettext_lazy("This sitting is not confirmed yet: its clock cannot run.")
NO_CLOCK = gettext_lazy("This sitting's clock is not running: set its length first.")
SET_ALREADY = gettext_lazy(
    "This sitting's clock is set already: add minutes to it, or stop it and set a new length."
)


def _confirmed(sitting: Sitting) -> Sitting:
    """The sitting, read again under its tournament's lock (one writer at a time)."""
    check_editable(sitting.tournament)
    lock(sitting.tournament)
    sitting = Sitting.objects.select_related("tournament").get(pk=sitting.pk)
    if sitting.status != Sitting.Status.CONFIRMED:
        raise TournamentError(str(NOT_CONFIRMED))
    return sitting


def _save(sitting: Sitting, minutes: int | None, ends_at: datetime.datetime | None) -> None:
    # A plain update: the clock shows on the projector, whose version the history's line
    # moves, and on pages never kept; the club's token for every kept page stays.
    Sitting.objects.filter(pk=sitting.pk).update(minutes=minutes, ends_at=ends_at)
    sitting.minutes, sitting.ends_at = minutes, ends_at


def set_clock(*, sitting: Sitting, minutes: int | None, user=None) -> Sitting:
    """Give the sitting ``minutes`` from now, starting its clock.

    ``minutes`` is None when what was typed is no whole number: refused as out of bounds.
    A clock set already (running, or its time up) is refused, not started again: a second
    director's page, or one left open from before the clock was set, would otherwise take
    the time the tables were told; minutes are added to it, or it is stopped first.
    """
    if minutes is None or not SHORTEST <= minutes <= LONGEST:
        raise TournamentError(
            BAD_LENGTH % {"shortest": SHORTEST, "longest": LONGEST}, field="minutes"
        )
    with transaction.atomic():
        sitting = _confirmed(sitting)
        if sitting.ends_at is not None:
            raise TournamentError(str(SET_ALREADY), field="minutes")
        _save(sitting, minutes, timezone.now() + datetime.timedelta(minutes=minutes))
        log(sitting.tournament, TournamentEvent.Action.CLOCK_SET, user, str(minutes), sitting)
    return sitting


def add_minutes(*, sitting: Sitting, minutes: int | None, user=None) -> Sitting:
    """``minutes`` more on the running clock; once time is up, ``minutes`` from now."""
    if minutes is None or not 1 <= minutes <= MOST_ADDED:
        raise TournamentError(BAD_ADDED % {"most": MOST_ADDED}, field="added")
    with transaction.atomic():
        sitting = _confirmed(sitting)
        if sitting.ends_at is None or sitting.minutes is None:
            raise TournamentError(str(NO_CLOCK), field="added")
        now = timezone.now()
        ends_at = max(sitting.ends_at, now) + datetime.timedelta(minutes=minutes)
        if ends_at - now > datetime.timedelta(minutes=LONGEST):
            raise TournamentError(TOO_LONG % {"longest": LONGEST}, field="added")
        _save(sitting, sitting.minutes + minutes, ends_at)
        log(sitting.tournament, TournamentEvent.Action.CLOCK_ADDED, user, str(minutes), sitting)
    return sitting


def stop_clock(*, sitting: Sitting, user=None) -> Sitting:
    """Stop the sitting's clock: no page counts down any more."""
    with transaction.atomic():
        sitting = _confirmed(sitting)
        if sitting.ends_at is None:
            raise TournamentError(str(NO_CLOCK))
        _save(sitting, None, None)
        log(sitting.tournament, TournamentEvent.Action.CLOCK_STOPPED, user, sitting=sitting)
    return sitting
