"""Reading a file: the JSON text, its documents (one, or a list), and each document's
games and tournament checked whole (:func:`parse_archive`)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.utils.translation import gettext as _

from club.archive.format import (
    DOCUMENT_KEYS,
    FORMAT,
    ArchiveError,
    GameSpec,
    _object_pairs,
    _quoted,
)
from club.archive.parse_games import (
    parse_game,
)
from club.archive.parse_tournaments import (
    TournamentSpec,
    parse_tournament,
)

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
    if getattr(data, "duplicate", None) is not None:
        raise error(
            _("The key “%(key)s” is given twice at the top of the file.") % {"key": data.duplicate}  # type: ignore[attr-defined]
        )
    for key in data:
        if key not in DOCUMENT_KEYS:
            raise error(
                _(
                    "“%(key)s” is not a field of a results file (the fields are format, "
                    "tournament and games)."
                )
                % {"key": key}
            )
    if "games" not in data:
        raise error(_("The file has no “games” list."))
    if not isinstance(data["games"], list):
        raise error(
            _("“games” must be a list of games, not %(value)s.") % {"value": _quoted(data["games"])}
        )
    return data


@dataclass
class DocumentSpec:
    """One document of the file, checked: its games and, for a tournament, the tournament."""

    games: list[GameSpec]
    tournament: TournamentSpec | None = None


def parse_archive(text: str) -> list[DocumentSpec]:
    """Check a whole file; raise :class:`ArchiveError` at the first fault.

    Game labels are unique across the whole file, whatever document they are in.
    """
    seen: dict[str, int] = {}
    index = 0
    documents = []
    for data in load_documents(text):
        games = []
        for raw in data["games"]:
            index += 1
            games.append(parse_game(raw, index, seen))
        tournament = None
        if "tournament" in data:
            tournament = parse_tournament(data["tournament"], games)
        documents.append(DocumentSpec(games, tournament))
    return documents
