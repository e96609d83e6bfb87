"""Thin views for tournaments: public pages read selectors, organiser forms call one service."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
    require_safe,
)

from club.games import words
from club.games.forms import form_of_play_words
from club.games.idempotency import one_time
from club.games.link_views import link_rows, sheet_context
from club.games.models import PLAYER_FIELDS, GameTeam, Player, Scoring
from club.games.services import Seating
from club.games.versions import club_version
from club.tournaments import calling_time, checkin, seats, selectors, services, stages
from club.tournaments.forms import (
    AdjustSittingForm,
    DrawForm,
    EditTeamForm,
    GroupsForm,
    RegisterTeamForm,
    RegisterTeamsForm,
    ReopenForm,
    SeedsForm,
    StageForm,
    TournamentForm,
)
from club.tournaments.models import Sitting, Stage, Standing, Tournament, TournamentTeam
from club.tournaments.services import TournamentError
from club.web.auth import is_organiser, organiser_required
from club.web.embed import embeddable
from club.web.kept import page_query
from club.web.net import phones_cannot_reach
from club.web.pages import cached_page
from club.web.paging import page_number
from club.web.posts import show_refusal
from club.web.uploads import takes_upload


def _not_modified(request: HttpRequest, version: str) -> bool:
    """A poll that already shows this version gets 204 No Content: nothing to swap."""
    return request.GET.get("version") == version


@page_query("page")
def tournament_list(request: HttpRequest) -> HttpResponse:
    return render(
        request, "tournaments/list.html", selectors.tournament_lists(page_number(request))
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
            tournament = services.create_tournament(
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
            )
        except TournamentError as error:
            show_refusal(form, error)
        else:
            messages.success(
                request, _("Tournament “%(name)s” created.") % {"name": tournament.name}
            )
            return redirect(tournament)
    return render(request, "tournaments/new.html", {"form": form})


def _detail(request: HttpRequest, tournament: Tournament, status: int = 200, **forms):
    organiser = is_organiser(request.user)
    context = selectors.tournament_page(tournament, organiser=organiser)
    context["form_of_play"] = form_of_play_words(tournament)
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
    tokens = selectors.page_tokens(pk)  # one query for the three
    if tokens is None:
        return None
    live, newest_event = tokens
    return live, lambda: f"{newest_event}|{club_version()}"


def _player_version(request: HttpRequest, pk: int, player: int):
    """A player's page's key: the page's own token (it polls by it) and the club's."""
    version = seats.page_version(pk)
    return None if version is None else (version, club_version)


@cached_page(tournament_version)
def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return _detail(request, get_object_or_404(Tournament, pk=pk))


@cached_page(tournament_version)
def tournament_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The standings and games fragment the public page polls for."""
    tournament = get_object_or_404(Tournament, pk=pk)
    version = selectors.live_version(tournament)
    if _not_modified(request, version):
        return HttpResponse(status=204)
    context = selectors.live_context(tournament, version)
    return render(request, "tournaments/detail.html#live", context)


@embeddable
@cached_page(tournament_version)
def tournament_embed(request: HttpRequest, pk: int) -> HttpResponse:
    """The standings alone, for a club's website to show in an <iframe> (club/web/embed.py);
    they refresh themselves as the tournament page's do."""
    tournament = get_object_or_404(Tournament, pk=pk)
    version = selectors.live_version(tournament)
    if _not_modified(request, version):
        return HttpResponse(status=204)
    polled = "version" in request.GET or request.htmx
    template = "tournaments/embed.html#live" if polled else "tournaments/embed.html"
    return render(request, template, selectors.embed_context(tournament, version))


@cached_page(tournament_version)
def tournament_projector(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    version = None
    if "version" in request.GET or request.htmx:
        version = selectors.live_version(tournament)
        if _not_modified(request, version):
            return HttpResponse(status=204)
        template = "tournaments/projector.html#live"
    else:
        template = "tournaments/projector.html"
    return render(request, template, selectors.projector_context(tournament, version))


@organiser_required
@require_GET
def director_board(request: HttpRequest, pk: int) -> HttpResponse:
    """The director's board: every table of the sitting in play, what needs attention first.

    It polls like the public pages: ``?version=`` answers 204 while nothing changed.
    """
    tournament = get_object_or_404(Tournament, pk=pk)
    sitting = selectors.current_sitting(tournament)
    version = selectors.board_version(tournament, sitting)
    if _not_modified(request, version):
        return HttpResponse(status=204)
    context = selectors.director_board(tournament, sitting, version=version)
    context["check_ins"] = checkin.check_in_list(tournament)
    template = "tournaments/board.html#live" if request.htmx else "tournaments/board.html"
    return render(request, template, context)


@organiser_required
@require_POST
@one_time
def team_register(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    form = RegisterTeamForm(request.POST, team_size=tournament.team_size)
    if form.is_valid():
        try:
            entry = services.register_team(
                tournament=tournament,
                first=form.cleaned_data["first"],
                second=form.cleaned_data["second"],
                third=form.cleaned_data.get("third", ""),
                fourth=form.cleaned_data.get("fourth", ""),
                name=form.cleaned_data["name"],
                captain=form.captain_name(),
                user=request.user,
            )
        except TournamentError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("%(team)s registered.") % {"team": entry.team.name})
            return redirect(tournament.get_absolute_url() + "#register")
    return _detail(request, tournament, register_form=form)


@organiser_required
@require_POST
@one_time
@takes_upload(RegisterTeamsForm)
def teams_register(request: HttpRequest, pk: int) -> HttpResponse:
    """Many teams at once, pasted or uploaded: all of them, or none with every line's fault."""
    tournament = get_object_or_404(Tournament, pk=pk)
    form = RegisterTeamsForm(request.POST, request.FILES, team_size=tournament.team_size)
    if form.is_valid():
        unread = form.cleaned_data["line_errors"]
        try:
            with transaction.atomic():  # the lines read are checked, and undone if any line fails
                entries = services.register_teams(
                    tournament=tournament, teams=form.cleaned_data["lines"], user=request.user
                )
                if unread:
                    raise services.RegistrationErrors([])
        except services.RegistrationErrors as refusal:
            faults = sorted(unread + refusal.errors)
            form.add_error(None, services.RegistrationErrors(faults).message)
            for line, reason in faults:
                form.add_error(
                    "teams", _("Line %(line)d: %(reason)s") % {"line": line, "reason": reason}
                )
        except TournamentError as error:
            form.add_error(None, error.message)
        else:
            messages.success(
                request,
                ngettext("%(count)d team registered.", "%(count)d teams registered.", len(entries))
                % {"count": len(entries)},
            )
            return redirect(tournament.get_absolute_url() + "#register")
    return _detail(request, tournament, bulk_form=form)


def registered_team(pk: int, entry: int) -> TournamentTeam:
    """The registration ``entry`` of tournament ``pk``, its team and players loaded; or 404."""
    return get_object_or_404(
        TournamentTeam.objects.select_related(
            "tournament", "team", *(f"team__{seat}" for seat in PLAYER_FIELDS)
        ),
        tournament_id=pk,
        pk=entry,
    )


@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
def team_edit(request: HttpRequest, pk: int, entry: int) -> HttpResponse:
    registered = registered_team(pk, entry)
    tournament = registered.tournament
    size = tournament.team_size
    if request.method == "POST":
        form = EditTeamForm(request.POST, team_size=size)
        if form.is_valid():
            data = form.cleaned_data
            try:
                services.edit_team(
                    entry=registered,
                    players=[data.get(name, "") for name in EditTeamForm.PLAYERS],
                    name=data["name"],
                    captain=form.captain_name(),
                    user=request.user,
                )
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
    registered = registered_team(pk, entry)
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
        request, pk, entry, services.withdraw_team, _("%(team)s is withdrawn: no new games.")
    )


@organiser_required
@require_POST
@one_time
def team_reinstate(request: HttpRequest, pk: int, entry: int) -> HttpResponse:
    return _team_action(
        request, pk, entry, services.reinstate_team, _("%(team)s is back in the draws.")
    )


@organiser_required
@require_POST
@one_time
def sitting_draw(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    form = DrawForm(request.POST, team_size=tournament.team_size)
    if not form.is_valid():
        return _detail(request, tournament, draw_form=form)
    try:
        sitting = services.propose_sitting(
            tournament=tournament, game_size=form.cleaned_data["game_size"], user=request.user
        )
    except TournamentError as error:
        form.add_error(None, error.message)
        return _detail(request, tournament, draw_form=form)
    return redirect("tournaments:sitting", pk=tournament.pk, number=sitting.number)


def _tournament_action(request: HttpRequest, pk: int, action, done: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
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
    return _tournament_action(
        request, pk, services.finish_tournament, _("The tournament is finished.")
    )


@organiser_required
@require_POST
@one_time
def tournament_final(request: HttpRequest, pk: int) -> HttpResponse:
    return _tournament_action(
        request, pk, services.make_final, _("The results are final; the games are locked.")
    )


@organiser_required
@require_POST
@one_time
def tournament_reopen(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    form = ReopenForm(request.POST)
    if form.is_valid():
        try:
            services.reopen(
                tournament=tournament, reason=form.cleaned_data["reason"], user=request.user
            )
        except TournamentError as error:
            form.add_error("reason" if error.field == "reason" else None, error.message)
        else:
            messages.success(request, _("The tournament is reopened for corrections."))
            return redirect(tournament)
    return _detail(request, tournament, reopen_form=form)


def _sitting(pk: int, number: int) -> Sitting:
    return get_object_or_404(
        Sitting.objects.select_related("tournament", "stage"), tournament_id=pk, number=number
    )


def _sitting_page(request: HttpRequest, sitting: Sitting, form=None, status: int = 200):
    context = selectors.sitting_page(sitting)
    if sitting.status == Sitting.Status.PROPOSED and is_organiser(request.user):
        context["adjust_form"] = form or AdjustSittingForm(
            sitting=sitting, entries=context["entries"]
        )
    return render(request, "tournaments/sitting.html", context, status=status)


def sitting_detail(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    return _sitting_page(request, _sitting(pk, number))


@organiser_required
@require_POST
@one_time
def sitting_adjust(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    sitting = _sitting(pk, number)
    form = AdjustSittingForm(request.POST, sitting=sitting, entries=selectors.draw_entries(sitting))
    if sitting.status != Sitting.Status.PROPOSED:
        messages.error(request, _("This sitting is confirmed already; its games have started."))
        return redirect("tournaments:sitting", pk=pk, number=number)
    if form.is_valid():
        try:
            services.adjust_sitting(
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
    sitting = _sitting(pk, number)
    try:
        services.confirm_sitting(sitting=sitting, user=request.user)
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
    sitting = _sitting(pk, number)
    try:
        services.discard_sitting(sitting=sitting, user=request.user)
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
    sitting = _sitting(pk, number)
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
    sitting = _sitting(pk, number)
    try:
        count = services.issue_sitting_links(sitting=sitting, user=request.user)
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
    sitting = _sitting(pk, number)
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
        Sitting.objects.select_related("tournament", "stage"), tournament_id=pk, number=number
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
    codes = link_rows(request, [e.game for e in entries]) if is_organiser(request.user) else {}
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
        {"sitting": sitting, "tournament": sitting.tournament, "sheets": sheets},
    )
    if codes:
        add_never_cache_headers(response)  # the links' secrets: no copy in any cache
    return response


@require_safe
def print_standings(request, pk: int):
    tournament = get_object_or_404(Tournament, pk=pk)
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
            **selectors.sittings_played(tournament),
            "points_sheet": tournament.scoring == Scoring.POINTS,
        },
    )


# --- Stages ------------------------------------------------------------------


@organiser_required
@require_POST
@one_time
def stage_add(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    form = StageForm(request.POST)
    if not form.is_valid():
        return _detail(request, tournament, stage_form=form)
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
        return _detail(request, tournament, stage_form=form)
    if stage.status == Stage.Status.CONFIRMED:
        messages.success(request, _("%(stage)s begins.") % {"stage": stage.title})
        return redirect(tournament)
    messages.success(
        request,
        _("%(stage)s is drawn: look at it, adjust it if you must, then confirm it.")
        % {"stage": stage.title},
    )
    return redirect(stage)


def _stage(pk: int, number: int) -> Stage:
    return get_object_or_404(
        Stage.objects.select_related("tournament"), tournament_id=pk, number=number
    )


def _stage_page(request: HttpRequest, stage: Stage, status: int = 200, **forms):
    context = selectors.stage_page(stage)
    context["organiser"] = organiser = is_organiser(request.user)
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
    return _stage_page(request, _stage(pk, number))


def _adjust_stage(request: HttpRequest, pk: int, number: int, form_class, write, done: str):
    """A proposed stage's groups or seeds, as the organiser set them on its page."""
    stage = _stage(pk, number)
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
    form = form_class(request.POST, stage=stage, entries=selectors.entries_by_id(stage.tournament))
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
    stage = _stage(pk, number)
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


# --- Where the players sit -------------------------------------------------------------


@cached_page(_player_version)
@require_safe
def player_page(request: HttpRequest, pk: int, player: int) -> HttpResponse:
    """A player's page in the tournament: the sitting in play, the next one, their games.
    It refreshes itself like the public pages (204 while nothing changed)."""
    tournament = get_object_or_404(Tournament, pk=pk)
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
    tournament = get_object_or_404(Tournament, pk=pk)
    query = request.GET.get("q", "")[:100]
    return render(request, "tournaments/seats.html", seats.draw_page(tournament, query))
