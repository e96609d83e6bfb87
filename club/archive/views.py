"""A tournament's results as files to download: public and read-only.

The JSON archive and the CSV tables come from ``club.archive`` (the
same code as ``manage.py export_results --tournament``). Each is written
from one snapshot of the database (club.db.one_snapshot), so a deal recorded
while it is made cannot leave standings that disagree with the games, into a
spooled file (memory up to a few megabytes, then disk) so that a large
tournament never sits in memory whole; then it is sent. The snapshot lasts as
long as the writing, not as long as a slow phone takes to download it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable

from django.http import FileResponse
from django.shortcuts import get_object_or_404
from django.utils.text import slugify
from django.views.decorators.http import require_safe

from club import archive
from club.db import one_snapshot
from club.tournaments.models import Tournament

IN_MEMORY = 4 * 1024 * 1024  # bytes of a download kept in memory before it spills to disk


def _file_name(tournament: Tournament, what: str, extension: str) -> str:
    base = slugify(tournament.name) or f"tournament-{tournament.pk}"
    return f"{base}-{what}.{extension}"


def _download(
    pk: int, write: Callable[[Tournament], Iterable[str]], what: str, extension: str, kind: str
) -> FileResponse:
    """The file ``write`` makes of the tournament, all of it read from one snapshot."""
    spool = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY)
    with one_snapshot():
        tournament = get_object_or_404(Tournament, pk=pk)
        for piece in write(tournament):
            spool.write(piece.encode("utf-8"))
    spool.seek(0)
    return FileResponse(
        spool,
        as_attachment=True,
        filename=_file_name(tournament, what, extension),
        content_type=kind,
    )


@require_safe
def export_json(request, pk: int):
    return _download(
        pk,
        lambda tournament: archive.stream_tournament_json([tournament]),
        "results",
        "json",
        "application/json; charset=utf-8",
    )


def _csv_response(pk: int, table: str) -> FileResponse:
    return _download(
        pk,
        lambda tournament: archive.stream_tournament_csv(tournament, table),
        table,
        "csv",
        "text/csv; charset=utf-8",
    )


@require_safe
def standings_csv(request, pk: int):
    return _csv_response(pk, "standings")


@require_safe
def games_csv(request, pk: int):
    return _csv_response(pk, "games")


@require_safe
def deals_csv(request, pk: int):
    return _csv_response(pk, "deals")
