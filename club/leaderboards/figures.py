"""The leaderboard figures, kept up to date instead of counted per request.

Every finished game has one :class:`PlayerGameFigures` row per player and one
:class:`TeamGameFigures` row per team, computed from its stored deals, ledger
and places; every side that played has a row of totals over all its games.
:func:`refresh_game` rewrites a game's rows and its sides' totals; the scoring
services call it (through ``game_changed``) in the transaction of any change to
a game, so a board never shows a result without its figures. The cost is one
game's deals and the totals of its sides' own games, whatever the size of the
club's history.

:func:`rebuild_all` recomputes everything from the deals (``manage.py
rebuild_leaderboards``), and :func:`drift` compares what is stored with a
recomputation, for the command's check and for the tests.

The figures are defined in :mod:`club.leaderboards.selectors`. A game is won by
the team it names its winner (``Game.winner``: the team placed first alone, as the
game's services decide); a level game, its first place shared, is played and won by
none. The three ways of counting here (a game at a time, the set-wise rebuild, and the
count from the deals the tests and the drift check hold them to) all read that winner.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db import connection
from django.db.models import F, Max, Q, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from club.games.models import (
    Doubling,
    Game,
    GameTeam,
    LedgerEntry,
    Round,
    in_a_seat,
)
from club.games.words import KODI, POINTS, TABLES, form_named
from club.leaderboards import team_ratings
from club.leaderboards.models import (
    PlayerGameFigures,
    PlayerTotals,
    TeamGameFigures,
    TeamTotals,
)
from club.tournaments.models import Sitting, SittingGame

COUNTS = (
    "played",
    "won",
    "declared",
    "made",
    "doubles_won",
    "doubles_lost",
    "redoubles_won",
    "redoubles_lost",
    "tables_net",
    "points_for",
    "points_against",
    "sessions_won",
    "kodis_taken",
    "kodis_given",
)
FIELDS = (*COUNTS, "biggest_bid")
GAME_FIELDS = (*FIELDS, "form")  # a game's row also says its form of play (words.form_named)


# A seat (a GameTeam row) that won its game: the one its game names the winner.
WON = Q(game__winner=F("pk"))


def _blank() -> dict:
    return {**dict.fromkeys(COUNTS, 0), "biggest_bid": None}


def _bigger(current: int | None, bid: int | None) -> int | None:
    """The bigger bid made; a thani has none."""
    if bid is None:
        return current
    return bid if current is None or bid > current else current


def _finished_seats(game_ids: list[int]) -> list:
    """Every seat (a GameTeam row) of the finished games among ``game_ids``, with its game's
    details."""
    return list(
        GameTeam.objects.filter(game_id__in=game_ids, game__status=Game.Status.FINISHED).values(
            "id",
            "game_id",
            "team_id",
            "first_player_id",
            "second_player_id",
            "third_player_id",
            "fourth_player_id",
            "place",
            "tables",
            "score",
            "kodis",
            "game__winner_id",
            "game__created_at",
            "game__scoring",
            "game__kodi",
            "game__tables_per_team",
            "game__sitting_entry__sitting__tournament_id",
        )
    )


def _seat_figures(seats: list[dict]) -> tuple[dict[int, dict], dict[int, str], set[int]]:
    """Each seat's figures its seat alone gives, by seat id; each game's form of play; the
    kodi games (whose tables net their ledger gives)."""
    side: dict[int, dict] = {}  # seat id -> the team's figures at that game
    kodi_games: set[int] = set()
    # The points and kodis of every team at each game: a side's "against" and "given"
    # are the other teams'.
    scores: dict[int, int] = defaultdict(int)
    kodis: dict[int, int] = defaultdict(int)
    for seat in seats:
        scores[seat["game_id"]] += seat["score"]
        kodis[seat["game_id"]] += seat["kodis"]
    form: dict[int, str] = {}  # game id -> its form of play
    for seat in seats:
        figures = _blank()
        figures["played"] = 1
        figures["won"] = int(seat["id"] == seat["game__winner_id"])  # level: none won
        game = seat["game_id"]
        form[game] = form_named(seat["game__scoring"], seat["game__kodi"])
        # Tables net counts tables: on a points sheet every team holds its start.
        if form[game] == POINTS:
            figures["points_for"] = seat["score"]
            figures["points_against"] = scores[game] - seat["score"]
            figures["sessions_won"] = figures["won"]
        elif form[game] == KODI:
            figures["kodis_taken"] = seat["kodis"]
            figures["kodis_given"] = kodis[game] - seat["kodis"]
            kodi_games.add(game)  # its tables net from the ledger, below
        else:
            figures["tables_net"] = seat["tables"] - seat["game__tables_per_team"]
        side[seat["id"]] = figures
    return side, form, kodi_games


def _kodi_tables_net(side: dict[int, dict], kodi_games: set[int]) -> None:
    """The tables net of each seat of these kodi games, from its ledger's changes."""
    for seat_id, net in (
        LedgerEntry.objects.filter(game_team__game_id__in=kodi_games)
        .values("game_team_id")
        .annotate(net=Sum("change"))
        .values_list("game_team_id", "net")
    ):
        side[seat_id]["tables_net"] = net or 0


def _count_deals(seats: list[dict], side: dict[int, dict]) -> dict[tuple[int, int], dict]:
    """Count the games' deals into each seat's figures; returns each declarer's own count,
    by (game, player): declared, made, the biggest bid made."""
    ids = sorted({seat["game_id"] for seat in seats})
    declarer: dict[tuple[int, int], dict] = {}  # (game, player) -> declared, made, biggest
    seats_of_game: dict[int, list[int]] = defaultdict(list)
    for seat in seats:
        seats_of_game[seat["game_id"]].append(seat["id"])

    deals = Round.objects.filter(game_id__in=ids).values_list(
        "game_id", "declaring_team_id", "declarer_id", "made", "bid", "doubling", "all_pass"
    )
    for game_id, declaring, player, made, bid, doubling, all_pass in deals.iterator(
        chunk_size=5000
    ):
        if declaring is not None:
            team = side[declaring]
            team["declared"] += 1
            if made:
                team["made"] += 1
                if not all_pass:
                    team["biggest_bid"] = _bigger(team["biggest_bid"], bid)
        if player is not None:
            mine = declarer.setdefault((game_id, player), {"declared": 0, "made": 0, "big": None})
            mine["declared"] += 1
            if made:
                mine["made"] += 1
                mine["big"] = _bigger(mine["big"], bid)
        if doubling != Doubling.NONE and declaring is not None:
            name = "doubles" if doubling == Doubling.DOUBLE else "redoubles"
            for seat_id in seats_of_game[game_id]:
                # Declaring and made, or defending and the declarer failed, is a win.
                won = made if seat_id == declaring else not made
                side[seat_id][f"{name}_{'won' if won else 'lost'}"] += 1
    return declarer


def _rows(
    seats: list[dict],
    side: dict[int, dict],
    form: dict[int, str],
    declarer: dict[tuple[int, int], dict],
) -> tuple[list[PlayerGameFigures], list[TeamGameFigures]]:
    """The game rows: a team's are its seat's figures; a player's, their team's with their
    own declarations."""
    players, teams = [], []
    for seat in seats:
        game_id = seat["game_id"]
        where = {
            "game_id": game_id,
            "tournament_id": seat["game__sitting_entry__sitting__tournament_id"],
            "played_on": timezone.localdate(seat["game__created_at"]),
            "form": form[game_id],
        }
        figures = side[seat["id"]]
        teams.append(TeamGameFigures(team_id=seat["team_id"], **where, **figures))
        for key in ("first_player_id", "second_player_id", "third_player_id", "fourth_player_id"):
            player = seat[key]
            if player is None:
                continue
            mine = declarer.get((game_id, player), {"declared": 0, "made": 0, "big": None})
            players.append(
                PlayerGameFigures(
                    player_id=player,
                    **where,
                    **{
                        **figures,
                        "declared": mine["declared"],
                        "made": mine["made"],
                        "biggest_bid": mine["big"],
                    },
                )
            )
    return players, teams


def _games_figures(game_ids: list[int]) -> tuple[list[PlayerGameFigures], list[TeamGameFigures]]:
    """The rows of the finished games among ``game_ids``, from their stored deals: two queries.

    A team's tables net is the tables it ended with less those it started with
    (its ledger's changes add up to that, the ledger being a replay's); a kodi
    game starts every team again at each kodi, so its net is read from its
    ledger (a third query, for those games only).
    """
    seats = _finished_seats(game_ids)
    if not seats:
        return [], []
    side, form, kodi_games = _seat_figures(seats)
    if kodi_games:
        _kodi_tables_net(side, kodi_games)
    declarer = _count_deals(seats, side)
    return _rows(seats, side, form, declarer)


SUMS = {name: Sum(name) for name in COUNTS} | {"biggest_bid": Max("biggest_bid")}


def _refresh_totals(players: Iterable[int], teams: Iterable[int]) -> None:
    """Sum the totals of these sides again from their own game rows.

    Written in place (an upsert), so a team's rating, kept with its totals,
    stays until the ratings move it.
    """
    _resum(PlayerGameFigures, PlayerTotals, "player_id", set(players))
    _resum(TeamGameFigures, TeamTotals, "team_id", set(teams))


def _resum[T: (PlayerTotals, TeamTotals)](
    model: type[PlayerGameFigures] | type[TeamGameFigures],
    totals: type[T],
    key: str,
    ids: set[int],
) -> None:
    """One kind of side's totals (``totals``, keyed by ``key``) summed again from its game
    rows (``model``): the sides of ``ids`` left with no finished game lose theirs."""
    if not ids:
        return
    summed = {
        row[key]: row
        for row in model.objects.filter(**{f"{key}__in": ids})
        .values(key)
        .annotate(**SUMS)
        .order_by()
    }
    if ids - set(summed):  # sides left with no finished game
        totals.objects.filter(**{f"{key}__in": ids - set(summed)}).delete()
    totals.objects.bulk_create(
        [
            totals(**{key: side, **{name: row[name] for name in FIELDS}})
            for side, row in summed.items()
        ],
        update_conflicts=True,
        unique_fields=[key.removesuffix("_id")],
        update_fields=list(FIELDS),
    )


def _add_to_totals(players: list[PlayerGameFigures], teams: list[TeamGameFigures]) -> None:
    """Add these games' rows to their sides' totals: one upsert a table.

    For games that had no rows before (finishing now): a side's totals are the
    sum of its game rows, so adding the new rows keeps them so, without summing
    the side's whole history again. Each row is moved in place by the database
    (``played = played + 1``), so two games finishing at once both count.
    """
    for totals, key, rows in (
        (PlayerTotals, "player_id", players),
        (TeamTotals, "team_id", teams),
    ):
        if not rows:
            continue
        # A side once a statement (a database may move a row once in one): its games' rows
        # summed first, as the totals sum them.
        sides: dict[int, list] = {}
        for row in rows:
            figures = [getattr(row, name) for name in FIELDS]
            found = sides.get(getattr(row, key))
            if found is None:
                sides[getattr(row, key)] = figures
                continue
            for at in range(len(COUNTS)):
                found[at] += figures[at]
            bids = [bid for bid in (found[-1], figures[-1]) if bid is not None]
            found[-1] = max(bids) if bids else None
        table = _table(totals)
        extra = ", rating" if totals is TeamTotals else ""
        values = ", ".join(
            "(" + ", ".join(["%s"] * (len(FIELDS) + 1 + bool(extra))) + ")" for _ in sides
        )
        params = [
            value
            for side, figures in sides.items()
            for value in (*figures, side, *((0.0,) if extra else ()))
        ]
        added = ", ".join(f"{name} = {table}.{name} + excluded.{name}" for name in COUNTS)
        # The bigger bid of the two; a side's first bid made when it had none.
        bigger = (
            f"biggest_bid = CASE WHEN excluded.biggest_bid IS NULL THEN {table}.biggest_bid "
            f"WHEN {table}.biggest_bid IS NULL OR excluded.biggest_bid > {table}.biggest_bid "
            f"THEN excluded.biggest_bid ELSE {table}.biggest_bid END"
        )
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} ({', '.join(FIELDS)}, {key}{extra}) VALUES {values} "
                f"ON CONFLICT ({key}) DO UPDATE SET {added}, {bigger}",
                params,
            )


REFRESH_AT_ONCE = 25  # games whose rows one pass reads and writes: its memory, its statement


def refresh_games(game_ids: list[int], *, had_rows: bool = True) -> None:
    """Rewrite the rows of these games (none for a game not finished) and their sides' totals.

    ``had_rows=False`` says none of the games was finished before this change
    (a game finishing now), so there are no old rows to look for.
    """
    if len(game_ids) > REFRESH_AT_ONCE:  # an import's thousands: a statement's worth at a time
        for start in range(0, len(game_ids), REFRESH_AT_ONCE):
            refresh_games(game_ids[start : start + REFRESH_AT_ONCE], had_rows=had_rows)
        return
    before_players: set[int] = set()
    before_teams: set[int] = set()
    if had_rows:
        before_players = set(
            PlayerGameFigures.objects.filter(game_id__in=game_ids).values_list(
                "player_id", flat=True
            )
        )
        before_teams = set(
            TeamGameFigures.objects.filter(game_id__in=game_ids).values_list("team_id", flat=True)
        )
        PlayerGameFigures.objects.filter(game_id__in=game_ids).delete()
        TeamGameFigures.objects.filter(game_id__in=game_ids).delete()
    players, teams = _games_figures(game_ids)
    PlayerGameFigures.objects.bulk_create(players)
    TeamGameFigures.objects.bulk_create(teams)
    if not had_rows:
        _add_to_totals(players, teams)
        return
    _refresh_totals(
        before_players | {row.player_id for row in players},
        before_teams | {row.team_id for row in teams},
    )


def file_under_tournament(game_id: int, tournament_id: int | None) -> None:
    """The game's rows count for this tournament's boards (None: for no tournament)."""
    for model in (PlayerGameFigures, TeamGameFigures):
        model.objects.filter(game_id=game_id).update(tournament_id=tournament_id)


def refresh_game(game: Game, *, was_finished: bool = True) -> None:
    refresh_games([game.pk], had_rows=was_finished)


def refresh_sides(players: Iterable[int]) -> None:
    """After seats move between players (a merge): rewrite the games of these players.

    Their totals are summed again with the games' other sides.
    """
    players = set(players)
    games = set(
        GameTeam.objects.filter(in_a_seat(players, lookup="__in")).values_list("game_id", flat=True)
    )
    refresh_games(sorted(games))


def forget_sides(players: Iterable[int], teams: Iterable[int]) -> None:
    """After games were deleted (their rows went with them): sum these sides again."""
    _refresh_totals(players, teams)


BATCH = 2000


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _doubled_sql() -> list[str]:
    """The columns of a seat's doubles and redoubles won and lost, summed over its game's
    deals: declaring and made, or defending and the declarer failed, is a win."""
    doubled = []
    for doubling, name in ((Doubling.DOUBLE, "doubles"), (Doubling.REDOUBLE, "redoubles")):
        for outcome, test in (("won", "="), ("lost", "<>")):
            doubled.append(
                f"SUM(CASE WHEN r.doubling = '{doubling.value}' "
                f"AND (r.declaring_team_id = s.id) {test} r.made THEN 1 ELSE 0 END) "
                f"AS {name}_{outcome}"
            )
    return doubled


def _team_figures_sql() -> str:
    """What each column of a team's game row is, in the order of ``FIELDS`` and then the
    game, tournament, day, form and team: the SELECT list over the sources below."""
    points = "g.scoring = 'points'"
    kodi = "(g.scoring = 'tables' AND g.kodi)"
    return (
        "SELECT 1, CASE WHEN g.winner_id = s.id THEN 1 ELSE 0 END, "
        "COALESCE(d.declared, 0), COALESCE(d.made, 0), "
        "COALESCE(x.doubles_won, 0), COALESCE(x.doubles_lost, 0), "
        "COALESCE(x.redoubles_won, 0), COALESCE(x.redoubles_lost, 0), "
        # tables net counts tables: a points sheet's ledger holds points
        "CASE WHEN g.scoring = 'tables' THEN COALESCE(l.net, 0) ELSE 0 END, "
        # a points sheet's totals, and a kodi night's kodis, the side's and the others'
        f"CASE WHEN {points} THEN s.score ELSE 0 END, "
        f"CASE WHEN {points} THEN t.score - s.score ELSE 0 END, "
        f"CASE WHEN {points} AND g.winner_id = s.id THEN 1 ELSE 0 END, "
        f"CASE WHEN {kodi} THEN s.kodis ELSE 0 END, "
        f"CASE WHEN {kodi} THEN t.kodis - s.kodis ELSE 0 END, "
        "d.biggest, s.game_id, st.tournament_id, g.day, "
        f"CASE WHEN {points} THEN '{POINTS}' WHEN {kodi} THEN '{KODI}' ELSE '{TABLES}' END, "
        "s.team_id "
    )


def _team_sources_sql(games_sql: str) -> str:
    """Where a team's game row is read from: each seat ``s`` of a game ``g`` counted, the
    game's totals ``t``, the seat's declarations ``d``, ledger ``l`` and doubles ``x``, and
    its sitting's tournament ``st``."""
    seat, deal, ledger = _table(GameTeam), _table(Round), _table(LedgerEntry)
    return (
        f"FROM {seat} s JOIN ({games_sql}) g ON g.id = s.game_id "
        f"JOIN (SELECT game_id, SUM(score) AS score, SUM(kodis) AS kodis FROM {seat} "
        "GROUP BY game_id) t ON t.game_id = s.game_id "
        "LEFT JOIN (SELECT declaring_team_id AS seat_id, COUNT(*) AS declared, "
        "SUM(CASE WHEN made THEN 1 ELSE 0 END) AS made, "
        "MAX(CASE WHEN made AND NOT all_pass THEN bid END) AS biggest "
        f"FROM {deal} WHERE declaring_team_id IS NOT NULL GROUP BY declaring_team_id) d "
        "ON d.seat_id = s.id "
        f"LEFT JOIN (SELECT game_team_id, SUM(change) AS net FROM {ledger} "
        "GROUP BY game_team_id) l ON l.game_team_id = s.id "
        f"LEFT JOIN (SELECT s.id AS seat_id, {', '.join(_doubled_sql())} FROM {seat} s "
        f"JOIN {deal} r ON r.game_id = s.game_id "
        "WHERE r.doubling <> %s AND r.declaring_team_id IS NOT NULL GROUP BY s.id) x "
        "ON x.seat_id = s.id "
        f"LEFT JOIN {_table(SittingGame)} sg ON sg.game_id = s.game_id "
        f"LEFT JOIN {_table(Sitting)} st ON st.id = sg.sitting_id"
    )


GAME_ROW_COLUMNS = ", ".join((*FIELDS, "game_id", "tournament_id", "played_on", "form"))


def _insert_team_rows(cursor) -> None:
    """Every finished game's team rows, in one statement."""
    # The games counted, with their start date in the club's time zone (the ORM
    # writes the time-zone arithmetic of each database).
    games_sql, games_params = (
        Game.objects.filter(status=Game.Status.FINISHED)
        .annotate(day=TruncDate("created_at"))
        .values("id", "day", "scoring", "kodi", "winner_id")
        .query.sql_with_params()
    )
    cursor.execute(
        f"INSERT INTO {_table(TeamGameFigures)} ({GAME_ROW_COLUMNS}, team_id) "
        + _team_figures_sql()
        + _team_sources_sql(games_sql),
        [*games_params, Doubling.NONE.value],
    )


def _insert_player_rows(cursor) -> None:
    """Every finished game's player rows, in one statement: their team's row, with their
    own declarations."""
    seat, deal = _table(GameTeam), _table(Round)
    team_figures = ", ".join(f"tf.{name}" for name in ("played", "won"))
    same = ", ".join(
        f"tf.{name}"
        for name in (
            "doubles_won",
            "doubles_lost",
            "redoubles_won",
            "redoubles_lost",
            "tables_net",
            "points_for",
            "points_against",
            "sessions_won",
            "kodis_taken",
            "kodis_given",
        )
    )
    cursor.execute(
        f"INSERT INTO {_table(PlayerGameFigures)} ({GAME_ROW_COLUMNS}, player_id) "
        f"SELECT {team_figures}, COALESCE(d.declared, 0), COALESCE(d.made, 0), {same}, "
        "d.biggest, tf.game_id, tf.tournament_id, tf.played_on, tf.form, p.player_id "
        f"FROM {_table(TeamGameFigures)} tf JOIN ("
        f"SELECT game_id, team_id, first_player_id AS player_id FROM {seat} UNION ALL "
        f"SELECT game_id, team_id, second_player_id FROM {seat} UNION ALL "
        f"SELECT game_id, team_id, third_player_id FROM {seat} "
        "WHERE third_player_id IS NOT NULL UNION ALL "
        f"SELECT game_id, team_id, fourth_player_id FROM {seat} "
        "WHERE fourth_player_id IS NOT NULL) p "
        "ON p.game_id = tf.game_id AND p.team_id = tf.team_id "
        "LEFT JOIN (SELECT game_id, declarer_id, COUNT(*) AS declared, "
        "SUM(CASE WHEN made THEN 1 ELSE 0 END) AS made, "
        "MAX(CASE WHEN made THEN bid END) AS biggest "
        f"FROM {deal} WHERE declarer_id IS NOT NULL GROUP BY game_id, declarer_id) d "
        "ON d.game_id = tf.game_id AND d.declarer_id = p.player_id"
    )


def _insert_totals(cursor) -> None:
    """Every side's totals, summed from its game rows: one statement a table."""
    sums = ", ".join(f"SUM({name})" for name in COUNTS)
    for model, totals, key in (
        (PlayerGameFigures, PlayerTotals, "player_id"),
        (TeamGameFigures, TeamTotals, "team_id"),
    ):
        extra = ", rating" if totals is TeamTotals else ""
        zero = ", 0" if totals is TeamTotals else ""
        cursor.execute(
            f"INSERT INTO {_table(totals)} ({', '.join(FIELDS)}, {key}{extra}) "
            f"SELECT {sums}, MAX(biggest_bid), {key}{zero} FROM {_table(model)} "
            f"GROUP BY {key}"
        )


def rebuild_all() -> int:
    """Recompute every row and total from the deals; returns the number of games.

    In SQL, a few set-wise statements instead of a game at a time: this is the
    path for a whole club (``rebuild_leaderboards``, restores, generated data),
    while :func:`refresh_games` does one game in Python. :func:`drift`
    compares the two.
    """
    for model in (PlayerGameFigures, TeamGameFigures, PlayerTotals, TeamTotals):
        model.objects.all().delete()
    with connection.cursor() as cursor:
        _insert_team_rows(cursor)
        _insert_player_rows(cursor)
        _insert_totals(cursor)
    team_ratings.rebuild()
    return Game.objects.filter(status=Game.Status.FINISHED).count()


def _stored(model, key: str) -> dict:
    return {
        (row["game_id"], row[key]): tuple(row[name] for name in GAME_FIELDS)
        for row in model.objects.values("game_id", key, *GAME_FIELDS).iterator()
    }


def _values(row) -> tuple:
    return tuple(getattr(row, name) for name in GAME_FIELDS)


def drift() -> list[str]:
    """What differs between the stored figures and a recomputation from the deals (empty: none)."""
    faults = []
    ids = list(
        Game.objects.filter(status=Game.Status.FINISHED).order_by("pk").values_list("pk", flat=True)
    )
    fresh_players, fresh_teams = {}, {}
    for start in range(0, len(ids), BATCH):
        players, teams = _games_figures(ids[start : start + BATCH])
        for player_row in players:
            fresh_players[(player_row.game_id, player_row.player_id)] = _values(player_row)
        for team_row in teams:
            fresh_teams[(team_row.game_id, team_row.team_id)] = _values(team_row)
    for label, fresh, stored in (
        ("player", fresh_players, _stored(PlayerGameFigures, "player_id")),
        ("team", fresh_teams, _stored(TeamGameFigures, "team_id")),
    ):
        for key in sorted(set(fresh) | set(stored)):
            if fresh.get(key) != stored.get(key):
                faults.append(
                    f"game {key[0]}, {label} {key[1]}: {stored.get(key)} != {fresh.get(key)}"
                )
    for model, totals, key in (
        (PlayerGameFigures, PlayerTotals, "player_id"),
        (TeamGameFigures, TeamTotals, "team_id"),
    ):
        summed = {
            row[key]: tuple(row[name] for name in FIELDS)
            for row in model.objects.values(key).annotate(**SUMS).order_by()
        }
        kept = {
            row[key]: tuple(row[name] for name in FIELDS)
            for row in totals.objects.values(key, *FIELDS)
        }
        for side in sorted(set(summed) | set(kept)):
            if summed.get(side) != kept.get(side):
                faults.append(
                    f"totals of {key[:-3]} {side}: {kept.get(side)} != {summed.get(side)}"
                )
    return faults
