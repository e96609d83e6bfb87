"""Scorer links, table-side deal entry through them, and printable score sheets.

A scorer link is a secret URL: whoever holds it may record the deals of its
game, and of no other. Every view under ``/s/<token>/`` takes the game from
the link, never from the URL, so a link cannot reach another game.
"""

from __future__ import annotations

import functools

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRefresh

from club.clubs.addresses import club_of
from club.games import calls, links, services
from club.games.deal_form import DealForm, RejectForm, typed_entry
from club.games.idempotency import answer_kept, one_time
from club.games.links import LinkError
from club.games.models import PLAYER_FIELDS, Change, Game, Round, ScorerLink
from club.games.selectors import game_page
from club.games.services import ScoringError, Seating, held_deal, load_seating
from club.scoring import rules as core
from club.web.auth import organiser_required
from club.web.installable import deal_sent
from club.web.kept import scorer_page
from club.web.net import phones_cannot_reach, public_url
from club.web.posts import posted_deal_number
from club.web.requests import HtmxHttpRequest

# Enough rows for a long game on one A4 page; a game with a deal limit gets that many.
SHEET_ROWS = 30


# --- Organiser: hand out and withdraw links --------------------------------------------


def link_rows(request: HttpRequest, games: list[Game]) -> dict[int, list[dict]]:
    """Each game's working scorer links with the address a phone opens, in one query.

    The address is built on the club's public address when one is set
    (``DJANGO_PUBLIC_URL``), else on the one the organiser browses from.
    """
    rows: dict[int, list[dict]] = {game.pk: [] for game in games}
    current = (
        # Links that ended with the game are dead, and stay so if an undo opens it again.
        ScorerLink.objects.filter(game__in=games, revoked_at__isnull=True, expired_at__isnull=True)
        .exclude(game__status=Game.Status.FINISHED)
        .select_related("game_team__team", *(f"game_team__{seat}" for seat in PLAYER_FIELDS))
        .order_by("game_id", "game_team__position", "created_at")
    )
    for link in current:
        rows[link.game_id].append(
            {"link": link, "url": public_url(request, link.get_absolute_url())}
        )
    return rows


def _link_rows(request: HttpRequest, game: Game) -> list[dict]:
    return link_rows(request, [game])[game.pk]


# The games a venue has in play at once: more than a federation's busiest night has tables.
CONNECT_GAMES_SHOWN = 60


@organiser_required
@require_GET
def connect_phones(request: HttpRequest) -> HttpResponse:
    """The address the club's phones open, as a large QR code to show or print, and the
    games in play with their scorer links, whose QR codes are built on the same address."""
    playing = Game.objects.filter(club=club_of(request), status=Game.Status.IN_PROGRESS).order_by(
        "-created_at", "-pk"
    )
    return render(
        request,
        "games/connect.html",
        {
            "address": public_url(request, reverse("games:list")),
            "games": list(playing.only("pk", "label")[:CONNECT_GAMES_SHOWN]),
            "unreachable": phones_cannot_reach(request),
        },
    )


@never_cache  # the page shows the links' secrets: no copy in any cache
@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
def game_links(request: HttpRequest, pk: int) -> HttpResponse:
    """The game's current scorer links with their QR codes; POST issues new ones."""
    game = get_object_or_404(Game, pk=pk, club=club_of(request))
    if request.method == "POST":
        try:
            issued = links.issue_links(game=game, user=request.user)
        except ScoringError as error:
            messages.error(request, error.message)
        else:
            messages.success(
                request,
                _("New scorer links issued; any earlier link of this game no longer works.")
                if len(issued) > 1
                else _("New scorer link issued; any earlier link of this game no longer works."),
            )
        return redirect("games:links", pk=game.pk)
    return render(
        request,
        "games/links.html",
        {
            "game": game,
            "rows": _link_rows(request, game),
            "unreachable": phones_cannot_reach(request),
        },
    )


@organiser_required
@require_POST
@one_time
def link_revoke(request: HttpRequest, pk: int, link_pk: int) -> HttpResponse:
    link = get_object_or_404(_club_links(request), pk=link_pk, game_id=pk)
    links.revoke_link(link=link)
    messages.success(request, _("The link was withdrawn; it no longer works."))
    return redirect("games:links", pk=pk)


@never_cache
@organiser_required
@require_GET
def links_print(request: HttpRequest, pk: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=pk, club=club_of(request))
    return render(
        request,
        "games/links_print.html",
        {
            "games": [{"game": game, "rows": _link_rows(request, game)}],
            "back": reverse("games:links", args=[game.pk]),
            "title": game.title,
            "unreachable": phones_cannot_reach(request),
        },
    )


# --- Table side: the scorer page of a link ----------------------------------------------


def _club_links(request: HttpRequest):
    """The scorer links of the club's games: a link opened at another club's address is
    no link there."""
    return ScorerLink.objects.filter(game__club=club_of(request))


def _refused(request: HtmxHttpRequest, token: str, error: LinkError) -> HttpResponse:
    if request.htmx:
        # A page polling or posting through a link that has just died: load it
        # whole, so the player reads why instead of a page that silently stops.
        return HttpResponseClientRefresh()
    # Unknown tokens are "not found"; withdrawn or expired links are "forbidden".
    link = (
        _club_links(request).select_related("game").filter(token=token).first()
        if links.well_formed_token(token)
        else None
    )
    return render(
        request,
        "games/scorer.html",
        {"refused": error.message, "refused_game": link.game if link else None},
        status=404 if link is None else 403,
    )


def _scorer_context(
    link: ScorerLink, game: Game, form: DealForm | None = None, seating: Seating | None = None
) -> dict:
    # The tables and the last deal, not every deal.
    context = game_page(game, seating=seating, whole=False)
    context["link"] = link
    context.update(calls.table_status(game))  # the call for the director, the sitting's clock
    context["waiting"] = waiting = links.waiting_deal(game) if game.require_confirmation else None
    seating = context["seating"]
    if waiting is not None:
        context["waiting_deal"] = links.describe_stored(waiting.entry, seating)
        context["own_waiting"] = waiting.sent_by.game_team_id == link.game_team_id
        if waiting.counter_entry is not None:  # both teams sent it, differently
            context["counter_deal"] = links.describe_stored(waiting.counter_entry, seating)
            counter_by = waiting.counter_by
            # Sent with its entry, through a team's own link (links.send_for_confirmation).
            assert counter_by is not None and counter_by.game_team is not None
            context["counter_team"] = counter_by.game_team.team.name
    if not game.is_finished and waiting is None:
        rejected = links.rejection_for(link, game) if game.require_confirmation else None
        initial = None
        if rejected is not None:
            context["rejected"] = rejected
            by = rejected.rejected_by_link
            context["rejected_by"] = by.game_team.team.name if by and by.game_team else ""
            # The rejected entry, back in the form to fix.
            try:
                entry = links.entry_from_json(rejected.entry, seating)
            except ScoringError:  # its player is no longer seated: the form starts empty
                entry = None
            if entry is not None:
                initial = DealForm.initial_for(entry, rejected.number, seating)
        context["form"] = form or DealForm.for_game(game, seating, initial=initial)
    return context


def through_link(view):
    """Give the view the usable link of ``token``, or say why the link cannot be used.

    A resend of a write that was made while the link still worked (the deal that
    ended the game, say) gets the answer that write got, not "expired".
    """

    @functools.wraps(view)
    def wrapped(request: HtmxHttpRequest, token: str, *args, **kwargs) -> HttpResponse:
        try:
            link = links.usable_link(token, club_of(request).pk)
        except LinkError as error:
            return (
                answer_kept(request)
                or _deal_of_a_game_over(request, token)
                or _game_over_page(request, token)
                or _refused(request, token, error)
            )
        return view(request, link, *args, **kwargs)

    return wrapped


def _already_recorded(
    request: HtmxHttpRequest, link: ScorerLink, game: Game, recorded: Round, seating=None
) -> HttpResponse:
    """Another phone recorded this deal first (or the form was sent twice): what counts,
    an empty form for the next deal, and what this phone typed beside it."""
    context = _scorer_context(link, game, seating=seating)
    context["already_recorded"] = recorded
    if request.method == "POST":  # what this phone typed, beside what was recorded
        context["typed"] = typed_entry(context["seating"], request.POST, recorded)
    template = "games/scorer.html#live" if request.htmx else "games/scorer.html"
    return render(request, template, context)


def _game_over_page(request: HtmxHttpRequest, token: str) -> HttpResponse | None:
    """The page of a link whose game is over (not withdrawn), opened or reloaded: the
    result, and the deal that ended it, rather than "Nothing was recorded". The phone that
    sent the last deal reads, once another team has confirmed it, that it counted.

    A poll (htmx) is told to load the page whole, as for any link that has just died.
    """
    if request.method not in ("GET", "HEAD") or request.htmx:
        return None
    link = (
        _club_links(request)
        .select_related("game", "game_team__team")
        .filter(token=token, revoked_at=None)
        .first()
        if links.well_formed_token(token)
        else None
    )
    if link is None or not link.game.is_finished:
        return None
    game = link.game
    context = _scorer_context(link, game)
    ended = (
        Change.objects.filter(game=game, number=game.deals_played, action=Change.Action.RECORDED)
        .select_related("scorer_link__game_team__team")
        .order_by("-made_at", "-pk")
        .first()
    )
    if ended is not None:
        by = ended.scorer_link
        if by is not None and by.game_team is not None and by.game_team_id != link.game_team_id:
            context["confirmed"] = {"number": ended.number, "team": by.game_team.team.name}
    return render(request, "games/scorer.html", context)


def _deal_of_a_game_over(request: HtmxHttpRequest, token: str) -> HttpResponse | None:
    """A deal sent for a game that has just ended, which another phone recorded first.

    The link expired with the game, but the player should read that their deal
    counts ("Deal 9 is already recorded: …") beside the result, not only that the
    link has expired, which could read as if their deal were lost.
    """
    if request.method != "POST":
        return None
    assert request.resolver_match is not None  # the URL was resolved to reach this view
    if request.resolver_match.url_name != "scorer_send":
        return None
    if not links.well_formed_token(token):
        return None
    link = _club_links(request).select_related("game").filter(token=token).first()
    if link is None or link.revoked_at is not None or not link.game.is_finished:
        return None
    held = held_deal(link.game, posted_deal_number(request))
    return None if held is None else _already_recorded(request, link, link.game, held)


# Asked again every time, and kept by the holder's phone for the table with no network
# (club.web.kept): the page shows its own link only, which the holder has already.
@cache_control(no_cache=True)
@require_GET
@through_link
def scorer(request: HtmxHttpRequest, link: ScorerLink) -> HttpResponse:
    context = _scorer_context(link, link.game)
    template = "games/scorer.html#live" if request.htmx else "games/scorer.html"
    return scorer_page(render(request, template, context))


@never_cache
@require_POST
@through_link
@one_time
def scorer_send(request: HtmxHttpRequest, link: ScorerLink) -> HttpResponse:
    """A deal through the link: its form, the one service, the answer (the deal recorded,
    or waiting for another team's confirmation)."""
    game = link.game
    form = DealForm.for_game(game, load_seating(game), request.POST)
    number, entry = form.sent(request)
    try:
        sent = services.submit_deal(
            game=game, number=number, entry=entry, link=link, seating=form.seating
        )
    except ScoringError as refusal:
        form.add_scoring_error(refusal)
        game.refresh_from_db()  # refused on the game as it stands: shown so
        return _scorer_page(request, link, game, None, form=form)
    if sent.held is not None:
        return _already_recorded(request, link, sent.game, sent.held, sent.seating)
    done = sent.recorded or sent.waiting
    if done is None:  # the form's own mistakes
        return _scorer_page(request, link, sent.game, sent.seating, form=form)
    if not request.htmx and not sent.game.is_finished:
        anchor = "#waiting" if sent.waiting is not None else "#settlement"
        url = reverse("games:scorer", args=[link.token]) + anchor
        return deal_sent(redirect(url), done.number)
    # The deal that ends the game also ends the link: show the result here, since the
    # link's page now only says it has expired.
    page = _scorer_page(
        request, link, sent.game, sent.seating, just_recorded=sent.recorded is not None
    )
    return deal_sent(page, done.number)


def _scorer_page(
    request: HtmxHttpRequest, link: ScorerLink, game: Game, seating: Seating | None, **shown
) -> HttpResponse:
    """The scorer's page (its live part for htmx) after a deal form, with ``shown`` on it."""
    context = _scorer_context(link, game, shown.pop("form", None), seating)
    context.update(shown)
    template = "games/scorer.html#live" if request.htmx else "games/scorer.html"
    return render(request, template, context)


def _game_over(game: Game) -> bool:
    game.refresh_from_db(fields=["status"])
    return game.is_finished


def _answer(request: HttpRequest, link: ScorerLink, number: int, action, success: str, **more):
    try:
        action(link=link, number=number, **more)
    except ScoringError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, success % {"number": number})
        if _game_over(link.game):
            # The confirmed deal ended the game, and with it the link: say so plainly.
            return redirect(link.game)
    return redirect(reverse("games:scorer", args=[link.token]) + "#live")


@never_cache
@require_POST
@through_link
@one_time
def scorer_confirm(request: HttpRequest, link: ScorerLink, number: int) -> HttpResponse:
    return _answer(
        request, link, number, links.confirm_deal, _("Deal %(number)d confirmed: it counts now.")
    )


@never_cache
@require_POST
@through_link
@one_time
def scorer_reject(request: HttpRequest, link: ScorerLink, number: int) -> HttpResponse:
    form = RejectForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(message) for message in form.errors["reason"]))
        return redirect(reverse("games:scorer", args=[link.token]) + "#live")
    return _answer(
        request,
        link,
        number,
        links.reject_deal,
        _(
            "Deal %(number)d rejected: nothing was recorded. The team that sent it sees why "
            "and enters it again."
        ),
        reason=form.cleaned_data["reason"],
    )


# --- Printable score sheets ---------------------------------------------------------------


def sheet_context(game: Game, seating: Seating | None = None) -> dict:
    """What a paper score sheet shows: seats in play order, who deals when, house rules."""
    seating = seating or load_seating(game)
    teams = seating.teams
    order = core.seat_order(len(teams), seating.rules.team_size)
    seats = [
        {"number": seat + 1, "player": player, "team": teams[order[seat][0]]}
        for seat, player in enumerate(seating.players)
    ]
    first = game.first_dealer_seat
    dealers = seats[first:] + seats[:first]
    rules = game.rules
    # A knockout game may play past its limit (its tie rule): room for those deals too.
    extra = 0 if game.tie_deals is None else game.tie_deals + 2
    rows = min(game.deal_limit + extra, 60) if game.deal_limit else SHEET_ROWS
    entry = getattr(game, "sitting_entry", None)
    return {
        "game": game,
        "teams": teams,
        "seats": seats,
        "dealers": dealers,
        "rules": rules,
        "bands": rules.bands,
        "rows": range(1, rows + 1),
        "sitting_game": entry,
    }


@require_GET
def game_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    game = get_object_or_404(
        Game.objects.select_related("sitting_entry__sitting__tournament"),
        pk=pk,
        club=club_of(request),
    )
    return render(request, "games/sheet.html", {"sheets": [sheet_context(game)]})
