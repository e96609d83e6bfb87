"""A tournament's stages: added, their groups or seeds adjusted, drawn again, confirmed or
discarded; and a stage's public page (its groups and chart, or its bracket).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import (
    require_POST,
    require_safe,
)

from club.clubs.addresses import club_of
from club.games.idempotency import one_time
from club.tournaments import stages
from club.tournaments.forms import (
    GroupsForm,
    SeedsForm,
    StageForm,
)
from club.tournaments.models import Stage, Tournament
from club.tournaments.selectors.stages import entries_by_id, stage_page
from club.tournaments.views import detail_page, tournament_version
from club.tournaments.writes import TournamentError
from club.web.auth import may_write, organiser_required
from club.web.pages import cached_page
from club.web.posts import show_refusal


@organiser_required
@require_POST
@one_time
def stage_add(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    form = StageForm(request.POST)
    if not form.is_valid():
        return detail_page(request, tournament, stage_form=form)
    data = form.cleaned_data
    try:
        stage = stages.add_stage(
            tournament=tournament,
            kind=data["kind"],
            deal_limit=data.get("deal_limit"),
            sittings=data.get("sittings"),
            qualifiers=data.get("qualifiers"),
            tie_deals=data.get("tie_deals"),
            tie_rule=data.get("tie_rule") or "",
            user=request.user,
        )
    except TournamentError as error:
        show_refusal(form, error)
        return detail_page(request, tournament, stage_form=form)
    if stage.status == Stage.Status.CONFIRMED:
        messages.success(request, _("%(stage)s begins.") % {"stage": stage.title})
        return redirect(tournament)
    messages.success(
        request,
        _("%(stage)s is drawn: look at it, adjust it if you must, then confirm it.")
        % {"stage": stage.title},
    )
    return redirect(stage)


def _stage(request: HttpRequest, pk: int, number: int) -> Stage:
    return get_object_or_404(
        Stage.objects.select_related("tournament"),
        tournament_id=pk,
        tournament__club=club_of(request),
        number=number,
    )


def _stage_page(request: HttpRequest, stage: Stage, status: int = 200, **forms):
    context = stage_page(stage)
    context["organiser"] = organiser = may_write(request)
    if organiser and stage.status == Stage.Status.PROPOSED:
        entries = context["entries"]
        if stage.kind == Stage.Kind.GROUPS:
            context["groups_form"] = forms.get("groups_form") or GroupsForm(
                stage=stage, entries=entries
            )
        if stage.kind == Stage.Kind.KNOCKOUT:
            context["seeds_form"] = forms.get("seeds_form") or SeedsForm(
                stage=stage, entries=entries
            )
    return render(request, "tournaments/stage.html", context, status=status)


@cached_page(tournament_version)
@require_safe
def stage_detail(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """A stage's groups and chart, or its bracket: public, and printable."""
    return _stage_page(request, _stage(request, pk, number))


def _adjust_stage(request: HttpRequest, pk: int, number: int, form_class, write, done: str):
    """A proposed stage's groups or seeds, as the organiser set them on its page."""
    stage = _stage(request, pk, number)
    kind = Stage.Kind.GROUPS if form_class is GroupsForm else Stage.Kind.KNOCKOUT
    if stage.status != Stage.Status.PROPOSED or stage.kind != kind:
        messages.error(
            request,
            _("%(stage)s is confirmed already; its sittings are drawn from it.")
            % {"stage": stage.title}
            if stage.status != Stage.Status.PROPOSED
            else _("This stage has no groups or seeds of that kind to change."),
        )
        return redirect(stage)
    form = form_class(request.POST, stage=stage, entries=entries_by_id(stage.tournament))
    if form.is_valid():
        try:
            write(stage, form)
        except TournamentError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, done)
            return redirect(stage)
    key = "groups_form" if form_class is GroupsForm else "seeds_form"
    return _stage_page(request, stage, **{key: form})


@organiser_required
@require_POST
@one_time
def stage_groups(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    def write(stage, form):
        group_a, group_b = form.groups()
        stages.adjust_groups(stage=stage, group_a=group_a, group_b=group_b, user=request.user)

    return _adjust_stage(
        request,
        pk,
        number,
        GroupsForm,
        write,
        _("The groups were changed; the chart follows them."),
    )


@organiser_required
@require_POST
@one_time
def stage_seeds(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    def write(stage, form):
        stages.adjust_seeds(stage=stage, seeds=form.seeds(), user=request.user)

    return _adjust_stage(
        request,
        pk,
        number,
        SeedsForm,
        write,
        _("The seeds were changed; the bracket follows them."),
    )


def _stage_action(request: HttpRequest, pk: int, number: int, action, done: str):
    stage = _stage(request, pk, number)
    try:
        action(stage=stage, user=request.user)
    except TournamentError as error:
        messages.error(request, error.message)
        return redirect(stage)
    messages.success(request, done % {"stage": stage.title})
    return redirect(stage.tournament if action is stages.discard_stage else stage)


@organiser_required
@require_POST
@one_time
def stage_redraw(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    return _stage_action(request, pk, number, stages.redraw_stage, _("%(stage)s was drawn again."))


@organiser_required
@require_POST
@one_time
def stage_confirm(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    return _stage_action(
        request,
        pk,
        number,
        stages.confirm_stage,
        _("%(stage)s is confirmed: draw its first sitting from the tournament's page."),
    )


@organiser_required
@require_POST
@one_time
def stage_discard(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    return _stage_action(request, pk, number, stages.discard_stage, _("%(stage)s was discarded."))
