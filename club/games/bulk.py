"""Write whole games at once: the rows the deal services would write, deal by deal.

A game whose deals are already settled by the rules core (an imported file,
checked by :mod:`club.archive`; a generated club, :mod:`club.ops.synthetic`)
need not go through :func:`club.games.services.record_deal` once a deal, at
about nineteen queries each. :func:`write_games` writes the same rows with
``bulk_create`` and ``bulk_update`` for the games and their teams and as plain rows,
many to an ``INSERT``, for the deals (:func:`_insert`): a handful of statements for
many games:

- per deal, the :class:`~club.games.models.Round` (dealer, declarer, bid, trump,
  doubling, declaring team, made, ``recorded_by``), its piles, one ledger entry
  per team of the game (change and tables after) and the ``recorded``
  :class:`~club.games.models.Change` with the deal described as
  :func:`~club.games.services.describe` describes it (``made_by`` the user);
- when the organiser called time after the last deal
  (:func:`~club.games.services.end_game`), the ``ended`` change and
  ``ended_early`` on the game;
- per game, what :func:`~club.games.services.replay.apply_outcome` sets after its
  last deal (status, deals played, next dealer, finished time, winner) and per
  team its tables, place and the deal it went out in;
- per club, its memberships of everyone seated at its games (club.games.people).

Games already saved (the importer starts each one with
:func:`~club.games.services.create_game`) are updated; games not saved yet
(the generator's) are created with their teams. :func:`write_games` sends no
``game_changed``. :func:`write_game` writes one game and then announces it once
through the services' own :func:`~club.games.services.recording.changed`, so that
tournament standings, leaderboard figures and ratings follow it exactly as they
follow per-deal recording (write and announce one game at a time, in order:
ratings are rated forward in the order games finish). The generator announces
nothing and rebuilds those in bulk at the end.

The module imports only the models, the rules core and the deal services
(never the importer or the generator), so both can import it without a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models.expressions import DatabaseDefault
from django.utils import timezone

from club.clubs import known
from club.games import services
from club.games.models import Change, Game, GameTeam, LedgerEntry, Pile, Round
from club.games.people import join
from club.games.signals import games_written
from club.scoring import rules as core
from club.scoring.rules import Deal

BATCH = 2000

# What record_deal and end_game save on the game and its teams.
GAME_FIELDS = services.GAME_OUTCOME_FIELDS
TEAM_FIELDS = services.TEAM_OUTCOME_FIELDS


@dataclass
class PlayedGame:
    """A game with its deals settled, to be written.

    ``seating`` is the game's teams in position order (their players and team
    loaded). ``state`` is the state after the last settlement. ``ended_early``:
    the organiser called time after the last deal. ``finished_at``: when the
    game finished, if it did; None stamps the time of writing, as the services
    stamp the deal that ends it.
    """

    game: Game
    seating: services.Seating
    settlements: Sequence[core.Settlement]
    state: core.GameState
    ended_early: bool = False
    finished_at: datetime | None = None


def entry_of(settlement: core.Settlement) -> Deal:
    """The deal as a scorer would have entered it, in seats, as the services receive it."""
    if settlement.thani:
        return Deal(points={}, thani=settlement.declarer, made=settlement.made)
    if settlement.all_pass:
        return Deal(points=dict(settlement.points), doubling=str(settlement.doubling))
    return Deal(
        points=dict(settlement.points),
        declarer=settlement.declarer,
        bid=settlement.bid,
        trump=str(settlement.trump),
        doubling=str(settlement.doubling),
    )


def _settle_result(played: PlayedGame, now: datetime) -> GameTeam | None:
    """Set the game's and its teams' fields as the services leave them; returns the winner."""
    game, seating = played.game, played.seating
    if played.ended_early:
        game.ended_early = True
    was_finished = game.is_finished
    services.apply_outcome(game, seating, played.state)
    if game.is_finished and not was_finished:
        game.finished_at = played.finished_at or now
    services.set_replayed_teams(seating, played.settlements)
    game.updated_at = now
    return game.winner


def write_games(
    played_games: Sequence[PlayedGame], *, user=None, deals: bool = True, copy: bool = False
) -> None:
    """Write the deals of these games and everything the services derive from them.

    ``user`` is who recorded them (``Round.recorded_by``, ``Change.made_by``),
    when signed in. Sends no signal (see :func:`write_game`, :func:`announce`).
    ``deals=False`` writes the games and their teams as the deals leave them, but not
    the deals' own rows (rounds, piles, ledger, history): what a rehearsal that is undone
    needs (an import's preview, club.archive.publish), at a fraction of the time.
    ``copy``: on PostgreSQL, new games, their teams and the deals' rows go in by ``COPY``
    (:func:`can_copy`); elsewhere it changes nothing.
    """
    if not played_games:
        return
    by = user if user is not None and user.is_authenticated else None
    now = timezone.now()
    winners = [_settle_result(played, now) for played in played_games]
    copying = copy and can_copy()

    new = [played for played in played_games if played.game.pk is None]
    if new:
        # A game row comes before its teams, so the winner is set once they exist.
        for played in new:
            played.game.winner = None
        if copying:
            _number_new_games(new)
        else:
            Game.objects.bulk_create([played.game for played in new], batch_size=BATCH)
        for played in new:
            for team in played.seating.teams:
                team.game = played.game  # now with its pk
        if not copying:
            GameTeam.objects.bulk_create(
                [team for played in new for team in played.seating.teams], batch_size=BATCH
            )
    for played, winner in zip(played_games, winners, strict=True):
        played.game.winner = winner
    if new and copying:
        copy_objects(Game, [played.game for played in new])
        copy_objects(GameTeam, [team for played in new for team in played.seating.teams])
    created = {id(played) for played in new}
    saved = [played for played in played_games if id(played) not in created]
    if saved:
        GameTeam.objects.bulk_update(
            [team for played in saved for team in played.seating.teams],
            TEAM_FIELDS,
            batch_size=500,
        )
        Game.objects.bulk_update([played.game for played in saved], GAME_FIELDS, batch_size=500)
    won = [played.game for played in new if played.game.winner is not None]
    if won and not copying:
        Game.objects.bulk_update(won, ["winner"], batch_size=500)
    _join_clubs(played_games)
    if deals:
        _write_deals(played_games, user, by, copying)


def _number_new_games(new: Sequence[PlayedGame]) -> None:
    """Keys for new games and their teams from the tables' sequences, before any row is
    written: a game's winner is one of its teams, and its deals name both."""
    for played, pk in zip(new, next_keys(Game, len(new)), strict=True):
        played.game.pk = pk
    teams = [team for played in new for team in played.seating.teams]
    for team, pk in zip(teams, next_keys(GameTeam, len(teams)), strict=True):
        team.pk = pk


def _join_clubs(played_games: Sequence[PlayedGame]) -> None:
    """Everyone seated becomes a member of the club that plays the game, as a game started
    by hand makes them (club.games.starting.create_game): a query a club."""
    seated: dict[int, set[int]] = {}
    for played in played_games:
        seated.setdefault(played.game.club_id or known.home_id(), set()).update(
            player.pk for player in played.seating.players
        )
    for club_id, players in sorted(seated.items()):
        join(club_id, players)


# A "recorded" or "ended" change as a plain row: game id, deal number, action, before,
# after (the deal described, a JSON value), who made it.
_ChangeRow = tuple[int, int, str, None, dict | None, int | None]


def _write_deals(played_games: Sequence[PlayedGame], user, by, copying: bool = False) -> None:
    """The deals' own rows, as plain rows: a round, its piles, a ledger row for each team
    and the "recorded" change per deal, and the "ended" change of a game time was
    called on. None of these games has a deal stored yet. ``copying``: by ``COPY``, the
    rounds' keys drawn first instead of read back."""
    now = timezone.now()
    recorder = user.pk if user is not None and user.is_authenticated else None
    maker = by.pk if by is not None else None
    after = Change._meta.get_field("after")
    rounds, changes = _round_and_change_rows(played_games, now, recorder, maker)
    stored: dict[tuple[int, int], int] | None = None
    if copying:
        keys = next_keys(Round, len(rounds))
        stored = {(row[0], row[1]): pk for row, pk in zip(rounds, keys, strict=True)}
        copy_rows(
            Round,
            ("id", *ROUND_COLUMNS),
            ((pk, *row) for row, pk in zip(rounds, keys, strict=True)),
        )
    else:
        _insert(Round, ROUND_COLUMNS, rounds)
    (copy_rows if copying else _insert)(
        Change,
        CHANGE_COLUMNS,
        [
            (*row[:4], after.get_db_prep_save(row[4], connection), row[5], None, "", now)
            for row in changes
        ],
    )
    piles, ledger = _pile_and_ledger_rows(played_games, stored)
    (copy_rows if copying else _insert)(Pile, ("round_id", "game_team_id", "points"), piles)
    (copy_rows if copying else _insert)(
        LedgerEntry, ("round_id", "game_team_id", "change", "balance"), ledger
    )


def _round_and_change_rows(
    played_games: Sequence[PlayedGame], now: datetime, recorder: int | None, maker: int | None
) -> tuple[list[tuple], list[_ChangeRow]]:
    """Per deal its round (ROUND_COLUMNS) and its "recorded" change; per game whose time was
    called, the "ended" change."""
    rounds: list[tuple] = []
    changes: list[_ChangeRow] = []
    for played in played_games:
        game, seating = played.game, played.seating
        # Each seat's player and each team by id, read once a game (two million deals).
        players = [player.pk for player in seating.players]
        teams = [team.pk for team in seating.teams]
        for settlement in played.settlements:
            rounds.append(
                (
                    game.pk,
                    settlement.number,
                    settlement.all_pass,
                    # All passed: no declarer.
                    None if settlement.declarer is None else players[settlement.declarer],
                    settlement.bid,
                    settlement.trump or "",
                    settlement.doubling,
                    players[settlement.dealer],
                    teams[settlement.declaring_team],
                    settlement.made,
                    now,
                    settlement.thani,
                    recorder,
                )
            )
            described = services.describe(entry_of(settlement), seating)
            changes.append(
                (game.pk, settlement.number, Change.Action.RECORDED, None, described, maker)
            )
        if played.ended_early:
            changes.append(
                (game.pk, played.state.deals_played, Change.Action.ENDED, None, None, maker)
            )
    return rounds, changes


def _pile_and_ledger_rows(
    played_games: Sequence[PlayedGame], stored: dict[tuple[int, int], int] | None = None
) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int, int]]]:
    """Per deal its piles and a ledger row for each team of the game, against the round
    ids just stored: ``stored`` ({(game, number): round id}), else read back 500 games at
    a time."""
    if stored is not None:
        return _piles_and_ledger_of(played_games, stored)
    games = [played.game.pk for played in played_games if played.settlements]
    stored = {}
    for start in range(0, len(games), 500):
        stored.update(
            ((game, number), pk)
            for pk, game, number in Round.objects.filter(game_id__in=games[start : start + 500])
            .order_by()
            .values_list("pk", "game_id", "number")
        )
    return _piles_and_ledger_of(played_games, stored)


def _piles_and_ledger_of(
    played_games: Sequence[PlayedGame], stored: dict[tuple[int, int], int]
) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int, int]]]:
    """The piles and ledger rows of these games' deals, whose rounds have the ids
    ``stored`` ({(game, number): round id})."""
    piles: list[tuple[int, int, int]] = []
    ledger: list[tuple[int, int, int, int]] = []
    for played in played_games:
        game_id = played.game.pk
        teams = [(team.pk, team.position) for team in played.seating.teams]
        team_ids = [pk for pk, _position in teams]
        for settlement in played.settlements:
            round_ = stored[(game_id, settlement.number)]
            piles.extend(
                (round_, team_ids[team], points) for team, points in settlement.points.items()
            )
            moved: Mapping[int, int] | Sequence[int]
            held: Sequence[int]
            if settlement.score_after:
                moved, held = settlement.scored, settlement.score_after
            else:
                moved, held = settlement.transfers, settlement.tables_after
            ledger.extend(
                (round_, team, moved[position], held[position]) for team, position in teams
            )
    return piles, ledger


ROUND_COLUMNS = (
    "game_id",
    "number",
    "all_pass",
    "declarer_id",
    "bid",
    "trump",
    "doubling",
    "dealer_id",
    "declaring_team_id",
    "made",
    "recorded_at",
    "thani",
    "recorded_by_id",
)
CHANGE_COLUMNS = (
    "game_id",
    "number",
    "action",
    "before",
    "after",
    "made_by_id",
    "scorer_link_id",
    "note",
    "made_at",
)


def _insert(model, columns: Sequence[str], rows: Sequence[tuple]) -> None:
    """Insert plain rows, many to a statement: a hundred thousand deals' rows in seconds,
    where building a model object for each row took most of an import's time. The
    values are the columns' own (ids, numbers, text); a time is adapted here, as the
    ORM adapts it; a JSON value is adapted by the caller."""
    if not rows:
        return
    fields = [model._meta.get_field(column.removesuffix("_id")) for column in columns]
    times = [
        index for index, field in enumerate(fields) if field.get_internal_type() == "DateTimeField"
    ]
    if times:
        rows = [
            tuple(
                connection.ops.adapt_datetimefield_value(value) if index in times else value
                for index, value in enumerate(row)
            )
            for row in rows
        ]
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    one = "(" + ", ".join(["%s"] * len(columns)) + ")"
    most = max(1, min(500, (connection.features.max_query_params or 999) // len(columns)))
    # Statements of a few lengths only: a driver keeps the statements it prepared (SQLite's
    # a hundred of them), and one of every length of a batch's last rows held ever more.
    sizes = [most, *(size for size in (100, 10, 1) if size < most)]
    with connection.cursor() as cursor:
        start = 0
        while start < len(rows):
            size = next(size for size in sizes if size <= len(rows) - start)
            chunk = rows[start : start + size]
            start += size
            cursor.execute(
                f"INSERT INTO {table} ({names}) VALUES {', '.join([one] * len(chunk))}",
                [value for row in chunk for value in row],
            )


def can_copy() -> bool:
    """Whether rows can go in by ``COPY``: on PostgreSQL (psycopg's ``cursor.copy``)."""
    return connection.vendor == "postgresql"


def next_keys(model, count: int) -> list[int]:
    """``count`` new keys of ``model``'s table, taken from its sequence (PostgreSQL): rows
    written with them by ``COPY`` can be named by other rows before they are written."""
    if count == 0:
        return []
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [connection.ops.quote_name(table), count],
        )
        return sorted(pk for (pk,) in cursor.fetchall())


def copy_rows(model, columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Write plain rows into ``model``'s table with ``COPY`` (PostgreSQL): values as the
    columns' own, a time aware, a JSON value adapted (``Field.get_db_prep_save``)."""
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


def copy_objects(model, objects: Sequence) -> None:
    """Write new model instances with ``COPY``, every column as ``bulk_create`` would
    (each field's ``pre_save``: a time set on adding is set here), keys taken from the
    table's sequence for those without one."""
    if not objects:
        return
    keyless = [obj for obj in objects if obj.pk is None]
    for obj, pk in zip(keyless, next_keys(model, len(keyless)), strict=True):
        obj.pk = pk
    fields = model._meta.concrete_fields
    copy_rows(
        model,
        [field.column for field in fields],
        (
            [field.get_db_prep_save(_value(field, obj), connection) for field in fields]
            for obj in objects
        ),
    )
    for obj in objects:
        obj._state.adding = False
        obj._state.db = connection.alias


def _value(field, obj):
    """The value ``bulk_create`` would write for ``field`` of ``obj``: its ``pre_save``,
    or the database's own default where the field leaves it to the database."""
    value = field.pre_save(obj, True)
    if isinstance(value, DatabaseDefault):
        return field.db_default.value
    return value


def write_game(played: PlayedGame, *, user=None) -> None:
    """Write one saved game's deals, then announce the change once, as the services do.

    Recording each deal announces it (:func:`club.games.services.recording.changed`:
    ``game_changed`` with ``was_finished=False``, the game was playing before
    it), and so does calling time; what follows a change acts on the game as it
    stands, so one announcement after the last deal leaves what the last of
    those left. A game with no deal and no time called is
    left as :func:`~club.games.services.create_game` made it, as recording
    nothing would.
    """
    if not played.settlements and not played.ended_early:
        return
    write_games([played], user=user)
    services.changed(played.game, was_finished=False)


def announce(games: Sequence[Game]) -> None:
    """Tell what follows games (the boards' figures, ratings) of games written together by
    :func:`write_games`, none of them finished before: once for all of them
    (``games_written``), where :func:`write_game` tells each game's change on its own."""
    if games:
        games_written.send(sender=Game, games=list(games))
