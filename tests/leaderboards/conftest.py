"""A small hand-made club whose every deal is known, for the leaderboard tests.

Seats in play order for two teams: T1.first, T2.first, T1.second, T2.second;
for three: T1.first, T2.first, T3.first, T1.second, T2.second, T3.second.
The first bidder sits after the dealer; when all pass, the first bidder's team
is contracted to 28.

Game A (4 tables each, Anu deals): Anu & Biju v Chitra & Dev
  1. Anu 30 hearts doubled, piles AB 35 / CD 21: made, 1 x 2 = 2 tables.   AB 6, CD 2
  2. Dev 40 spades, piles CD 30 / AB 26: failed, owes 3, holds 2, pays 2. AB 8, CD 0: AB win.
Game B (4 tables each, Chitra deals, so Biju bids first): same teams
  1. All pass: AB contracted to 28, piles AB 20 / CD 36: failed, 2.         AB 2, CD 6
  2. Chitra 29 clubs redoubled, piles CD 28 / AB 28: failed, 2 x 4 = 8, holds 6. AB 8, CD 0: AB win.
Game C (2 tables each, Anu deals): Anu & Biju v Chitra & Dev v Esha & Farid
  1. Esha 48 no trumps, piles EF 50 / AB 3 / CD 3: made, 3 from each, each holds 2.
     AB 0, CD 0 (out together, both 2nd), EF 6: EF win.
Game D (12 tables, in progress, never counted): Anu & Biju v Chitra & Dev
  1. Anu 56 spades doubled, piles AB 56 / CD 0: made, 4 x 2 = 8.           AB 20, CD 4
"""

import datetime

import pytest
from django.utils import timezone

from club.games.services import Deal, TeamEntry, create_game, record_deal
from club.leaderboards import figures
from club.scoring import rules as core
from tests.factories import seat

AB = TeamEntry("Anu", "Biju")
CD = TeamEntry("Chitra", "Dev")
EF = TeamEntry("Esha", "Farid")


def play(game, *deals):
    for number, deal in enumerate(deals, start=1):
        record_deal(game=game, number=number, entry=deal)
    game.refresh_from_db()
    return game


def on(game, day: datetime.date):
    """Move a game's start to ``day`` (noon, the club's time zone)."""
    start = timezone.make_aware(datetime.datetime.combine(day, datetime.time(12)))
    type(game).objects.filter(pk=game.pk).update(created_at=start)
    # The app never moves a game's start; the maintained figures file the game
    # under its start date, so they follow the move as the services would.
    figures.refresh_game(game)


@pytest.fixture
def club(db):
    four = core.Rules(tables_per_team=4)
    two = core.Rules(tables_per_team=2)
    a = create_game(label="Game A", teams=[AB, CD], first_dealer=0, rules=four)
    play(
        a,
        Deal(
            points={0: 35, 1: 21},
            declarer=seat(a, "Anu"),
            bid=30,
            trump="hearts",
            doubling="double",
        ),
        Deal(points={0: 26, 1: 30}, declarer=seat(a, "Dev"), bid=40, trump="spades"),
    )
    b = create_game(label="Game B", teams=[AB, CD], first_dealer=1, rules=four)
    play(
        b,
        Deal(points={0: 20, 1: 36}),
        Deal(
            points={0: 28, 1: 28},
            declarer=seat(b, "Chitra"),
            bid=29,
            trump="clubs",
            doubling="redouble",
        ),
    )
    c = create_game(label="Game C", teams=[AB, CD, EF], first_dealer=0, rules=two)
    play(c, Deal(points={0: 3, 1: 3, 2: 50}, declarer=seat(c, "Esha"), bid=48, trump="no-trumps"))
    d = create_game(label="Game D", teams=[AB, CD], first_dealer=0)
    play(
        d,
        Deal(
            points={0: 56, 1: 0}, declarer=seat(d, "Anu"), bid=56, trump="spades", doubling="double"
        ),
    )
    on(a, datetime.date(2025, 1, 10))
    on(b, datetime.date(2025, 2, 10))
    on(c, datetime.date(2025, 3, 10))
    on(d, datetime.date(2025, 3, 20))
    for game in (a, b, c, d):
        game.refresh_from_db()
    return {"A": a, "B": b, "C": c, "D": d}
