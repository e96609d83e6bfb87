"""Import and export of results in the club's archive format, ``fiftysix-results/1``.

An archive is one JSON document::

    {"format": "fiftysix-results/1",
     "games": [{"label": ..., "tables_per_team": 12, "teams": [...],
                "first_dealer": ..., "rounds": [...]}]}

Each round holds what the scorer reported (declarer, bid, trump, doubling and
the piles, or ``"all_pass": true`` and the piles). An export adds what the rules
compute from that (dealer, declaring team, made, transfers, tables after each
deal, teams out, and per game the status, winner and tables); an import accepts
those fields and refuses the file when they disagree with the rules, so a
changed or damaged archive is caught.

Importing checks the whole file first (its shape, then the rules, by replaying
every game through :func:`club.scoring.rules.replay`) and then writes it, in
one transaction: all of it is stored or nothing. The file is read a piece at a
time, from its start once for each of those steps, so an import holds the game
it is at, not the file. Each game is started by
:func:`club.games.services.create_game` and its deals written in bulk from
those settlements by :func:`club.games.bulk.write_game`: the rows
``record_deal`` and ``end_game`` would write deal by deal, then one
``game_changed`` per game, in file order, for standings, figures and ratings.
Every refusal is an :class:`ArchiveError` whose message names the game and,
where it applies, the deal number and the field at fault.

Where things are: ``format`` (the keys, errors, specs and the document both ways),
``export`` (writing JSON and CSV of games), ``tournament_export`` (a tournament's
document and CSV tables), ``documents`` (reading a
file's documents), ``parse_games`` and ``parse_tournaments`` (checking them), and
``load`` (storing them). The names below are the package's public interface.
"""

from __future__ import annotations

import importlib

# The package's public interface, each name from the module that defines it. They
# are looked up on first use (PEP 562), not imported here: this package is an
# installed app, imported before the models are ready.
_HOMES = {
    "ArchiveError": "format",
    "CSV_COLUMNS": "format",
    "CSV_TABLES": "format",
    "DocumentSpec": "documents",
    "FORMAT": "format",
    "GAMES_CSV_COLUMNS": "format",
    "GameSpec": "format",
    "ImportSummary": "load",
    "STANDINGS_CSV_COLUMNS": "format",
    "TOURNAMENT_DEALS_CSV_COLUMNS": "format",
    "TeamSpec": "format",
    "TextFile": "reading",
    "TextInMemory": "reading",
    "TournamentSpec": "parse_tournaments",
    "export_csv": "export",
    "export_document": "export",
    "export_json": "export",
    "export_tournament_csv": "tournament_export",
    "export_tournament_json": "tournament_export",
    "import_results": "load",
    "import_text": "load",
    "load_documents": "documents",
    "parse_archive": "documents",
    "parse_game": "parse_games",
    "parse_tournament": "parse_tournaments",
    "points_text": "format",
    "preview_text": "publish",
    "read_text": "load",
    "roster_object": "register",
    "results_word": "tournament_export",
    "stream_csv": "export",
    "stream_json": "export",
    "stream_tournament_csv": "tournament_export",
    "stream_tournament_json": "tournament_export",
    "summary_lines": "load",
    "tournament_csv_rows": "tournament_export",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'club.archive' has no attribute {name!r}")
    return getattr(importlib.import_module(f"club.archive.{home}"), name)
