"""Thin views for tournaments: public pages read selectors, organiser forms call one service.

The tournament's own pages are here (its list, a new one, its page and the parts that
poll, the director's board, finishing, printed standings, where the players sit); its
teams', sittings' and stages' pages are in ``team_views``, ``sitting_views`` and
``stage_views``.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
    require_safe,
)

from club.clubs.addresses import club_of
from club.games.forms import form_of_play_words
from club.games.idempotency import one_time
from club.games.models import PLAYER_FIELDS, Player, Scoring
from club.games.versions import club_version
from club.tournaments import checkin, clock_views, seats, stages
from club.tournaments.forms import (
    DrawForm,
    RegisterTeamForm,
    RegisterTeamsForm,
    ReopenForm,
    StageForm,
    TournamentForm,
)
from club.tournaments.models import Standing, Tournament
from club.tournaments.previews import sitting_card, standings_card, tournament_preview
from club.tournaments.selectors import board
from club.tournaments.selectors.live import (
    embed_context,
    live_context,
    live_version,
    page_tokens,
    projector_context,
    sittings_played,
)
from club.tournaments.selectors.pages import tournament_lists, tournament_page
from club.tournaments.services.lifecycle import (
    create_tournament,
    finish_tournament,
    make_final,
    reopen,
)
from club.tournaments.writes import TournamentError
from club.web.auth import may_write, organiser_required
from club.web.embed import embeddable
from club.web.kept import page_query
from club.web.pages import cached_page
from club.web.paging import page_number
from club.web.posts import show_refusal
from club.web.preview import picture
from club.web.requests import HtmxHttpRequest


def _not_modified(request: HttpRequest, version: str | None) -> bool:
    """A poll that already shows this version gets 204 No Content: nothing to swap.
    A version of None (a player's page's, for a tournament deleted meanwhile) matches
    only a request that names none."""
    return request.GET.get("version") == version


@page_query("page")
def tournament_list(request: HttpRequest) -> HttpResponse:
    return render(
        request, "tournaments/list.html", tournament_lists(club_of(request), page_number(request))
    )


@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
def tournament_new(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = TournamentForm(request.POST)
    else:
        # When the form of play changes, htmx asks again with what was typed so far
        # and the preset's settings filled in (as the new-game form does).
        initial = request.GET.dict()
        if "preset" in request.GET and (
            request.headers.get("HX-Trigger-Name") == "preset" or "apply" in request.GET
        ):
            initial.update(
                TournamentForm.preset_initial(request.GET["preset"], initial.get("team_size"))
            )
        form = TournamentForm(initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = create_tournament(
                name=data["name"],
                starts_on=data["starts_on"],
                ends_on=data["ends_on"],
                venue=data["venue"],
                rules=data["rules"],
                deal_limit=data["deal_limit"],
                points_scheme=data["points_scheme"],
                require_confirmation=data["require_confirmation"],
                check_in=data["check_in"],
                substitutions=1 if data["substitutions"] is None else data["substitutions"],
                user=request.user,
                club=club_of(request),
            )
        except TournamentError as error:
            show_refusal(form, error)
        else:
            messages.success(
                request, _("Tournament “%(name)s” created.") % {"name": tournament.name}
            )
            return redirect(tournament)
    return render(request, "tournaments/new.html", {"form": form})


def detail_page(request: HttpRequest, tournament: Tournament, status: int = 200, **forms):
    organiser = may_write(request)
    context = tournament_page(tournament, organiser=organiser)
    context["form_of_play"] = form_of_play_words(tournament)
    # The page's head and its Share button (club.web.preview).
    context["preview"] = tournament_preview(request, context, tournament_version)
    if organiser:
        size = tournament.team_size
        context["register_form"] = forms.get("register_form") or RegisterTeamForm(team_size=size)
        context["bulk_form"] = forms.get("bulk_form") or RegisterTeamsForm(team_size=size)
        context["draw_form"] = forms.get("draw_form") or DrawForm(team_size=size)
        context["reopen_form"] = forms.get("reopen_form") or ReopenForm()
        context["stage_form"] = forms.get("stage_form") or _stage_form(context)
    return render(request, "tournaments/detail.html", context, status=status)


def _stage_form(context: dict) -> StageForm:
    """The next stage's form, its numbers set for the teams registered (the page's lists)."""
    teams = sum(1 for entry in context["entries"] if not entry["withdrawn"])
    half = max(1, teams // 2)
    return StageForm(
        initial={
            "kind": "knockout" if context["stages"] else "groups",
            # docs/rules.md section E: the International's groups play 8 sessions.
            "sittings": min(8, half),
            "qualifiers": min(8, max(2, teams)),
            "tie_deals": stages.DEFAULT_TIE_DEALS,
        }
    )


def tournament_version(request: HttpRequest, pk: int, **_kwargs):
    """A tournament's public pages' key (club.web.pages): its results and live games (the
    live poll's token), then its newest line of history (draws, stages, registrations)
    and the club's token."""
    club = club_of(request)
    tokens = page_tokens(pk, club.pk)  # one query for the three
    if tokens is None:
        return None
    live, newest_event = tokens
    return live, lambda: f"{newest_event}|{club_version(club)}"


def _player_version(request: HttpRequest, pk: int, player: int):
    """A player's page's key: the page's own token (it polls by it) and the club's."""
    club = club_of(request)
    version = seats.page_version(pk, club.pk)
    return None if version is None else (version, lambda: club_version(club))


# The pictures a shared tournament's or sitting's link shows (club/tournaments/previews.py),
# kept under the tournament pages' version.
tournament_picture = picture(tournament_version, standings_card)
sitting_picture = picture(tournament_version, sitting_card)


@cached_page(tournament_version)
def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return detail_page(request, get_object_or_404(Tournament, pk=pk, club=club_of(request)))


@cached_page(tournament_version)
def tournament_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The standings and games fragment the public page polls for."""
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    version = live_version(tournament)
    if _not_modified(request, version):
        return HttpResponse(status=204)
    context = live_context(tournament, version)
    return render(request, "tournaments/detail.html#live", context)


@embeddable
@cached_page(tournament_version)
def tournament_embed(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The standings alone, for a club's website to show in an <iframe> (club/web/embed.py);
    they refresh themselves as the tournament page's do."""
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    version = live_version(tournament)
    if _not_modified(request, version):
        return HttpResponse(status=204)
    polled = "version" in request.GET or request.htmx
    template = "tournaments/embed.html#live" if polled else "tournaments/embed.html"
    return render(request, template, embed_context(tournament, version))


def _projector_token(live: str, newest_event: int) -> str:
    """The projector's poll token: the live token and the newest line of history, which a
    clock set, changed or stopped adds (club.tournaments.clock): the projector shows it."""
    return f"{live}.{newest_event}"


def projector_version(request: HttpRequest, pk: int, **_kwargs):
    """The projector's key: the tournament's pages' (:func:`tournament_version`), with the
    newest line of history in its own token, so that its poll fetches a clock just set."""
    club = club_of(request)
    tokens = page_tokens(pk, club.pk)
    if tokens is None:
        return None
    return _projector_token(*tokens), lambda: str(club_version(club))


@cached_page(projector_version)
def tournament_projector(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    version = _projector_token(*(page_tokens(tournament.pk) or (live_version(tournament), 0)))
    if "version" in request.GET or request.htmx:
        if _not_modified(request, version):
            return HttpResponse(status=204)
        template = "tournaments/projector.html#live"
    else:
        template = "tournaments/projector.html"
    return render(request, template, projector_context(tournament, version))


@organiser_required
@require_GET
def director_board(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The director's board: every table of the sitting in play, what needs attention first.

    It polls like the public pages: ``?version=`` answers 204 while nothing changed.
    """
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    sitting = board.current_sitting(tournament)
    version = board.board_version(tournament, sitting)
    if _not_modified(request, version):
        return HttpResponse(status=204)
    context = board.director_board(tournament, sitting, version=version)
    context["check_ins"] = checkin.check_in_list(tournament)
    context.update(clock_views.board_context())
    template = "tournaments/board.html#live" if request.htmx else "tournaments/board.html"
    return render(request, template, context)


def _tournament_action(request: HttpRequest, pk: int, action, done: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    try:
        action(tournament=tournament, user=request.user)
    except TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, done)
    return redirect(tournament)


@organiser_required
@require_POST
@one_time
def tournament_finish(request: HttpRequest, pk: int) -> HttpResponse:
    return _tournament_action(request, pk, finish_tournament, _("The tournament is finished."))


@organiser_required
@require_POST
@one_time
def tournament_final(request: HttpRequest, pk: int) -> HttpResponse:
    return _tournament_action(
        request, pk, make_final, _("The results are final; the games are locked.")
    )


@organiser_required
@require_POST
@one_time
def tournament_reopen(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    form = ReopenForm(request.POST)
    if form.is_valid():
        try:
            reopen(tournament=tournament, reason=form.cleaned_data["reason"], user=request.user)
        except TournamentError as error:
            form.add_error("reason" if error.field == "reason" else None, error.message)
        else:
            messages.success(request, _("The tournament is reopened for corrections."))
            return redirect(tournament)
    return detail_page(request, tournament, reopen_form=form)


@require_safe
def print_standings(request, pk: int):
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    standings = (
        Standing.objects.filter(tournament=tournament)
        .select_related(*(f"entry__team__{seat}" for seat in PLAYER_FIELDS))
        .order_by("place", "entry__team__name")
    )
    return render(
        request,
        "tournaments/print_standings.html",
        {
            "tournament": tournament,
            "standings": standings,
            **sittings_played(tournament),
            "points_sheet": tournament.scoring == Scoring.POINTS,
        },
    )


# --- Where the players sit -------------------------------------------------------------


@cached_page(_player_version)
@require_safe
def player_page(request: HtmxHttpRequest, pk: int, player: int) -> HttpResponse:
    """A player's page in the tournament: the sitting in play, the next one, their games.
    It refreshes itself like the public pages (204 while nothing changed)."""
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    person = get_object_or_404(Player, pk=player)
    entry = seats.entry_of(tournament, person)
    if entry is None:
        raise Http404(_("This player does not play in this tournament."))
    if _not_modified(request, seats.page_version(tournament.pk)):
        return HttpResponse(status=204)
    context = seats.player_page(tournament, person, entry)
    template = (
        "tournaments/player.html#live"
        if request.htmx or "version" in request.GET
        else ("tournaments/player.html")
    )
    return render(request, template, context)


@page_query("q")
@cached_page(tournament_version)
@require_safe
def seats_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Where do I sit: the sitting in play, table by table, findable by name."""
    tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
    query = request.GET.get("q", "")[:100]
    return render(request, "tournaments/seats.html", seats.draw_page(tournament, query))
