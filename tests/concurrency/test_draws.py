"""Two organisers pressing "Draw the next sitting" at the same moment get one draw."""

from __future__ import annotations

import datetime

from club.scoring import draws
from club.tournaments import services
from club.tournaments.models import Sitting, TournamentEvent
from tests.concurrency.conftest import at_once, lock_held_longer


def test_drawing_the_same_sitting_twice_at_once_makes_one_draw(scorers):
    tournament = services.create_tournament(name="Vishu cup", starts_on=datetime.date(2026, 4, 14))
    for first, second in [("Anu", "Biju"), ("Chitra", "Dev"), ("Esha", "Farid"), ("Gita", "Hari")]:
        services.register_team(tournament=tournament, first=first, second=second)
    organisers = scorers(2)
    page, draw = f"/tournaments/{tournament.pk}/", f"/tournaments/{tournament.pk}/sittings/"
    tokens = [organiser.token(page) for organiser in organisers]

    with lock_held_longer(draws, "propose_draw", 0.5):  # runs with the tournament locked
        answers = at_once(
            *(
                lambda organiser=organiser, token=token: organiser.post(
                    draw, {"game_size": 2}, token=token
                )
                for organiser, token in zip(organisers, tokens, strict=True)
            )
        )

    sitting = Sitting.objects.get(tournament=tournament)
    assert sitting.number == 1
    assert [(a.status, a.location) for a in answers] == [
        (302, f"/tournaments/{tournament.pk}/sittings/1/")
    ] * 2
    drawn = TournamentEvent.objects.filter(
        tournament=tournament, action=TournamentEvent.Action.DRAWN
    )
    assert drawn.count() == 1
