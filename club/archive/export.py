"""Writing archives: a club's games as JSON or CSV, streamed as it is made from the
stored games read in chunks (``stored_games``). A tournament's exports build on these
(``tournament_export``). Each JSON document says whose results it holds (its "club",
club.archive.parse_club); a club's, its competitions too when it has some
(club.archive.parse_competitions)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Sequence
from types import SimpleNamespace

from club.archive.format import (
    CSV_COLUMNS,
    FORMAT,
    _seat_names,
    _settings_fields,
    replayed_document,
)
from club.archive.parse_club import club_object
from club.archive.parse_competitions import competitions_list
from club.archive.register import games_players
from club.archive.stored_games import (
    _GAME_FIELDS,
    _ExportGame,
    _needs_replay,
    _read_chunk,
)
from club.clubs import known as clubs
from club.clubs.models import Club
from club.games.models import (
    Game,
)
from club.scoring import rules as core

# --- Export -----------------------------------------------------------------------
#
# Exports stream: they are generators of text, written to a response or a file
# as they are made, so a federation's whole archive never sits in memory. They
# read the stored games EXPORT_CHUNK at a time (``stored_games``).

EXPORT_CHUNK = 500


def _all_game_chunks(club: Club) -> Iterator[list[tuple]]:
    """Every game of the club, oldest first, EXPORT_CHUNK at a time (one query a chunk, by
    id)."""
    last = None
    while True:
        games = Game.objects.filter(club=club).order_by("id")
        if last is not None:
            games = games.filter(id__gt=last)
        rows = list(games.values_list(*_GAME_FIELDS)[:EXPORT_CHUNK])
        if rows:
            yield rows
        if len(rows) < EXPORT_CHUNK:
            return
        last = rows[-1][0]


def _chunked(rows: Sequence[tuple]) -> Iterator[Sequence[tuple]]:
    for start in range(0, len(rows), EXPORT_CHUNK):
        yield rows[start : start + EXPORT_CHUNK]


def _export_games(chunks: Iterable[Sequence[tuple]]) -> Iterator[_ExportGame]:
    for rows in chunks:
        yield from _read_chunk(rows)


# JSON is written as ``json.dumps(document, ensure_ascii=False, indent=2)`` would
# write it, byte for byte, but a game at a time: each game's settings and
# teams go through json.dumps, and its rounds (nearly all of the text) are
# written by a template of the same layout.


def _json_at(value: object, pad: str) -> str:
    """``value`` as indented JSON, for a place ``pad`` deep in the document."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return text.replace("\n", "\n" + pad) if pad else text


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


_settings_json_cache: dict[core.Rules, str] = {}


def _settings_json(rules: core.Rules) -> str:
    """The lines of a game's settings (``_settings_fields``), each ending in a comma."""
    text = _settings_json_cache.get(rules)
    if text is None:
        lines = json.dumps(_settings_fields(rules), ensure_ascii=False, indent=2)
        text = _settings_json_cache[rules] = lines[len("{\n") : -len("\n}")] + ",\n"
    return text


def _game_json(game: _ExportGame, pad: str) -> str:
    """One game's object for a list ``pad`` deep, as ``_game_document`` reads in JSON."""
    if _needs_replay(game):
        return _json_at(replayed_document(game), pad)
    names = [_json_string(team.name) for team in game.teams]
    finished, places = game.outcome
    firsts = [team for team, place in places.items() if place == 1]
    teams = ",".join(
        [
            f'\n    {{\n      "name": {name},\n      "players": [\n'
            f"        {_json_string(team.first)},\n        {_json_string(team.second)}\n"
            "      ]\n    }"
            for name, team in zip(names, game.teams, strict=True)
        ]
    )
    tables = ",".join(
        [f"\n    {name}: {tables}" for name, tables in zip(names, game.state.tables, strict=True)]
    )
    status = Game.Status.FINISHED.value if finished else Game.Status.IN_PROGRESS.value
    text = "".join(
        [
            f'{{\n  "label": {_json_string(game.label)},\n',
            _settings_json(game.rules),
            "" if game.deal_limit is None else f'  "deal_limit": {game.deal_limit},\n',
            "" if game.rules.tie_deals is None else f'  "tie_deals": {game.rules.tie_deals},\n',
            f'  "teams": [{teams}\n  ],\n' if teams else '  "teams": [],\n',
            f'  "first_dealer": {_json_string(_seat_names(game.teams)[game.first_dealer])},\n',
            '  "ended_early": true,\n' if game.ended_early else "",
            f'  "status": "{status}",\n',
            f'  "winner": {names[firsts[0]] if len(firsts) == 1 else "null"},\n',
            f'  "tables": {{{tables}\n  }},\n' if tables else '  "tables": {},\n',
            f'  "rounds": [{_rounds_json(game, names)}\n  ]\n}}'
            if game.deals
            else '  "rounds": []\n}',
        ]
    )
    return text.replace("\n", "\n" + pad) if pad else text


def _rounds_json(game: _ExportGame, team_json: Sequence[str]) -> str:
    """The rounds of a game, each as ``_round_document`` reads in JSON, comma-separated.

    ``team_json``: the teams' names as JSON strings.
    """
    team_keys = ["\n        " + name + ": " for name in team_json]
    team_items = ["\n        " + name for name in team_json]
    player = {pk: _json_string(name) for pk, name in game.players.items()}
    teams = range(len(team_json))
    parts = []
    for deal in game.deals:
        if deal.all_pass:
            contract = '      "all_pass": true,\n'
        else:
            # The database allows only the rules' words for trumps and doublings:
            # nothing in them needs escaping.
            contract = (
                f'      "declarer": {player[deal.declarer]},\n'
                f'      "bid": {deal.bid},\n'
                f'      "trump": "{deal.trump}",\n'
                f'      "doubling": "{deal.doubling}",\n'
            )
        points = deal.points
        changes = deal.changes
        after = deal.tables_after
        eliminated = (
            "[" + ",".join([team_items[team] for team in deal.eliminated]) + "\n      ]"
            if deal.eliminated
            else "[]"
        )
        parts.append(
            f'\n    {{\n      "number": {deal.number},\n'
            f'      "dealer": {player[deal.dealer]},\n'
            f"{contract}"
            '      "points": {'
            + ",".join(
                [team_keys[team] + str(points[team]) for team in teams if points[team] is not None]
            )
            + '\n      },\n      "declaring_team": '
            + team_json[deal.declaring_team]
            + (',\n      "made": true,\n' if deal.made else ',\n      "made": false,\n')
            + '      "transfers": {'
            + ",".join([team_keys[team] + str(changes[team]) for team in teams])
            + '\n      },\n      "tables_after": {'
            + ",".join([team_keys[team] + str(after[team]) for team in teams])
            + '\n      },\n      "eliminated": '
            + eliminated
            + "\n    }"
        )
    return ",".join(parts)


def _document_json(head: dict, games: Iterable[_ExportGame], pad: str = "") -> Iterator[str]:
    """A ``fiftysix-results/1`` document ``pad`` deep: ``head`` (format ...) and then its games."""
    empty = "[]\n" + pad + "}"  # how the text of the head ends: the games go in the list
    yield _json_at({**head, "games": []}, pad)[: -len(empty)]
    separator = "\n" + pad + "    "
    written = False
    for game in games:
        yield ("," if written else "[") + separator + _game_json(game, pad + "    ")
        written = True
    yield "\n" + pad + "  ]\n" + pad + "}" if written else empty


def stream_json(club: Club | None = None) -> Iterator[str]:
    """Every game of the club (the home club when None), oldest first, as a
    ``fiftysix-results/1`` document that says whose it is, in pieces; with the club's
    competitions when it has some (a club without any writes the file it always wrote)."""
    club = club if club is not None else clubs.home()
    head = {"format": FORMAT, "club": club_object(club), "players": games_players(club)}
    competitions = competitions_list(club)
    if competitions:
        head["competitions"] = competitions
    yield from _document_json(head, _export_games(_all_game_chunks(club)))
    yield "\n"


def export_json(club: Club | None = None) -> str:
    return "".join(stream_json(club))


def game_object(game_id: int) -> dict | None:
    """One game as this format writes it (a game of ``games``), for the API; None if none.

    Three queries however long the game: its row, its teams, its deals.
    """
    rows = list(Game.objects.filter(id=game_id).values_list(*_GAME_FIELDS))
    if not rows:
        return None
    (game,) = _read_chunk(rows)
    return json.loads(_game_json(game, ""))


def export_document(club: Club | None = None) -> dict:
    """Every game of the club (the home club when None) as a ``fiftysix-results/1``
    document (plain data)."""
    return json.loads(export_json(club))


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _safe_cell(value: object) -> object:
    """Text a spreadsheet could run as a formula gets a leading quote; numbers stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _deal_cells(game: _ExportGame, where: tuple = ()) -> Iterator[tuple[tuple, list[tuple]]]:
    """The long format's rows of one game (``CSV_COLUMNS`` after ``where``), a deal at a time.

    Each deal gives the cells every team's row starts with and each team's own
    cells. All are safe for a spreadsheet (``_safe_cell``): the names and labels
    are made so once per game; the other cells are numbers or the rules' words.
    """
    label = _safe_cell(game.label)
    names = [_safe_cell(team.name) for team in game.teams]
    player = {pk: _safe_cell(name) for pk, name in game.players.items()}
    teams = range(len(names))
    for deal in game.deals:
        points = deal.points
        changes = deal.changes
        after = deal.tables_after
        eliminated = deal.eliminated
        yield (
            (
                *where,
                label,
                deal.number,
                player[deal.dealer],
                "" if deal.declarer is None else player[deal.declarer],
                names[deal.declaring_team],
                "true" if deal.all_pass else "false",
                deal.bid,
                deal.trump,
                deal.doubling,
                "true" if deal.made else "false",
            ),
            [
                (
                    names[team],
                    "" if points[team] is None else points[team],
                    changes[team],
                    after[team],
                    "true" if team in eliminated else "false",
                )
                for team in teams
            ],
        )


def _deal_rows(game: _ExportGame, where: tuple = ()) -> Iterator[tuple]:
    """The long format's rows of one game: one per team per deal."""
    for common, own in _deal_cells(game, where):
        for cells in own:
            yield (*common, *cells)


def _csv_line_writer():
    """A function from a row's cells to its CSV line (the writer's "file" hands the line back)."""
    return csv.writer(SimpleNamespace(write=str), lineterminator="\n").writerow


def _deal_lines(game: _ExportGame, where: tuple = ()) -> str:
    """The long format's lines of one game, as ``csv.writer`` writes ``_deal_rows``.

    The cells shared by a deal's rows are written once and put in front of
    each team's: the same text, as every cell is quoted on its own.
    """
    line = _csv_line_writer()
    lines = []
    for common, own in _deal_cells(game, where):
        start = line(common)[:-1] + ","
        lines.extend([start + line(cells) for cells in own])
    return "".join(lines)


_CSV_PIECE = 1 << 16  # characters gathered before a piece of CSV is handed on


def _csv_stream(header: Sequence[str], texts: Iterable[str]) -> Iterator[str]:
    """CSV in pieces of about 64 KB: the header line, then ``texts`` (lines) as they come."""
    pieces = [_csv_line_writer()(header)]
    size = 0
    for text in texts:
        pieces.append(text)
        size += len(text)
        if size >= _CSV_PIECE:
            yield "".join(pieces)
            pieces = []
            size = 0
    if pieces:
        yield "".join(pieces)


def stream_csv(club: Club | None = None) -> Iterator[str]:
    """Every deal of the club's games (the home club's when None), oldest game first: one
    row per team per deal (long format)."""
    club = club if club is not None else clubs.home()
    return _csv_stream(CSV_COLUMNS, map(_deal_lines, _export_games(_all_game_chunks(club))))


def export_csv(club: Club | None = None) -> str:
    """One row per team per deal, every team of the game (long format)."""
    return "".join(stream_csv(club))
