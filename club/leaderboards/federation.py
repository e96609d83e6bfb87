"""The site's own pages: its home on a site of several clubs (the clubs it holds), and the
federation's ranking, one rating list over every club's rated games.

A player's rating is the site's (club.leaderboards.services.ratings rates every finished
game of every club in the order they finished), so the ranking needs no sum of its own:
it is the rated players who have played at least the minimum of rated games, highest
rating first, and, filtered by a club, those who are that club's players. Each form of
play is rated as a list of its own too (PlayerFormRating): the ranking of one form is
that list, its minimum counted in that form's rated games.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Exists, OuterRef, Prefetch, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from club.clubs import known
from club.clubs.models import Club
from club.games.models import Game
from club.games.people import Membership
from club.games.versions import every_club_version
from club.leaderboards.forms import FORMS
from club.leaderboards.models import PlayerFormRating, PlayerRating
from club.leaderboards.selectors import live_version
from club.web.auth import is_organiser
from club.web.kept import page_query
from club.web.pages import cached_page, of_every_club
from club.web.paging import Page, kept_query, page_number, page_of

RANKED_PER_PAGE = 50


CLUBS_PER_PAGE = 50  # a federation of 200 clubs: its list costs what a site of 50 does


def clubs_page(request: HttpRequest) -> dict:
    """A page of the clubs, by name, each with when it last played (one index lookup a
    club, for the clubs of the page only)."""
    latest = Game.objects.filter(club=OuterRef("pk")).order_by("-updated_at").values("updated_at")
    clubs = Club.objects.annotate(last_played=Subquery(latest[:1])).order_by("name", "pk")
    page = page_of(clubs, page_number(request), CLUBS_PER_PAGE, kept_query(request))
    return {
        "clubs": page.items,
        "page": page,
        "administrator": is_organiser(request.user),
    }


@of_every_club
def clubs_version(request: HttpRequest):
    """The site's list of clubs' key (club.web.pages): every club's name, address and
    latest change of a game (a game deleted changes it too), read in one query, an index
    lookup a club; that is all the page shows (its count of clubs and its pages included)."""
    latest = Game.objects.filter(club=OuterRef("pk")).order_by("-updated_at").values("updated_at")
    rows = Club.objects.annotate(last=Subquery(latest[:1])).order_by("pk")
    shown = rows.values_list("pk", "name", "slug", "last")
    return hashlib.sha256(repr(list(shown)).encode()).hexdigest()[:32], lambda: ""


@require_GET
@page_query("page")
@cached_page(clubs_version)
def site_home(request: HttpRequest) -> HttpResponse:
    """The site's home: the clubs it holds."""
    return render(request, "clubs/home.html", clubs_page(request))


def minimum_games() -> int:
    """Rated games a player needs to be listed (``DJANGO_RANKING_MIN_GAMES``)."""
    return getattr(settings, "CLUB_RANKING_MIN_GAMES", 10)


@dataclass(frozen=True)
class RankingFilter:
    """What the ranking shows: the players of one club (None: every club's), at least
    ``minimum`` rated games each, rated over every form of play or one (``form``)."""

    club: Club | None
    minimum: int
    form: str | None = None

    @classmethod
    def of(cls, request: HttpRequest) -> RankingFilter:
        slug = request.GET.get("club", "").strip()
        club = known.by_slug(slug) if slug and len(slug) <= 40 else None
        form = request.GET.get("form", "")
        return cls(club, minimum_games(), form if form in dict(FORMS) else None)

    @property
    def form_name(self) -> str:
        return str(dict(FORMS)[self.form]) if self.form else ""


def ranked(chosen: RankingFilter) -> QuerySet[PlayerRating] | QuerySet[PlayerFormRating]:
    """The ranking's rows, highest rating first (ties by name, then record, never by the
    order the rows come out of the database): the site's ratings, or one form's."""
    rows: QuerySet[PlayerRating] | QuerySet[PlayerFormRating]
    if chosen.form is None:
        rows = PlayerRating.objects.filter(games__gte=chosen.minimum)
    else:
        rows = PlayerFormRating.objects.filter(form=chosen.form, games__gte=chosen.minimum)
    if chosen.club is not None:
        rows = rows.filter(
            Exists(Membership.objects.filter(club=chosen.club, player=OuterRef("player_id")))
        )
    clubs = Prefetch("player__memberships", queryset=Membership.objects.all(), to_attr="held")
    return (
        rows.select_related("player")
        .prefetch_related(clubs)
        .order_by("-rating", "player__name", "player_id")
    )


def ranked_lines(rows, first: int) -> list[dict]:
    """Rows of :func:`ranked` as the page and the API show them: the place of the first is
    ``first``; each names the clubs its player plays in, by name."""
    return [
        {
            "rank": first + index,
            "player": row.player,
            "rating": row.rating,
            "games": row.games,
            "clubs": known.named(held.club_id for held in row.player.held),
        }
        for index, row in enumerate(rows)
    ]


def ranking_page(chosen: RankingFilter, number: int, query: str = "") -> dict:
    """One page of the ranking; ``query`` is what its pager's links keep (the club)."""
    page: Page = page_of(ranked(chosen), number, RANKED_PER_PAGE, query)
    return {
        "rows": ranked_lines(page.items, (page.number - 1) * RANKED_PER_PAGE + 1),
        "page": page,
        "chosen": chosen,
        "clubs": known.named(known.clubs().by_pk),
        "forms": FORMS,
    }


@of_every_club
def ranking_version(request: HttpRequest):
    """The ranking's key (club.web.pages): the ratings' token and, filtered by a club, its
    count of players; then the site's names token (a player renamed or merged)."""
    return live_version(club=RankingFilter.of(request).club), every_club_version


@require_GET
@page_query("club", "form", "page")
@cached_page(ranking_version)
def ranking(request: HttpRequest) -> HttpResponse:
    """The federation's ranking: every club's rated players, or one club's."""
    context = ranking_page(RankingFilter.of(request), page_number(request), kept_query(request))
    return render(request, "clubs/ranking.html", context)
