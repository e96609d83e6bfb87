"""The API's players, teams and leaderboards (club/api): the boards' own reads, as JSON.

They are the club's, as its pages are: its players (its members), the teams that played
a game of the club, its boards (the club's sides with their figures over the club's
games, and their one rating over every club's: club.leaderboards.selectors); a player or
team not the club's is 404 here. A player's or team's own figures are over every
club's games, the federation's.

The leaderboards take the pages' filters (a period, a tournament) and order, and
are kept under the boards' token; every read of figures or ratings goes through
``selectors.live_version`` first, so the work a finished game owes the boards is
done before any figure is read (club.leaderboards.owed).
"""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, Path, Query, Router, Schema, Status
from pydantic import BeforeValidator

from club.api import schemas as out
from club.api.common import Pages, answered, by_id, paged
from club.clubs.addresses import club_of
from club.games.models import PLAYER_FIELDS, Team
from club.leaderboards import federation, profile, selectors
from club.leaderboards.models import TeamTotals
from club.leaderboards.views import board_version, profile_version
from club.web.unreadable import READABLE_TEXT

# A player's latest games in their answer: the API has no pager for them; the page shows
# fewer, a phone's few screens.
API_GAMES = 50

router = Router()


def _figures(row: selectors.Row) -> dict:
    return {
        "rating": row.rating,
        "win_share": row.win_share,
        "score_difference": row.score_difference,
        **{name: getattr(row, name) for name in selectors.FIGURES},
    }


def _player_url(pk: int) -> str:
    return reverse("api:player", kwargs={"pk": pk})


def _team_url(pk: int) -> str:
    return reverse("api:team", kwargs={"pk": pk})


class PlayerFilters(Pages):
    search: str = Field(
        "",
        max_length=100,
        pattern=READABLE_TEXT,  # no control character: refused before the API (422)
        description="Part of a name, nickname or number.",
    )


@router.get(
    "/players/",
    response=out.answers(out.PlayerPage),
    url_name="players",
    summary="The club's players, by name",
    tags=["players and teams"],
)
@answered()
def players(request: HttpRequest, filters: Query[PlayerFilters]):
    found = selectors.register(club=club_of(request), search=filters.search)
    items, page = paged(request, found, filters)
    return {
        **page,
        "results": [
            {
                "id": player.pk,
                "name": player.name,
                "rating": getattr(getattr(player, "rating", None), "rating", None),
                "page": player.get_absolute_url(),
                "url": _player_url(player.pk),
            }
            for player in items
        ],
    }


@router.get(
    "/players/{pk}/",
    response=out.answers(out.PlayerDetail, missing=True),
    url_name="player",
    summary="A player's profile: rating, figures, form and latest games",
    tags=["players and teams"],
)
@answered(by_id(profile_version))
def player(request: HttpRequest, pk: int = Path(..., ge=1, le=out.MAX_ID)):
    club = club_of(request)
    # Read already by the key (profile_version), which did the boards' owed work first.
    found = getattr(request, "profile_player", None)
    if found is None or found.pk != pk:
        found = selectors.members(club).filter(pk=pk).first()
        if found is None:
            return Status(404, {"detail": "No player has this id."})
        selectors.live_version(found, club=club)  # the boards' owed work first
    shown = profile.player_profile(found, club=club, per_page=API_GAMES)
    return {
        "id": found.pk,
        "name": found.name,
        "rating": shown["figures"].rating,
        "page": found.get_absolute_url(),
        "url": _player_url(found.pk),
        "figures": _figures(shown["figures"]),
        "form": shown["form"],
        "games_count": shown["games_count"],
        "games": [
            {
                "game": line.game_id,
                "label": line.label,
                "status": line.status,
                "team": line.team,
                "partners": [partner.name for partner in line.partners],
                "teams": line.teams,
                "place": line.place,
                "rating_change": line.rating_delta,
                "url": reverse("api:game", kwargs={"pk": line.game_id}),
            }
            for line in shown["games"]
        ],
    }


@router.get(
    "/teams/{pk}/",
    response=out.answers(out.TeamDetail, missing=True),
    url_name="team",
    summary="A team's players, rating and figures",
    tags=["players and teams"],
)
@answered(by_id(lambda request, pk: board_version(request)))
def team(request: HttpRequest, pk: int = Path(..., ge=1, le=out.MAX_ID)):
    selectors.live_version()  # the boards' owed work first
    teams = Team.objects.select_related(*PLAYER_FIELDS)
    # A team at a game of the club being played is the club's already.
    the_clubs = selectors.the_clubs("team", club_of(request), "pk", finished=False)
    found = teams.filter(the_clubs, pk=pk).first()
    if found is None:
        return Status(404, {"detail": "No team has this id."})
    totals = (
        TeamTotals.objects.filter(team=found).values("rating", *selectors.FIGURES).first() or {}
    )
    row = selectors.Row(subject=found, **{"rating": None, **totals})
    if not totals.get("played"):
        row.rating = None  # a team that has not played a finished game has no rating
    return {
        "id": found.pk,
        "name": found.name,
        "players": [player.name for player in found.players],
        "figures": _figures(row),
        "url": _team_url(found.pk),
    }


def _iso_day(value):
    """A day only as YYYY-MM-DD (pydantic would also take a number of seconds since 1970)."""
    if value is None or isinstance(value, datetime.date):
        return value
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return value
    raise ValueError("a day is written YYYY-MM-DD")


Day = Annotated[datetime.date, BeforeValidator(_iso_day)]


class BoardFilters(Schema):
    start: Day | None = Field(None, description="Games from this day on (YYYY-MM-DD).")
    end: Day | None = Field(None, description="Games up to this day (YYYY-MM-DD).")
    tournament: int | None = Field(None, ge=1, le=out.MAX_ID, description="One tournament's games.")
    form: Literal["tables", "points", "kodi"] | None = Field(
        None,
        description="One form of play's games: tables, points (a points sheet, the 56 "
        "International) or kodi (a kodi night).",
    )
    sort: out.Sort = Field(selectors.DEFAULT_SORT, description="The column ranked by.")
    order: Literal["asc", "desc"] = "desc"
    page: int = Field(1, ge=1, le=out.MAX_PAGE)


def _board(request: HttpRequest, kind: str, filters: BoardFilters) -> dict:
    board = selectors.player_board_page if kind == "players" else selectors.team_board_page
    found = board(
        club=club_of(request),
        filters=selectors.Filters(
            start=filters.start,
            end=filters.end,
            tournament=filters.tournament,
            form=filters.form,
        ),
        sort=filters.sort,
        descending=filters.order == "desc",
        page=filters.page,
    )
    link = _player_url if kind == "players" else _team_url
    return {
        "count": found.total,
        "page": found.page,
        "pages": found.pages,
        "page_size": selectors.PER_PAGE,
        "sort": filters.sort,
        "order": filters.order,
        "results": [
            {
                "rank": row.rank,
                "id": row.subject.pk,
                "name": row.name,
                "players": [player.name for player in row.players],
                "url": link(row.subject.pk),
                **_figures(row),
            }
            for row in found.rows
        ],
    }


@router.get(
    "/leaderboards/players/",
    response=out.answers(out.Board),
    url_name="player_board",
    summary="The players' leaderboard, as its page ranks it",
    tags=["leaderboards"],
)
@answered(board_version)
def player_board(request: HttpRequest, filters: Query[BoardFilters]):
    selectors.live_version()  # the boards' owed work first
    return _board(request, "players", filters)


@router.get(
    "/leaderboards/teams/",
    response=out.answers(out.Board),
    url_name="team_board",
    summary="The teams' leaderboard, as its page ranks it",
    tags=["leaderboards"],
)
@answered(board_version)
def team_board(request: HttpRequest, filters: Query[BoardFilters]):
    selectors.live_version()  # the boards' owed work first
    return _board(request, "teams", filters)


class RankingFilters(Pages):
    club: str = Field(
        "",
        max_length=40,
        pattern=r"^[a-z0-9-]*$",
        description="One club's players, by its short name (empty: every club's).",
    )
    form: Literal["tables", "points", "kodi"] | None = Field(
        None,
        description="One form of play's own rating list (tables, points or kodi), each player "
        "rated from that form's games alone; none: the rating over every game.",
    )


@router.get(
    "/ranking/",
    response=out.answers(out.Ranking),
    url_name="ranking",
    summary="The federation's ranking: one rating list over every club's rated games",
    tags=["leaderboards"],
)
@answered(federation.ranking_version)
def ranking(request: HttpRequest, filters: Query[RankingFilters]):
    chosen = federation.RankingFilter.of(request)
    rows, page = paged(request, federation.ranked(chosen), filters)
    lines = federation.ranked_lines(rows, (filters.page - 1) * filters.page_size + 1)
    return {
        **page,
        "minimum_games": chosen.minimum,
        "results": [
            {
                **line,
                "player": line["player"].pk,
                "name": line["player"].name,
                "clubs": [club.slug for club in line["clubs"]],
            }
            for line in lines
        ],
    }
