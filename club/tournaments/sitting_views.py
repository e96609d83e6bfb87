"""A tournament's sittings: drawn, adjusted, confirmed or discarded; time called; their
scorer links and score sheets printed.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import (
    require_GET,
    require_POST,
)

from club.clubs.addresses import club_of
from club.games import words
from club.games.idempotency import one_time
from club.games.link_views import link_rows, sheet_context
from club.games.models import PLAYER_FIELDS, GameTeam
from club.games.services import Seating
from club.tournaments import calling_time, draw_words
from club.tournaments.forms import (
    AdjustSittingForm,
    DrawForm,
)
from club.tournaments.models import Sitting, Tournament, TournamentTeam
from club.tournaments.previews import sitting_preview
from club.tournaments.selectors.sittings import draw_entries, sitting_page
from club.tournaments.services.draw import adjust_sitting, discard_sitting, propose_sitting
from club.tournaments.services.sittings import confirm_sitting, issue_sitting_links
from club.tournaments.views import detail_page, tournament_version
from club.tournaments.writes import TournamentError
from club.web.auth import may_write, organiser_required
from club.web.net import phones_cannot_reach


@organiser_required
@require_POST
@one_time
def sitting_draw(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    form = DrawForm(request.POST, team_size=tournament.team_size)
    if not form.is_valid():
        return detail_page(request, tournament, draw_form=form)
    try:
        sitting = propose_sitting(
            tournament=tournament, game_size=form.cleaned_data["game_size"], user=request.user
        )
    except TournamentError as error:
        form.add_error(None, error.message)
        return detail_page(request, tournament, draw_form=form)
    return redirect("tournaments:sitting", pk=tournament.pk, number=sitting.number)


def _sitting(request: HttpRequest, pk: int, number: int) -> Sitting:
    return get_object_or_404(
        Sitting.objects.select_related("tournament", "stage"),
        tournament_id=pk,
        tournament__club=club_of(request),
        number=number,
    )


def _entry_names(sitting: Sitting) -> dict[int, str]:
    """The names of every team of the tournament, if the sitting's draw is explained: the
    explanation may name a team the draw left out (a chart's opponent who withdrew)."""
    if not sitting.explained:
        return {}
    entries = TournamentTeam.objects.filter(tournament_id=sitting.tournament_id)
    return dict(entries.values_list("pk", "team__name"))


def _how_drawn(sitting: Sitting, names: dict[int, str]) -> dict | None:
    """How the sitting was drawn, in the reader's words (none for one drawn before)."""
    stage_title = sitting.stage.title if sitting.stage is not None else ""
    return draw_words.explanation(sitting.explained, names, sitting.proposal, stage_title)


def _sitting_page(request: HttpRequest, sitting: Sitting, form=None, status: int = 200):
    context = sitting_page(sitting)
    # The page's head and its Share button (club.web.preview).
    context["preview"] = sitting_preview(request, context, tournament_version)
    context["how_drawn"] = _how_drawn(sitting, _entry_names(sitting))
    if sitting.status == Sitting.Status.PROPOSED and may_write(request):
        context["adjust_form"] = form or AdjustSittingForm(
            sitting=sitting, entries=context["entries"]
        )
    return render(request, "tournaments/sitting.html", context, status=status)


def sitting_detail(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    return _sitting_page(request, _sitting(request, pk, number))


@organiser_required
@require_POST
@one_time
def sitting_adjust(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    sitting = _sitting(request, pk, number)
    form = AdjustSittingForm(request.POST, sitting=sitting, entries=draw_entries(sitting))
    if sitting.status != Sitting.Status.PROPOSED:
        messages.error(request, _("This sitting is confirmed already; its games have started."))
        return redirect("tournaments:sitting", pk=pk, number=number)
    if form.is_valid():
        try:
            adjust_sitting(
                sitting=sitting,
                games=form.cleaned_data["games"],
                byes=form.cleaned_data["bye_ids"],
                user=request.user,
            )
        except TournamentError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("The draw was changed."))
            return redirect("tournaments:sitting", pk=pk, number=number)
    return _sitting_page(request, sitting, form=form)


@organiser_required
@require_POST
@one_time
def sitting_confirm(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    sitting = _sitting(request, pk, number)
    try:
        confirm_sitting(sitting=sitting, user=request.user)
    except TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request, _("%(sitting)s confirmed: its games have started.") % {"sitting": sitting}
        )
    return redirect("tournaments:sitting", pk=pk, number=number)


@organiser_required
@require_POST
@one_time
def sitting_discard(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    sitting = _sitting(request, pk, number)
    try:
        discard_sitting(sitting=sitting, user=request.user)
    except TournamentError as error:
        messages.error(request, error.message)
        return redirect("tournaments:sitting", pk=pk, number=number)
    messages.success(request, _("The proposed draw was discarded."))
    return redirect(sitting.tournament)


@organiser_required
@require_POST
@one_time
def sitting_call_time(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """The director calls time on the sitting. Tables with no deal end level, so they are
    named first, on a page of their own, and end only on that page's own answer."""
    sitting = _sitting(request, pk, number)
    if sitting.status != Sitting.Status.CONFIRMED:
        messages.error(request, _("This sitting is not confirmed yet; its games do not exist."))
        return redirect("tournaments:sitting", pk=pk, number=number)
    posted = request.POST.getlist("level")
    agreed = {int(game) for game in posted if game.isdecimal() and len(game) < 19}
    try:
        called = calling_time.call_time(sitting=sitting, user=request.user, agreed=agreed)
    except calling_time.NoDealYet as asked:
        return _no_deal_question(request, sitting, asked.tables)
    except TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request, words.time_called_news(sitting.tournament, called.ended, called.level)
        )
    return redirect("tournaments:sitting", pk=pk, number=number)


def _no_deal_question(request: HttpRequest, sitting: Sitting, tables) -> HttpResponse:
    """The tables with no deal, named, and the button that ends them level with the rest."""
    playing = len(calling_time.playing(sitting))
    where = [sitting.tournament_id, sitting.number]
    return render(
        request,
        "games/call_time.html",
        {
            "title": f"{sitting.tournament.name} · {sitting}",
            "back": reverse("tournaments:sitting", args=where),
            "action": reverse("tournaments:call_time", args=where),
            "no_deal": [
                {
                    "game": table.game,
                    "line": words.no_deal_line(words.table_title(table.label), table.teams),
                }
                for table in tables
            ],
            "others": playing - len(tables),
            "how": words.how_placed_when_stopped(sitting.tournament),
        },
    )


@organiser_required
@require_POST
@one_time
def sitting_links(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """New scorer links for every table of the sitting at once; then the sheet to print."""
    sitting = _sitting(request, pk, number)
    try:
        count = issue_sitting_links(sitting=sitting, user=request.user)
    except TournamentError as error:
        messages.error(request, error.message)
        return redirect("tournaments:sitting", pk=pk, number=number)
    messages.success(
        request,
        ngettext(
            "Scorer links issued for %(count)d table; any earlier link of its game no longer "
            "works.",
            "Scorer links issued for %(count)d tables; any earlier link of their games no "
            "longer works.",
            count,
        )
        % {"count": count},
    )
    return redirect("tournaments:sitting_links_print", pk=pk, number=number)


@never_cache  # the page shows the links' secrets: no copy in any cache
@organiser_required
@require_GET
def sitting_links_print(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Every table's scorer links of the sitting on one sheet to print, a code a page."""
    sitting = _sitting(request, pk, number)
    entries = list(sitting.games.select_related("game").order_by("position"))
    games = []
    for entry in entries:
        entry.game.sitting_entry = entry
        games.append(entry.game)
    rows = link_rows(request, games)
    return render(
        request,
        "games/links_print.html",
        {
            "games": [{"game": game, "rows": rows[game.pk]} for game in games],
            "back": reverse("tournaments:sitting", args=[pk, number]),
            "title": f"{sitting.tournament.name} · {sitting}",
            "unreachable": phones_cannot_reach(request),
        },
    )


@require_GET
def sitting_sheets(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """The paper score sheet of every game of the sitting, one A4 page a table."""
    sitting = get_object_or_404(
        Sitting.objects.select_related("tournament", "stage"),
        tournament_id=pk,
        tournament__club=club_of(request),
        number=number,
    )
    entries = list(sitting.games.select_related("game", "sitting__tournament").order_by("position"))
    by_game: dict[int, list[GameTeam]] = {}
    captains = dict(
        TournamentTeam.objects.filter(tournament_id=pk).values_list("team_id", "captain_id")
    )
    for team in (
        GameTeam.objects.filter(game__in=[entry.game_id for entry in entries])
        .select_related("team", *PLAYER_FIELDS)
        .order_by("game_id", "position")
    ):
        team.captain_pk = captains.get(team.team_id)  # marked on the sheet
        by_game.setdefault(team.game_id, []).append(team)
    # An organiser's printout carries each table's scorer links as QR codes; the links
    # are secrets, so nobody else's copy of the (public) sheets shows them.
    codes = link_rows(request, [e.game for e in entries]) if may_write(request) else {}
    sheets = []
    for entry in entries:
        game = entry.game
        game.sitting_entry = entry
        sheet = sheet_context(game, Seating(by_game.get(game.pk, []), game.rules))
        sheet["links"] = codes.get(game.pk, [])
        sheets.append(sheet)
    response = render(
        request,
        "tournaments/sitting_sheets.html",
        {
            "sitting": sitting,
            "tournament": sitting.tournament,
            "sheets": sheets,
            "how_drawn": _how_drawn(sitting, _entry_names(sitting)),
        },
    )
    if codes:
        add_never_cache_headers(response)  # the links' secrets: no copy in any cache
    return response
