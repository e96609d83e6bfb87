"""The check of a synthetic club: each game replayed through the deal services.

:func:`check_games` replays stored games through
:func:`club.games.services.replay_game` and compares every row the services
derive from the deals (each deal's dealer, declaring team and result, the
ledger, the teams' tables, points, places and counts, the game's result and
its history) with what :mod:`club.ops.synthetic` wrote in bulk; it raises
:class:`CheckFailed` at the first difference.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NoReturn

from club.games import services as scoring
from club.games.models import Change, Game, LedgerEntry, Round
from club.scoring import rules as core


class CheckFailed(AssertionError):
    """A stored game differs from its replay through the rules core."""


def check_games(game_ids) -> int:
    """Replay each game through the deal service and compare with its stored rows.

    Raises :class:`CheckFailed` naming the game, deal and field at the first difference.
    """
    checked = 0
    for game in Game.objects.filter(pk__in=list(game_ids)).order_by("id"):
        _check_game(game)
        checked += 1
    return checked


def _fail(game: Game, what: str, stored, replayed) -> NoReturn:
    """Raise :class:`CheckFailed` naming the game, what differs, and both values."""
    raise CheckFailed(
        f"game {game.pk} ({game.label}): {what}: stored {stored!r}, replayed {replayed!r}"
    )


def _check_game(game: Game) -> None:
    """Replay one game; compare its deals, ledger, teams, result and history with the replay."""
    seating, settlements, state = scoring.replay_game(game)
    rounds = list(game.rounds.order_by("number"))
    if len(rounds) != len(settlements):
        _fail(game, "deals", len(rounds), len(settlements))
    _check_deals(game, seating, rounds, settlements)
    _check_outcome(game, seating, settlements, state)
    if game.changes.filter(action=Change.Action.RECORDED).count() != len(rounds):
        _fail(game, "changes", game.changes.count(), len(rounds))


def _check_deals(game: Game, seating, rounds: list[Round], settlements) -> None:
    """Each deal's dealer, declaring team, result and ledger, compared with its settlement."""
    ledger: dict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    for entry in LedgerEntry.objects.filter(round__game=game).select_related("game_team"):
        ledger[entry.round_id][entry.game_team.position] = (entry.change, entry.balance)
    for round_, settlement in zip(rounds, settlements, strict=True):
        deal = f"deal {round_.number}"
        expected = {
            "dealer": seating.players[settlement.dealer].pk,
            "declaring_team": seating.teams[settlement.declaring_team].pk,
            "made": settlement.made,
        }
        stored = {
            "dealer": round_.dealer_id,
            "declaring_team": round_.declaring_team_id,
            "made": round_.made,
        }
        if stored != expected:
            _fail(game, deal, stored, expected)
        replayed_ledger = {}
        for team in seating.teams:
            entry = scoring.ledger_entry(round_, team, settlement)
            replayed_ledger[team.position] = (entry.change, entry.balance)
        if ledger[round_.pk] != replayed_ledger:
            _fail(game, f"{deal} ledger", ledger[round_.pk], replayed_ledger)


def _check_outcome(game: Game, seating, settlements, state: core.GameState) -> None:
    """Each team's tables, points, place and counts, and the game's result, against the replay."""
    finished, places = scoring.outcome(game, state)
    stored_teams = {
        team.position: (team.out_in_deal, team.declared, team.made) for team in seating.teams
    }
    scoring.set_replayed_teams(seating, settlements)  # the replay's counts, in place
    for team in seating.teams:
        stored = (team.tables, team.score, team.kodis, team.place, *stored_teams[team.position])
        replayed = (
            state.tables[team.position],
            state.scores[team.position],
            state.kodis[team.position],
            places.get(team.position),
            team.out_in_deal,
            team.declared,
            team.made,
        )
        if stored != replayed:
            _fail(game, f"team {team.team.name}", stored, replayed)
    firsts = [seating.teams[p].pk for p, place in places.items() if place == 1]
    stored_game = (game.status, game.winner_id, game.deals_played, game.dealer_seat)
    replayed_game = (
        Game.Status.FINISHED if finished else Game.Status.IN_PROGRESS,
        firsts[0] if len(firsts) == 1 else None,
        state.deals_played,
        state.dealer,
    )
    if stored_game != replayed_game:
        _fail(game, "game result", stored_game, replayed_game)
