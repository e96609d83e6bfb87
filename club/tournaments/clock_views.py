"""The sitting's clock from the director's board: set its length (which starts it), add
minutes, stop it (club.tournaments.clock). Each answers with the board."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from club.clubs.addresses import club_of
from club.games.idempotency import one_time
from club.tournaments import clock
from club.tournaments.models import Sitting
from club.tournaments.writes import TournamentError
from club.web.auth import organiser_required

# The minutes the board adds with one tap each.
STEPS = (5, 10)


def board_context() -> dict:
    """What the board's clock card needs beside the board: its buttons and bounds."""
    return {"clock_steps": STEPS, "clock_bounds": (clock.SHORTEST, clock.LONGEST)}


def _whole(text: str) -> int | None:
    """A whole number typed, or None (the service names the bounds): "45", not "45.5",
    "4e1" or 5,000 digits."""
    text = text.strip()
    return int(text) if text.isdecimal() and len(text) < 6 else None


@organiser_required
@require_POST
@one_time
def sitting_clock(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Start, lengthen or stop the sitting's clock; a refusal is said on the board, by name."""
    sitting = get_object_or_404(
        Sitting.objects.select_related("tournament"),
        tournament__pk=pk,
        tournament__club=club_of(request),
        number=number,
    )
    action = request.POST.get("action", "")
    try:
        if action == "add":
            added = _whole(request.POST.get("added", ""))
            sitting = clock.add_minutes(sitting=sitting, minutes=added, user=request.user)
            count = added or 0  # refused above when none
            done = ngettext(
                "%(count)d minute added to the clock.",
                "%(count)d minutes added to the clock.",
                count,
            ) % {"count": count}
        elif action == "stop":
            clock.stop_clock(sitting=sitting, user=request.user)
            done = _("The clock is stopped.")
        else:
            minutes = _whole(request.POST.get("minutes", ""))
            sitting = clock.set_clock(sitting=sitting, minutes=minutes, user=request.user)
            count = minutes or 0  # refused above when none
            done = ngettext(
                "The clock runs: %(count)d minute from now.",
                "The clock runs: %(count)d minutes from now.",
                count,
            ) % {"count": count}
    except TournamentError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, done)
    return redirect(reverse("tournaments:board", args=[pk]) + "#clock")
