"""Thin views: look up the game, bind a form, call one service, render or redirect."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from club.clubs.addresses import club_of
from club.games import links, selectors, services, words
from club.games.deal_form import DealForm, typed_entry
from club.games.forms import NewGameForm, form_of_play_words
from club.games.idempotency import one_time
from club.games.models import Game, Player
from club.games.other_clubs import PlayersOfOtherClubs
from club.games.previews import game_card, game_preview
from club.games.selectors import attach_seating, game_page, in_play_before
from club.games.services import (
    GameClosed,
    ScoringError,
    Seating,
    entry_from_round,
    load_seating,
)
from club.games.versions import club_version
from club.scoring import rules as core
from club.web.auth import may_write, organiser_required
from club.web.embed import embeddable
from club.web.installable import deal_sent
from club.web.kept import page_query
from club.web.pages import cached_page
from club.web.paging import page_number
from club.web.preview import picture
from club.web.requests import HtmxHttpRequest


def home_version(request: HttpRequest):
    """The home page's key: the newest change of any game (a game started, a deal recorded,
    corrected or undone, a game ended all move it; a game deleted moves the club's token)
    and the club's token. One query on an index, whatever the club's size."""
    club = club_of(request)
    newest = Game.objects.filter(club=club).aggregate(newest=Max("updated_at"))["newest"]
    return (_token(newest) if newest else "0"), lambda: club_version(club)


@page_query("page")
@cached_page(home_version)
def game_list(request: HttpRequest) -> HttpResponse:
    """The games: those being played first, then the finished ones a page at a time, so
    the page is the same size in a club's first week and its tenth year."""
    return render(
        request, "games/list.html", selectors.game_list_page(club_of(request), page_number(request))
    )


@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
def game_new(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = NewGameForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                game = services.create_game(
                    label=data["label"],
                    teams=data["teams"],
                    first_dealer=data["first_dealer_seat"],
                    rules=data["rules"],
                    user=request.user,
                    club=club_of(request),
                    same_people=data["same_people"],
                )
            except PlayersOfOtherClubs as refusal:  # asked on their fields: "the same Anu?"
                form.ask_same_people(refusal, form.player_field_names())
            except ScoringError as error:
                form.add_error("label" if error.field == "label" else None, error.message)
            else:
                messages.success(request, _("Game “%(label)s” started.") % {"label": game.title})
                return redirect(game)
    else:
        # When the player count or the form of play changes, htmx asks again with what
        # was typed so far, and the preset's settings for that table filled in (its
        # tables follow the players, whichever was chosen first).
        initial = {"players": "4", **request.GET.dict()}
        if "preset" in request.GET and (
            request.headers.get("HX-Trigger-Name") in ("preset", "players")
            or "apply" in request.GET
        ):
            initial.update(NewGameForm.preset_initial(request.GET["preset"], initial["players"]))
        form = NewGameForm(initial=initial)
    player_names = (
        Player.objects.filter(memberships__club=club_of(request))
        .order_by("name")
        .values_list("name", flat=True)
    )
    return render(request, "games/new.html", {"form": form, "player_names": player_names})


def _deal_form(context: dict, data=None) -> DealForm:
    return DealForm.for_game(context["game"], context["seating"], data)


def live_version(game: Game) -> str:
    """The token the live page carries (games/detail.html: updated_at as "U.u")."""
    return _token(game.updated_at)


def _token(updated) -> str:
    return f"{int(updated.timestamp())}.{updated.microsecond:06d}"


def game_version(request: HttpRequest, pk: int):
    """The game page's key for everyone's copy (club.web.pages): the game's own token (its
    live poll's) and the club's; None for a game that does not exist (its 404 is not kept)."""
    club = club_of(request)
    updated = Game.objects.filter(pk=pk, club=club).values_list("updated_at", flat=True).first()
    if updated is None:
        return None
    return _token(updated), lambda: club_version(club)


@embeddable
@cached_page(game_version)
def game_embed(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The game's live card (its tables, the last deal, who deals), for a club's website to
    show in an <iframe> (club/web/embed.py); it refreshes itself as the game page does."""
    game = get_object_or_404(Game, pk=pk, club=club_of(request))
    if request.GET.get("version") == live_version(game):
        return HttpResponse(status=204)
    polled = "version" in request.GET or request.htmx
    template = "games/embed.html#live" if polled else "games/embed.html"
    return render(request, template, game_page(game, whole=False))


@cached_page(game_version)
def game_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=pk, club=club_of(request))
    if request.GET.get("version") == live_version(game):
        return HttpResponse(status=204)  # a live poll: nothing changed since it last looked
    context = game_page(game)
    if not request.htmx:  # the page's head and its Share button (club.web.preview)
        context["preview"] = game_preview(request, game, context["seating"].teams, game_version)
    if may_write(request) and not game.is_finished:
        context["form"] = _deal_form(context)
        if game.require_confirmation:  # a deal sent through a link may wait for the other team
            context["waiting"] = _waiting_card(game, context["seating"])
    template = "games/detail.html#live" if request.htmx else "games/detail.html"
    return render(request, template, context)


# The picture a shared game's link shows (club/games/previews.py), kept under its version.
game_picture = picture(game_version, game_card)


def _waiting_card(game: Game, seating) -> dict | None:
    """The deal waiting for another team's confirmation, as the organiser sees it."""
    pending = links.waiting_deal(game)
    if pending is None:
        return None
    card = {
        "number": pending.number,
        "team": pending.sent_by.game_team.team.name if pending.sent_by.game_team else "",
        "sent_at": pending.sent_at,
        "deal": links.describe_stored(pending.entry, seating),
    }
    if pending.counter_entry is not None:  # the other team's phone sent it differently
        counter_by = pending.counter_by
        # Sent with its entry, through a team's own link (links.send_for_confirmation).
        assert counter_by is not None and counter_by.game_team is not None
        card["other"] = {
            "team": counter_by.game_team.team.name,
            "sent_at": pending.counter_at,
            "deal": links.describe_stored(pending.counter_entry, seating),
        }
    return card


def _on_waiting(request: HttpRequest, pk: int, number: int, action, done: str, anchor: str, **more):
    """The organiser's answer to a deal waiting for confirmation (record or reject it)."""
    game = get_object_or_404(Game, pk=pk, club=club_of(request))
    try:
        action(game=game, number=number, user=request.user, **more)
    except ScoringError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, done % {"number": number})
    return redirect(reverse("games:detail", args=[game.pk]) + anchor)


@organiser_required
@require_POST
@one_time
def waiting_confirm(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """The organiser records the deal that waits for the other team's confirmation."""
    return _on_waiting(
        request,
        pk,
        number,
        links.confirm_waiting,
        _("Deal %(number)d recorded."),
        "#settlement",
        other=request.POST.get("entry") == "other",  # the second of two differing entries
    )


@organiser_required
@require_POST
@one_time
def waiting_reject(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """The organiser drops a waiting deal: the table enters it again."""
    return _on_waiting(
        request,
        pk,
        number,
        links.reject_waiting,
        _("Deal %(number)d was rejected; the table enters it again."),
        "#deal-entry",
    )


def _refused_game(request: HtmxHttpRequest, game: Game, refusal: ScoringError) -> HttpResponse:
    """A deal for a game that takes none: the game's page, with why."""
    messages.error(request, refusal.message)
    if request.htmx:
        return HttpResponseClientRedirect(game.get_absolute_url())
    return redirect(game)


def _deal_page(request: HtmxHttpRequest, game: Game, seating: Seating, **shown) -> HttpResponse:
    """The game's page (its live part for htmx) after a deal form, with ``shown`` on it."""
    context = game_page(game, seating=seating)
    context.update(shown)
    if "form" not in shown and not game.is_finished:
        context["form"] = _deal_form(context)
    template = "games/detail.html#live" if request.htmx else "games/detail.html"
    return render(request, template, context)


def _already_recorded(request: HtmxHttpRequest, sent: services.Sent) -> HttpResponse:
    """Someone recorded this deal first (or the form was sent twice): show what was
    recorded and an empty form for the next deal, never a copy of this one that could
    record the same cards twice; beside it, what this phone typed. A game that takes no
    deal now says so on its page."""
    game, recorded = sent.game, sent.held
    assert recorded is not None  # the caller's check: a deal of that number is held
    if game.is_finished or game.results_locked:
        refusal = services.already_recorded(game, recorded.number, recorded)
        return _refused_game(request, game, refusal)
    typed = typed_entry(sent.seating, request.POST, recorded)
    return _deal_page(request, game, sent.seating, already_recorded=recorded, typed=typed)


@organiser_required
@require_POST
@one_time
def deal_record(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A deal from the organiser's page: its form, the one service, the answer."""
    game = get_object_or_404(Game, pk=pk, club=club_of(request))
    form = DealForm.for_game(game, load_seating(game), request.POST)
    number, entry = form.sent(request)
    try:
        sent = services.submit_deal(
            game=game, number=number, entry=entry, user=request.user, seating=form.seating
        )
    except GameClosed as refusal:
        return _refused_game(request, game, refusal)
    except ScoringError as refusal:
        form.add_scoring_error(refusal)
        return _deal_page(request, game, form.seating, form=form)
    if sent.held is not None:
        return _already_recorded(request, sent)
    if sent.recorded is None:  # the form's own mistakes, on the game as it now stands
        return _deal_page(request, sent.game, sent.seating, form=form)
    if not request.htmx:
        url = reverse("games:detail", args=[game.pk]) + "#settlement"
        return deal_sent(redirect(url), sent.recorded.number)
    page = _deal_page(request, sent.game, sent.seating, just_recorded=True)
    return deal_sent(page, sent.recorded.number)


@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
def deal_edit(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=pk, club=club_of(request))
    rounds = game.rounds.all()
    if request.method != "POST":
        rounds = rounds.prefetch_related("piles__game_team")  # the form starts from the deal
    round_ = get_object_or_404(rounds, number=number)
    seating = load_seating(game)
    attach_seating([round_], seating)
    in_play = in_play_before(game, seating, number)
    if request.method == "POST":
        form = DealForm(request.POST, seating=seating, in_play=in_play)
        if form.is_valid():
            try:
                services.edit_deal(game=game, number=number, entry=form.entry(), user=request.user)
            except ScoringError as error:
                form.add_scoring_error(error)
            else:
                messages.success(
                    request,
                    _("Deal %(number)d corrected; the rest of the game was replayed.")
                    % {"number": number},
                )
                return redirect(reverse("games:detail", args=[game.pk]) + "#history")
    else:
        form = DealForm(
            initial=DealForm.initial_for(entry_from_round(round_, seating), number, seating),
            seating=seating,
            in_play=in_play,
        )
    return render(
        request,
        "games/edit.html",
        {"game": game, "round": round_, "form": form, "number": number},
    )


@organiser_required
@require_POST
@one_time
def deal_undo(request: HttpRequest, pk: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=pk, club=club_of(request))
    try:
        number = int(request.POST.get("number", ""))
    except ValueError:
        number = 0
    try:
        services.undo_last_deal(game=game, number=number, user=request.user)
    except ScoringError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Deal %(number)d was undone.") % {"number": number})
    return redirect(game)


@organiser_required
@require_POST
@one_time
def game_end(request: HttpRequest, pk: int) -> HttpResponse:
    """The organiser calls time: the game is placed as its form of play places a game
    stopped early. A game with no deal ends level, so the organiser is asked first, on a
    page that names it, and it ends only on that page's own answer."""
    game = get_object_or_404(Game, pk=pk, club=club_of(request))
    if game.ends_level_if_called and str(game.pk) not in request.POST.getlist("level"):
        names = game.teams.order_by("position").values_list("team__name", flat=True)
        return render(
            request,
            "games/call_time.html",
            {
                "title": game.title,
                "back": game.get_absolute_url(),
                "action": reverse("games:end", args=[game.pk]),
                "no_deal": [{"game": game.pk, "line": words.no_deal_line(game.title, names)}],
            },
        )
    try:
        services.end_game(game=game, user=request.user)
    except ScoringError as error:
        messages.error(request, error.message)
    else:
        game.refresh_from_db(fields=["deals_played"])  # a deal may have come in meanwhile
        if game.deals_played == 0:
            messages.success(request, words.ended_level_news())
        else:
            messages.success(request, words.game_time_called_news(game))
    return redirect(game)


@page_query("game")
def rules_page(request: HttpRequest) -> HttpResponse:
    """The rules in the reader's language, with a game's house rules when ?game= names one."""
    game = None
    wanted = request.GET.get("game", "")
    if wanted.isdecimal() and len(wanted) < 19:  # int() refuses "²" and 5000 digits
        game = Game.objects.filter(pk=int(wanted), club=club_of(request)).first()
    rules = game.rules if game else core.DEFAULT_RULES
    return render(
        request,
        "games/rules.html",
        {
            "game": game,
            "setups": [core.card_setup(players) for players in (4, 6, 8)],
            "bands": rules.bands,
            "tables": rules.tables_per_team,
            "double": rules.double_factor,
            "redouble": rules.redouble_factor,
            "form_of_play": form_of_play_words(game, game.teams.count()) if game else "",
            "doubling_adds": rules.doubling_mode == core.DoublingMode.ADD,
        },
    )
