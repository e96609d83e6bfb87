"""What differs between the stored figures and a recomputation from the deals: the
``rebuild_leaderboards --check`` command's question, and the tests'."""

from __future__ import annotations

from club.games.models import Game
from club.leaderboards.figures.counting import FIELDS, GAME_FIELDS, SUMS, games_figures
from club.leaderboards.figures.totals import KINDS
from club.leaderboards.models import PlayerGameFigures, TeamGameFigures

BATCH = 2000  # games recounted at a time: the memory of one pass


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
        players, teams = games_figures(ids[start : start + BATCH])
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
    for key, (rows, totals, club_totals) in KINDS.items():
        faults += _totals_faults(rows, totals, (key,))
        faults += _totals_faults(rows, club_totals, (key, "club_id"))
    return faults


def _totals_faults(rows, totals, columns: tuple[str, ...]) -> list[str]:
    """Where the ``totals`` kept differ from the sums of the game ``rows`` grouped by the
    same ``columns``: the side's (``player_id`` or ``team_id``), and the club's."""
    summed = {
        tuple(row[c] for c in columns): tuple(row[name] for name in FIELDS)
        for row in rows.objects.values(*columns).annotate(**SUMS).order_by()
    }
    kept = {
        tuple(row[c] for c in columns): tuple(row[name] for name in FIELDS)
        for row in totals.objects.values(*columns, *FIELDS)
    }
    faults = []
    for found in sorted(set(summed) | set(kept)):
        if summed.get(found) != kept.get(found):
            side = f"{columns[0][:-3]} {found[0]}"
            at = f" at club {found[1]}" if len(found) > 1 else ""
            faults.append(f"totals of {side}{at}: {kept.get(found)} != {summed.get(found)}")
    return faults
