"""The read-only JSON API under /api/v1/ (issue 16), on django-ninja.

Only what the public pages show, and only GET: there is no write endpoint, and
the permission table (tests/test_permissions.py) covers every URL here too.
A list is a page at a time (``page``, ``page_size`` up to 100), counted no
further than ``COUNT_LIMIT``, so an answer costs the same on the thousandth
night as on the first. A game and a tournament are kept and answered under the
same version tokens as their pages (club.web.pages): an ``ETag`` and 304 Not
Modified, and never a stale answer. A client may make ``CLUB_API_RATE``
requests (default 600 a minute, ``DJANGO_API_RATE``) before it is answered 429.

The schema is at /api/v1/schema/ and its docs (Swagger UI, from the app's own
static files, under the strict CSP) at /api/v1/docs/.
"""

from __future__ import annotations

import functools
from typing import Literal
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import caches
from django.db.models import Prefetch
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from ninja import Field, NinjaAPI, Path, Query, Schema, Status
from ninja.decorators import decorate_view
from ninja.throttling import SimpleRateThrottle

from club.api import schemas as out
from club.archive.export import game_object
from club.archive.tournament_export import tournament_object
from club.games.models import PLAYER_FIELDS, Game, GameTeam, in_a_seat
from club.games.views import game_version, home_version
from club.tournaments.models import Tournament
from club.tournaments.views import tournament_version
from club.web.net import client_ip
from club.web.pages import cached_page

COUNT_LIMIT = 10_000


class ClientRate(SimpleRateThrottle):
    """``CLUB_API_RATE`` requests a client may make (by its address behind our proxies)."""

    scope = "api"
    cache_format = "club-api-%(scope)s-%(ident)s"

    def __init__(self) -> None:  # the rate is read per request: a setting tests may change
        self.history: list = []

    def allow_request(self, request: HttpRequest) -> bool:
        rate = settings.CLUB_API_RATE
        if not rate:
            return True
        self.cache = caches["default"]
        self.rate = rate
        self.num_requests, self.duration = self.parse_rate(rate)
        return super().allow_request(request)

    def get_cache_key(self, request: HttpRequest) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_ip(request)}


def limited(run):
    """429 for a client past its rate, kept answers included (outermost)."""

    @functools.wraps(run)
    def wrapped(request: HttpRequest, *args, **kwargs):
        throttle = ClientRate()
        if not throttle.allow_request(request):
            response = JsonResponse({"detail": "Too many requests: wait a moment."}, status=429)
            wait = throttle.wait()
            if wait:
                response["Retry-After"] = str(max(1, round(wait)))
            return response
        return run(request, *args, **kwargs)

    return wrapped


def by_id(version_of):
    """A page's version function for an answer whose path holds an id not yet checked (the
    answer is kept before the operation reads its parameters): an id that is not one is
    kept nowhere, and the operation refuses it (422)."""

    def version(request: HttpRequest, pk, **kwargs):
        text = str(pk)
        if not (text.isascii() and text.isdigit() and 0 < int(text) <= out.MAX_ID):
            return None
        return version_of(request, pk=int(text))

    return version


api = NinjaAPI(
    title="56 Club results",
    version="1",
    description=(
        "What the club's public pages show, read-only: games with every deal's "
        "settlement, tournaments with their stages, draws and standings. Game and "
        "tournament objects carry the `fiftysix-results/1` archive's own field names. "
        "Answers have an ETag (304 when unchanged); a client may make 600 requests a "
        "minute (429 past that)."
    ),
    urls_namespace="api",
    openapi_url="/schema/",
    docs_url="/docs/",
)


@api.get(
    "/",
    response=out.answers(out.Index),
    url_name="index",
    summary="Where things are",
    tags=["index"],
)
@decorate_view(limited)
def index(request: HttpRequest):
    return {
        "openapi": reverse("api:openapi-json"),
        "docs": reverse("api:openapi-view"),
        "games": reverse("api:games"),
        "tournaments": reverse("api:tournaments"),
    }


class Pages(Schema):
    page: int = Field(1, ge=1, le=out.MAX_PAGE, description="The page, from 1.")
    page_size: int = Field(out.PAGE_SIZE, ge=1, le=out.MAX_PAGE_SIZE)


def _paged(request: HttpRequest, queryset, pages: Pages) -> tuple[list, dict]:
    """One page of ``queryset`` (ordered), its count to COUNT_LIMIT and its neighbours."""
    total = queryset.order_by()[: COUNT_LIMIT + 1].count()
    capped = total > COUNT_LIMIT
    offset = (pages.page - 1) * pages.page_size
    items = list(queryset[offset : offset + pages.page_size])
    more = (offset + len(items) < min(total, COUNT_LIMIT)) or (
        capped and len(items) == pages.page_size
    )

    def link(number: int) -> str:
        query = {**request.GET.dict(), "page": number}
        return f"{request.path}?{urlencode(query)}"

    return items, {
        "count": min(total, COUNT_LIMIT),
        "count_capped": capped,
        "page": pages.page,
        "page_size": pages.page_size,
        "next": link(pages.page + 1) if more else None,
        "previous": link(pages.page - 1) if pages.page > 1 else None,
    }


def _team(team: GameTeam) -> dict:
    return {
        "position": team.position,
        "name": team.team.name,
        "players": [player.name for player in team.players],
        "tables": team.tables,
        "score": team.score,
        "kodis": team.kodis,
        "place": team.place,
        "out_in_deal": team.out_in_deal,
    }


def _game(game: Game) -> dict:
    teams = list(game.teams.all())
    winner = next((team for team in teams if team.pk == game.winner_id), None)
    entry = getattr(game, "sitting_entry", None)
    return {
        "id": game.pk,
        "label": game.label,
        "status": game.status,
        "scoring": game.scoring,
        "created_at": game.created_at,
        "finished_at": game.finished_at,
        "deals_played": game.deals_played,
        "tournament": entry.sitting.tournament_id if entry is not None else None,
        "winner": winner.team.name if winner is not None else None,
        "teams": [_team(team) for team in teams],
        "page": game.get_absolute_url(),
        "url": reverse("api:game", kwargs={"pk": game.pk}),
    }


def _games():
    seated = GameTeam.objects.select_related("team", *PLAYER_FIELDS).order_by("position")
    return Game.objects.select_related("sitting_entry__sitting").prefetch_related(
        Prefetch("teams", queryset=seated)
    )


class GameFilters(Pages):
    status: Literal["in_progress", "finished"] | None = None
    tournament: int | None = Field(None, ge=1, le=out.MAX_ID, description="A tournament's id.")
    player: int | None = Field(
        None, ge=1, le=out.MAX_ID, description="A player's id: the games they sat in."
    )


@api.get(
    "/games/",
    response=out.answers(out.GamePage),
    url_name="games",
    summary="Games, newest first",
    tags=["games"],
)
@decorate_view(cached_page(home_version), limited)
def games(request: HttpRequest, filters: Query[GameFilters]):
    found = _games().order_by("-id")
    if filters.status:
        found = found.filter(status=filters.status)
    if filters.tournament:
        found = found.filter(sitting_entry__sitting__tournament_id=filters.tournament)
    if filters.player:
        found = found.filter(
            pk__in=GameTeam.objects.filter(in_a_seat(filters.player)).values("game_id")
        )
    items, page = _paged(request, found, filters)
    return {**page, "results": [_game(game) for game in items]}


@api.get(
    "/games/{pk}/",
    response=out.answers(out.GameDetail, missing=True),
    url_name="game",
    summary="A game, with every deal's settlement",
    tags=["games"],
)
@decorate_view(cached_page(by_id(game_version)), limited)
def game(request: HttpRequest, pk: int = Path(..., ge=1, le=out.MAX_ID)):
    found = _games().filter(pk=pk).first()
    archived = game_object(pk) if found is not None else None
    if archived is None:
        return Status(404, {"detail": "No game has this id."})
    return {**_game(found), "archive": archived}


def _tournament(tournament: Tournament) -> dict:
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "status": tournament.status,
        "final": tournament.is_final,
        "starts_on": tournament.starts_on,
        "ends_on": tournament.ends_on,
        "venue": tournament.venue,
        "page": tournament.get_absolute_url(),
        "url": reverse("api:tournament", kwargs={"pk": tournament.pk}),
    }


class TournamentFilters(Pages):
    status: Literal["draft", "running", "finished"] | None = None


@api.get(
    "/tournaments/",
    response=out.answers(out.TournamentPage),
    url_name="tournaments",
    summary="Tournaments, newest first",
    tags=["tournaments"],
)
@decorate_view(limited)
def tournaments(request: HttpRequest, filters: Query[TournamentFilters]):
    found = Tournament.objects.order_by("-starts_on", "-id")
    if filters.status:
        found = found.filter(status=filters.status)
    items, page = _paged(request, found, filters)
    return {**page, "results": [_tournament(tournament) for tournament in items]}


@api.get(
    "/tournaments/{pk}/",
    response=out.answers(out.TournamentDetail, missing=True),
    url_name="tournament",
    summary="A tournament, with its stages, sittings and draws, and standings",
    tags=["tournaments"],
)
@decorate_view(cached_page(by_id(tournament_version)), limited)
def tournament(request: HttpRequest, pk: int = Path(..., ge=1, le=out.MAX_ID)):
    found = Tournament.objects.filter(pk=pk).first()
    if found is None:
        return Status(404, {"detail": "No tournament has this id."})
    stages = [
        {
            "number": stage.number,
            "kind": stage.kind,
            "status": stage.status,
            "title": stage.title,
            "deal_limit": stage.deal_limit,
            "tie_deals": stage.tie_deals,
            "confirmed_at": stage.confirmed_at,
            "page": stage.get_absolute_url(),
        }
        for stage in found.stages.order_by("number")
    ]
    return {**_tournament(found), "stages": stages, "archive": tournament_object(found)}
