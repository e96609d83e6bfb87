"""Calling the director: from a table's scorer page (the call, its reason, taken back, and
the part of the page that shows them and the sitting's clock), and the organisers' page of
the club's open calls, where a call is marked answered (club.games.calls).

The director's board shows a tournament's calls too (club.tournaments.selectors.board),
and answers them here.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from club.clubs.addresses import club_of
from club.games import calls
from club.games.idempotency import one_time
from club.games.link_views import through_link
from club.games.models import DirectorCall, ScorerLink
from club.web.auth import organiser_required
from club.web.posts import page_sent_from
from club.web.requests import HtmxHttpRequest

# --- Table side: through the scorer link ------------------------------------------------


def _table_part(request: HtmxHttpRequest, link: ScorerLink, refusal: str = "") -> HttpResponse:
    """The part of the scorer's page with the call and the clock."""
    context = {"link": link, "game": link.game, "call_refused": refusal}
    context.update(calls.table_status(link.game))
    return render(request, "games/scorer.html#table", context)


def _answer(request: HtmxHttpRequest, link: ScorerLink, refusal: str = "") -> HttpResponse:
    """A call's answer: its part of the page for htmx; without scripts, the page itself."""
    if request.htmx:
        return _table_part(request, link, refusal)
    if refusal:
        messages.error(request, refusal)
    return redirect(reverse("games:scorer", args=[link.token]) + "#table-status")


def _acted(request: HtmxHttpRequest, link: ScorerLink, action) -> HttpResponse:
    """The answer to a table's write on its call: its refusal said, by name, or done."""
    try:
        action()
    except calls.CallError as refusal:
        return _answer(request, link, refusal.message)
    return _answer(request, link)


# Never kept, by any cache or the phone: the call as it stands now, or nothing.
@never_cache
@require_GET
@through_link
def scorer_table(request: HtmxHttpRequest, link: ScorerLink) -> HttpResponse:
    """The call and the clock, which the scorer's page asks for again while a call is open
    or its game is in a sitting: a part of the page, as the tournament's live part is."""
    return _table_part(request, link)


@never_cache
@require_POST
@through_link
@one_time
def scorer_call(request: HtmxHttpRequest, link: ScorerLink) -> HttpResponse:
    """Call the director, at once; sent again with a reason, the open call takes it."""
    reason = request.POST.get("reason", "")[:20]
    return _acted(
        request, link, lambda: calls.call_director(game=link.game, link=link, reason=reason)
    )


@never_cache
@require_POST
@through_link
@one_time
def scorer_call_withdraw(request: HtmxHttpRequest, link: ScorerLink) -> HttpResponse:
    """The table takes its call back."""
    return _acted(request, link, lambda: calls.withdraw_call(game=link.game))


# --- Organisers: the club's calls ---------------------------------------------------------


@organiser_required
@require_GET
def calls_page(request: HttpRequest) -> HttpResponse:
    """Every open call of the club's games, oldest first, and those answered lately: the
    organisers' page for a club night (a tournament's director has the board too). It polls
    like the board: ``?version=`` answers 204 while no call changed."""
    club_calls = calls.club_calls(club_of(request).pk)
    now = timezone.now()
    version = calls.calls_token(club_calls, now)
    if request.GET.get("version") == version:
        return HttpResponse(status=204)
    context = {"calls": calls.shown_calls(club_calls, now), "calls_version": version}
    htmx = getattr(request, "htmx", False) or "version" in request.GET
    return render(request, "games/calls.html#live" if htmx else "games/calls.html", context)


@organiser_required
@require_POST
@one_time
def call_answer(request: HttpRequest, pk: int) -> HttpResponse:
    """An organiser marks a call answered; back to the page it was answered from."""
    call = get_object_or_404(DirectorCall, pk=pk, game__club=club_of(request))
    try:
        calls.answer_call(call=call, user=request.user)
    except calls.CallError as refusal:
        messages.error(request, refusal.message)
    back = page_sent_from(request)
    return redirect(back if back != "/" else reverse("games:calls"))
