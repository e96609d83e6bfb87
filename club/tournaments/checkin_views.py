"""Check-in and the captain's page: thin views over club.tournaments.checkin.

The director checks teams in on the board, one tap a team (the list answers htmx with
itself); a team's captain checks the team in from the captain's page, reached by the
link printed as a QR code on the team's card. The captain's page shows the team's
scorer link, a secret: it is never kept by a cache or a phone.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from club.clubs.addresses import club_of
from club.games.idempotency import one_time
from club.games.models import PLAYER_FIELDS
from club.tournaments import checkin
from club.tournaments.models import Tournament, TournamentTeam
from club.tournaments.selectors.board import current_sitting
from club.tournaments.team_views import registered_team
from club.tournaments.writes import TournamentError
from club.web.auth import organiser_required
from club.web.net import phones_cannot_reach, public_url
from club.web.requests import HtmxHttpRequest


def _check_in_card(request: HttpRequest, tournament: Tournament, error: str = "") -> HttpResponse:
    return render(
        request,
        "tournaments/_check_in.html",
        {"tournament": tournament, "check_ins": checkin.check_in_list(tournament), "error": error},
    )


def _back_to_board(
    request: HtmxHttpRequest, tournament: Tournament, error: str = ""
) -> HttpResponse:
    if request.htmx:
        return _check_in_card(request, tournament, error)
    if error:
        messages.error(request, error)
    return redirect(reverse("tournaments:board", args=[tournament.pk]) + "#check-in")


@organiser_required
@require_POST
@one_time
def check_in_team(request: HtmxHttpRequest, pk: int, entry: int) -> HttpResponse:
    """The director checks a team in for the next sitting, or takes it back (``undo``)."""
    registered = registered_team(request, pk, entry)
    action = checkin.undo_check_in if request.POST.get("undo") else checkin.check_in
    try:
        action(entry=registered, user=request.user)
    except TournamentError as error:
        return _back_to_board(request, registered.tournament, error.message)
    return _back_to_board(request, registered.tournament)


@organiser_required
@require_POST
@one_time
def check_in_setting(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Ask teams to check in before each sitting, or stop asking."""
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    try:
        tournament = checkin.set_check_in(
            tournament=tournament, on=request.POST.get("on") == "1", user=request.user
        )
    except TournamentError as error:
        return _back_to_board(request, tournament, error.message)
    return _back_to_board(request, tournament)


def _captains_entry(request: HttpRequest, key: str) -> TournamentTeam:
    entry = checkin.entry_for_key(key)
    if entry is None or entry.tournament.club_id != club_of(request).pk:
        raise Http404(_("This captain's link is not one of this club's."))
    return entry


@never_cache  # the page shows the team's scorer link: no copy in any cache
@require_http_methods(["GET", "POST"])
@one_time
def captain_page(request: HttpRequest, key: str) -> HttpResponse:
    """The captain's own page: the team, its check-in for the next sitting, and in the
    sitting in play its table and scorer link."""
    entry = _captains_entry(request, key)
    if request.method == "POST":
        try:
            checkin.check_in(entry=entry, by_captain=True)
        except TournamentError as error:
            messages.error(request, error.message)
        else:
            messages.success(
                request,
                _("%(team)s is checked in for sitting %(number)d.")
                % {"team": entry.team.name, "number": checkin.next_number(entry.tournament)},
            )
        return redirect(request.path)
    entry = TournamentTeam.objects.select_related(
        "tournament", "team", "captain", *(f"team__{seat}" for seat in PLAYER_FIELDS)
    ).get(pk=entry.pk)
    sitting = current_sitting(entry.tournament)
    context = {
        "entry": entry,
        "tournament": entry.tournament,
        "sitting": sitting,
        **checkin.captain_view(entry, sitting),
    }
    return render(request, "tournaments/captain.html", context)


@never_cache  # the captains' links are secrets
@organiser_required
@require_GET
def team_cards(request: HttpRequest, pk: int) -> HttpResponse:
    """A card a team, to print: its name, players and captain, and the captain's page as a
    QR code (the captain checks the team in, and finds its table and scorer link)."""
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    entries = (
        tournament.entries.filter(withdrawn_at=None)
        .select_related("team", "captain", *(f"team__{seat}" for seat in PLAYER_FIELDS))
        .order_by("team__name")
    )
    cards = [
        {
            "entry": entry,
            "url": public_url(
                request, reverse("tournaments:captain", args=[checkin.captain_key(entry)])
            ),
        }
        for entry in entries
    ]
    return render(
        request,
        "tournaments/team_cards.html",
        {"tournament": tournament, "cards": cards, "unreachable": phones_cannot_reach(request)},
    )


@organiser_required
@require_POST
@one_time
def new_captain_key(request: HttpRequest, pk: int, entry: int) -> HttpResponse:
    """A new code on the team's card: the card printed before stops working."""
    registered = registered_team(request, pk, entry)
    try:
        checkin.new_captain_key(entry=registered, user=request.user)
    except TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _("%(team)s has a new card: print it; the card printed before no longer works.")
            % {"team": registered.team.name},
        )
    return redirect(reverse("tournaments:team_cards", args=[pk]) + f"#card-{registered.pk}")
