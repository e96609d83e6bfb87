"""A tournament's teams, for the organiser: registered one at a time or as a pasted list,
changed before they have played, withdrawn and reinstated.
"""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import (
    require_http_methods,
    require_POST,
)

from club.clubs.addresses import club_of
from club.games.idempotency import one_time
from club.games.models import PLAYER_FIELDS
from club.games.other_clubs import PlayersOfOtherClubs
from club.tournaments.forms import (
    EditTeamForm,
    RegisterTeamForm,
    RegisterTeamsForm,
)
from club.tournaments.models import Tournament, TournamentTeam
from club.tournaments.services.teams import (
    RegistrationErrors,
    edit_team,
    register_team,
    register_teams,
    reinstate_team,
    withdraw_team,
)
from club.tournaments.views import detail_page
from club.tournaments.writes import TournamentError
from club.web.auth import organiser_required
from club.web.uploads import takes_upload


@organiser_required
@require_POST
@one_time
def team_register(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    form = RegisterTeamForm(request.POST, team_size=tournament.team_size)
    if form.is_valid():
        try:
            entry = register_team(
                tournament=tournament,
                first=form.cleaned_data["first"],
                second=form.cleaned_data["second"],
                third=form.cleaned_data.get("third", ""),
                fourth=form.cleaned_data.get("fourth", ""),
                name=form.cleaned_data["name"],
                captain=form.captain_name(),
                user=request.user,
                same_people=form.cleaned_data["same_people"],
            )
        except PlayersOfOtherClubs as refusal:  # asked on their fields: "the same Anu?"
            form.ask_same_people(refusal, RegisterTeamForm.PLAYERS)
        except TournamentError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("%(team)s registered.") % {"team": entry.team.name})
            return redirect(tournament.get_absolute_url() + "#register")
    return detail_page(request, tournament, register_form=form)


@organiser_required
@require_POST
@one_time
@takes_upload(RegisterTeamsForm)
def teams_register(request: HttpRequest, pk: int) -> HttpResponse:
    """Many teams at once, pasted or uploaded: all of them, or none with every line's fault."""
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    form = RegisterTeamsForm(request.POST, request.FILES, team_size=tournament.team_size)
    if form.is_valid():
        unread = form.cleaned_data["line_errors"]
        try:
            with transaction.atomic():  # the lines read are checked, and undone if any line fails
                entries = register_teams(
                    tournament=tournament,
                    teams=form.cleaned_data["lines"],
                    user=request.user,
                    same_people=form.cleaned_data["same_people"],
                )
                if unread:
                    raise RegistrationErrors([])
        except RegistrationErrors as refusal:
            faults = sorted(unread + refusal.errors)
            form.add_error(None, RegistrationErrors(faults).message)
            for line, reason in faults:
                form.add_error(
                    "teams", _("Line %(line)d: %(reason)s") % {"line": line, "reason": reason}
                )
            # A tick for each player of another club the lines name: "the same Anu?"
            form.offer_ticks("teams", refusal.others)
        except TournamentError as error:
            form.add_error(None, error.message)
        else:
            messages.success(
                request,
                ngettext("%(count)d team registered.", "%(count)d teams registered.", len(entries))
                % {"count": len(entries)},
            )
            return redirect(tournament.get_absolute_url() + "#register")
    return detail_page(request, tournament, bulk_form=form)


def registered_team(request: HttpRequest, pk: int, entry: int) -> TournamentTeam:
    """The registration ``entry`` of tournament ``pk``, its team and players loaded; or 404."""
    return get_object_or_404(
        TournamentTeam.objects.select_related(
            "tournament", "team", *(f"team__{seat}" for seat in PLAYER_FIELDS)
        ),
        tournament_id=pk,
        tournament__club=club_of(request),
        pk=entry,
    )


@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
def team_edit(request: HttpRequest, pk: int, entry: int) -> HttpResponse:
    registered = registered_team(request, pk, entry)
    tournament = registered.tournament
    size = tournament.team_size
    if request.method == "POST":
        form = EditTeamForm(request.POST, team_size=size)
        if form.is_valid():
            data = form.cleaned_data
            try:
                edit_team(
                    entry=registered,
                    players=[data.get(name, "") for name in EditTeamForm.PLAYERS],
                    name=data["name"],
                    captain=form.captain_name(),
                    user=request.user,
                    same_people=data["same_people"],
                )
            except PlayersOfOtherClubs as refusal:  # asked on their fields: "the same Anu?"
                form.ask_same_people(refusal, EditTeamForm.PLAYERS)
            except TournamentError as error:
                form.add_error(None, error.message)
            else:
                messages.success(request, _("The team is changed."))
                return redirect(tournament.get_absolute_url() + "#teams")
    else:
        players = [player.name for player in registered.team.players]
        captain = next(
            (
                seat
                for seat, player in zip(EditTeamForm.PLAYERS, registered.team.players, strict=False)
                if player.pk == registered.captain_id
            ),
            "first",
        )
        form = EditTeamForm(
            initial={
                **dict(zip(EditTeamForm.PLAYERS, players, strict=False)),
                "name": registered.team.name,
                "captain": captain,
            },
            team_size=size,
        )
    return render(
        request,
        "tournaments/team_edit.html",
        {"tournament": tournament, "entry": registered, "form": form},
    )


def _team_action(request: HttpRequest, pk: int, entry: int, action, done: str) -> HttpResponse:
    registered = registered_team(request, pk, entry)
    try:
        action(entry=registered, user=request.user)
    except TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, done % {"team": registered.team.name})
    return redirect(registered.tournament.get_absolute_url() + "#teams")


@organiser_required
@require_POST
@one_time
def team_withdraw(request: HttpRequest, pk: int, entry: int) -> HttpResponse:
    return _team_action(
        request, pk, entry, withdraw_team, _("%(team)s is withdrawn: no new games.")
    )


@organiser_required
@require_POST
@one_time
def team_reinstate(request: HttpRequest, pk: int, entry: int) -> HttpResponse:
    return _team_action(request, pk, entry, reinstate_team, _("%(team)s is back in the draws."))
