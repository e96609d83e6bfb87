"""A season's or a circuit's link preview and its picture: the top of its table.

What a messaging app shows beside a shared competition (club.web.preview says how the
preview travels): "After 12 nights: 1 Anu & Biju 30 pts, 2 Chitra & Dev 27 pts, …",
and a picture of the first five lines. Both are made from the table as its page shows
it (club.competitions.pages.table_page): the page's preview from the page's own context,
the picture from the table made for it (each night's places kept, as for the page).
"""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from club.competitions import pages
from club.competitions.models import Competition
from club.web.cards import ROWS, Card, Row
from club.web.preview import (
    Preview,
    VersionOf,
    link_preview,
    place_of,
    points_unit,
    ranked_line,
    site_name,
)

SAID = 3  # the lines a description names; the picture shows ROWS


def _heading(counted: int) -> str:
    if not counted:
        return _("No night counted yet")
    return ngettext("After %(count)d night", "After %(count)d nights", counted) % {"count": counted}


def summary(context: dict) -> str:
    """The table in a line: how many nights it counts, then its first three lines."""
    rows, counted = context["rows"], context["counted_nights"]
    if not rows:
        return _heading(counted) + "."
    lines = ", ".join(ranked_line(place_of(row), row["name"], row["total"]) for row in rows[:SAID])
    more = "…" if len(rows) > SAID else ""
    return _("%(heading)s: %(teams)s") % {"heading": _heading(counted), "teams": lines + more}


def competition_preview(
    request: HttpRequest, context: dict, version_of: VersionOf, image: str
) -> Preview | None:
    """The table page's preview, from its context; ``image`` names its picture's view."""
    competition = context["competition"]
    return link_preview(
        request,
        version_of,
        pk=competition.pk,
        title=competition.name,
        said=lambda: summary(context),
        image=reverse(image, args=[competition.pk]),
    )


def competition_card(request: HttpRequest, competition: Competition) -> Card:
    """The picture of the table: its first five lines and their totals."""
    context = pages.table_page(competition)
    rows = context["rows"]
    kind = _("Circuit") if competition.is_circuit else _("Season")
    span = _("%(first)s – %(last)s") % {
        "first": date_format(competition.starts_on, "DATE_FORMAT"),
        "last": date_format(competition.ends_on, "DATE_FORMAT"),
    }
    rest = len(rows) - ROWS
    return Card(
        kicker=f"{site_name(request)} · {kind}",
        title=competition.name,
        subtitle=" · ".join([_heading(context["counted_nights"]), span]),
        rows=tuple(
            Row(
                lead=place_of(row),
                name=row["name"],
                figure=row["total"],
                unit=points_unit(row["total"]),
            )
            for row in rows[:ROWS]
        ),
        note=ngettext("and %(count)d more", "and %(count)d more", rest) % {"count": rest}
        if rest > 0
        else "",
        language=get_language(),
    )
