"""The stored games an export writes, read a chunk at a time (PostgreSQL and SQLite).

The exports read what the deal services stored rather than replaying every game
through the rules core: each round keeps its dealer, declaring team and result, its
piles, and a ledger row per team with the change and the tables after. The services
rewrite those rows from a replay on every write (and ``rebuild_ledger`` proves a
rebuild changes nothing), so they are the rules' own settlement. The few fields an
export adds beyond them (teams out in each deal, the game's status, winner and tables)
follow from the ledger rows without replaying anything; a game of a form the ledger's
columns cannot say (:func:`_needs_replay`) is replayed from its stored deals.

A chunk of games costs three queries (the games, their teams, and every deal of them
joined with its ledger rows and piles in one ordered query), so the queries grow with
the chunks and never with the games. Each query is read to the end before anything is
returned: a slow download never holds a read open, which on SQLite would keep scorers
from recording.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection

from club.archive.format import (
    MAX_TEAMS_IN_GAME,
    TeamSpec,
    _outcome,
    replay_stored,
)
from club.games.models import (
    FORM_OF_PLAY_FIELDS,
    GameTeam,
    LedgerEntry,
    Pile,
    Round,
    rules_from_values,
)
from club.scoring import rules as core

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
    teams, players, seats = _read_teams(ids)
    deals = _read_deals(ids, seats)
    games = [_export_game(row, teams[row[0]], players[row[0]], deals[row[0]]) for row in rows]
    for game in games:
        if _needs_replay(game):
            # What the ledger's columns cannot say (a points total, kodis, places by
            # them) comes from the rules, as the game's document does.
            game.replayed = replay_stored(game)
            game.state = game.replayed[1]
    return games


def _read_teams(
    ids: list[int],
) -> tuple[dict[int, list[TeamSpec]], dict[int, dict[int, str]], dict[int, list[int]]]:
    """Each game's teams in order, its players' names by id, and its seats' ids (one query)."""
    teams: dict[int, list[TeamSpec]] = {game: [] for game in ids}
    players: dict[int, dict[int, str]] = {game: {} for game in ids}
    seats: dict[int, list[int]] = {game: [] for game in ids}  # seat ids by position
    for row in (
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
        game, seat, name = row[:3]
        # Each seat's player id and name, first to fourth; a team of two has no third or fourth.
        seated = [
            (pk, player) for pk, player in zip(row[3::2], row[4::2], strict=True) if pk is not None
        ]
        names = [player for _, player in seated]
        teams[game].append(TeamSpec(name, names[0], names[1], tuple(names[2:])))
        players[game].update(seated)
        seats[game].append(seat)
    return teams, players, seats


def _read_deals(ids: list[int], seats: dict[int, list[int]]) -> dict[int, list[tuple]]:
    """Each game's deals, as rows of :func:`_deals_sql` in deal order (one query, or three
    on PostgreSQL)."""
    found: dict[int, list[tuple]] = {game: [] for game in ids}
    if connection.vendor == "postgresql":
        for row in _deal_rows_by_table(ids, seats):
            found[row[0]].append(row)
    else:
        with connection.cursor() as cursor:
            cursor.execute(_deals_sql(len(ids)), ids)
            for row in cursor.fetchall():
                found[row[0]].append(row)
    return found


def _export_game(
    row: tuple, teams: list[TeamSpec], players: dict[int, str], deal_rows: list[tuple]
) -> _ExportGame:
    """One stored game from its row, teams, players and deals, with the teams each deal put
    out and where the game stands after its last deal."""
    _id, label, first_dealer, dealer, tables, bands, double, redouble, limit, early = row[:10]
    form, tie = row[10 : _GAME_FIELD_COUNT - 1], row[_GAME_FIELD_COUNT - 1]
    rules = _cached_rules(tables, bands, double, redouble, limit, tuple(form), tie)
    count = len(teams)
    played = [_Deal(deal, count) for deal in deal_rows]
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
    return _ExportGame(
        label=label,
        rules=rules,
        first_dealer=first_dealer,
        deal_limit=limit,
        ended_early=bool(early),
        teams=teams,
        players=players,
        deals=played,
        state=state,
        sitting=row[_GAME_FIELD_COUNT] if len(row) > _GAME_FIELD_COUNT else None,
        table=row[_GAME_FIELD_COUNT + 1] if len(row) > _GAME_FIELD_COUNT + 1 else None,
    )


def _needs_replay(game: _ExportGame) -> bool:
    """Whether the game is of a form the fast writer (``export``) does not write (docs/rules.md D).

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
