"""Downloads and printouts of a tournament's results: public and read-only.

The JSON archive and the CSV tables come from ``club.scoring.archive`` (the
same code as ``manage.py export_results --tournament``) and are streamed as
they are made, so that a large tournament never sits in memory whole.
"""

from __future__ import annotations

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.views.decorators.http import require_safe

from club.scoring import archive
from club.tournaments.models import Standing, Tournament


def _file_name(tournament: Tournament, what: str, extension: str) -> str:
    base = slugify(tournament.name) or f"tournament-{tournament.pk}"
    return f"{base}-{what}.{extension}"


def _attachment(response: StreamingHttpResponse, name: str):
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=name)
    return response


@require_safe
def export_json(request, pk: int):
    tournament = get_object_or_404(Tournament, pk=pk)
    response = StreamingHttpResponse(
        archive.stream_tournament_json([tournament]),
        content_type="application/json; charset=utf-8",
    )
    return _attachment(response, _file_name(tournament, "results", "json"))


def _csv_response(tournament: Tournament, table: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(
        archive.stream_tournament_csv(tournament, table), content_type="text/csv; charset=utf-8"
    )
    return _attachment(response, _file_name(tournament, table, "csv"))


@require_safe
def standings_csv(request, pk: int):
    return _csv_response(get_object_or_404(Tournament, pk=pk), "standings")


@require_safe
def games_csv(request, pk: int):
    return _csv_response(get_object_or_404(Tournament, pk=pk), "games")


@require_safe
def deals_csv(request, pk: int):
    return _csv_response(get_object_or_404(Tournament, pk=pk), "deals")


@require_safe
def print_standings(request, pk: int):
    tournament = get_object_or_404(Tournament, pk=pk)
    standings = (
        Standing.objects.filter(tournament=tournament)
        .select_related("entry__team__first_player", "entry__team__second_player")
        .order_by("place", "entry__team__name")
    )
    sittings = tournament.sittings.filter(status="confirmed").count()
    return render(
        request,
        "tournaments/print_standings.html",
        {"tournament": tournament, "standings": standings, "sittings": sittings},
    )
