"""A circuit of two clubs for the tests: the home club's cup and Gulf 56's, neither played."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from club.clubs.models import Club
from club.competitions.models import Competition
from club.competitions.services import Terms, save_competition
from club.scoring import seasons
from club.tournaments import services as tournaments
from club.tournaments.models import Tournament


@dataclass
class TwoClubs:
    gulf: Club
    home_cup: Tournament
    gulf_cup: Tournament
    circuit: Competition


def a_circuit_of_two_clubs() -> TwoClubs:
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    home_cup = tournaments.create_tournament(name="Home cup", starts_on=dt.date(2026, 2, 1))
    gulf_cup = tournaments.create_tournament(
        name="Gulf cup", starts_on=dt.date(2026, 2, 8), club=gulf
    )
    circuit = save_competition(
        club=None,
        terms=Terms(
            name="Kerala circuit",
            starts_on=dt.date(2026, 1, 1),
            ends_on=dt.date(2026, 12, 31),
            counts=Competition.Counts.EVENTS,
            ranks=Competition.Ranks.PLAYERS,
            method=seasons.PLACES,
            place_points=(10, 6),
        ),
        events=[home_cup, gulf_cup],
    )
    return TwoClubs(gulf, home_cup, gulf_cup, circuit)
