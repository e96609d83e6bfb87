"""The site's own pages on a site of several clubs: its home, which lists the clubs."""

from __future__ import annotations

from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from club.clubs.models import Club
from club.games.models import Game
from club.web.auth import is_organiser


def clubs_page(request: HttpRequest) -> dict:
    """The clubs, each with when it last played (one index lookup a club)."""
    latest = Game.objects.filter(club=OuterRef("pk")).order_by("-updated_at").values("updated_at")
    return {
        "clubs": list(Club.objects.annotate(last_played=Subquery(latest[:1])).order_by("name")),
        "administrator": is_organiser(request.user),
    }


@require_GET
def site_home(request: HttpRequest) -> HttpResponse:
    """The site's home: the clubs it holds."""
    return render(request, "clubs/home.html", clubs_page(request))
