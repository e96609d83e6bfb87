"""Reading a file: the JSON text, its documents (one, or a list), and each document's
games and tournament checked.

A file is checked in two readings from its start (``reading``), so that no more than
a game is held at a time: :func:`outline_documents` reads all of it for its JSON and
the shape of its documents, as ``json.loads`` and :func:`load_documents` refuse them;
:func:`check_archive` then checks every game and tournament in file order. A
tournament's games are held, without their deals, until its "tournament" object is
checked against them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from django.utils.translation import gettext as _

from club.archive.format import (
    DOCUMENT_KEYS,
    FORMAT,
    ArchiveError,
    GameSpec,
    _decap,
    _object_pairs,
    _Place,
    _quoted,
)
from club.archive.parse_club import parse_club
from club.archive.parse_competitions import parse_competitions
from club.archive.parse_games import (
    parse_game,
)
from club.archive.parse_tournaments import (
    TournamentSpec,
    parse_tournament,
)
from club.archive.reading import (
    DocumentCloses,
    DocumentOpens,
    GameRead,
    GamesClose,
    ListCloses,
    ListOpens,
    Pair,
    Text,
    TextInMemory,
    Value,
    document_events,
)
from club.clubs import known as clubs
from club.tournaments.models import Tournament

# --- Reading a file -----------------------------------------------------------------


def load_documents(text: str) -> list[dict]:
    """Parse the JSON text: one ``fiftysix-results/1`` document, or a list of them."""
    try:
        data = json.loads(text, object_pairs_hook=_object_pairs)
    except RecursionError:
        raise ArchiveError(_("The file is not valid JSON: it is nested too deeply.")) from None
    except ValueError as error:
        raise ArchiveError(
            _("The file is not valid JSON: %(reason)s.") % {"reason": error}
        ) from None
    return _check_documents(data)


def outline_documents(text: Text, counted: list[int] | None = None) -> list[dict]:
    """Read the whole file for its JSON, and check the shape of each of its documents.

    Refuses what :func:`load_documents` refuses, in the same words, holding no more
    than a game at a time: each document comes back with its keys, its format, and
    an empty list where its games are (a "tournament" is None here). ``counted`` is
    given each document's number of games.
    """
    data: object = None
    listed: list | None = None  # the file's documents, when it is a list of them
    pairs: list[tuple[str, object]] = []
    for event in document_events(text):
        match event:
            case GameRead() if counted is not None:
                counted[-1] += 1
            case DocumentOpens():
                if counted is not None:
                    counted.append(0)
                pairs = []
            case Pair(key, value):
                kept = key in ("format", "club", "players", "competitions", "games")
                pairs.append((key, value if kept else None))
            case GamesClose():
                pairs.append(("games", []))
            case DocumentCloses() | Value():
                item = _object_pairs(pairs) if isinstance(event, DocumentCloses) else event.value
                if listed is None:
                    data = item
                else:
                    listed.append(item)
            case ListOpens():
                listed = []
            case ListCloses():
                data = listed
    return _check_documents(data)


def _check_documents(data: object) -> list[dict]:
    if isinstance(data, list):
        if not data:
            raise ArchiveError(_("The file holds an empty list: there is nothing to import."))
        return [_check_document(item, number) for number, item in enumerate(data, start=1)]
    return [_check_document(data, None)]


def _check_document(data: object, number: int | None) -> dict:
    def error(problem: str) -> ArchiveError:
        return ArchiveError(problem, document=number)

    if not isinstance(data, dict):
        raise error(
            _("The file must hold one JSON object with “format” and “games”; it holds %(value)s.")
            % {"value": _quoted(data)}
        )
    if "format" not in data:
        raise error(
            _("The file does not say its format: “format” must be “%(format)s”.")
            % {"format": FORMAT}
        )
    if data["format"] != FORMAT:
        raise error(
            _("The file's format is %(found)s; this club reads “%(format)s” files.")
            % {"found": _quoted(data["format"]), "format": FORMAT}
        )
    duplicate = getattr(data, "duplicate", None)  # a key the JSON object gives twice
    if duplicate is not None:
        raise error(
            _("The key “%(key)s” is given twice at the top of the file.") % {"key": duplicate}
        )
    for key in data:
        if key not in DOCUMENT_KEYS:
            raise error(
                _(
                    "“%(key)s” is not a field of a results file (the fields are format, "
                    "club, players, competitions, tournament and games)."
                )
                % {"key": key}
            )
    if "club" in data:
        parse_club(data["club"], number)
    if "competitions" in data:
        parse_competitions(data["competitions"], number)
    if "games" not in data:
        raise error(_("The file has no “games” list."))
    if not isinstance(data["games"], list):
        raise error(
            _("“games” must be a list of games, not %(value)s.") % {"value": _quoted(data["games"])}
        )
    return data


# --- What the check reads, in file order -------------------------------------------------


@dataclass(frozen=True)
class DocumentStarts:
    """A document of the file opens."""


@dataclass(frozen=True)
class GameChecked:
    """A game of the document, checked."""

    spec: GameSpec


@dataclass(frozen=True)
class DocumentEnds:
    """The document closes: its tournament checked against its games, or None."""

    tournament: TournamentSpec | None


CheckEvent = DocumentStarts | GameChecked | DocumentEnds


@dataclass
class DocumentSpec:
    """One document of the file, checked: its games and, for a tournament, the tournament."""

    games: list[GameSpec]
    tournament: TournamentSpec | None = None


def parse_archive(text: str, *, club_id: int | None = None) -> list[DocumentSpec]:
    """Check a whole file, as ``club_id``'s (the home club when None) would import it;
    raise :class:`ArchiveError` at the first fault.

    Game labels are unique across the whole file, whatever document they are in.
    """
    source = TextInMemory(text)
    documents = []
    games: list[GameSpec] = []
    for event in _checked(source, outline_documents(source), whole=True, club_id=club_id):
        if isinstance(event, GameChecked):
            games.append(event.spec)
        elif isinstance(event, DocumentEnds):
            documents.append(DocumentSpec(games, event.tournament))
            games = []
    return documents


@dataclass(frozen=True)
class DocumentPlan:
    """What the check of one document found: enough to write it, and to say what was written."""

    games: int
    deals: int
    tournament: TournamentSpec | None  # its sittings hold their games without the deals
    here: frozenset[str] = frozenset()  # the labels, in lower case, of its games here already


# Told what the check reads, in file order (a DocumentStarts, then a GameChecked for each of
# its games, then its DocumentEnds).
Note = Callable[[CheckEvent], None]


def check_archive(
    text: Text,
    documents: Sequence[dict],
    *,
    note: Note | None = None,
    names: Mapping[str, str] | None = None,
    club_id: int | None = None,
) -> list[DocumentPlan]:
    """Check every game and tournament of a file whose ``documents`` are outlined already
    (:func:`outline_documents`); raise :class:`ArchiveError` at the first fault. ``names``:
    the file's listed players as this site names them (a game here already is the same
    game when the same people sat, whatever the file calls them). ``club_id``: the club
    it is imported into (the home club when None), whose games and tournaments are "here"."""
    plans = []
    games = deals = 0
    here: set[str] = set()
    for event in _checked(text, documents, whole=False, names=names, club_id=club_id):
        if note is not None:
            note(event)
        if isinstance(event, GameChecked):
            games += 1
            deals += len(event.spec.deals)
            if event.spec.here:
                here.add(event.spec.label.lower())
        elif isinstance(event, DocumentEnds):
            plans.append(DocumentPlan(games, deals, event.tournament, frozenset(here)))
            games = deals = 0
            here = set()
    return plans


def checked_games(
    text: Text,
    documents: Sequence[dict],
    plans: Sequence[DocumentPlan],
    names: Mapping[str, str] | None = None,
    club_id: int | None = None,
) -> Iterator[CheckEvent]:
    """The file read again, checked as :func:`check_archive` checks it but for the fields the
    rules compute, which it compared already and which are never stored: a DocumentStarts
    as each document opens, a GameChecked for each game in file order, a DocumentEnds
    (without its tournament: the plans have it) as each document closes. Which games are
    here already, the check found (``plans``)."""
    # Its tournaments are being written as it is read: their names are here by then.
    for event in _checked(
        text, documents, whole=False, writing=plans, names=names, club_id=club_id
    ):
        yield DocumentEnds(None) if isinstance(event, DocumentEnds) else event


def file_changed() -> ArchiveError:
    """A reading of the file that does not find what an earlier reading found."""
    return ArchiveError(_("The file changed while it was being imported; import it again."))


def _not_here_yet(raw: object, club_id: int) -> None:
    """A tournament is published once: one of its name in the club already stops the file
    as soon as its name is read (before its games, whose labels are here too), in the words
    its writer would refuse it."""
    name = raw.get("name") if isinstance(raw, dict) else None
    if not isinstance(name, str) or not " ".join(name.split()):
        return  # parse_tournament says what is wrong with it
    name = " ".join(name.split())
    if Tournament.objects.filter(club_id=club_id, name__iexact=name).exists():
        raise _Place(None, None, tournament=name).error(
            _decap(_("There is already a tournament called “%(name)s”.") % {"name": name}),
            field="name",
        )


def _checked(
    text: Text,
    documents: Sequence[dict],
    *,
    whole: bool,
    writing: Sequence[DocumentPlan] | None = None,
    names: Mapping[str, str] | None = None,
    club_id: int | None = None,
) -> Iterator[CheckEvent]:
    """Each game checked, in file order, as a GameChecked between a DocumentStarts and, as
    each document closes, a DocumentEnds with its tournament checked, or None. A tournament
    is checked against its games as they are (``whole``), or without their deals, which it
    does not look at. ``writing``: the check's plans, as the file is read again to be
    written. ``club_id``: the club imported into (the home club when None)."""
    club_id = club_id or clubs.home_id()
    seen: dict[str, int] = {}
    index = 0
    number = 0  # the document's place in the file
    held: list[GameSpec] = []  # the games of a tournament's document
    raw_tournament: object = None
    for event in document_events(text):
        if number >= len(documents) and isinstance(
            event, DocumentOpens | GameRead | DocumentCloses
        ):
            raise file_changed()
        if isinstance(event, DocumentOpens):
            yield DocumentStarts()
        elif isinstance(event, GameRead):
            index += 1
            # A game outside a tournament may be here already, the same: it is left so.
            in_tournament = "tournament" in documents[number]
            spec = parse_game(
                event.raw,
                index,
                seen,
                may_be_here=not in_tournament,
                computed=writing is None,
                labels_here=None if writing is None else writing[number].here,
                names=names,
                club_id=club_id,
            )
            if in_tournament:
                held.append(spec if whole else replace(spec, deals=[], settlements=[]))
            yield GameChecked(spec)
        elif isinstance(event, Pair) and event.key == "tournament":
            raw_tournament = event.value
            if writing is None:
                _not_here_yet(raw_tournament, club_id)
        elif isinstance(event, DocumentCloses):
            tournament = None
            if "tournament" in documents[number]:
                tournament = parse_tournament(raw_tournament, held)
            yield DocumentEnds(tournament)
            number += 1
            held = []
            raw_tournament = None
    if number != len(documents):
        raise file_changed()
