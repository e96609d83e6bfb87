"""A tournament's results as files to download: public and read-only; the club's games as
one file, for its organisers; and the web import of such a file (publishing a night).

The JSON archive and the CSV tables come from ``club.archive`` (the
same code as ``manage.py export_results --tournament``). Each is written
from one snapshot of the database (club.db.one_snapshot), so a deal recorded
while it is made cannot leave standings that disagree with the games, into a
spooled file (memory up to a few megabytes, then disk) so that a large
tournament never sits in memory whole; then it is sent. The snapshot lasts as
long as the writing, not as long as a slow phone takes to download it.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import uuid
from collections.abc import Callable, Iterable

from django.contrib import messages
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from club.archive import progress
from club.archive.export import stream_json
from club.archive.format import ArchiveError
from club.archive.forms import ResultsFileForm
from club.archive.load import import_text, summary_lines
from club.archive.publish import parse_choices, preview_text
from club.archive.reading import TextFile
from club.archive.register import roster_object
from club.archive.tournament_export import stream_tournament_csv, stream_tournament_json
from club.clubs import known
from club.clubs.addresses import club_of
from club.clubs.models import Club
from club.db import one_snapshot
from club.games.idempotency import one_time
from club.tournaments.models import Tournament
from club.web.auth import organiser_required
from club.web.requests import HtmxHttpRequest
from club.web.uploads import takes_upload

IN_MEMORY = 4 * 1024 * 1024  # bytes of a download kept in memory before it spills to disk


def _named(name: str, club: Club) -> str:
    """A download's file name, led by the club's short name on a site of several clubs:
    files of two clubs saved in one folder are told apart (a site of one keeps its names)."""
    return f"{club.slug}-{name}" if known.clubs().several else name


def _file_name(tournament: Tournament, what: str, extension: str) -> str:
    base = slugify(tournament.name) or f"tournament-{tournament.pk}"
    return _named(f"{base}-{what}.{extension}", known.by_id(tournament.club_id))


def _spooled(pieces: Iterable[str], filename: str, kind: str) -> FileResponse:
    """A download of ``pieces``, written into a spooled file before it is sent."""
    spool = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY)
    for piece in pieces:
        spool.write(piece.encode("utf-8"))
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, filename=filename, content_type=kind)


def _download(
    request: HttpRequest,
    pk: int,
    write: Callable[[Tournament], Iterable[str]],
    what: str,
    extension: str,
    kind: str,
) -> FileResponse:
    """The file ``write`` makes of the page's club's tournament, all of it read from one
    snapshot (another club's tournament is not found)."""
    with one_snapshot():
        tournament = get_object_or_404(Tournament, pk=pk, club=club_of(request))
        response = _spooled(write(tournament), _file_name(tournament, what, extension), kind)
    return response


@require_safe
def export_json(request, pk: int):
    return _download(
        request,
        pk,
        lambda tournament: stream_tournament_json([tournament]),
        "results",
        "json",
        "application/json; charset=utf-8",
    )


def _csv_response(request: HttpRequest, pk: int, table: str) -> FileResponse:
    return _download(
        request,
        pk,
        lambda tournament: stream_tournament_csv(tournament, table),
        table,
        "csv",
        "text/csv; charset=utf-8",
    )


@require_safe
def standings_csv(request, pk: int):
    return _csv_response(request, pk, "standings")


@require_safe
def games_csv(request, pk: int):
    return _csv_response(request, pk, "games")


@require_safe
def deals_csv(request, pk: int):
    return _csv_response(request, pk, "deals")


@organiser_required
@require_safe
def games_json(request):
    """Every game of the club, oldest first: what the venue's laptop publishes."""
    day = timezone.localdate().isoformat()
    with one_snapshot():
        response = _spooled(
            stream_json(club_of(request)),
            _named(f"club-games-{day}.json", club_of(request)),
            "application/json; charset=utf-8",
        )
    response["Cache-Control"] = "private, no-store"
    return response


@organiser_required
@require_safe
def roster_json(request):
    """The club's players, each with their identifier and member number: what the venue's
    laptop loads before a night (Publish results there, or ``--roster`` as it starts)."""
    day = timezone.localdate().isoformat()
    with one_snapshot():
        text = json.dumps(roster_object(club_of(request)), ensure_ascii=False, indent=2) + "\n"
    name = _named(f"club-players-{day}.json", club_of(request))
    response = _spooled([text], name, "application/json; charset=utf-8")
    response["Cache-Control"] = "private, no-store"
    return response


# --- Publishing a night: the web import ---------------------------------------------------


def _fingerprint(upload, choices=None, *, club) -> str:
    """The file, the club it goes into and the organiser's word on its clashes, as
    previewed: the import stores that file into that club with those choices only."""
    digest = hashlib.sha256(f"{club.pk}\n".encode())
    for chunk in upload.chunks():
        digest.update(chunk)
    for identifier, choice in sorted((choices or {}).items()):
        digest.update(f"\n{identifier}:{choice.same}:{' '.join(choice.called.split())}".encode())
    return digest.hexdigest()


def _import_page(request, form, *, preview=None, fingerprint="", problem="") -> HttpResponse:
    return render(
        request,
        "archive/import.html",
        {
            "form": form,
            "preview": preview,
            "fingerprint": fingerprint,
            "problem": problem,
            # The key the page names its next run by, to follow it (club.archive.progress).
            "run": uuid.uuid4().hex,
        },
    )


@organiser_required
@require_http_methods(["GET", "POST"])
@takes_upload(ResultsFileForm)
def results_import(request: HttpRequest) -> HttpResponse:
    """The file chosen, imported and undone (club.archive.publish): refused as the import
    would refuse it, or what it would add and what is here already; nothing is kept."""
    if request.method != "POST":
        return _import_page(request, ResultsFileForm())
    form = ResultsFileForm(request.POST, request.FILES)
    if not form.is_valid():
        return _import_page(request, form)
    upload = form.cleaned_data["file"]
    text = TextFile(upload.file)
    try:
        choices = parse_choices(request.POST)
    except ValueError as error:
        return _import_page(request, form, problem=str(error))
    try:
        text.check()
        club = club_of(request)
        told = progress.reporter(request.user, request.POST.get("run", ""), "preview", club=club)
        preview = preview_text(text, user=request.user, progress=told, choices=choices, club=club)
    except ArchiveError as error:
        return _import_page(
            request,
            form,
            problem=_("%(problem)s This file cannot be imported.") % {"problem": error.message},
        )
    return _import_page(
        request, form, preview=preview, fingerprint=_fingerprint(upload, choices, club=club)
    )


@organiser_required
@require_POST
@one_time
@takes_upload(ResultsFileForm)
def results_import_store(request: HtmxHttpRequest) -> HttpResponse:
    """The file previewed, stored all at once or not at all (as ``import_results``)."""
    form = ResultsFileForm(request.POST, request.FILES)
    if not form.is_valid():
        return _import_page(request, form)
    upload = form.cleaned_data["file"]
    try:
        choices = parse_choices(request.POST)
    except ValueError as error:
        return _import_page(request, form, problem=str(error))
    club = club_of(request)
    if _fingerprint(upload, choices, club=club) != form.cleaned_data["previewed"]:
        form.add_error(
            "file",
            _(
                "This is not the file, or not the choices, that were previewed: preview it "
                "first, then import it."
            ),
        )
        return _import_page(request, form)
    text = TextFile(upload.file)
    try:
        text.check()
        told = progress.reporter(request.user, request.POST.get("run", ""), "import", club=club)
        summary = import_text(text, user=request.user, progress=told, choices=choices, club=club)
    except ArchiveError as error:
        return _import_page(
            request,
            form,
            problem=_("%(problem)s Nothing was imported.") % {"problem": error.message},
        )
    _say_imported(request, summary, upload.name)
    if len(summary.tournaments) == 1:
        where = Tournament.objects.get(club=club, name=summary.tournaments[0]).get_absolute_url()
    else:
        where = reverse("games:list")
    # The page sent it with htmx, to follow its progress: it goes there itself.
    return HttpResponseClientRedirect(where) if request.htmx else redirect(where)


@organiser_required
@require_safe
def results_import_progress(request: HttpRequest) -> JsonResponse:
    """How far the page's run has gone (club.archive.progress), asked while it waits."""
    response = JsonResponse(
        progress.read(request.user, request.GET.get("run", ""), club=club_of(request))
    )
    add_never_cache_headers(response)
    return response


def _say_imported(request, summary, name: str) -> None:
    """The import's news, in the words ``import_results`` prints."""
    first, *rest = summary_lines(summary, name)
    messages.success(request, first)
    for line in rest:
        messages.info(request, line)
