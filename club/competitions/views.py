"""Thin views of a club's seasons and the federation's circuits: the list, a table (its
page, its printout, its projector), a line's nights, and the organiser's forms.

The same views serve a club's competitions (``competitions:``, at the club's address) and
the circuits (``circuits:``, the site's own pages, which only its administrators write).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from club.clubs.addresses import club_of
from club.clubs.models import Club
from club.competitions import pages
from club.competitions.forms import CompetitionForm
from club.competitions.models import Competition
from club.competitions.previews import competition_card, competition_preview
from club.competitions.services import CompetitionError, delete_competition, save_competition
from club.games.idempotency import one_time
from club.web.auth import is_organiser, may_write, written_by
from club.web.kept import page_query
from club.web.pages import cached_page, of_every_club
from club.web.paging import kept_query, page_number
from club.web.posts import show_refusal
from club.web.preview import picture


def _circuits(request: HttpRequest) -> bool:
    match = request.resolver_match
    return match is not None and match.namespace == "circuits"


def _owner(request: HttpRequest) -> Club | None:
    """Whose competitions these pages are: the club's, or none (the federation's circuits)."""
    return None if _circuits(request) else club_of(request)


def _writer(request: HttpRequest) -> bool:
    """A club's organisers write its competitions; the site's administrators the circuits."""
    if _circuits(request):
        return is_organiser(request.user)
    return may_write(request)


# A season's forms are its club's organisers'; a circuit's the site's administrators'.
_written_by_organisers = written_by(_writer)


def _competition(request: HttpRequest, pk: int) -> Competition:
    return get_object_or_404(Competition, pk=pk, club=_owner(request))


def _line_base(request: HttpRequest, pk: int) -> str:
    """The address of the competition's lines, less the line's id."""
    namespace = "circuits" if _circuits(request) else "competitions"
    return reverse(f"{namespace}:line", args=[pk, 0]).removesuffix("0/")


def _version(request: HttpRequest, pk: int, **_kwargs):
    """A season's kept pages' key: its club's (club.competitions.pages.version)."""
    return _read_version(request, pk, club_of(request))


@of_every_club
def _circuit_version(request: HttpRequest, pk: int, **_kwargs):
    """A circuit's: the federation's, its memo following every club's writes at whatever
    address it is read."""
    return _read_version(request, pk, None)


def _read_version(request: HttpRequest, pk: int, owner: Club | None):
    """The key, read once a request: the view's live token is its own part."""
    found = pages.version(pk, owner)
    request._competition_version = found  # type: ignore[attr-defined]  # the request's own
    return found


def _live(request: HttpRequest, pk: int) -> str:
    """The token the table's live parts poll by (the kept page's own: a poll that holds it
    gets 204 from club.web.pages without reaching the view)."""
    found = getattr(request, "_competition_version", None)
    if found is None:  # not read yet (a signed-in reader's page is not kept)
        found = pages.version(pk, _owner(request))
    if found is None:
        raise Http404
    return found[0]


@require_safe
@page_query("page")
def competition_list(request: HttpRequest) -> HttpResponse:
    context = pages.competitions_of(_owner(request), page_number(request), kept_query(request))
    context["circuit_pages"] = _circuits(request)
    context["can_write"] = _writer(request)
    return render(request, "competitions/list.html", context)


def _polled(request: HttpRequest, pk: int, template: str, more) -> HttpResponse:
    """A table that keeps itself up to date: 204 to a poll that already shows its token,
    else the page (to a poll, its live part), its context given what ``more`` adds."""
    competition = _competition(request, pk)
    live = _live(request, pk)
    if request.GET.get("version") == live:
        return HttpResponse(status=204)
    context = pages.table_page(competition)
    context.update(live_version=live, circuit_pages=_circuits(request), **more(context))
    return render(request, f"{template}#live" if "version" in request.GET else template, context)


def _detail(request: HttpRequest, pk: int) -> HttpResponse:
    return _polled(
        request,
        pk,
        "competitions/detail.html",
        lambda context: {
            "can_write": _writer(request),
            "line_base": _line_base(request, pk),
            **_preview(request, context),
        },
    )


def _preview(request: HttpRequest, context: dict) -> dict:
    """The page's head and its Share button (club.web.preview); none in a poll's part."""
    if "version" in request.GET:
        return {}
    circuit = _circuits(request)
    version_of = _circuit_version if circuit else _version
    image = "circuits:preview" if circuit else "competitions:preview"
    return {"preview": competition_preview(request, context, version_of, image)}


def _card(request: HttpRequest, pk: int):
    """The picture of the table (club/competitions/previews.py)."""
    return competition_card(request, _competition(request, pk))


def _line(request: HttpRequest, pk: int, line: int) -> HttpResponse:
    """A team's or a player's line: each of its nights, its place and score, counted or
    dropped (the team's page of the competition)."""
    competition = _competition(request, pk)
    context = pages.line_page(competition, line)
    if context is None:
        raise Http404
    context["circuit_pages"] = _circuits(request)
    return render(request, "competitions/line.html", context)


def _print(request: HttpRequest, pk: int) -> HttpResponse:
    context = pages.table_page(_competition(request, pk))
    context["circuit_pages"] = _circuits(request)
    return render(request, "competitions/print.html", context)


def _projector(request: HttpRequest, pk: int) -> HttpResponse:
    return _polled(request, pk, "competitions/projector.html", _panels)


def _panels(context: dict) -> dict:
    """The projector's ranked lines, a panel at a time (one panel when there are none)."""
    rows, size = context["rows"], pages.PROJECTOR_ROWS
    return {"row_pages": [rows[at : at + size] for at in range(0, max(len(rows), 1), size)]}


def _form_page(request: HttpRequest, competition: Competition | None) -> HttpResponse:
    owner = _owner(request)
    if request.method == "POST":
        form = CompetitionForm(request.POST, club=owner)
    else:
        initial = CompetitionForm.initial_of(competition) if competition else None
        form = CompetitionForm(initial=initial, club=owner)
    if request.method == "POST" and form.is_valid():
        try:
            saved = save_competition(
                club=owner,
                terms=form.terms(),
                events=form.cleaned_data.get("events") or (),
                user=request.user,
                competition=competition,
            )
        except CompetitionError as error:
            show_refusal(form, error)
        else:
            done = _("“%(name)s” saved.") if competition else _("“%(name)s” created.")
            messages.success(request, done % {"name": saved.name})
            return redirect(saved)
    context = {"form": form, "competition": competition, "circuit_pages": _circuits(request)}
    return render(request, "competitions/form.html", context)


@_written_by_organisers
@require_http_methods(["GET", "POST"])
@one_time
def competition_new(request: HttpRequest) -> HttpResponse:
    return _form_page(request, None)


@_written_by_organisers
@require_http_methods(["GET", "POST"])
@one_time
def competition_edit(request: HttpRequest, pk: int) -> HttpResponse:
    return _form_page(request, _competition(request, pk))


@_written_by_organisers
@require_POST
@one_time
def competition_delete(request: HttpRequest, pk: int) -> HttpResponse:
    competition = _competition(request, pk)
    delete_competition(competition)
    messages.success(request, _("“%(name)s” deleted.") % {"name": competition.name})
    return redirect("circuits:list" if _circuits(request) else "competitions:list")


def _kept(body, version_of):
    return require_safe(cached_page(version_of)(body))


# Each page twice: a season's, kept under its club's writes, and a circuit's, under every
# club's (a circuit shows several clubs' tournaments).
competition_detail = _kept(_detail, _version)
competition_line = _kept(_line, _version)
competition_print = _kept(_print, _version)
competition_projector = _kept(_projector, _version)
circuit_detail = _kept(_detail, _circuit_version)
circuit_line = _kept(_line, _circuit_version)
circuit_print = _kept(_print, _circuit_version)
circuit_projector = _kept(_projector, _circuit_version)
# The pictures a shared table's link shows, kept under the same versions.
competition_picture = picture(_version, _card)
circuit_picture = picture(_circuit_version, _card)
