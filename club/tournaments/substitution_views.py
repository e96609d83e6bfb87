"""Who plays for a registered team: thin views over club.tournaments.substitutions.

The director names a substitute for one of a team's players from a sitting on, brings
the starting player back from a later sitting, or undoes a substitution no game has been
played with yet (made by mistake). Each answers with the team's page again.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from club.games.idempotency import one_time
from club.games.other_clubs import PlayersOfOtherClubs
from club.tournaments import substitutions
from club.tournaments.forms import ReturnForm, SubstitutionForm
from club.tournaments.models import Substitution, TournamentTeam
from club.tournaments.team_views import registered_team
from club.tournaments.writes import TournamentError
from club.web.auth import organiser_required
from club.web.posts import show_refusal


def _page_url(entry: TournamentTeam) -> str:
    return reverse("tournaments:team_players", args=[entry.tournament_id, entry.pk])


def _page(request: HttpRequest, entry: TournamentTeam, form=None):
    tournament = entry.tournament
    first = substitutions.first_open_sitting(tournament)
    made = list(
        entry.substitutions.select_related("player_in", "player_out", "made_by").order_by("id")
    )
    if form is None:
        form = SubstitutionForm(players=entry.team.players, first_sitting=first)
    return render(
        request,
        "tournaments/team_players.html",
        {
            "tournament": tournament,
            "entry": entry,
            "form": form,
            "made": [
                {
                    "substitution": substitution,
                    "played": substitution.first_sitting < first,
                    # Back from a sitting not yet played: the return may still move.
                    "may_return": substitution.returned_from is None
                    or substitution.returned_from >= first,
                    "back_form": ReturnForm(
                        initial={
                            "returned_from": substitution.returned_from
                            or max(first, substitution.first_sitting + 1)
                        },
                        prefix=f"back{substitution.pk}",
                    ),
                }
                for substitution in made
            ],
            "line_up": substitutions.line_up(entry.team.players, made, first),
            "first_open": first,
            "may_substitute": (
                len(made) < tournament.substitutions
                and entry.withdrawn_at is None
                and tournament.status != tournament.Status.FINISHED
                and not tournament.is_final
            ),
        },
    )


@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
def team_players(request: HttpRequest, pk: int, entry: int) -> HttpResponse:
    """The team's players and substitutions; a POST names a substitute."""
    registered = registered_team(request, pk, entry)
    if request.method != "POST":
        return _page(request, registered)
    form = SubstitutionForm(
        request.POST,
        players=registered.team.players,
        first_sitting=substitutions.first_open_sitting(registered.tournament),
    )
    if form.is_valid():
        data = form.cleaned_data
        out = next(p for p in registered.team.players if p.pk == data["player_out"])
        try:
            made = substitutions.substitute(
                entry=registered,
                player_out=out,
                player_in=data["player_in"],
                first_sitting=data["first_sitting"],
                user=request.user,
                same_people=data["same_people"],
            )
        except PlayersOfOtherClubs as refusal:  # asked on the field: "the same Anu?"
            form.ask_same_people(refusal, ["player_in"])
        except TournamentError as error:
            show_refusal(form, error)
        else:
            messages.success(
                request,
                _("%(substitute)s sits in for %(player)s from sitting %(number)d.")
                % {
                    "substitute": made.player_in.name,
                    "player": out.name,
                    "number": made.first_sitting,
                },
            )
            return redirect(_page_url(registered))
    return _page(request, registered, form)


def _substitution(registered: TournamentTeam, substitution: int) -> Substitution:
    return get_object_or_404(
        Substitution.objects.select_related("player_in", "player_out"),
        entry=registered,
        pk=substitution,
    )


@organiser_required
@require_POST
@one_time
def player_back(request: HttpRequest, pk: int, entry: int, substitution: int) -> HttpResponse:
    """The starting player plays again from the sitting given."""
    registered = registered_team(request, pk, entry)
    made = _substitution(registered, substitution)
    form = ReturnForm(request.POST, prefix=f"back{made.pk}")
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(str(error) for error in errors))
        return redirect(_page_url(registered))
    try:
        substitutions.bring_back(
            substitution=made, returned_from=form.cleaned_data["returned_from"], user=request.user
        )
    except TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _("%(player)s is back from sitting %(number)d.")
            % {"player": made.player_out.name, "number": form.cleaned_data["returned_from"]},
        )
    return redirect(_page_url(registered))


@organiser_required
@require_POST
@one_time
def substitution_undo(request: HttpRequest, pk: int, entry: int, substitution: int):
    """A substitution no game has been played with, taken back."""
    registered = registered_team(request, pk, entry)
    made = _substitution(registered, substitution)
    try:
        substitutions.undo(substitution=made, user=request.user)
    except TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _("The substitution is undone: %(player)s plays for %(team)s.")
            % {"player": made.player_out.name, "team": registered.team.name},
        )
    return redirect(_page_url(registered))
