"""Whose results a file holds: its optional top-level ``club``, ``{"name": ..., "slug":
...}``, the club whose export it is (club.clubs). A file without it imports into any
club, as files always did; a file with it imports only into the club of that short name,
so a club's night is not published into another club by mistake."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from club.archive.format import ArchiveError, _cut, _quoted
from club.clubs.models import Club

CLUB_KEYS = ("name", "slug")


@dataclass(frozen=True)
class ClubSpec:
    """The club a file says it is the results of."""

    name: str
    slug: str


def club_object(club: Club) -> dict:
    """The ``club`` an export of ``club`` writes."""
    return {"name": club.name, "slug": club.slug}


def parse_club(raw: object, document: int | None = None) -> ClubSpec:
    """A document's ``club``: an object with its name and short name, both text that is
    not empty; refused, in the club's words, otherwise."""

    def error(problem: str) -> ArchiveError:
        return ArchiveError(problem, document=document)

    if not isinstance(raw, dict):
        raise error(
            _(
                "“club” must be a JSON object with the club's “name” and its short name, "
                "“slug”, not %(value)s."
            )
            % {"value": _quoted(raw)}
        )
    duplicate = getattr(raw, "duplicate", None)  # a key the JSON object gives twice
    if duplicate is not None:
        raise error(_("The key “%(key)s” is given twice in “club”.") % {"key": duplicate})
    for key in raw:
        if key not in CLUB_KEYS:
            raise error(
                _("“%(key)s” is not a field of “club” (the fields are name and slug).")
                % {"key": _cut(key)}
            )
    values = []
    for key in CLUB_KEYS:
        value = raw.get(key)
        if not isinstance(value, str) or not value.strip():
            raise error(
                _("The club's “%(key)s” must be text that is not empty, not %(value)s.")
                % {"key": key, "value": _quoted(value)}
            )
        values.append(value.strip())
    return ClubSpec(*values)


def check_publishing_into(documents: Sequence[dict], club: Club) -> None:
    """Refuse a file that says it is another club's results (a different short name),
    before anything is read of its games."""
    for number, document in enumerate(documents, start=1):
        if "club" not in document:
            continue
        spec = parse_club(document["club"], number if len(documents) > 1 else None)
        if spec.slug != club.slug:
            raise ArchiveError(
                _(
                    "This file is the results of %(name)s (%(slug)s); you are publishing "
                    "into %(here)s (%(here_slug)s)."
                )
                % {
                    "name": _cut(spec.name),
                    "slug": _cut(spec.slug),
                    "here": club.name,
                    "here_slug": club.slug,
                },
                document=number if len(documents) > 1 else None,
            )
