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
one transaction: all of it is stored or nothing. Each game is started by
:func:`club.scoring.services.create_game` and its deals written in bulk from
those settlements by :func:`club.scoring.bulk.write_game`: the rows
``record_deal`` and ``end_game`` would write deal by deal, then one
``game_changed`` per game, in file order, for standings, figures and ratings.
Every refusal is an :class:`ArchiveError` whose message names the game and,
where it applies, the deal number and the field at fault.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from django.db import DatabaseError, connection, transaction
from django.db.models.functions import Lower
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.games.models import (
    Game,
    GameTeam,
    LedgerEntry,
    Pile,
    Player,
    Round,
    Team,
    rules_from_values,
)
from club.scoring import bulk, services
from club.scoring import rules as core
from club.scoring import standings as ranking
from club.scoring.names import unstorable
from club.tournaments import services as tournament_services
from club.tournaments.models import Bye, Sitting, SittingGame, Tournament

FORMAT = "fiftysix-results/1"

MAX_LABEL = Game._meta.get_field("label").max_length
MAX_PLAYER_NAME = Player._meta.get_field("name").max_length
MAX_TEAM_NAME = Team._meta.get_field("name").max_length
# House rules are bounded by the rules core (core.MAX_TABLES, MAX_BAND_TABLES,
# MAX_FACTOR, MAX_DEAL_LIMIT), the same bounds as the forms'.

DOCUMENT_KEYS = ("format", "tournament", "games")
GAME_INPUT_KEYS = (
    "label",
    "tables_per_team",
    "payout",
    "doubling_factors",
    "deal_limit",
    "teams",
    "first_dealer",
    "ended_early",
    "rounds",
)
GAME_COMPUTED_KEYS = ("status", "winner", "tables")
TEAM_KEYS = ("name", "players")
BAND_KEYS = ("from", "to", "made", "failed")
FACTOR_KEYS = ("double", "redouble")
ROUND_INPUT_KEYS = ("all_pass", "declarer", "bid", "trump", "doubling", "points")
ROUND_COMPUTED_KEYS = (
    "number",
    "dealer",
    "declaring_team",
    "made",
    "transfers",
    "tables_after",
    "eliminated",
)

CSV_COLUMNS = (
    "game",
    "deal",
    "dealer",
    "declarer",
    "declaring_team",
    "all_pass",
    "bid",
    "trump",
    "doubling",
    "made",
    "team",
    "points",
    "change",
    "tables_after",
    "eliminated",
)

# The rules core names its fields after the deal and the settings; the file's keys.
_SETTING_FIELDS = {"tables": "tables_per_team", "bands": "payout", "doubling": "doubling_factors"}


class ArchiveError(Exception):
    """An archive refused, with a message naming the game, deal and field at fault."""

    def __init__(
        self,
        problem: str,
        *,
        label: str | None = None,
        index: int | None = None,
        number: int | None = None,
        field: str | None = None,
        tournament: str | None = None,
        document: int | None = None,
    ):
        self.problem = problem
        self.tournament = tournament
        self.document = document
        self.label = label
        self.index = index
        self.number = number
        self.field = field
        super().__init__(self.message)

    @property
    def message(self) -> str:
        parts = []
        if self.document is not None:
            parts.append(_("Document %(number)d of the list") % {"number": self.document})
        if self.tournament:
            parts.append(_('Tournament "%(name)s"') % {"name": self.tournament})
        elif self.tournament is not None:
            parts.append(_("The tournament"))
        if self.label is not None:
            parts.append(_('Game "%(label)s"') % {"label": self.label})
        elif self.index is not None:
            parts.append(_("Game %(index)d in the file") % {"index": self.index})
        if self.number is not None:
            parts.append(_("deal %(number)d") % {"number": self.number})
        if self.field:
            parts.append(self.field)
        if not parts:
            return self.problem
        return _("%(where)s: %(problem)s") % {"where": ", ".join(parts), "problem": self.problem}


# --- Small helpers ------------------------------------------------------------


def _clean(name: str) -> str:
    """A name as the club stores it: inner runs of spaces collapsed, ends trimmed.

    Names are kept exactly as the file writes them otherwise (no NFKC, no refusal of
    hidden characters, which the forms apply to what is typed): every file this app
    ever exported must stay valid and export again identically.
    """
    return " ".join(name.split())


def _key(name: str) -> str:
    """How names are matched: spacing and capitals do not matter."""
    return _clean(name).lower()


def _decap(text: str) -> str:
    """Lower the first letter of a sentence that follows "…, field: "."""
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


def _gettext_in_sentence(message: str) -> str:
    return _decap(_(message))


# A value from the file longer than this is cut in a message, to its first
# QUOTE_KEEP characters and its length: a hostile file cannot fill a page with it.
QUOTE_LIMIT = 40
QUOTE_KEEP = 30


def _cut(text: str) -> str:
    """Text for a message: whole up to ``QUOTE_LIMIT`` characters, else its start and length."""
    if len(text) <= QUOTE_LIMIT:
        return text
    return ngettext(
        "%(start)s… (%(length)s character)", "%(start)s… (%(length)s characters)", len(text)
    ) % {"start": text[:QUOTE_KEEP], "length": number_format(len(text), force_grouping=True)}


def _quoted(value: object) -> str:
    """A value from the file as it reads in JSON, cut short (:func:`_cut`) for a message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = "..."
    return _cut(text)


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _and_list(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return _("%(items)s and %(last)s") % {"items": ", ".join(items[:-1]), "last": items[-1]}


class _Object(dict):
    """A JSON object that remembers the first key it saw twice."""

    duplicate: str | None = None


def _object_pairs(pairs: list[tuple[str, Any]]) -> _Object:
    result = _Object()
    for key, value in pairs:
        if key in result and result.duplicate is None:
            result.duplicate = key
        result[key] = value
    return result


@dataclass
class _Place:
    """Where in the file a check is looking; makes errors that say so."""

    label: str | None
    index: int | None
    tournament: str | None = None

    def error(self, problem: str, *, number: int | None = None, field: str | None = None):
        return ArchiveError(
            problem,
            label=self.label,
            index=None if self.label is not None else self.index,
            number=number,
            field=field,
            tournament=self.tournament,
        )

    def object(
        self,
        value: object,
        allowed: Sequence[str] | None,
        *,
        what: str,
        number: int | None = None,
        field: str | None = None,
    ) -> dict:
        """Check ``value`` is a JSON object with no repeated key and only ``allowed`` keys."""
        if not isinstance(value, dict):
            raise self.error(
                _("%(what)s must be a JSON object, not %(value)s.")
                % {"what": what, "value": _quoted(value)},
                number=number,
                field=field,
            )
        duplicate = getattr(value, "duplicate", None)
        if duplicate is not None:
            raise self.error(
                _("the key “%(key)s” is given twice in %(what)s.")
                % {"key": duplicate, "what": what},
                number=number,
                field=field,
            )
        for key in value:
            if allowed is not None and key not in allowed:
                raise self.error(
                    _("this is not a field of %(what)s (the fields are %(fields)s).")
                    % {"what": what, "fields": ", ".join(allowed)},
                    number=number,
                    field=f"{field}.{key}" if field else key,
                )
        return value

    def text(
        self, value: object, *, field: str, limit: int, what: str, number: int | None = None
    ) -> str:
        """A name or label: a non-empty string without control characters."""
        if not isinstance(value, str):
            raise self.error(
                _("%(what)s must be text, not %(value)s.")
                % {"what": what, "value": _quoted(value)},
                number=number,
                field=field,
            )
        cleaned = _clean(value)
        if not cleaned:
            raise self.error(
                _("%(what)s cannot be empty.") % {"what": what}, number=number, field=field
            )
        if unstorable(cleaned):
            raise self.error(
                _("%(what)s contains a control character or an invalid one.") % {"what": what},
                number=number,
                field=field,
            )
        if len(cleaned) > limit:
            raise self.error(
                _("%(what)s is %(length)d characters long; at most %(limit)d are allowed.")
                % {"what": what, "length": len(cleaned), "limit": limit},
                number=number,
                field=field,
            )
        return cleaned

    def whole(self, value: object, *, field: str, low: int, high: int, what: str) -> int:
        if not _is_whole(value) or not low <= value <= high:  # type: ignore[operator]
            raise self.error(
                _("%(what)s must be a whole number from %(low)d to %(high)d, not %(value)s.")
                % {"what": what, "low": low, "high": high, "value": _quoted(value)},
                field=field,
            )
        return value  # type: ignore[return-value]


# --- What a game in the file says ------------------------------------------------


@dataclass
class TeamSpec:
    name: str
    first: str
    second: str


@dataclass
class GameSpec:
    """One game of the file, checked: what to write and what the rules made of it."""

    index: int
    label: str
    rules: core.Rules
    teams: list[TeamSpec]
    first_dealer: int  # seat
    deals: list[core.Deal]
    settlements: list[core.Settlement]
    state: core.GameState
    deal_limit: int | None = None
    ended_early: bool = False

    @property
    def finished(self) -> bool:
        return _outcome(self.state, self.deal_limit, self.ended_early)[0]

    @property
    def seat_names(self) -> list[str]:
        return _seat_names(self.teams)


def _seat_names(teams: Sequence[TeamSpec]) -> list[str]:
    return [
        (teams[team].first, teams[team].second)[partner]
        for team, partner in core.seat_order(len(teams))
    ]


# --- The document both ways ------------------------------------------------------


def _settings_fields(rules: core.Rules) -> dict:
    data: dict = {"tables_per_team": rules.tables_per_team}
    if rules.bands != core.DEFAULT_BANDS:
        data["payout"] = [
            {"from": band.low, "to": band.high, "made": band.made, "failed": band.failed}
            for band in rules.bands
        ]
    if (rules.double_factor, rules.redouble_factor) != (
        core.DEFAULT_RULES.double_factor,
        core.DEFAULT_RULES.redouble_factor,
    ):
        data["doubling_factors"] = {
            "double": rules.double_factor,
            "redouble": rules.redouble_factor,
        }
    return data


def _round_document(
    settlement: core.Settlement, team_names: Sequence[str], seat_names: Sequence[str]
) -> dict:
    data: dict = {"number": settlement.number, "dealer": seat_names[settlement.dealer]}
    if settlement.all_pass:
        data["all_pass"] = True
    else:
        data["declarer"] = seat_names[settlement.declarer]  # type: ignore[index]
        data["bid"] = settlement.bid
        data["trump"] = str(settlement.trump)
        data["doubling"] = str(settlement.doubling)
    data["points"] = {team_names[team]: pile for team, pile in sorted(settlement.points.items())}
    data["declaring_team"] = team_names[settlement.declaring_team]
    data["made"] = settlement.made
    teams = range(len(team_names))
    data["transfers"] = {team_names[team]: settlement.transfers[team] for team in teams}
    data["tables_after"] = {team_names[team]: settlement.tables_after[team] for team in teams}
    data["eliminated"] = [team_names[team] for team in settlement.eliminated]
    return data


def _outcome(
    state: core.GameState, deal_limit: int | None, ended_early: bool
) -> tuple[bool, dict[int, int]]:
    """Whether the game is over and its places, as ``club.scoring.services`` decides it.

    Won when one team is left; also over after the deal limit or when the
    organiser called time, and then placed by tables held, ties shared.
    """
    if state.finished:
        return True, state.places()
    if ended_early or (deal_limit and state.deals_played >= deal_limit):
        return True, core.final_places(state)
    return False, {}


def _game_document(
    *,
    label: str,
    rules: core.Rules,
    teams: Sequence[TeamSpec],
    first_dealer: int,
    settlements: Sequence[core.Settlement],
    state: core.GameState,
    deal_limit: int | None = None,
    ended_early: bool = False,
) -> dict:
    names = [team.name for team in teams]
    seat_names = _seat_names(teams)
    finished, places = _outcome(state, deal_limit, ended_early)
    firsts = [team for team, place in places.items() if place == 1]
    data: dict = {"label": label}
    data.update(_settings_fields(rules))
    # Written only when set, so games without them read exactly as before.
    if deal_limit is not None:
        data["deal_limit"] = deal_limit
    data["teams"] = [{"name": team.name, "players": [team.first, team.second]} for team in teams]
    data["first_dealer"] = seat_names[first_dealer]
    if ended_early:
        data["ended_early"] = True
    data["status"] = Game.Status.FINISHED.value if finished else Game.Status.IN_PROGRESS.value
    data["winner"] = names[firsts[0]] if len(firsts) == 1 else None
    data["tables"] = {names[team]: state.tables[team] for team in range(len(teams))}
    data["rounds"] = [_round_document(s, names, seat_names) for s in settlements]
    return data


# --- Export -----------------------------------------------------------------------
#
# Exports stream: they are generators of text, written to a response or a file
# as they are made, so a federation's whole archive never sits in memory.
#
# They read what the scoring services stored rather than replaying every game
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
)
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
            f"dealer_id, declaring_team_id, made FROM {quote(Round._meta.db_table)} "
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
    ) in deals:
        row = [game, number, all_pass, declarer, bid, trump, doubling, dealer]
        row += [position.get(declaring), made]
        for seat in seats[game]:
            change, balance = ledger.get((deal, seat), (None, None))
            row += [change, balance, piles.get((deal, seat))]
        found.append(tuple(row))
    return found


_rules_cache: dict[tuple, core.Rules] = {}


def _rules_of(tables: int, bands: list, double: int, redouble: int) -> core.Rules:
    """The game's house rules; most games share a few, so each is checked once."""
    key = (tables, tuple(map(tuple, bands or ())), double, redouble)
    rules = _rules_cache.get(key)
    if rules is None:
        rules = _rules_cache[key] = rules_from_values(tables, bands, double, redouble)
    return rules


def _read_chunk(rows: Sequence[tuple]) -> list[_ExportGame]:
    """The stored games of ``rows`` (values of ``_GAME_FIELDS`` ...), in the same order.

    Two queries whatever the number of games, each read whole before returning.
    """
    ids = [row[0] for row in rows]
    teams: dict[int, list[TeamSpec]] = {game: [] for game in ids}
    players: dict[int, dict[int, str]] = {game: {} for game in ids}
    seats: dict[int, list[int]] = {game: [] for game in ids}  # seat ids by position
    for game, seat, name, first, first_name, second, second_name in (
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
        )
    ):
        teams[game].append(TeamSpec(name, first_name, second_name))
        players[game][first] = first_name
        players[game][second] = second_name
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
        rules = _rules_of(tables, bands, double, redouble)
        count = len(teams[game])
        played = [_Deal(deal, count) for deal in found[game]]
        # The teams out in a deal are those it left with no tables; before it
        # they held some (every team starts with tables_per_team).
        before: tuple[int, ...] = (rules.tables_per_team,) * count
        out_order = []
        for deal in played:
            after = deal.tables_after
            if 0 in after:
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
                sitting=row[10] if len(row) > 10 else None,
                table=row[11] if len(row) > 11 else None,
            )
        )
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


def _game_json(game: _ExportGame, pad: str) -> str:
    """One game's object for a list ``pad`` deep, as ``_game_document`` reads in JSON."""
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
    yield from _document_json({"format": FORMAT}, _export_games(_all_game_chunks()))
    yield "\n"


def export_json() -> str:
    return "".join(stream_json())


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


def _parse_label(raw: object, index: int, seen: dict[str, int]) -> str:
    place = _Place(None, index)
    if not isinstance(raw, dict):
        raise place.error(
            _("a game must be a JSON object, not %(value)s.") % {"value": _quoted(raw)}
        )
    if "label" not in raw:
        raise place.error(_("every game needs a label."), field="label")
    label = raw["label"]
    if not isinstance(label, str) or not label.strip():
        raise place.error(
            _("the label must be text that is not empty, not %(value)s.")
            % {"value": _quoted(label)},
            field="label",
        )
    label = label.strip()
    if len(label) > MAX_LABEL:
        raise place.error(
            _("the label is %(length)d characters long; at most %(limit)d are allowed.")
            % {"length": len(label), "limit": MAX_LABEL},
            field="label",
        )
    if unstorable(label):
        raise place.error(
            _("the label contains a control character or an invalid one."), field="label"
        )
    here = _Place(label, index)
    key = label.lower()
    if key in seen:
        raise here.error(
            _("the file has two games with this label (games %(first)d and %(second)d).")
            % {"first": seen[key], "second": index},
            field="label",
        )
    seen[key] = index
    if Game.objects.annotate(lower=Lower("label")).filter(lower=key).exists():
        raise here.error(
            _("the club already has a game with this label."),
            field="label",
        )
    return label


def _parse_rules(place: _Place, raw: dict) -> core.Rules:
    tables = raw.get("tables_per_team", core.DEFAULT_RULES.tables_per_team)
    tables = place.whole(
        tables, field="tables_per_team", low=1, high=core.MAX_TABLES, what=_("tables per team")
    )
    bands = core.DEFAULT_BANDS
    if "payout" in raw:
        payout = raw["payout"]
        if not isinstance(payout, list) or not payout:
            raise place.error(
                _(
                    "the payout must be a list of bands such as "
                    '{"from": 28, "to": 39, "made": 1, "failed": 2}, not %(value)s.'
                )
                % {"value": _quoted(payout)},
                field="payout",
            )
        parsed = []
        for row, band in enumerate(payout, start=1):
            band = place.object(band, BAND_KEYS, what=_("a payout band"), field="payout")
            values = []
            for key in BAND_KEYS:
                value = band.get(key)
                low = 0 if key in ("made", "failed") else core.DEFAULT_RULES.min_bid
                high = (
                    core.MAX_BAND_TABLES
                    if key in ("made", "failed")
                    else core.DEFAULT_RULES.max_bid
                )
                if not _is_whole(value) or not low <= value <= high:
                    raise place.error(
                        _(
                            "band %(row)d needs “%(key)s” as a whole number from %(low)d to "
                            "%(high)d, not %(value)s."
                        )
                        % {
                            "row": row,
                            "key": key,
                            "low": low,
                            "high": high,
                            "value": _quoted(value),
                        },
                        field="payout",
                    )
                values.append(value)
            parsed.append(core.Band(*values))
        bands = tuple(parsed)
    double, redouble = core.DEFAULT_RULES.double_factor, core.DEFAULT_RULES.redouble_factor
    if "doubling_factors" in raw:
        factors = place.object(
            raw["doubling_factors"],
            FACTOR_KEYS,
            what=_("the doubling factors"),
            field="doubling_factors",
        )
        double = place.whole(
            factors.get("double", double),
            field="doubling_factors",
            low=1,
            high=core.MAX_FACTOR,
            what=_("the doubling factor"),
        )
        redouble = place.whole(
            factors.get("redouble", redouble),
            field="doubling_factors",
            low=1,
            high=core.MAX_FACTOR,
            what=_("the redoubling factor"),
        )
    try:
        rules = core.Rules(
            tables_per_team=tables, bands=bands, double_factor=double, redouble_factor=redouble
        )
        core.check_house_rules(rules)
        return rules
    except core.RulesError as error:
        raise place.error(
            error.translated(_gettext_in_sentence),
            field=_SETTING_FIELDS.get(error.field or "", error.field),
        ) from None


def _parse_teams(place: _Place, raw: dict) -> list[TeamSpec]:
    if "teams" not in raw:
        raise place.error(_("every game needs its teams."), field="teams")
    teams_raw = raw["teams"]
    if not isinstance(teams_raw, list):
        raise place.error(
            _("the teams must be a list, not %(value)s.") % {"value": _quoted(teams_raw)},
            field="teams",
        )
    if len(teams_raw) not in (2, 3, 4):
        raise place.error(
            ngettext(
                "56 is played by 4, 6 or 8 players in teams of two; this game has %(teams)d team.",
                "56 is played by 4, 6 or 8 players in teams of two; this game has %(teams)d teams.",
                len(teams_raw),
            )
            % {"teams": len(teams_raw)},
            field="teams",
        )
    teams: list[TeamSpec] = []
    team_of_player: dict[str, tuple[int, str]] = {}  # by name key: team number, spelling
    names: dict[str, int] = {}
    for number, team_raw in enumerate(teams_raw, start=1):
        what = _("team %(number)d") % {"number": number}
        team_raw = place.object(team_raw, TEAM_KEYS, what=what, field="teams")
        players = team_raw.get("players")
        if not isinstance(players, list):
            raise place.error(
                _("team %(number)d needs “players”: a list of its two players.")
                % {"number": number},
                field="teams",
            )
        if len(players) != 2:
            raise place.error(
                _("team %(number)d must be two players, not %(count)d.")
                % {"number": number, "count": len(players)},
                field="teams",
            )
        first, second = (
            place.text(
                player,
                field="teams",
                limit=MAX_PLAYER_NAME,
                what=_("a player's name in team %(number)d") % {"number": number},
            )
            for player in players
        )
        if _key(first) == _key(second):
            raise place.error(
                _("%(player)s is named twice in team %(number)d; a team is two players.")
                % {"player": first, "number": number},
                field="teams",
            )
        for player in (first, second):
            if _key(player) in team_of_player:
                other, spelling = team_of_player[_key(player)]
                raise place.error(
                    _(
                        "%(player)s plays in two teams (team %(first)d and team %(second)d); "
                        "a player sits in one team only."
                    )
                    % {"player": spelling, "first": other, "second": number},
                    field="teams",
                )
            team_of_player[_key(player)] = (number, player)
        if "name" in team_raw:
            name = place.text(
                team_raw["name"],
                field="teams",
                limit=MAX_TEAM_NAME,
                what=_("the name of team %(number)d") % {"number": number},
            )
        else:
            name = f"{first} & {second}"
        if _key(name) in names:
            raise place.error(
                _("teams %(first)d and %(second)d are both called “%(name)s”.")
                % {"first": names[_key(name)], "second": number, "name": name},
                field="teams",
            )
        names[_key(name)] = number
        teams.append(TeamSpec(name, first, second))
    return teams


def _seat_of(
    place: _Place,
    value: object,
    seat_names: Sequence[str],
    *,
    field: str,
    number: int | None = None,
    role: str,
) -> int:
    if not isinstance(value, str):
        raise place.error(
            _("%(role)s must be the name of a player at this game, not %(value)s.")
            % {"role": role, "value": _quoted(value)},
            number=number,
            field=field,
        )
    for seat, name in enumerate(seat_names):
        if _key(name) == _key(value):
            return seat
    raise place.error(
        _("%(name)s is not seated at this game; %(role)s must be one of %(players)s.")
        % {"name": _quoted(value), "role": role, "players": _and_list(seat_names)},
        number=number,
        field=field,
    )


def _parse_round(
    place: _Place, raw: object, number: int, teams: Sequence[TeamSpec], seat_names: Sequence[str]
) -> core.Deal:
    what = _("a deal")
    raw = place.object(raw, ROUND_INPUT_KEYS + ROUND_COMPUTED_KEYS, what=what, number=number)
    all_pass = raw.get("all_pass", False)
    if not isinstance(all_pass, bool):
        raise place.error(
            _("all_pass must be true or false, not %(value)s.") % {"value": _quoted(all_pass)},
            number=number,
            field="all_pass",
        )

    declarer: int | None = None
    if all_pass:
        if raw.get("declarer") is not None:
            raise place.error(
                _("everyone passed in this deal, so it has no declarer."),
                number=number,
                field="declarer",
            )
        bid = raw.get("bid")
        if bid is not None and not _is_whole(bid):
            raise place.error(
                _("the bid must be a whole number, not %(value)s.") % {"value": _quoted(bid)},
                number=number,
                field="bid",
            )
    else:
        for key in ("declarer", "bid", "trump"):
            if raw.get(key) is None:
                raise place.error(
                    _("a deal needs its %(key)s (or “all_pass”: true when everyone passed).")
                    % {"key": key},
                    number=number,
                    field=key,
                )
        declarer = _seat_of(
            place,
            raw["declarer"],
            seat_names,
            field="declarer",
            number=number,
            role=_("the declarer"),
        )
        bid = raw["bid"]
        if not _is_whole(bid):
            raise place.error(
                _("the bid must be a whole number from %(low)d to %(high)d, not %(value)s.")
                % {
                    "low": core.DEFAULT_RULES.min_bid,
                    "high": core.DEFAULT_RULES.max_bid,
                    "value": _quoted(bid),
                },
                number=number,
                field="bid",
            )

    trump = raw.get("trump")
    if trump is not None and (not isinstance(trump, str) or trump not in set(core.Trump)):
        raise place.error(
            _("%(value)s is not a trump: choose clubs, diamonds, hearts, spades or no-trumps.")
            % {"value": _quoted(trump)},
            number=number,
            field="trump",
        )
    doubling = raw.get("doubling", core.Doubling.NONE.value)
    if not isinstance(doubling, str) or doubling not in set(core.Doubling):
        raise place.error(
            _("%(value)s is not a doubling: choose none, double or redouble.")
            % {"value": _quoted(doubling)},
            number=number,
            field="doubling",
        )

    if "points" not in raw:
        raise place.error(
            _("a deal needs the points: the pile of every team still playing."),
            number=number,
            field="points",
        )
    points_raw = place.object(
        raw["points"],
        None,
        what=_("the points"),
        number=number,
        field="points",
    )
    team_index = {_key(team.name): index for index, team in enumerate(teams)}
    points: dict[int, object] = {}
    for name, pile in points_raw.items():
        index = team_index.get(_key(name))
        if index is None:
            raise place.error(
                _("%(name)s is not a team of this game; the teams are %(teams)s.")
                % {"name": _quoted(name), "teams": _and_list([team.name for team in teams])},
                number=number,
                field="points",
            )
        if index in points:
            raise place.error(
                _("the pile of %(team)s is given twice.") % {"team": teams[index].name},
                number=number,
                field="points",
            )
        points[index] = pile
    return core.Deal(
        points=points,  # type: ignore[arg-type]  # the rules check every pile
        declarer=declarer,
        bid=bid,
        trump=trump,
        doubling=doubling,
    )


def _replay(
    place: _Place,
    teams: Sequence[TeamSpec],
    first_dealer: int,
    deals: Sequence[core.Deal],
    rules: core.Rules,
) -> tuple[list[core.Settlement], core.GameState]:
    names = [team.name for team in teams]
    try:
        return core.replay(len(teams), first_dealer, deals, rules)
    except core.DealError as error:
        if isinstance(error.__cause__, core.GameOver):
            before = core.replay(len(teams), first_dealer, deals[: error.number - 1], rules)[1]
            winner = names[before.winner] if before.winner is not None else "?"
            raise place.error(
                _(
                    "the game was already over after deal %(last)d (%(team)s had won), so no "
                    "deal can follow it."
                )
                % {"last": error.number - 1, "team": winner},
                number=error.number,
            ) from None
        raise place.error(
            _rules_problem(error, names),
            number=error.number,
            field=error.field,
        ) from None
    except core.RulesError as error:
        raise place.error(_rules_problem(error, names), field=error.field) from None


def _rules_problem(error: core.RulesError, names: Sequence[str]) -> str:
    """The rules' message as part of a sentence, a long value from the file in it cut short.

    The rules quote what they refuse (a bid, a pile, their sum); a value longer
    than ``QUOTE_LIMIT`` characters is cut as :func:`_quoted` cuts it, its
    placeholder then written as text (``%(bid)d`` reads ``%(bid)s``).
    """
    long = {
        key: _cut(str(value))
        for key, value in error.params.items()
        if key != "team" and len(str(value)) > QUOTE_LIMIT
    }
    if not long:
        return error.translated(_gettext_in_sentence, names)
    placeholder = re.compile(
        r"%\((" + "|".join(map(re.escape, long)) + r")\)[#0 +-]*\d*(\.\d+)?[a-z]"
    )

    def gettext(text: str) -> str:
        return placeholder.sub(r"%(\1)s", _gettext_in_sentence(text))

    # Not constructed: its English message would format the cut text with "%d".
    shortened = core.RulesError.__new__(core.RulesError)
    shortened.template, shortened.field = error.template, error.field
    shortened.params = {**error.params, **long}
    return shortened.translated(gettext, names)


def _comparable(value: object) -> object:
    """A value reduced so that spelling of names does not matter but types do."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, str):
        return ("str", _key(value))
    if isinstance(value, list):
        return ("list", [_comparable(item) for item in value])
    if isinstance(value, dict):
        items = {_key(key): _comparable(item) for key, item in value.items()}
        if len(items) != len(value) or getattr(value, "duplicate", None) is not None:
            return ("dict", "ambiguous", id(value))
        return ("dict", items)
    return (type(value).__name__, value)


def _agrees(given: object, expected: object, *, unordered: bool = False) -> bool:
    try:
        return _agrees_exactly(given, expected, unordered=unordered)
    except RecursionError:  # a value nested deeper than any the rules give
        return False


def _agrees_exactly(given: object, expected: object, *, unordered: bool) -> bool:
    if unordered and isinstance(given, list) and isinstance(expected, list):
        return sorted(map(repr, map(_comparable, given))) == sorted(
            map(repr, map(_comparable, expected))
        )
    return _comparable(given) == _comparable(expected)


def _check_computed(
    place: _Place, raw: dict, expected: dict, keys: Sequence[str], number: int | None = None
) -> None:
    for key in keys:
        if key not in raw:
            continue
        if not _agrees(raw[key], expected[key], unordered=key == "eliminated"):
            raise place.error(
                _(
                    "the file says %(given)s but the deals, settled by the rules, give "
                    "%(expected)s; the file has been changed or is damaged."
                )
                % {"given": _quoted(raw[key]), "expected": _quoted(expected[key])},
                number=number,
                field=key,
            )


def _parse_game_end(place: _Place, raw: dict, deals: int) -> tuple[int | None, bool]:
    """The optional deal limit and whether the organiser called time on the game."""
    deal_limit = raw.get("deal_limit")
    if deal_limit is not None:
        deal_limit = place.whole(
            deal_limit,
            field="deal_limit",
            low=1,
            high=core.MAX_DEAL_LIMIT,
            what=_("the deal limit"),
        )
        if deals > deal_limit:
            raise place.error(
                _("the game ends after %(limit)d deals but the file has %(deals)d.")
                % {"limit": deal_limit, "deals": deals},
                field="rounds",
            )
    ended_early = raw.get("ended_early", False)
    if not isinstance(ended_early, bool):
        raise place.error(
            _("ended_early must be true or false, not %(value)s.")
            % {"value": _quoted(ended_early)},
            field="ended_early",
        )
    return deal_limit, ended_early


def parse_game(raw: object, index: int, seen_labels: dict[str, int]) -> GameSpec:
    """Check one game of the file: its shape first, then its deals against the rules."""
    label = _parse_label(raw, index, seen_labels)
    place = _Place(label, index)
    raw = place.object(raw, GAME_INPUT_KEYS + GAME_COMPUTED_KEYS, what=_("a game"))
    rules = _parse_rules(place, raw)
    teams = _parse_teams(place, raw)
    seat_names = _seat_names(teams)
    if "first_dealer" not in raw:
        raise place.error(_("every game needs its first dealer."), field="first_dealer")
    first_dealer = _seat_of(
        place, raw["first_dealer"], seat_names, field="first_dealer", role=_("the first dealer")
    )
    if "rounds" not in raw:
        raise place.error(
            _("every game needs its rounds: a list of deals, empty if none was played yet."),
            field="rounds",
        )
    rounds_raw = raw["rounds"]
    if not isinstance(rounds_raw, list):
        raise place.error(
            _("the rounds must be a list of deals, not %(value)s.")
            % {"value": _quoted(rounds_raw)},
            field="rounds",
        )
    deal_limit, ended_early = _parse_game_end(place, raw, len(rounds_raw))
    deals = [
        _parse_round(place, round_raw, number, teams, seat_names)
        for number, round_raw in enumerate(rounds_raw, start=1)
    ]
    settlements, state = _replay(place, teams, first_dealer, deals, rules)
    if ended_early and _outcome(state, deal_limit, False)[0]:
        raise place.error(
            _(
                "the game was over by its deals (won, or at its deal limit), so time cannot "
                "also have been called on it."
            ),
            field="ended_early",
        )

    expected = _game_document(
        label=label,
        rules=rules,
        teams=teams,
        first_dealer=first_dealer,
        settlements=settlements,
        state=state,
        deal_limit=deal_limit,
        ended_early=ended_early,
    )
    for number, (round_raw, round_expected) in enumerate(
        zip(rounds_raw, expected["rounds"], strict=True), start=1
    ):
        if "number" in round_raw and not _agrees(round_raw["number"], number):
            raise place.error(
                _(
                    "the deals must be numbered 1, 2, 3 ... in the order they were played; "
                    "this is deal %(number)d, not %(given)s."
                )
                % {"number": number, "given": _quoted(round_raw["number"])},
                number=number,
                field="number",
            )
        _check_computed(place, round_raw, round_expected, ROUND_COMPUTED_KEYS, number)
    _check_computed(place, raw, expected, GAME_COMPUTED_KEYS)
    return GameSpec(
        index=index,
        label=label,
        rules=rules,
        teams=teams,
        first_dealer=first_dealer,
        deals=deals,
        settlements=settlements,
        state=state,
        deal_limit=deal_limit,
        ended_early=ended_early,
    )


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


# --- Import -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportSummary:
    games: int
    deals: int
    tournaments: tuple[str, ...] = ()


def _write_game(spec: GameSpec, user=None, *, require_confirmation: bool = False) -> Game:
    """Store a checked game: started by the services (players, teams), its deals in bulk."""
    try:
        game = services.create_game(
            label=spec.label,
            teams=[services.TeamEntry(team.first, team.second, team.name) for team in spec.teams],
            first_dealer=spec.first_dealer,
            rules=spec.rules,
            user=user,
            deal_limit=spec.deal_limit,
            require_confirmation=require_confirmation,
        )
        # The deals are settled already (parse_game replayed them): their rows are
        # written in bulk, the rows record_deal and end_game would write one by one.
        bulk.write_game(
            bulk.PlayedGame(
                game=game,
                seating=services.load_seating(game),
                settlements=spec.settlements,
                state=spec.state,
                ended_early=spec.ended_early,
            ),
            user=user,
        )
    except services.ScoringError as error:
        raise ArchiveError(
            _decap(error.message), label=spec.label, number=error.number, field=error.field
        ) from error
    except DatabaseError as error:
        raise ArchiveError(
            _("the database refused it (%(reason)s).") % {"reason": error}, label=spec.label
        ) from error
    return game


def import_results(text: str, *, user=None) -> ImportSummary:
    """Check the whole file, then store all of it, or nothing when anything is wrong."""
    with transaction.atomic():
        documents = parse_archive(text)
        for document in documents:
            if document.tournament is None:
                for spec in document.games:
                    _write_game(spec, user)
            else:
                _write_tournament(document.tournament, user)
    specs = [spec for document in documents for spec in document.games]
    return ImportSummary(
        games=len(specs),
        deals=sum(len(spec.deals) for spec in specs),
        tournaments=tuple(d.tournament.name for d in documents if d.tournament is not None),
    )


def read_text(read: Callable[[], bytes]) -> str:
    """Decode a file's bytes as UTF-8 (with or without a byte-order mark)."""
    try:
        return read().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ArchiveError(
            _("The file is not UTF-8 text (%(reason)s).") % {"reason": error}
        ) from None


# --- Tournaments ------------------------------------------------------------------------
#
# A tournament's archive is a ``fiftysix-results/1`` document with a top-level
# "tournament" object beside its "games": the tournament's settings, its teams,
# its confirmed sittings (which game each table played, who had a bye) and the
# standings. Standings are computed, like a game's tables: an import rebuilds
# them from the games and refuses the file when they disagree.

TOURNAMENT_KEYS = (
    "name",
    "starts_on",
    "ends_on",
    "venue",
    "status",
    "final",
    "provisional",
    "tables_per_team",
    "payout",
    "doubling_factors",
    "deals_per_game",
    "points_by_place",
    "require_confirmation",
    "teams",
    "sittings",
    "standings",
)
SITTING_KEYS = ("number", "game_size", "games", "byes")
SITTING_GAME_KEYS = ("table", "game")
STANDING_KEYS = (
    "place",
    "shared",
    "team",
    "points",
    "games",
    "won",
    "net_tables",
    "declared",
    "made",
    "byes",
)
MAX_TOURNAMENT_NAME = Tournament._meta.get_field("name").max_length
MAX_VENUE = Tournament._meta.get_field("venue").max_length
MAX_TABLE_LABEL = SittingGame._meta.get_field("table_label").max_length
MAX_TEAMS_IN_GAME = 4

STANDINGS_CSV_COLUMNS = ("results",) + STANDING_KEYS
GAMES_CSV_COLUMNS = (
    "results",
    "sitting",
    "table",
    "game",
    "status",
    "deals",
) + tuple(
    f"{column}_{number}"
    for number in range(1, MAX_TEAMS_IN_GAME + 1)
    for column in ("team", "place", "tables")
)
TOURNAMENT_DEALS_CSV_COLUMNS = ("results", "sitting", "table") + CSV_COLUMNS
CSV_TABLES = ("standings", "games", "deals")


def points_text(points: Fraction) -> str:
    """Tournament points written exactly: "4", "2.5", or "4/3" when no decimal is exact."""
    if points.denominator == 1:
        return str(points.numerator)
    rest = points.denominator
    for factor in (2, 5):
        while rest % factor == 0:
            rest //= factor
    if rest != 1:
        return f"{points.numerator}/{points.denominator}"
    exact = Decimal(points.numerator) / Decimal(points.denominator)
    return format(exact.normalize(), "f")


def results_word(tournament: Tournament) -> str:
    """What every export says about the results: "final" or "provisional"."""
    return "final" if tournament.is_final else "provisional"


def _tournament_game_rows(tournament: Tournament) -> list[tuple]:
    """The games of the tournament's confirmed sittings, in sitting and table order.

    Values of ``_TOURNAMENT_GAME_FIELDS``: a few small columns per game, for
    ``_read_chunk`` to read the rest of a chunk at a time.
    """
    return list(
        Game.objects.filter(
            sitting_entry__sitting__tournament=tournament,
            sitting_entry__sitting__status=Sitting.Status.CONFIRMED,
        )
        .order_by("sitting_entry__sitting__number", "sitting_entry__position")
        .values_list(*_TOURNAMENT_GAME_FIELDS)
    )


def _tournament_export_games(tournament: Tournament) -> Iterator[_ExportGame]:
    return _export_games(_chunked(_tournament_game_rows(tournament)))


def _standing_rows(tournament: Tournament) -> list[dict]:
    """The standings, computed from the finished games as the tournament services store them.

    Computed here rather than read from the stored rows so that points keep
    their exact value (the stored column rounds 4/3 to 1.33).
    """
    entries = list(tournament.entries.select_related("team"))  # the services' order: by name
    names = {entry.pk: entry.team.name for entry in entries}
    byes = Counter(
        Bye.objects.filter(sitting__tournament=tournament).values_list("entry_id", flat=True)
    )
    table = ranking.standings(
        [entry.pk for entry in entries],
        tournament_services.game_results(tournament),
        tournament_services.scheme_of(tournament),
    )
    return [
        {
            "place": row.place,
            "shared": row.shared,
            "team": names[row.team],
            "points": points_text(row.points),
            "games": row.games,
            "won": row.won,
            "net_tables": row.net_tables,
            "declared": row.declared,
            "made": row.made,
            "byes": byes.get(row.team, 0),
        }
        for row in table
    ]


def _tournament_object(tournament: Tournament) -> dict:
    rules = tournament.rules
    data: dict = {
        "name": tournament.name,
        "starts_on": tournament.starts_on.isoformat(),
        "ends_on": tournament.ends_on.isoformat() if tournament.ends_on else None,
        "venue": tournament.venue,
        "status": tournament.status,
        "final": tournament.is_final,
        "provisional": not tournament.is_final,
    }
    settings = _settings_fields(rules)
    if settings["tables_per_team"] == core.DEFAULT_RULES.tables_per_team:
        del settings["tables_per_team"]  # only house rules that differ from the defaults
    data.update(settings)
    data["deals_per_game"] = tournament.deal_limit
    scheme = tournament_services.scheme_of(tournament)
    data["points_by_place"] = {
        str(count): list(points) for count, points in sorted(scheme.by_team_count.items())
    }
    data["require_confirmation"] = tournament.require_confirmation
    entries = list(
        tournament.entries.select_related("team__first_player", "team__second_player").order_by(
            "id"
        )
    )
    data["teams"] = [
        {
            "name": entry.team.name,
            "players": [entry.team.first_player.name, entry.team.second_player.name],
        }
        for entry in entries
    ]
    name_of = {entry.pk: entry.team.name for entry in entries}
    # Three queries for every sitting together, so the export's queries do not
    # grow with the tournament.
    sittings = list(
        tournament.sittings.filter(status=Sitting.Status.CONFIRMED)
        .order_by("number")
        .values_list("id", "number", "game_size")
    )
    tables: dict[int, list[dict]] = {row[0]: [] for row in sittings}
    for sitting, table, label in (
        SittingGame.objects.filter(sitting_id__in=tables)
        .order_by("sitting_id", "position")
        .values_list("sitting_id", "table_label", "game__label")
    ):
        tables[sitting].append({"table": table, "game": label})
    byes: dict[int, list[str]] = {sitting: [] for sitting in tables}
    for sitting, entry_id in (
        Bye.objects.filter(sitting_id__in=tables)
        .order_by("sitting_id", "entry_id")
        .values_list("sitting_id", "entry_id")
    ):
        byes[sitting].append(name_of[entry_id])
    data["sittings"] = [
        {"number": number, "game_size": size, "games": tables[pk], "byes": byes[pk]}
        for pk, number, size in sittings
    ]
    data["standings"] = _standing_rows(tournament)
    return data


def stream_tournament_json(tournaments: Sequence[Tournament]) -> Iterator[str]:
    """One tournament's document, or a list of documents for several, in pieces."""
    if len(tournaments) == 1:
        yield from _tournament_document_json(tournaments[0], "")
        yield "\n"
        return
    for number, tournament in enumerate(tournaments):
        yield "[\n  " if number == 0 else ",\n  "
        yield from _tournament_document_json(tournament, "  ")
    yield "\n]\n"


def _tournament_document_json(tournament: Tournament, pad: str) -> Iterator[str]:
    head = {"format": FORMAT, "tournament": _tournament_object(tournament)}
    return _document_json(head, _tournament_export_games(tournament), pad)


def export_tournament_json(tournaments: Sequence[Tournament]) -> str:
    """One tournament's document, or a list of documents for several."""
    return "".join(stream_tournament_json(tournaments))


def _check_table(table: str) -> None:
    if table not in CSV_TABLES:
        raise ArchiveError(
            _("%(table)s is not a table of a tournament's export; choose %(tables)s.")
            % {"table": _quoted(table), "tables": _and_list(CSV_TABLES)}
        )


def _tournament_rows(tournament: Tournament, table: str) -> Iterator[Iterable[Sequence]]:
    """The rows of a tournament's standings or games table after the header."""
    results = results_word(tournament)
    if table == "standings":
        for row in _standing_rows(tournament):
            cells = [results] + [row[key] for key in STANDING_KEYS]
            cells[2] = _flag(row["shared"])
            yield [_safe_cell(cell) for cell in cells]
        return
    for game in _tournament_export_games(tournament):
        finished, places = game.outcome
        cells = [
            results,
            game.sitting,
            _safe_cell(game.table),
            _safe_cell(game.label),
            Game.Status.FINISHED.value if finished else Game.Status.IN_PROGRESS.value,
            game.state.deals_played,
        ]
        for position in range(MAX_TEAMS_IN_GAME):
            if position < len(game.teams):
                cells += [
                    _safe_cell(game.teams[position].name),
                    places.get(position, ""),
                    game.state.tables[position],
                ]
            else:
                cells += ["", "", ""]
        yield cells


def _tournament_deals(tournament: Tournament) -> Iterator[tuple[_ExportGame, tuple]]:
    """The games of the deals table, each with the cells its rows start with."""
    results = results_word(tournament)
    for game in _tournament_export_games(tournament):
        yield game, (results, game.sitting, _safe_cell(game.table))


_TOURNAMENT_CSV_HEADERS = {
    "standings": STANDINGS_CSV_COLUMNS,
    "games": GAMES_CSV_COLUMNS,
    "deals": TOURNAMENT_DEALS_CSV_COLUMNS,
}


def tournament_csv_rows(tournament: Tournament, table: str) -> Iterator[list]:
    """The header and rows of one of a tournament's CSV tables, made as they are read.

    Every row starts with "results": provisional or final.
    """
    _check_table(table)
    yield list(_TOURNAMENT_CSV_HEADERS[table])
    if table == "deals":
        for game, where in _tournament_deals(tournament):
            yield from map(list, _deal_rows(game, where))
    else:
        yield from map(list, _tournament_rows(tournament, table))


def stream_tournament_csv(tournament: Tournament, table: str = "deals") -> Iterator[str]:
    """One of a tournament's CSV tables as text, in pieces; an unknown table is refused now."""
    _check_table(table)
    if table == "deals":
        texts = (_deal_lines(game, where) for game, where in _tournament_deals(tournament))
    else:
        texts = map(_csv_line_writer(), _tournament_rows(tournament, table))
    return _csv_stream(_TOURNAMENT_CSV_HEADERS[table], texts)


def export_tournament_csv(tournament: Tournament, table: str = "deals") -> str:
    return "".join(stream_tournament_csv(tournament, table))


# Reading a tournament --------------------------------------------------------------------


@dataclass
class SittingSpec:
    number: int
    game_size: int
    games: list[tuple[str, GameSpec]]  # (table label, game)
    byes: list[str]  # team names


@dataclass
class TournamentSpec:
    name: str
    starts_on: date
    ends_on: date | None
    venue: str
    status: str
    final: bool
    rules: core.Rules
    deal_limit: int | None
    points_scheme: dict[int, tuple[int, ...]] | None  # None: the default scheme
    require_confirmation: bool
    teams: list[TeamSpec]
    sittings: list[SittingSpec]
    standings: list | None  # as the file gives them; checked once rebuilt


def _parse_date(place: _Place, value: object, field: str) -> date:
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise place.error(
        _("%(value)s is not a date; write it as YYYY-MM-DD.") % {"value": _quoted(value)},
        field=field,
    )


def _parse_flag(place: _Place, raw: dict, key: str, default: bool) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise place.error(
            _("%(key)s must be true or false, not %(value)s.")
            % {"key": key, "value": _quoted(value)},
            field=key,
        )
    return value


def _parse_scheme(place: _Place, raw: dict) -> dict[int, tuple[int, ...]] | None:
    if raw.get("points_by_place") is None:
        return None
    value = place.object(
        raw["points_by_place"],
        [str(count) for count in ranking.TEAM_COUNTS],
        what=_("the points by place"),
        field="points_by_place",
    )
    scheme: dict[int, tuple[int, ...]] = {}
    for count, points in value.items():
        if not isinstance(points, list) or not all(_is_whole(p) for p in points):
            raise place.error(
                _("the points for a game of %(count)s teams must be a list of whole numbers.")
                % {"count": count},
                field="points_by_place",
            )
        scheme[int(count)] = tuple(points)
    try:
        parsed = ranking.PointsScheme(scheme)
    except ranking.StandingsError as error:
        raise place.error(error.translated(_gettext_in_sentence), field="points_by_place") from None
    return None if parsed == ranking.DEFAULT_POINTS else scheme


def _parse_tournament_teams(place: _Place, raw: dict) -> list[TeamSpec]:
    teams_raw = raw.get("teams")
    if not isinstance(teams_raw, list):
        raise place.error(
            _("the teams must be a list of {“name”, “players”}, not %(value)s.")
            % {"value": _quoted(teams_raw)},
            field="teams",
        )
    teams: list[TeamSpec] = []
    names: dict[str, int] = {}
    team_of_player: dict[str, tuple[int, str]] = {}
    for number, team_raw in enumerate(teams_raw, start=1):
        what = _("team %(number)d") % {"number": number}
        team_raw = place.object(team_raw, TEAM_KEYS, what=what, field="teams")
        players = team_raw.get("players")
        if not isinstance(players, list) or len(players) != 2:
            raise place.error(
                _("team %(number)d needs its two players, as a list of two names.")
                % {"number": number},
                field="teams",
            )
        first, second = (
            place.text(
                player,
                field="teams",
                limit=MAX_PLAYER_NAME,
                what=_("a player's name in team %(number)d") % {"number": number},
            )
            for player in players
        )
        if _key(first) == _key(second):
            raise place.error(
                _("%(player)s is named twice in team %(number)d; a team is two players.")
                % {"player": first, "number": number},
                field="teams",
            )
        for player in (first, second):
            if _key(player) in team_of_player:
                other, spelling = team_of_player[_key(player)]
                raise place.error(
                    _(
                        "%(player)s plays in two teams (team %(first)d and team %(second)d); "
                        "a player plays for one team of a tournament."
                    )
                    % {"player": spelling, "first": other, "second": number},
                    field="teams",
                )
            team_of_player[_key(player)] = (number, player)
        name = place.text(
            team_raw.get("name", f"{first} & {second}"),
            field="teams",
            limit=MAX_TEAM_NAME,
            what=_("the name of team %(number)d") % {"number": number},
        )
        if _key(name) in names:
            raise place.error(
                _(
                    "teams %(first)d and %(second)d are both called “%(name)s”; a team is "
                    "registered once."
                )
                % {"first": names[_key(name)], "second": number, "name": name},
                field="teams",
            )
        names[_key(name)] = number
        teams.append(TeamSpec(name, first, second))
    return teams


def _seat_once(
    place: _Place, seated: dict[str, str], name: str, where: str, number: int, field: str
) -> None:
    """Note where a team is in a sitting; refuse a team placed twice in one sitting."""
    if _key(name) in seated:
        raise place.error(
            _(
                "%(team)s is both in %(first)s and in %(second)s of sitting %(number)d; "
                "a team plays once per sitting."
            )
            % {"team": name, "first": seated[_key(name)], "second": where, "number": number},
            field=field,
        )
    seated[_key(name)] = where


def _parse_sittings(
    place: _Place,
    raw: dict,
    teams: Sequence[TeamSpec],
    games: Sequence[GameSpec],
    rules: core.Rules,
    deal_limit: int | None,
) -> list[SittingSpec]:
    sittings_raw = raw.get("sittings")
    if not isinstance(sittings_raw, list):
        raise place.error(
            _("the sittings must be a list, empty if none was played yet, not %(value)s.")
            % {"value": _quoted(sittings_raw)},
            field="sittings",
        )
    team_by_key = {_key(team.name): team for team in teams}
    game_by_key = {game.label.lower(): game for game in games}
    sitting_of_game: dict[str, int] = {}
    sittings = []
    for number, sitting_raw in enumerate(sittings_raw, start=1):
        field = f"sittings[{number}]"
        what = _("sitting %(number)d") % {"number": number}
        sitting_raw = place.object(sitting_raw, SITTING_KEYS, what=what, field=field)
        if not _agrees(sitting_raw.get("number"), number):
            raise place.error(
                _(
                    "the sittings must be numbered 1, 2, 3 ... in order; this is sitting "
                    "%(number)d, not %(given)s."
                )
                % {"number": number, "given": _quoted(sitting_raw.get("number"))},
                field=f"{field}.number",
            )
        game_size = place.whole(
            sitting_raw.get("game_size"),
            field=f"{field}.game_size",
            low=2,
            high=MAX_TEAMS_IN_GAME,
            what=_("the number of teams per game"),
        )
        seated: dict[str, str] = {}  # team key -> where it is in this sitting

        games_raw = sitting_raw.get("games")
        if not isinstance(games_raw, list):
            raise place.error(
                _("the games of sitting %(number)d must be a list, not %(value)s.")
                % {"number": number, "value": _quoted(games_raw)},
                field=f"{field}.games",
            )
        tables: dict[str, int] = {}
        sitting_games: list[tuple[str, GameSpec]] = []
        for position, item in enumerate(games_raw, start=1):
            item_field = f"{field}.games[{position}]"
            item = place.object(
                item, SITTING_GAME_KEYS, what=_("a game of a sitting"), field=item_field
            )
            table = place.text(
                item.get("table"),
                field=f"{item_field}.table",
                limit=MAX_TABLE_LABEL,
                what=_("the table"),
            )
            if table.lower() in tables:
                raise place.error(
                    _("sitting %(number)d uses the table “%(table)s” twice.")
                    % {"number": number, "table": table},
                    field=f"{item_field}.table",
                )
            tables[table.lower()] = position
            label = item.get("game")
            game = game_by_key.get(label.strip().lower()) if isinstance(label, str) else None
            if game is None:
                raise place.error(
                    _(
                        "sitting %(number)d names the game %(label)s at %(table)s, which is not "
                        "one of the games of the file."
                    )
                    % {"number": number, "label": _quoted(label), "table": table},
                    field=f"{item_field}.game",
                )
            if game.label.lower() in sitting_of_game:
                raise place.error(
                    _(
                        "the game “%(label)s” is named twice (sittings %(first)d and %(second)d); "
                        "a game belongs to one sitting."
                    )
                    % {
                        "label": game.label,
                        "first": sitting_of_game[game.label.lower()],
                        "second": number,
                    },
                    field=f"{item_field}.game",
                )
            sitting_of_game[game.label.lower()] = number
            if len(game.teams) != game_size:
                raise place.error(
                    _(
                        "the game “%(label)s” has %(teams)d teams but sitting %(number)d plays "
                        "games of %(size)d."
                    )
                    % {
                        "label": game.label,
                        "teams": len(game.teams),
                        "number": number,
                        "size": game_size,
                    },
                    field=f"{item_field}.game",
                )
            if game.rules != rules or game.deal_limit != deal_limit:
                raise place.error(
                    _(
                        "the game “%(label)s” is not played by the tournament's house rules and "
                        "deals per game."
                    )
                    % {"label": game.label},
                    field=f"{item_field}.game",
                )
            for team in game.teams:
                registered = team_by_key.get(_key(team.name))
                if registered is None or {_key(registered.first), _key(registered.second)} != {
                    _key(team.first),
                    _key(team.second),
                }:
                    raise place.error(
                        _(
                            "%(team)s (%(first)s and %(second)s) plays in the game “%(label)s” "
                            "but is not a team of the tournament."
                        )
                        % {
                            "team": team.name,
                            "first": team.first,
                            "second": team.second,
                            "label": game.label,
                        },
                        field=f"{item_field}.game",
                    )
                _seat_once(place, seated, team.name, table, number, f"{item_field}.game")
            sitting_games.append((table, game))
        byes_raw = sitting_raw.get("byes", [])
        if not isinstance(byes_raw, list):
            raise place.error(
                _("the byes of sitting %(number)d must be a list of team names, not %(value)s.")
                % {"number": number, "value": _quoted(byes_raw)},
                field=f"{field}.byes",
            )
        byes = []
        for name in byes_raw:
            registered = team_by_key.get(_key(name)) if isinstance(name, str) else None
            if registered is None:
                raise place.error(
                    _(
                        "%(name)s has a bye in sitting %(number)d but is not a team of the "
                        "tournament."
                    )
                    % {"name": _quoted(name), "number": number},
                    field=f"{field}.byes",
                )
            _seat_once(place, seated, registered.name, _("the byes"), number, f"{field}.byes")
            byes.append(registered.name)
        sittings.append(SittingSpec(number, game_size, sitting_games, byes))
    for game in games:
        if game.label.lower() not in sitting_of_game:
            raise place.error(
                _(
                    "the game “%(label)s” is in no sitting; every game of a tournament's file "
                    "belongs to one of its sittings."
                )
                % {"label": game.label},
                field="sittings",
            )
    return sittings


def parse_tournament(raw: object, games: Sequence[GameSpec]) -> TournamentSpec:
    """Check the "tournament" object of a document whose games are already checked."""
    place = _Place(None, None, tournament="")
    raw = place.object(raw, TOURNAMENT_KEYS, what=_("the tournament"), field=None)
    name = place.text(raw.get("name"), field="name", limit=MAX_TOURNAMENT_NAME, what=_("the name"))
    place = _Place(None, None, tournament=name)
    for key in ("starts_on", "status", "teams", "sittings"):
        if key not in raw:
            raise place.error(_("the tournament needs its “%(key)s”.") % {"key": key}, field=key)
    starts_on = _parse_date(place, raw["starts_on"], "starts_on")
    ends_on = None
    if raw.get("ends_on") is not None:
        ends_on = _parse_date(place, raw["ends_on"], "ends_on")
        if ends_on < starts_on:
            raise place.error(_("the last day cannot be before the first day."), field="ends_on")
    venue = raw.get("venue", "")
    if not isinstance(venue, str) or unstorable(venue) or len(venue.strip()) > MAX_VENUE:
        raise place.error(
            _("the venue must be text of at most %(limit)d characters, not %(value)s.")
            % {"limit": MAX_VENUE, "value": _quoted(venue)},
            field="venue",
        )
    status = raw["status"]
    if status not in Tournament.Status.values:
        raise place.error(
            _("%(value)s is not a status: choose draft, running or finished.")
            % {"value": _quoted(status)},
            field="status",
        )
    final = _parse_flag(place, raw, "final", False)
    if "provisional" in raw and _parse_flag(place, raw, "provisional", True) == final:
        raise place.error(
            _("results are provisional exactly when they are not final."), field="provisional"
        )
    if final and status != Tournament.Status.FINISHED:
        raise place.error(_("only a finished tournament can have final results."), field="final")
    rules = _parse_rules(place, raw)
    deal_limit = raw.get("deals_per_game")
    if deal_limit is not None:
        deal_limit = place.whole(
            deal_limit,
            field="deals_per_game",
            low=1,
            high=core.MAX_DEAL_LIMIT,
            what=_("deals per game"),
        )
    scheme = _parse_scheme(place, raw)
    require_confirmation = _parse_flag(place, raw, "require_confirmation", False)
    teams = _parse_tournament_teams(place, raw)
    sittings = _parse_sittings(place, raw, teams, games, rules, deal_limit)
    if status == Tournament.Status.DRAFT and sittings:
        raise place.error(_("a tournament still in draft has played no sitting."), field="status")
    if status == Tournament.Status.FINISHED:
        for game in games:
            if not game.finished:
                raise place.error(
                    _("the tournament is finished but the game “%(label)s” is still being played.")
                    % {"label": game.label},
                    field="status",
                )
    standings = raw.get("standings")
    if standings is not None and not isinstance(standings, list):
        raise place.error(
            _("the standings must be a list of rows, not %(value)s.")
            % {"value": _quoted(standings)},
            field="standings",
        )
    return TournamentSpec(
        name=name,
        starts_on=starts_on,
        ends_on=ends_on,
        venue=venue.strip(),
        status=status,
        final=final,
        rules=rules,
        deal_limit=deal_limit,
        points_scheme=scheme,
        require_confirmation=require_confirmation,
        teams=teams,
        sittings=sittings,
        standings=standings,
    )


def _check_standings(place: _Place, given: list, expected: list[dict]) -> None:
    if len(given) != len(expected):
        raise place.error(
            _(
                "the file has %(given)d rows of standings but the tournament has %(expected)d "
                "teams; the file has been changed or is damaged."
            )
            % {"given": len(given), "expected": len(expected)},
            field="standings",
        )
    for row, (row_given, row_expected) in enumerate(zip(given, expected, strict=True), start=1):
        field = f"standings[{row}]"
        row_given = place.object(
            row_given, STANDING_KEYS, what=_("a row of standings"), field=field
        )
        for key in STANDING_KEYS:
            if key not in row_given or not _agrees(row_given[key], row_expected[key]):
                raise place.error(
                    _(
                        "the file says %(given)s but the games, settled by the rules, give "
                        "%(expected)s; the file has been changed or is damaged."
                    )
                    % {
                        "given": _quoted(row_given.get(key)),
                        "expected": _quoted(row_expected[key]),
                    },
                    field=f"{field}.{key}",
                )


def _write_tournament(spec: TournamentSpec, user=None) -> Tournament:
    """Store a checked tournament: its row, teams, sittings, games, byes, then standings."""
    place = _Place(None, None, tournament=spec.name)
    try:
        tournament = tournament_services.create_tournament(
            name=spec.name,
            starts_on=spec.starts_on,
            ends_on=spec.ends_on,
            venue=spec.venue,
            rules=spec.rules,
            deal_limit=spec.deal_limit,
            points_scheme=spec.points_scheme,
            require_confirmation=spec.require_confirmation,
            user=user,
        )
        entries = {
            _key(team.name): tournament_services.register_team(
                tournament=tournament,
                first=team.first,
                second=team.second,
                name=team.name,
                user=user,
            )
            for team in spec.teams
        }
    except tournament_services.TournamentError as error:
        raise place.error(_decap(error.message), field=error.field) from error
    for sitting_spec in spec.sittings:
        tables = [
            (
                table,
                _write_game(game_spec, user, require_confirmation=spec.require_confirmation),
                [entries[_key(team.name)] for team in game_spec.teams],
            )
            for table, game_spec in sitting_spec.games
        ]
        tournament_services.import_sitting(
            tournament=tournament,
            number=sitting_spec.number,
            game_size=sitting_spec.game_size,
            tables=tables,
            byes=[entries[_key(name)] for name in sitting_spec.byes],
        )
    tournament = tournament_services.finish_import(
        tournament=tournament, status=spec.status, final=spec.final
    )
    if spec.standings is not None:
        _check_standings(place, spec.standings, _standing_rows(tournament))
    return tournament
