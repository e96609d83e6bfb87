"""The read-only JSON API under /api/v1/, on django-ninja: a club's (at
/clubs/<slug>/api/v1/ on a site of several clubs, club.clubs.addresses), whose games and
tournaments it lists and answers; another club's is 404 there.

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

from typing import Literal

from django.db.models import Prefetch
from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, NinjaAPI, Path, Query, Status

from club.api import boards, competitions
from club.api import schemas as out
from club.api.common import Pages, answered, by_id, paged
from club.archive.export import game_object
from club.archive.tournament_export import tournament_object
from club.clubs.addresses import club_of
from club.games.models import PLAYER_FIELDS, Game, GameTeam, Player, in_a_seat
from club.games.views import game_version, home_version
from club.tournaments.models import Tournament
from club.tournaments.views import tournament_version


class ClubAPI(NinjaAPI):
    """The API, its OpenAPI document worked out once per process (30 ms each time, and it
    changes only with a release)."""

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        if path_prefix is None:
            path_prefix = self.get_root_path(path_params or {})
        kept = self.__dict__.setdefault("_documents", {})
        if path_prefix not in kept:
            kept[path_prefix] = super().get_openapi_schema(path_prefix=path_prefix)
        return kept[path_prefix]


api = ClubAPI(
    title="56 Club results",
    version="1",
    description=(
        "What the club's public pages show, read-only: games with every deal's "
        "settlement, tournaments with their stages, draws and standings, seasons and "
        "circuits with their tables. Game and "
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
@answered()
def index(request: HttpRequest):
    return {
        "openapi": reverse("api:openapi-json"),
        "docs": reverse("api:openapi-view"),
        "games": reverse("api:games"),
        "tournaments": reverse("api:tournaments"),
        "players": reverse("api:players"),
        "player_board": reverse("api:player_board"),
        "team_board": reverse("api:team_board"),
        "competitions": reverse("api:competitions"),
    }


def _team(team: GameTeam, names: dict[int, str]) -> dict:
    seated = [getattr(team, f"{seat}_id") for seat in PLAYER_FIELDS]
    return {
        "position": team.position,
        "name": team.team.name,
        "players": [names.get(player, "") for player in seated if player is not None],
        "tables": team.tables,
        "score": team.score,
        "kodis": team.kodis,
        "place": team.place,
        "out_in_deal": team.out_in_deal,
    }


def _player_names(games: list[Game]) -> dict[int, str]:
    """The names of everyone seated at ``games``, in one query by id. (Joined to the teams'
    four seats instead, PostgreSQL hashes the whole register four times: 9 ms a page of 25
    games at federation, against under 1 ms.)"""
    ids = {
        getattr(team, f"{seat}_id")
        for game in games
        for team in game.teams.all()
        for seat in PLAYER_FIELDS
    }
    ids.discard(None)
    return dict(Player.objects.filter(pk__in=ids).values_list("id", "name")) if ids else {}


def _game(game: Game, names: dict[int, str]) -> dict:
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
        "teams": [_team(team, names) for team in teams],
        "page": game.get_absolute_url(),
        "url": reverse("api:game", kwargs={"pk": game.pk}),
    }


def _games():
    seated = GameTeam.objects.select_related("team").order_by("position")
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
@answered(home_version)
def games(request: HttpRequest, filters: Query[GameFilters]):
    found = _games().filter(club=club_of(request)).order_by("-id")
    if filters.status:
        found = found.filter(status=filters.status)
    if filters.tournament:
        found = found.filter(sitting_entry__sitting__tournament_id=filters.tournament)
    if filters.player:
        found = found.filter(
            pk__in=GameTeam.objects.filter(in_a_seat(filters.player)).values("game_id")
        )
    items, page = paged(request, found, filters)
    names = _player_names(items)
    return {**page, "results": [_game(game, names) for game in items]}


@api.get(
    "/games/{pk}/",
    response=out.answers(out.GameDetail, missing=True),
    url_name="game",
    summary="A game, with every deal's settlement",
    tags=["games"],
)
@answered(by_id(game_version))
def game(request: HttpRequest, pk: int = Path(..., ge=1, le=out.MAX_ID)):
    found = _games().filter(pk=pk, club=club_of(request)).first()
    archived = game_object(pk) if found is not None else None
    if archived is None:
        return Status(404, {"detail": "No game has this id."})
    return {**_game(found, _player_names([found])), "archive": archived}


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
@answered()
def tournaments(request: HttpRequest, filters: Query[TournamentFilters]):
    found = Tournament.objects.filter(club=club_of(request)).order_by("-starts_on", "-id")
    if filters.status:
        found = found.filter(status=filters.status)
    items, page = paged(request, found, filters)
    return {**page, "results": [_tournament(tournament) for tournament in items]}


@api.get(
    "/tournaments/{pk}/",
    response=out.answers(out.TournamentDetail, missing=True),
    url_name="tournament",
    summary="A tournament, with its stages, sittings and draws, and standings",
    tags=["tournaments"],
)
@answered(by_id(tournament_version))
def tournament(request: HttpRequest, pk: int = Path(..., ge=1, le=out.MAX_ID)):
    found = Tournament.objects.filter(pk=pk, club=club_of(request)).first()
    if found is None:
        return Status(404, {"detail": "No tournament has this id."})
    name_of = dict(found.entries.values_list("id", "team__name"))

    def names(ids) -> list[str]:
        return [name_of.get(entry, "") for entry in ids or []]

    stages = []
    for stage in found.stages.order_by("number"):
        drawn = stage.status == stage.Status.CONFIRMED  # a proposed draw may still change
        stages.append(
            {
                "number": stage.number,
                "kind": stage.kind,
                "status": stage.status,
                "title": stage.title,
                "deal_limit": stage.deal_limit,
                "tie_deals": stage.tie_deals,
                "confirmed_at": stage.confirmed_at,
                "page": stage.get_absolute_url(),
                "groups": {key: names(ids) for key, ids in stage.groups.items()} if drawn else {},
                "chart": [
                    {
                        "games": [names(game) for game in sitting.get("games", [])],
                        "byes": names(sitting.get("byes")),
                    }
                    for sitting in (stage.chart if drawn else [])
                ],
                "seeds": names(stage.seeds) if drawn else [],
            }
        )
    return {**_tournament(found), "stages": stages, "archive": tournament_object(found)}


api.add_router("/", boards.router)
api.add_router("/", competitions.router)
