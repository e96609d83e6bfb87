"""The API's competitions (club/api): a club's seasons and the federation's circuits, each
with its rule, its nights and its table as made at the reading (club.competitions.table).

At a club's address they are the club's seasons and the circuits that count one of its
tournaments; another club's season, or a circuit that counts none of the club's
tournaments, is 404 there. At the site's own address (a site of several clubs) they are
the circuits only.

A competition is kept under its page's tokens (club.competitions.pages.version): its own
last change, the newest change to a game it may count (a deal, a correction, a game
started or finished in its days), and the club's token (club.games.versions: a rename, a
tournament saved, a game deleted); a circuit's, every club's token instead. A circuit's
table moves with another club's tournament, so the kept answer's memo follows every
club's writes (club.web.pages.of_every_club).
"""

from __future__ import annotations

from fractions import Fraction

from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from ninja import Path, Query, Router, Status

from club.api import schemas as out
from club.api.common import Pages, answered, by_id, paged
from club.archive.format import points_text
from club.clubs import known
from club.clubs.addresses import club_of
from club.clubs.models import Club
from club.competitions import pages
from club.competitions.models import Competition
from club.competitions.table import NightOf, competition_table
from club.web.pages import of_every_club

router = Router()

NOT_FOUND = "No competition has this id."


def _club_or_site(request: HttpRequest) -> Club | None:
    """The request's club; None at the site's own address on a site of several clubs
    (club.clubs.addresses sets ``request.club`` None there)."""
    if getattr(request, "club", False) is None:
        return None
    return club_of(request)


def shown_at(club: Club | None) -> QuerySet[Competition]:
    """The competitions an address shows: a club's own seasons and the circuits that count
    one of its tournaments; at the site's own address (``club`` None), the circuits."""
    if club is None:
        return Competition.objects.filter(club__isnull=True)
    return Competition.objects.filter(
        Q(club=club) | Q(pk__in=pages.circuits_counting(club).values("pk"))
    )


def competition_version(request: HttpRequest, pk: int):
    """The competition's key: its page's (club.competitions.pages.version: its last change,
    the newest change to a game it may count, then the club's token, or every club's for a
    circuit); None for a competition not shown at this address."""
    club = _club_or_site(request)
    if club is not None:
        found = pages.version(pk, club)
        if found is not None:
            return found
    if not shown_at(club).filter(pk=pk, club__isnull=True).exists():
        return None
    return pages.version(pk, None)


def _summary(competition: Competition) -> dict:
    return {
        "id": competition.pk,
        "name": competition.name,
        "circuit": competition.is_circuit,
        "club": known.by_id(competition.club_id).slug if competition.club_id else None,
        "starts_on": competition.starts_on,
        "ends_on": competition.ends_on,
        "counts": competition.counts,
        "form": competition.form,
        "ranks": competition.ranks,
        "page": competition.get_absolute_url(),
        "url": reverse("api:competition", kwargs={"pk": competition.pk}),
    }


@router.get(
    "/competitions/",
    response=out.answers(out.CompetitionPage),
    url_name="competitions",
    summary="Seasons and circuits, the latest first",
    tags=["competitions"],
)
@answered()
def competitions(request: HttpRequest, filters: Query[Pages]):
    items, page = paged(request, shown_at(_club_or_site(request)), filters)
    return {**page, "results": [_summary(competition) for competition in items]}


def _night(night: NightOf) -> dict:
    event = night.tournament
    return {
        "key": night.key,
        "day": night.day,
        "event": event is not None,
        "tournament": event.pk if event is not None else None,
        "name": event.name if event is not None else None,
        "club": known.by_id(night.club_id).slug if night.club_id else None,
        "state": night.state,
        "counts": night.counts,
        "lines": len(night.results),
        "page": event.get_absolute_url() if event is not None else None,
    }


def _number(value: Fraction) -> float:
    return round(float(value), 4)


@router.get(
    "/competitions/{pk}/",
    response=out.answers(out.CompetitionDetail, missing=True),
    url_name="competition",
    summary="A season or circuit: its rule, its nights and its table as of now",
    tags=["competitions"],
)
@answered(of_every_club(by_id(competition_version)))
def competition(request: HttpRequest, pk: int = Path(..., ge=1, le=out.MAX_ID)):
    found = shown_at(_club_or_site(request)).filter(pk=pk).first()
    if found is None:
        return Status(404, {"detail": NOT_FOUND})
    table = competition_table(found)
    return {
        **_summary(found),
        "rule": {
            "method": found.method,
            "place_points": list(found.place_points),
            "best": found.best,
            "minimum": found.minimum,
            "final_within_days": found.final_within_days,
            "late_counts": found.late_counts,
        },
        "nights": [_night(night) for night in table.nights],
        "table": [
            {
                "place": line.place,
                "shared": line.shared,
                "id": line.line,
                "name": table.names.get(line.line, ""),
                "total": _number(line.total),
                "total_exact": points_text(line.total),
                "scores": {key: _number(score) for key, score in line.scores.items()},
                "counted": list(line.counted),
                "dropped": list(line.dropped),
                "nights": line.nights,
                "won": line.won,
                "decided_by": line.decided_by,
            }
            for line in table.lines
        ],
    }
