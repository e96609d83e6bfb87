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

:func:`preview_text` is the import itself, rehearsed to its end and then undone (its
games and teams written as their deals leave them, not the deals' rows, which the check
has settled already and which cannot refuse): whatever the import would refuse (a team
name this site gives to other players, a tournament's standings that its games do not
give, anything the services it calls refuse), the preview refuses first, in the same
words, and what it offers to import is what the import stores. A list of what the file
holds, and what of it is here already, is kept as the import's check reads the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from club.archive.load import Progress, import_text
from club.archive.reading import Text

PREVIEW_LINES = 100  # the lines a preview lists; the rest are counted


@dataclass(frozen=True)
class PreviewLine:
    """A tournament of the file, or a game outside any tournament."""

    name: str
    tournament: bool
    games: int
    deals: int
    same: bool = False  # a game this site has already, as it is: it is left so


@dataclass(frozen=True)
class Preview:
    lines: tuple[PreviewLine, ...]  # the first PREVIEW_LINES
    unlisted: int  # lines past those
    games: int  # games the import adds
    deals: int  # and their deals
    kept: int  # games here already, left as they are

    @property
    def adds_anything(self) -> bool:
        return self.games > 0


class _Lines:
    """The preview's list, told each game and document as the import's check reads them."""

    def __init__(self) -> None:
        self.lines: list[PreviewLine] = []
        self.games = self.deals = 0  # of the document being read
        self.held: list[PreviewLine] = []

    def note(self, kind: str, value) -> None:
        if kind == "start":
            self.games = self.deals = 0
            self.held = []
        elif kind == "game":
            self.games += 1
            self.deals += len(value.deals)
            self.held.append(PreviewLine(value.label, False, 1, len(value.deals), value.here))
        elif value is None:  # the end of a document of games
            self.lines.extend(self.held)
        else:  # the end of a tournament's document: its games are the tournament's
            self.lines.append(PreviewLine(value.name, True, self.games, self.deals))


def preview_text(text: Text, *, user=None, progress: Progress | None = None) -> Preview:
    """What importing ``text`` would add: the import, as ``user`` would make it, rehearsed
    and undone (the same refusals, as :class:`ArchiveError`); nothing is kept."""
    lines = _Lines()
    with transaction.atomic():
        summary = import_text(text, user=user, note=lines.note, deals=False, progress=progress)
        transaction.set_rollback(True)
    return Preview(
        lines=tuple(lines.lines[:PREVIEW_LINES]),
        unlisted=max(0, len(lines.lines) - PREVIEW_LINES),
        games=summary.games,
        deals=summary.deals,
        kept=summary.kept,
    )
