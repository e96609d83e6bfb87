"""Who sits where at a game, and a deal as the rules core reads it: seats, not players.

A deal keeps one shape from the deal form to the rules core, the core's own
:class:`~club.scoring.rules.Deal`: the declarer and a thani's player are seat
numbers in play order (docs/rules.md section A). Players are named only where a
deal is stored (a round's declarer, a deal waiting for the other team) and read
back from there (:func:`entry_from_round`, :func:`deal_from_players`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from club.games.errors import ScoringError
from club.games.models import PLAYER_FIELDS, Game, GameTeam, Player, Round
from club.scoring import rules as core
from club.scoring.rules import Deal


@dataclass
class Seating:
    """The game's teams and seats, loaded once per write."""

    teams: list[GameTeam]
    rules: core.Rules = core.DEFAULT_RULES  # the game's settings: what a deal may be
    players: list[Player] = field(init=False)  # by seat, in play order
    seat_teams: list[GameTeam] = field(init=False)  # the team of each seat

    def __post_init__(self) -> None:
        size = self.teams[0].size if self.teams else 2
        order = core.seat_order(len(self.teams), size)
        self.players = [self.teams[team].players[partner] for team, partner in order]
        self.seat_teams = [self.teams[team] for team, _partner in order]

    @property
    def names(self) -> list[str]:
        return [team.team.name for team in self.teams]

    def seat_of(self, player_id: int | None) -> int | None:
        for seat, player in enumerate(self.players):
            if player.pk == player_id:
                return seat
        return None

    def player_id(self, seat: int | None) -> int | None:
        """The id of the player in ``seat``, or None for no seat or one the game has not."""
        if seat is None or not 0 <= seat < len(self.players):
            return None
        return self.players[seat].pk


def load_seating(game: Game) -> Seating:
    # Only the seats the game has: a game of pairs joins no third or fourth player.
    seats = PLAYER_FIELDS[: max(2, game.team_size)]
    teams = list(game.teams.select_related("team", *seats).order_by("position"))
    return Seating(teams, game.rules)


def deal_from_players(
    seating: Seating,
    points: dict[int, int],
    *,
    declarer: int | None = None,
    thani: int | None = None,
    **contract,
) -> Deal:
    """A deal whose declarer or thani is named by player id (as it is stored), in seats.

    Refused, naming who, when that player has no seat at this game.
    """
    if thani is not None:
        seat = seating.seat_of(thani)
        if seat is None:
            raise ScoringError(_("The thani's player is not seated at this game."), field="thani")
        return Deal(points=dict(points), thani=seat, made=contract.get("made"))
    if declarer is None:
        return Deal(points=dict(points), doubling=contract.get("doubling") or core.Doubling.NONE)
    seat = seating.seat_of(declarer)
    if seat is None:
        raise ScoringError(_("The declarer is not seated at this game."), field="declarer")
    return Deal(points=dict(points), declarer=seat, **contract)


def entry_from_round(round_: Round, seating: Seating, points: dict[int, int] | None = None) -> Deal:
    """A stored deal as it was entered. ``points``: its piles by team, when read already."""
    if round_.thani:
        return deal_from_players(seating, {}, thani=round_.declarer_id, made=round_.made)
    if points is None:
        points = {pile.game_team.position: pile.points for pile in round_.piles.all()}
    if round_.all_pass:
        return deal_from_players(seating, points, doubling=round_.doubling)
    return deal_from_players(
        seating,
        points,
        declarer=round_.declarer_id,
        bid=round_.bid,
        trump=round_.trump,
        doubling=round_.doubling,
    )


def describe(entry: Deal, seating: Seating) -> dict:
    """A deal as plain data for the change history (names, not seats)."""
    names = seating.names
    if entry.thani is not None:
        return {"thani": seating.players[entry.thani].name, "made": entry.made}
    data: dict = {"points": {names[team]: pile for team, pile in sorted(entry.points.items())}}
    if entry.declarer is None:
        data["all_pass"] = True
    else:
        data.update(
            declarer=seating.players[entry.declarer].name,
            bid=entry.bid,
            trump=entry.trump,
            doubling=entry.doubling,
        )
    return data
