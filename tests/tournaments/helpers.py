"""Small helpers for tournament tests: teams of six named pairs, games won by a chosen team."""

from __future__ import annotations

import datetime
import random

from club.games.models import Game
from club.games.services import Deal, load_seating, record_deal
from club.scoring import rules as core
from club.tournaments import services

PAIRS = [
    ("Anu", "Biju"),
    ("Chitra", "Dev"),
    ("Esha", "Farid"),
    ("Gita", "Hari"),
    ("Indu", "Jacob"),
    ("Kavya", "Latif"),
    ("Meenakshi Sundaram", "Nandakumar Pillai"),
    ("Omana", "Prakash"),
    ("Qadir", "Radhika"),
    ("Sreekumar", "Thankamma"),
    ("Usha", "Vinod"),
    ("Wilson", "Yamuna"),
]


def make_tournament(name="Monsoon Cup", teams=6, tables_per_team=1, **kwargs):
    """A tournament of ``teams`` registered pairs; one table each, so one made contract wins."""
    tournament = services.create_tournament(
        name=name,
        starts_on=datetime.date(2025, 7, 5),
        rules=core.Rules(tables_per_team=tables_per_team),
        **kwargs,
    )
    for first, second in PAIRS[:teams]:
        services.register_team(tournament=tournament, first=first, second=second)
    return tournament


def win_game(game: Game, winner_name: str) -> None:
    """Record one deal in which ``winner_name``'s team bids 28 and takes all 56 points."""
    teams = list(game.teams.select_related("team", "first_player").order_by("position"))
    winner = next(team for team in teams if team.team.name == winner_name)
    record_deal(
        game=game,
        number=game.deals_played + 1,
        entry=Deal(
            points={team.position: 56 if team is winner else 0 for team in teams},
            declarer=load_seating(game).seat_of(winner.first_player_id),
            bid=28,
            trump="spades",
        ),
    )


def play_sitting(sitting, winners=None) -> dict:
    """Confirm and play every game of the sitting: the team named first alphabetically wins
    unless ``winners`` names one of the game's teams. Returns {game label: winner name}."""
    results = {}
    for entry in sitting.games.select_related("game"):
        names = sorted(entry.game.teams.values_list("team__name", flat=True))
        winner = next((name for name in names if winners and name in winners), names[0])
        win_game(entry.game, winner)
        results[entry.table_label] = winner
    return results


def night(tournament, seed: int) -> dict:
    """A sitting drawn, confirmed and played (each game won by one made contract)."""
    sitting = services.propose_sitting(tournament=tournament, rng=rng(seed))
    services.confirm_sitting(sitting=sitting, rng=rng(seed))
    return play_sitting(sitting)


def rng(seed=7):
    return random.Random(seed)
