"""Publishing a night: what a results file would add to this site, and what is here already.

A night recorded on the venue's laptop goes up to the club's site as a results file
(the laptop's export), imported on the web. The same file may come twice, or the
laptop's whole export may hold games published on an earlier night, so the import
recognises what is already here:

- A **game** outside a tournament whose label is on this site, and which is the same
  game (its players in their seats, first dealer, form of play and every deal as the
  file has them), is left as it is: it is not added twice (``parse_game`` finds it,
  ``same_game_here``). A game with a label already on this site that differs is
  refused, all of the file with it, as the import always refused it (labels are unique).
- A **tournament** whose name is on this site is refused, all of the file with it: a
  tournament is published once (``create_tournament``'s words).

:func:`preview_text` checks the file as the import checks it, writing nothing, and says
what would be added and what is here already.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from django.db.models.functions import Lower

from club.archive.documents import _checked as checked_documents
from club.archive.documents import outline_documents
from club.archive.reading import Text
from club.tournaments.models import Tournament

PREVIEW_LINES = 100  # the lines a preview lists; the rest are counted
_IN_CHUNK = 500  # names looked up at a time


@dataclass(frozen=True)
class PreviewLine:
    """A tournament of the file, or a game outside any tournament."""

    name: str
    tournament: bool
    games: int
    deals: int
    here: bool  # a tournament or game of that name is on this site
    same: bool = False  # and it is the same game: it is left as it is


@dataclass(frozen=True)
class Preview:
    lines: tuple[PreviewLine, ...]  # the first PREVIEW_LINES
    unlisted: int  # lines past those
    games: int  # games the import adds
    deals: int  # and their deals
    kept: int  # games here already, left as they are
    refused: tuple[PreviewLine, ...]  # names here already that stop the import

    @property
    def adds_anything(self) -> bool:
        return self.games > 0


def names_here(model, field: str, names: Iterable[str]) -> set[str]:
    """The names of ``names`` (compared without case) that rows of ``model`` have."""
    wanted = sorted({name.lower() for name in names})
    found: set[str] = set()
    for start in range(0, len(wanted), _IN_CHUNK):
        chunk = wanted[start : start + _IN_CHUNK]
        found.update(
            model.objects.annotate(lower=Lower(field))
            .filter(lower__in=chunk)
            .values_list("lower", flat=True)
        )
    return found


def preview_text(text: Text) -> Preview:
    """What importing ``text`` would add, checked as the import checks it (the same
    refusals, as :class:`ArchiveError`); nothing is written."""
    lines: list[PreviewLine] = []
    games = deals = 0  # of the document being read
    held: list[PreviewLine] = []
    for kind, value in checked_documents(text, outline_documents(text), whole=False):
        if kind == "start":
            games = deals = 0
            held = []
        elif kind == "game":
            games += 1
            deals += len(value.deals)
            held.append(
                PreviewLine(value.label, False, 1, len(value.deals), value.here, value.here)
            )
        elif value is None:  # the end of a document of games
            lines.extend(held)
        else:  # the end of a tournament's document: its games are the tournament's
            lines.append(PreviewLine(value.name, True, games, deals, False))
    here = names_here(Tournament, "name", (line.name for line in lines if line.tournament))
    lines = [
        replace(line, here=True) if line.tournament and line.name.lower() in here else line
        for line in lines
    ]
    added = [line for line in lines if not line.same]
    return Preview(
        lines=tuple(lines[:PREVIEW_LINES]),
        unlisted=max(0, len(lines) - PREVIEW_LINES),
        games=sum(line.games for line in added),
        deals=sum(line.deals for line in added),
        kept=sum(1 for line in lines if line.same),
        refused=tuple(line for line in lines if line.here and not line.same),
    )
