"""Writing archives: stored games read in chunks (PostgreSQL and SQLite), the whole
club as JSON or CSV, streamed as it is made. A tournament's exports build on these
(``tournament_export``)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import SimpleNamespace

from django.db import connection

from club.archive.format import (
    CSV_COLUMNS,
    FORMAT,
    MAX_TEAMS_IN_GAME,
    TeamSpec,
    _outcome,
    _seat_names,
    _settings_fields,
    replay_stored,
    replayed_document,
)
from club.archive.register import games_players
from club.games.models import (
    FORM_OF_PLAY_FIELDS,
    Game,
    GameTeam,
    LedgerEntry,
    Pile,
    Round,
    rules_from_values,
)
from club.scoring import rules as core

# --- Export -----------------------------------------------------------------------
#
# Exports stream: they are generators of text, written to a response or a file
# as they are made, so a federation's whole archive never sits in memory.
#
# They read what the deal services stored rather than replaying every game
# through the rules core: each round keeps its dealer, declaring team and
# result, its piles, and a ledger row per team with the change and the tables
# after. The services rewrite those rows from a replay on every write (and
# ``rebuild_ledger`` proves a rebuild changes nothing), so they are the rules'
# own settlement. The few fields an export adds beyond them (teams out in each
# deal, the game's status, winner and tables) follow from the ledger rows
# without replaying anything.
#
# Games are read EXPORT_CHUNK at a time, three queries a chunk (the games, their
# teams, and every deal of them joined with its ledger rows and piles in one
# ordered query), so the queries grow with the chunks and never with the games.
# Each query is read to the end before anything is yielded: a slow download
# never holds a read open, which on SQLite would keep scorers from recording.

EXPORT_CHUNK = 500

# Whatever the games are exported for, these are read of each (and, for a
# tournament, where it was played: the sitting's number and the table).
_GAME_FIELDS = (
    "id",
    "label",
    "first_dealer_seat",
    "dealer_seat",
    "tables_per_team",
    "payout_bands",
    "double_factor",
    "redouble_factor",
    "deal_limit",
    "ended_early",
    *FORM_OF_PLAY_FIELDS,
    "tie_deals",
)
_GAME_FIELD_COUNT = len(_GAME_FIELDS)
_TOURNAMENT_GAME_FIELDS = (
    *_GAME_FIELDS,
    "sitting_entry__sitting__number",
    "sitting_entry__table_label",
)


class _Deal:
    """One stored deal: the round's columns, and each team's change, tables after and pile."""

    __slots__ = (
        "number",
        "all_pass",
        "declarer",
        "bid",
        "trump",
        "doubling",
        "dealer",
        "declaring_team",
        "made",
        "changes",
        "tables_after",
        "points",
        "eliminated",
        "thani",
    )

    def __init__(self, row: tuple, teams: int):
        """``row``: a row of ``_deals_sql`` for a game of ``teams`` teams."""
        (
            self.number,
            self.all_pass,
            self.declarer,  # a player's id, None when all passed
            self.bid,
            self.trump,
            self.doubling,
            self.dealer,  # a player's id
            self.declaring_team,  # position
            self.made,
        ) = row[1:10]
        end = 10 + 3 * teams
        self.changes: tuple[int, ...] = row[10:end:3]
        self.tables_after: tuple[int, ...] = row[11:end:3]
        self.points: tuple[int | None, ...] = row[12:end:3]  # None: the team was already out
        self.eliminated: tuple[int, ...] = ()
        self.thani = bool(row[-1])  # the round's last column


@dataclass
class _ExportGame:
    """A stored game as the exports write it; teams and deals by position and number."""

    label: str
    rules: core.Rules
    first_dealer: int  # seat
    deal_limit: int | None
    ended_early: bool
    teams: list[TeamSpec]
    players: dict[int, str]  # player id: name, for the dealers and declarers
    deals: list[_Deal]
    state: core.GameState
    sitting: int | None = None
    table: str | None = None
    # (settlements, state) replayed by the rules, for the forms of docs/rules.md section D
    replayed: tuple[list[core.Settlement], core.GameState] | None = None

    @property
    def outcome(self) -> tuple[bool, dict[int, int]]:
        return _outcome(self.state, self.deal_limit, self.ended_early)


def _deals_sql(games: int) -> str:
    """Every deal of the games, a row each, in game and deal order.

    A row holds the round's columns (the declaring team as its position), then
    the change, the tables after and the pile of the teams at positions 0 to 3
    (NULL where the game has no such team; the pile NULL for a team already
    out). Each team's ledger row and pile are found through the unique indexes
    on (game, position) and (round, team), and the unique (game, number) index
    gives the order without a sort: one row a deal costs less to read than one
    row a team, and nothing is left to group.
    """
    quote = connection.ops.quote_name
    round_ = quote(Round._meta.db_table)
    game_team = quote(GameTeam._meta.db_table)
    ledger = quote(LedgerEntry._meta.db_table)
    pile = quote(Pile._meta.db_table)
    teams = range(MAX_TEAMS_IN_GAME)
    columns = [
        f"r.{quote(name)}"
        for name in ("game_id", "number", "all_pass", "declarer_id", "bid", "trump", "doubling")
    ]
    columns.append(f"r.{quote('dealer_id')}")
    columns.append(
        f"CASE r.{quote('declaring_team_id')} "
        + " ".join(f"WHEN g{team}.{quote('id')} THEN {team}" for team in teams)
        + " END"
    )
    columns.append(f"r.{quote('made')}")
    joins = []
    for team in teams:
        columns += [f"l{team}.{quote('change')}", f"l{team}.{quote('balance')}"]
        columns.append(f"p{team}.{quote('points')}")
        joins += [
            f"LEFT OUTER JOIN {game_team} g{team} ON g{team}.{quote('game_id')} = "
            f"r.{quote('game_id')} AND g{team}.{quote('position')} = {team}",
            f"LEFT OUTER JOIN {ledger} l{team} ON l{team}.{quote('round_id')} = r.{quote('id')} "
            f"AND l{team}.{quote('game_team_id')} = g{team}.{quote('id')}",
            f"LEFT OUTER JOIN {pile} p{team} ON p{team}.{quote('round_id')} = r.{quote('id')} "
            f"AND p{team}.{quote('game_team_id')} = g{team}.{quote('id')}",
        ]
    columns.append(f"r.{quote('thani')}")
    return (
        f"SELECT {', '.join(columns)} FROM {round_} r {' '.join(joins)}"
        f" WHERE r.{quote('game_id')} IN ({', '.join(['%s'] * games)})"
        f" ORDER BY r.{quote('game_id')}, r.{quote('number')}"
    )


def _deal_rows_by_table(ids: list[int], seats: dict[int, list[int]]) -> list[tuple]:
    """The rows of :func:`_deals_sql`, from three plain queries joined here.

    PostgreSQL plans the one query of twelve outer joins with sorts and hash
    joins: 0.68 s for 500 games at the federation preset, against 0.09 s for
    the deals, ledger rows and piles read apart through their indexes.
    SQLite walks the unique indexes of the one query faster than Python joins.
    """
    quote = connection.ops.quote_name
    marks = ", ".join(["%s"] * len(ids))
    game_team = quote(GameTeam._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, game_id, number, all_pass, declarer_id, bid, trump, doubling, "
            f"dealer_id, declaring_team_id, made, thani FROM {quote(Round._meta.db_table)} "
            f"WHERE game_id IN ({marks}) ORDER BY game_id, number",
            ids,
        )
        deals = cursor.fetchall()
        cursor.execute(
            f"SELECT l.round_id, l.game_team_id, l.change, l.balance "
            f"FROM {quote(LedgerEntry._meta.db_table)} l "
            f"JOIN {game_team} g ON g.id = l.game_team_id WHERE g.game_id IN ({marks})",
            ids,
        )
        ledger = {(deal, seat): (change, balance) for deal, seat, change, balance in cursor}
        cursor.execute(
            f"SELECT p.round_id, p.game_team_id, p.points FROM {quote(Pile._meta.db_table)} p "
            f"JOIN {game_team} g ON g.id = p.game_team_id WHERE g.game_id IN ({marks})",
            ids,
        )
        piles = {(deal, seat): points for deal, seat, points in cursor}
    position = {seat: index for game in ids for index, seat in enumerate(seats[game])}
    found = []
    for (
        deal,
        game,
        number,
        all_pass,
        declarer,
        bid,
        trump,
        doubling,
        dealer,
        declaring,
        made,
        thani,
    ) in deals:
        row = [game, number, all_pass, declarer, bid, trump, doubling, dealer]
        row += [position.get(declaring), made]
        for seat in seats[game]:
            change, balance = ledger.get((deal, seat), (None, None))
            row += [change, balance, piles.get((deal, seat))]
        row.append(thani)
        found.append(tuple(row))
    return found


_rules_cache: dict[tuple, core.Rules] = {}


def _cached_rules(
    tables: int,
    bands: list,
    double: int,
    redouble: int,
    limit: int | None,
    form: tuple,
    tie: int | None = None,
) -> core.Rules:
    """rules_from_values, kept: most games share a few house rules, so each is built once."""
    key = (tables, tuple(map(tuple, bands or ())), double, redouble, limit, form, tie)
    rules = _rules_cache.get(key)
    if rules is None:
        rules = _rules_cache[key] = rules_from_values(
            tables,
            bands,
            double,
            redouble,
            deal_limit=limit,
            tie_deals=tie,
            **dict(zip(FORM_OF_PLAY_FIELDS, form, strict=True)),
        )
    return rules


def _read_chunk(rows: Sequence[tuple]) -> list[_ExportGame]:
    """The stored games of ``rows`` (values of ``_GAME_FIELDS`` ...), in the same order.

    Two queries whatever the number of games, each read whole before returning.
    """
    ids = [row[0] for row in rows]
    teams: dict[int, list[TeamSpec]] = {game: [] for game in ids}
    players: dict[int, dict[int, str]] = {game: {} for game in ids}
    seats: dict[int, list[int]] = {game: [] for game in ids}  # seat ids by position
    for game, seat, name, *seated in (
        GameTeam.objects.filter(game_id__in=ids)
        .order_by("game_id", "position")
        .values_list(
            "game_id",
            "id",
            "team__name",
            "first_player_id",
            "first_player__name",
            "second_player_id",
            "second_player__name",
            "third_player_id",
            "third_player__name",
            "fourth_player_id",
            "fourth_player__name",
        )
    ):
        names = [seated[at + 1] for at in range(0, 8, 2) if seated[at] is not None]
        teams[game].append(TeamSpec(name, names[0], names[1], tuple(names[2:])))
        for at in range(0, 8, 2):
            if seated[at] is not None:
                players[game][seated[at]] = seated[at + 1]
        seats[game].append(seat)

    found: dict[int, list[tuple]] = {game: [] for game in ids}
    if connection.vendor == "postgresql":
        for row in _deal_rows_by_table(ids, seats):
            found[row[0]].append(row)
    else:
        with connection.cursor() as cursor:
            cursor.execute(_deals_sql(len(ids)), ids)
            for row in cursor.fetchall():
                found[row[0]].append(row)

    games = []
    for row in rows:
        game, label, first_dealer, dealer, tables, bands, double, redouble, limit, early = row[:10]
        form, tie = row[10 : _GAME_FIELD_COUNT - 1], row[_GAME_FIELD_COUNT - 1]
        rules = _cached_rules(tables, bands, double, redouble, limit, tuple(form), tie)
        count = len(teams[game])
        played = [_Deal(deal, count) for deal in found[game]]
        # The teams out in a deal are those it left with no tables; before it
        # they held some (every team starts with tables_per_team).
        before: tuple[int, ...] = (rules.tables_per_team,) * count
        out_order = []
        for deal in played:
            after = deal.tables_after
            if rules.eliminates and 0 in after:
                out = tuple(team for team in range(count) if before[team] and not after[team])
                if out:
                    deal.eliminated = out
                    out_order.append(out)
            before = after
        state = core.GameState(
            rules=rules,
            team_count=count,
            tables=list(before),
            dealer=dealer,
            deals_played=len(played),
            out_order=out_order,
        )
        games.append(
            _ExportGame(
                label=label,
                rules=rules,
                first_dealer=first_dealer,
                deal_limit=limit,
                ended_early=bool(early),
                teams=teams[game],
                players=players[game],
                deals=played,
                state=state,
                sitting=row[_GAME_FIELD_COUNT] if len(row) > _GAME_FIELD_COUNT else None,
                table=row[_GAME_FIELD_COUNT + 1] if len(row) > _GAME_FIELD_COUNT + 1 else None,
            )
        )
    for game in games:
        if _needs_replay(game):
            # What the ledger's columns cannot say (a points total, kodis, places by
            # them) comes from the rules, as the game's document does.
            game.replayed = replay_stored(game)
            game.state = game.replayed[1]
    return games


def _all_game_chunks() -> Iterator[list[tuple]]:
    """Every game, oldest first, EXPORT_CHUNK at a time (one query a chunk, by id)."""
    last = None
    while True:
        games = Game.objects.order_by("id")
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


def _needs_replay(game: _ExportGame) -> bool:
    """Whether the game is of a form the fast writer below does not write (docs/rules.md D).

    Teams of three or four, a points sheet, kodi or a thani round: such a game
    is written from a replay of its stored deals by ``_game_document`` (the
    rules give what the services stored; the import checks both agree).
    """
    rules = game.rules
    return (
        rules.team_size != 2
        or rules.scoring != core.Scoring.TABLES
        or rules.kodi
        or any(deal.thani for deal in game.deals)
    )


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


def stream_json() -> Iterator[str]:
    """Every game of the club, oldest first, as a ``fiftysix-results/1`` document, in pieces."""
    head = {"format": FORMAT, "players": games_players()}
    yield from _document_json(head, _export_games(_all_game_chunks()))
    yield "\n"


def export_json() -> str:
    return "".join(stream_json())


def game_object(game_id: int) -> dict | None:
    """One game as this format writes it (a game of ``games``), for the API; None if none.

    Three queries however long the game: its row, its teams, its deals.
    """
    rows = list(Game.objects.filter(id=game_id).values_list(*_GAME_FIELDS))
    if not rows:
        return None
    (game,) = _read_chunk(rows)
    return json.loads(_game_json(game, ""))


def export_document() -> dict:
    """Every game of the club as a ``fiftysix-results/1`` document (plain data)."""
    return json.loads(export_json())


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


def stream_csv() -> Iterator[str]:
    """Every game's deals, oldest game first: one row per team per deal (long format)."""
    return _csv_stream(CSV_COLUMNS, map(_deal_lines, _export_games(_all_game_chunks())))


def export_csv() -> str:
    """One row per team per deal, every team of the game (long format)."""
    return "".join(stream_csv())
