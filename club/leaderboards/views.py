"""Thin views for the register, the leaderboards and the player profiles: the club's
(club.clubs.addresses.club_of), whose players are its members and whose boards list its
players and teams with their figures at the club (club.leaderboards.selectors).

Reading is public; every write is for the club's organisers and goes through one
service. A player who is not one of the club's is no page at its address (404).
"""

from __future__ import annotations

from dataclasses import replace

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods, require_POST

from club.clubs import known
from club.clubs.addresses import club_of
from club.competitions.pages import player_lines
from club.games.idempotency import one_time
from club.games.models import Player
from club.games.other_clubs import PlayersOfOtherClubs
from club.games.versions import club_version
from club.leaderboards import merge, night, own_parts, profile, selectors
from club.leaderboards.forms import (
    BoardForm,
    ImportForm,
    MergeForm,
    NewPlayerForm,
    PlayerForm,
    RegisterSearchForm,
)
from club.leaderboards.previews import player_card, player_preview
from club.leaderboards.services import importing, register
from club.leaderboards.services.importing import PlayerImportError
from club.leaderboards.services.register import SHARED_PLAYER, RegisterError
from club.leaderboards.templatetags.board_tags import column_labels
from club.tournaments.models import Tournament
from club.tournaments.seats import running_entries
from club.web.auth import may_write, organiser_required
from club.web.kept import page_query
from club.web.pages import cached_page
from club.web.paging import kept_query, page_number, page_of
from club.web.posts import show_refusal
from club.web.preview import picture
from club.web.requests import HtmxHttpRequest
from club.web.uploads import takes_upload

REGISTER_PER_PAGE = 50  # the register a page at a time: 5,000 players at a federation


# A name the site had already, now one of this club's players too (services.register).
JOINED = gettext_lazy(
    "%(name)s was already a player on this site and is now one of the club's players too; "
    "their details are as they were."
)


def _partial(request: HtmxHttpRequest, template: str, part: str) -> str:
    return f"{template}#{part}" if request.htmx else template


def _the_clubs(request: HttpRequest, pk: int) -> Player:
    """The club's player ``pk``; 404 for anyone who is not one of the club's players."""
    return get_object_or_404(selectors.members(club_of(request)), pk=pk)


# --- The register ---------------------------------------------------------------


@page_query("q", "active", "page")
def player_list(request: HtmxHttpRequest) -> HttpResponse:
    form = RegisterSearchForm(request.GET)
    data = form.cleaned_data if form.is_valid() else {}
    players = selectors.register(
        club=club_of(request), search=data.get("q", ""), active=data.get("active", "")
    )
    page = page_of(players, page_number(request), REGISTER_PER_PAGE, kept_query(request))
    return render(
        request,
        _partial(request, "leaderboards/players.html", "results"),
        {
            "form": form,
            "players": page.items,
            "page": page,
            "can_write": may_write(request),
        },
    )


def _player_form_page(request, form, player=None):
    return render(request, "leaderboards/player_form.html", {"form": form, "player": player})


@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
def player_new(request: HttpRequest) -> HttpResponse:
    form = NewPlayerForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            added = register.add_player(club=club_of(request), **form.cleaned_data)
        except PlayersOfOtherClubs as refusal:  # asked on the field: "the same Anu?"
            form.ask_same_people(refusal, ["name"])
        except RegisterError as error:
            show_refusal(form, error)
        else:
            name = {"name": added.player.name}
            if added.joined:
                messages.success(request, JOINED % name)
            else:
                messages.success(request, _("%(name)s added to the register.") % name)
            return redirect("leaderboards:players")
    return _player_form_page(request, form)


def _asked_by(request: HttpRequest):
    """The club a change of a player's details is asked by: None for a site administrator,
    who may change a player of several clubs."""
    return None if request.user.is_staff else club_of(request)


@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
def player_edit(request: HttpRequest, pk: int) -> HttpResponse:
    player = _the_clubs(request, pk)
    initial = {
        "name": player.name,
        "nickname": player.nickname,
        "member_number": player.member_number,
        "active": player.active,
    }
    form = PlayerForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            player = register.update_player(
                player=player, **form.cleaned_data, club=_asked_by(request)
            )
        except RegisterError as error:
            show_refusal(form, error)
        else:
            messages.success(request, _("%(name)s saved.") % {"name": player.name})
            return redirect(player)
    return _player_form_page(request, form, player)


@organiser_required
@require_POST
@one_time
def player_active(request: HttpRequest, pk: int) -> HttpResponse:
    player = _the_clubs(request, pk)
    active = request.POST.get("active") == "1"
    try:
        register.set_player_active(player=player, active=active, club=_asked_by(request))
    except RegisterError as error:
        messages.error(request, error.message)
        return redirect(player)
    if active:
        messages.success(request, _("%(name)s is active again.") % {"name": player.name})
    else:
        messages.success(
            request,
            _("%(name)s is marked inactive; their results stay.") % {"name": player.name},
        )
    return redirect(player)


@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
def player_merge(request: HttpRequest) -> HttpResponse:
    club = club_of(request)
    form = MergeForm(request.POST or None, initial=request.GET.dict(), club=club)
    if request.method == "POST" and form.is_valid():
        try:
            result = merge.merge_players(
                keep=form.cleaned_data["keep"],
                fold=form.cleaned_data["fold"],
                club=club,
                administrator=request.user.is_staff,
            )
        except RegisterError as error:
            form.add_error(None, error.message)
        else:
            messages.success(
                request,
                _("%(fold)s is merged into %(keep)s (%(games)d games moved).")
                % {"fold": result.folded_name, "keep": result.kept.name, "games": result.games},
            )
            return redirect(result.kept)
    return render(request, "leaderboards/merge.html", {"form": form})


@organiser_required
@require_http_methods(["GET", "POST"])
@one_time
@takes_upload(ImportForm)
def player_import(request: HttpRequest) -> HttpResponse:
    form = ImportForm(request.POST or None, request.FILES or None)
    faults = []
    if request.method == "POST" and form.is_valid():
        try:
            result = importing.import_players(
                form.cleaned_data["file"].read(), club=club_of(request)
            )
        except PlayerImportError as error:
            faults = error.faults
        else:
            done = _(
                "Import done: %(created)d added, %(updated)d updated, %(unchanged)d unchanged."
            ) % {
                "created": len(result.created),
                "updated": len(result.updated),
                "unchanged": len(result.unchanged),
            }
            if result.joined:
                joined = len(result.joined)
                done += " " + ngettext(
                    "%(count)d of them was already a player on this site and is now one of "
                    "the club's players too.",
                    "%(count)d of them were already players on this site and are now the "
                    "club's players too.",
                    joined,
                ) % {"count": joined}
            messages.success(request, done)
            return redirect("leaderboards:players")
    return render(request, "leaderboards/import.html", {"form": form, "faults": faults})


# --- Profiles and leaderboards ------------------------------------------------------


def _not_modified(request: HttpRequest, version: str) -> bool:
    """A live poll that already shows this version gets 204 No Content: nothing to swap."""
    return request.GET.get("version") == version


def profile_version(request: HttpRequest, pk: int):
    """A profile's key for everyone's copy (club.web.pages): its live token, the count of
    clubs the player plays in (read with the player: the page names them, and a player
    joins another club before any game there finishes), the club's token; None for a
    player who is not one of the club's (the 404 is not kept)."""
    club = club_of(request)
    player = own_parts.keyed_player(pk, club)
    if player is None:
        return None
    # Read with the player (own_parts.keyed_player): their newest game at the club, and
    # the count of their clubs.
    newest, clubs = player.newest, player.clubs  # type: ignore[attr-defined]  # annotations
    token = selectors.live_version(player, club=club, newest=newest)
    # Kept for the view, which would read them again (the player, and a query over the
    # player's games).
    request.profile_player = player  # type: ignore[attr-defined]  # this request's own
    request.profile_live = token  # type: ignore[attr-defined]  # this request's own
    # The club's time zone decides the day of each night its page reviews (night.py).
    return (f"{token}.{clubs}", lambda: _club_token(request, club))


def _club_token(request: HttpRequest, club) -> str:
    """The part of a profile's key every page of the club shares; kept for the view, whose
    player's own parts are kept under the club's token too (own_parts)."""
    token = club_version(club)
    request.profile_club_token = token  # type: ignore[attr-defined]  # this request's own
    return f"{known.by_id(club.pk).time_zone}|{token}"


def board_version(request: HttpRequest):
    """A leaderboard's key: the ratings' and the club's players' token (its live poll's)
    and the club's."""
    club = club_of(request)
    token = selectors.live_version(club=club)
    request.board_live = token  # type: ignore[attr-defined]  # read again by the view
    return token, lambda: club_version(club)


@page_query("page", "night", "from", "to")
@cached_page(profile_version)
def player_profile(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    club = club_of(request)
    player = getattr(request, "profile_player", None) or _the_clubs(request, pk)
    version = getattr(request, "profile_live", None) or selectors.live_version(player, club=club)
    if _not_modified(request, version):
        return HttpResponse(status=204)
    asked, number = night.asked_of(request.GET), page_number(request)

    def own() -> dict:
        return _own_parts(player, club, number, asked)

    # The page as it opens, the page most read, is mostly its player's own history: kept
    # under a key of theirs, not the ratings' token that every game finished moves.
    # A player of one club only: every game of theirs is this club's (own_parts).
    kept = number == 1 and asked == night.Asked() and getattr(player, "clubs", 0) == 1
    if kept and hasattr(player, "rated"):
        token = getattr(request, "profile_club_token", None) or club_version(club)
        context = dict(own_parts.parts(player, club, token, own))
    else:
        context = own()
    context["player"] = player  # as read by this request, whatever the parts were read with
    # The player's clubs, and their figures at each club they played in (none read for a
    # player of one club: the page shows a club's figures only beside another's).
    context["clubs"], context["club_lines"] = profile.clubs_of(
        player, club, getattr(player, "clubs", None)
    )
    # The club's tournaments being played now: the player's page there says where they sit.
    context["playing_in"] = running_entries(player, club)
    context["games_page"] = replace(context["games_page"], query=kept_query(request))
    # The figures of the forms of play the player has played, each labelled.
    context["shown"] = selectors.board_figures(selectors.Filters(), context["forms_played"])
    context["live_version"] = version
    context["seasons"] = player_lines(player.pk, club)  # their line in the club's seasons
    context["can_write"] = may_write(request)
    if not request.htmx:  # the page's head and its Share button (club.web.preview)
        context["preview"] = player_preview(request, context, profile_version)
    # A player of several clubs is changed by a site administrator only: the page says so
    # instead of offering buttons that would be refused.
    context["shared"] = len(context["clubs"]) > 1 and not request.user.is_staff
    if context["shared"]:
        context["shared_note"] = SHARED_PLAYER % {"name": player.name}
    return render(request, _partial(request, "leaderboards/player.html", "live"), context)


def _own_parts(player: Player, club, number: int, asked: night.Asked) -> dict:
    """What the player's page shows of their own history: their figures, ratings and
    chart, a page of their games, and the night (?night=) or span (?from=&to=) of their
    games at the club asked for, in review."""
    context = profile.player_profile(player, number, club=club)
    context["night"] = night.night_review(player, club, asked, context["rating_changes"])
    del context["player"]  # the request's own (own_parts keeps these for later requests)
    return context


# The picture a shared profile's link shows (club/leaderboards/previews.py).
player_picture = picture(profile_version, player_card)


def _columns(shown: list[str]) -> list[tuple[str, str]]:
    labels = column_labels()
    return [(key, labels[key]) for key in ("name", "rating", *shown)]


# The boards' filter offers the newest tournaments, not every one of the club's history
# (200 at a federation); any other is reached from its own page ("Results out").
OFFERED_TOURNAMENTS = 25
# What shapes a board: its filter, its order and its page.
BOARD_QUERY = (*BoardForm.base_fields, "page")


def _offered_tournaments(request: HttpRequest) -> list[Tournament]:
    """The newest tournaments, and the one the filter names if it is older."""
    newest = (
        Tournament.objects.filter(club=club_of(request))
        .order_by("-starts_on", "name")
        .only("pk", "name")
    )
    offered = list(newest[:OFFERED_TOURNAMENTS])
    chosen = request.GET.get("tournament", "")
    # An id the database can hold (ASCII digits: "²" is a digit too); anything else
    # the form refuses as no tournament of the list.
    if chosen.isascii() and chosen.isdigit() and len(chosen) < 19:
        if int(chosen) not in {t.pk for t in offered}:
            offered.extend(newest.filter(pk=int(chosen)))
    return offered


def _board(request: HtmxHttpRequest, kind: str) -> HttpResponse:
    club = club_of(request)
    version = getattr(request, "board_live", None) or selectors.live_version(club=club)
    if _not_modified(request, version):
        return HttpResponse(status=204)
    form = BoardForm(request.GET, tournaments=_offered_tournaments(request))
    filters = form.filters()
    sort, descending = form.sorting()
    board = selectors.player_board_page if kind == "players" else selectors.team_board_page
    try:
        page = int(request.GET.get("page", "1"))
    except ValueError:
        page = 1
    found = board(filters, club=club, sort=sort, descending=descending, page=page)
    shown = selectors.board_figures(filters, selectors.forms_played(club=club))
    query = request.GET.copy()
    for key in ("sort", "order", "version", "page"):
        query.pop(key, None)
    sorted_query = query.copy()
    sorted_query.update({"sort": sort, "order": "desc" if descending else "asc"})
    live_query = sorted_query.copy()
    if found.page > 1:
        live_query["page"] = str(found.page)
    return render(
        request,
        _partial(request, "leaderboards/board.html", "board"),
        {
            "kind": kind,
            "columns": _columns(shown),
            "shown": shown,
            "form": form,
            "rows": found.rows,
            "board": found,
            "sort": sort,
            "descending": descending,
            "filter_query": query.urlencode(),
            "sorted_query": sorted_query.urlencode(),
            "live_url": f"{request.path}?{live_query.urlencode()}",
            "live_version": version,
        },
    )


@page_query(*BOARD_QUERY)
@cached_page(board_version)
def player_board(request: HtmxHttpRequest) -> HttpResponse:
    return _board(request, "players")


@page_query(*BOARD_QUERY)
@cached_page(board_version)
def team_board(request: HtmxHttpRequest) -> HttpResponse:
    return _board(request, "teams")
