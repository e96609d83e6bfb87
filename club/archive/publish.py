"""Publishing a night: what a results file would add to this site, and what is here already.

A night recorded on the venue's laptop goes up to the club's site as a results file
(the laptop's export), imported on the web. The same file may come twice, or the
laptop's whole export may hold games published on an earlier night, so the import
recognises what is already here:

- A **game** outside a tournament whose label the club has, and which is the same
  game (its players in their seats, first dealer, form of play and every deal as the
  file has them), is left as it is: it is not added twice (``parse_game`` finds it,
  ``same_game_here``). A game with a label the club has already that differs is
  refused, all of the file with it, as the import always refused it (labels are unique
  in a club; another club's "Table 1" is no matter).
- A **tournament** whose name the club has is refused, all of the file with it: a
  tournament is published once (``create_tournament``'s words).
- A file that says it is another club's results (its ``club``) is refused whole.

:func:`preview_text` is the import itself, rehearsed to its end and then undone (its
games and teams written as their deals leave them, not the deals' rows, which the check
has settled already and which cannot refuse): whatever the import would refuse (a team
name this site gives to other players, a tournament's standings that its games do not
give, anything the services it calls refuse), the preview refuses first, in the same
words, and what it offers to import is what the import stores. A list of what the file
holds, and what of it is here already, is kept as the import's check reads the file.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from club.archive.documents import CheckEvent, DocumentStarts, GameChecked
from club.archive.load import Choices, Progress, Undecided, import_text
from club.archive.parse_competitions import CompetitionsStored
from club.archive.reading import Text
from club.clubs.models import Club
from club.games import whos_who
from club.games.models import Player
from club.games.starting import KnownNames

PREVIEW_LINES = 100  # the lines a preview lists; the rest are counted


@dataclass(frozen=True)
class PersonLine:
    """A player of the file, and who they are here: ``state`` is "here", "new" or "clash";
    ``here`` this site's name for them (a clash's namesake here), ``by`` how they were
    found ("identifier", "member_number", "name"), ``choice`` the organiser's word."""

    name: str
    state: str
    here: str = ""
    by: str = ""
    identifier: str = ""
    choice: whos_who.Choice | None = None
    suggested: str = ""  # a free name for another person of a clash's name

    @property
    def renamed(self) -> bool:
        return bool(self.here) and self.here != self.name


@dataclass(frozen=True)
class TeamLine:
    """A team the file seats, and whether it is here already (under ``here``) or new."""

    name: str
    here: str
    players: str
    new: bool


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
    players: tuple[PersonLine, ...] = ()  # the clashes, then the first PREVIEW_LINES others
    teams: tuple[TeamLine, ...] = ()  # the first PREVIEW_LINES
    players_new: int = 0
    players_here: int = 0
    teams_new: int = 0
    teams_here: int = 0
    decide: bool = False  # clashes wait for the organiser's word: nothing can be imported yet
    refused: str = ""  # why a choice cannot stand, asked again
    aliased: int = 0  # earlier identifiers the import gives players here
    # The file's competitions, new, changed by the file, or here as it has them.
    competitions: CompetitionsStored = CompetitionsStored()

    @property
    def adds_anything(self) -> bool:
        return not self.decide and (
            self.games > 0
            or self.players_new > 0
            or self.aliased > 0
            or self.competitions.saved > 0
        )

    @property
    def clashes(self) -> list[PersonLine]:
        return [line for line in self.players if line.state == whos_who.CLASH]

    @property
    def players_unlisted(self) -> int:
        return max(0, self.players_new + self.players_here - len(self.players))

    @property
    def teams_unlisted(self) -> int:
        return max(0, self.teams_new + self.teams_here - len(self.teams))


class _Lines:
    """The preview's list, told each game and document as the import's check reads them."""

    def __init__(self) -> None:
        self.lines: list[PreviewLine] = []
        self.games = self.deals = 0  # of the document being read
        self.held: list[PreviewLine] = []

    def note(self, event: CheckEvent) -> None:
        if isinstance(event, DocumentStarts):
            self.games = self.deals = 0
            self.held = []
        elif isinstance(event, GameChecked):
            spec = event.spec
            self.games += 1
            self.deals += len(spec.deals)
            self.held.append(PreviewLine(spec.label, False, 1, len(spec.deals), spec.here))
        elif event.tournament is None:  # the end of a document of games
            self.lines.extend(self.held)
        else:  # the end of a tournament's document: its games are the tournament's
            self.lines.append(PreviewLine(event.tournament.name, True, self.games, self.deals))


def preview_text(
    text: Text,
    *,
    user=None,
    progress: Progress | None = None,
    choices: Choices | None = None,
    club: Club | None = None,
) -> Preview:
    """What importing ``text`` into ``club`` (the home club when None) would add: the
    import, as ``user`` would make it with the organiser's ``choices`` on its clashes,
    rehearsed and undone (the same refusals, as :class:`ArchiveError`); nothing is kept.
    With a clash undecided, the file is checked and its players matched, and the preview
    asks about each clash (``decide``)."""
    lines = _Lines()
    try:
        with transaction.atomic():
            summary = import_text(
                text,
                user=user,
                note=lines.note,
                deals=False,
                progress=progress,
                choices=choices,
                club=club,
            )
            people = _people(summary.people, summary.known)
            teams = _teams(summary.known)
            transaction.set_rollback(True)
    except Undecided as undecided:
        people = _people(undecided.people, None)
        return Preview(
            lines=tuple(lines.lines[:PREVIEW_LINES]),
            unlisted=max(0, len(lines.lines) - PREVIEW_LINES),
            games=sum(line.games for line in lines.lines if not line.same),
            deals=sum(line.deals for line in lines.lines if not line.same),
            kept=sum(line.games for line in lines.lines if line.same),
            players=people,
            players_new=sum(line.state == whos_who.NEW for line in people),
            players_here=sum(line.state == whos_who.HERE for line in people),
            decide=True,
            refused=undecided.refused,
        )
    return Preview(
        lines=tuple(lines.lines[:PREVIEW_LINES]),
        unlisted=max(0, len(lines.lines) - PREVIEW_LINES),
        games=summary.games,
        deals=summary.deals,
        kept=summary.kept,
        players=people,
        teams=teams[:PREVIEW_LINES],
        players_new=summary.players_added,
        players_here=summary.players_here,
        teams_new=sum(team.new for team in teams),
        teams_here=sum(not team.new for team in teams),
        aliased=summary.aliased,
        competitions=summary.competitions,
    )


def _people(people: whos_who.WhosWho | None, known: KnownNames | None) -> tuple[PersonLine, ...]:
    """Every player of the file: the listed ones as they were matched, then those the file
    names without an identifier, as the writer found or added them. Clashes first."""
    lines = []
    listed = set()
    for match in people.matches if people is not None else ():
        listed.add(match.listed.key)
        line = PersonLine(
            name=match.listed.name,
            state=match.found,
            here=match.player.name if match.player is not None else "",
            by=match.by,
            identifier=str(match.listed.identifier),
            choice=match.choice,
        )
        if match.found == whos_who.CLASH:
            line = PersonLine(**{**line.__dict__, "suggested": _free_name(match.listed.name)})
        lines.append(line)
    if known is not None:
        for pk, name in known.holders.items():
            if whos_who.name_key(name) in listed:
                continue
            added = pk in known.added_players
            lines.append(
                PersonLine(name=name, state=whos_who.NEW if added else whos_who.HERE, here=name)
            )
    order = {whos_who.CLASH: 0, whos_who.NEW: 1, whos_who.HERE: 2}
    lines.sort(key=lambda line: (order[line.state], line.name.lower()))
    clashes = [line for line in lines if line.state == whos_who.CLASH]
    return tuple(clashes + [line for line in lines if line.state != whos_who.CLASH][:PREVIEW_LINES])


def _free_name(name: str) -> str:
    """A name for another person of a clash's name: "Anu (2)", or the first number free."""
    taken = {
        whos_who.name_key(other)
        for other in Player.objects.filter(name__istartswith=name).values_list("name", flat=True)
    }
    number = 2
    while whos_who.name_key(f"{name} ({number})") in taken:
        number += 1
    return f"{name} ({number})"


def _teams(known: KnownNames | None) -> tuple[TeamLine, ...]:
    if known is None:
        return ()
    lines = [
        TeamLine(
            name=name,
            here=team.name,
            players=" & ".join(player.name for player in team.players),
            new=added,
        )
        for team, name, added in known.teams.values()
    ]
    lines.sort(key=lambda line: (not line.new, line.name.lower()))
    return tuple(lines)


def parse_choices(posted: Mapping[str, str]) -> dict[uuid.UUID, whos_who.Choice]:
    """The organiser's word on each clash, from the preview's fields: ``who-<identifier>``
    "same" or "another", and ``called-<identifier>`` another person's name. A field that
    names no identifier, or says neither, is refused (ValueError, in the club's words)."""
    choices = {}
    for key, value in posted.items():
        if not key.startswith("who-"):
            continue
        try:
            identifier = uuid.UUID(key.removeprefix("who-"))
        except ValueError:
            raise ValueError(
                _("The choice “%(field)s” names no player.") % {"field": key}
            ) from None
        if value not in ("same", "another"):
            raise ValueError(
                _("Say “the same person” or “another person” for each clash, not “%(value)s”.")
                % {"value": value[:40]}
            )
        called = posted.get(f"called-{identifier}", "") if value == "another" else ""
        choices[identifier] = whos_who.Choice(value == "same", called)
    return choices
