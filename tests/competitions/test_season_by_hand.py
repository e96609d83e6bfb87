"""A small season of club nights worked out by hand, then played through the services on
both databases: its table must be the figures below, worked out from docs/rules.md
section F, never read back from the app.

The club plays points sheets of one deal a game, teams of two (A: Anu & Biju, B: Chitra &
Dev, C: Esha & Farid, D: Gita & Hari, E: Indu & Jacob). A made contract scores the band's
"made" figure (bids 28-39 score 1, 40-47 score 2, 48-55 score 3), so the declaring team
wins its game by that much. A night is placed as a tournament of its games would be: 3
points a win and 1 a loss, then games won, then the score difference.

    night 1 (6 Jan):  A beat B by 2 (bid 40), C beat D by 1 (bid 28)
                      A 3 pts +2, C 3 pts +1, D 1 pt -1, B 1 pt -2   -> A 1, C 2, D 3, B 4
    night 2 (13 Jan): B beat C by 3 (bid 48), A beat D by 1 (bid 28)
                      B +3, A +1, D -1, C -3                         -> B 1, A 2, D 3, C 4
    night 3 (20 Jan): C beat A by 2 (bid 40), E beat D by 1 (bid 28)
                      C +2, E +1, D -1, A -2                         -> C 1, E 2, D 3, A 4
    night 4 (27 Jan): D beat B by 2 (bid 40), C beat A by 1 (bid 28)
                      D +2, C +1, A -1, B -2                         -> D 1, C 2, A 3, B 4

The season's rule: 10, 6, 4, 2 points for 1st to 4th; the best 2 nights of the 4 count;
2 nights to be ranked.

    team  nights: 1   2   3   4   counted (the later of equal scores kept)  total
    A           10   6   2   4    n1 10, n2 6                               16
    B            2  10   .   2    n2 10, n4 2                               12
    C            6   2  10   6    n3 10, n4 6                               16
    D            4   4   4  10    n4 10, n3 4                               14
    E            .   .   6   .    one night: under the minimum, not ranked   6

A and C are level on 16 and won a night each. Head to head they met in every night: A
placed above C in nights 1 and 2, C above A in nights 3 and 4: level. The latest night
(4): C was 2nd, A 3rd. So: 1 C 16, 2 A 16, 3 D 14, 4 B 12, then E (6, not ranked).

Ranked by players, each player's nights are their team's, and lines level on everything
share a place: Esha and Farid share 1st, Anu and Biju 3rd, ... Indu and Jacob not ranked.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import replace

import pytest

from club.clubs import known
from club.competitions.models import Competition
from club.competitions.services import Terms, save_competition
from club.competitions.table import competition_table
from club.games.models import Game
from club.games.services import (
    Deal,
    TeamEntry,
    create_game,
    edit_deal,
    load_seating,
    record_deal,
)
from club.scoring import rules as core
from club.scoring import seasons

pytestmark = pytest.mark.django_db

PAIRS = {
    "A": ("Anu", "Biju"),
    "B": ("Chitra", "Dev"),
    "C": ("Esha", "Farid"),
    "D": ("Gita", "Hari"),
    "E": ("Indu", "Jacob"),
}
BY_BID = {28: 1, 40: 2, 48: 3}
# (night, winner, loser, bid): the winner's first player declares and makes it.
NIGHTS = [
    (1, "A", "B", 40),
    (1, "C", "D", 28),
    (2, "B", "C", 48),
    (2, "A", "D", 28),
    (3, "C", "A", 40),
    (3, "E", "D", 28),
    (4, "D", "B", 40),
    (4, "C", "A", 28),
]
FIRST_NIGHT = dt.date(2026, 1, 6)
RULES = replace(core.preset_rules(core.Preset.INTERNATIONAL), team_size=2, deal_limit=1)


def night_of(number: int) -> dt.date:
    return FIRST_NIGHT + dt.timedelta(weeks=number - 1)


def evening(day: dt.date, hour: int = 19) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour), tzinfo=zoneinfo.ZoneInfo(known.home().time_zone))


def play(number: int, winner: str, loser: str, bid: int) -> Game:
    game = create_game(
        label=f"Night {number}: {winner} v {loser}",
        teams=[TeamEntry(*PAIRS[winner]), TeamEntry(*PAIRS[loser])],
        first_dealer=0,
        rules=RULES,
        deal_limit=1,
    )
    seating = load_seating(game)
    declarer = next(p for p in seating.players if p.name == PAIRS[winner][0])
    record_deal(
        game=game,
        number=1,
        entry=Deal(
            points={0: bid, 1: 56 - bid},
            declarer=seating.seat_of(declarer.pk),
            bid=bid,
            trump="hearts",
        ),
    )
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    # The night it was played: started and finished that evening.
    Game.objects.filter(pk=game.pk).update(
        created_at=evening(night_of(number)), finished_at=evening(night_of(number), 21)
    )
    return game


def play_the_season() -> list[Game]:
    return [play(*night) for night in NIGHTS]


def season(**changes) -> Competition:
    terms = Terms(
        name="Winter league",
        starts_on=dt.date(2026, 1, 1),
        ends_on=dt.date(2026, 3, 31),
        counts=Competition.Counts.ALL,
        ranks=Competition.Ranks.TEAMS,
        method=seasons.PLACES,
        place_points=(10, 6, 4, 2),
        best=2,
        minimum=2,
    )
    return save_competition(club=known.home(), terms=replace(terms, **changes))


def rows(competition: Competition) -> list[tuple]:
    table = competition_table(competition)
    return [
        (line.place, table.names[line.line], int(line.total), line.counted, line.dropped)
        for line in table.lines
    ]


def test_the_season_is_the_hand_computation():
    play_the_season()
    table = competition_table(season())
    n = {number: f"n{night_of(number).isoformat()}" for number in range(1, 5)}
    assert [(line.place, table.names[line.line], line.total) for line in table.lines] == [
        (1, "Esha & Farid", 16),
        (2, "Anu & Biju", 16),
        (3, "Gita & Hari", 14),
        (4, "Chitra & Dev", 12),
        (None, "Indu & Jacob", 6),
    ]
    lines = {table.names[line.line]: line for line in table.lines}
    assert lines["Anu & Biju"].counted == (n[1], n[2])
    assert lines["Anu & Biju"].dropped == (n[3], n[4])
    assert lines["Esha & Farid"].counted == (n[3], n[4])
    assert lines["Gita & Hari"].counted == (n[3], n[4])  # the later of two 4s
    assert lines["Chitra & Dev"].counted == (n[2], n[4])
    assert lines["Esha & Farid"].decided_by == lines["Anu & Biju"].decided_by == seasons.LATEST
    assert [night.key for night in table.nights] == list(n.values())


def test_ranked_by_players_each_follows_the_seats_they_sat_in():
    play_the_season()
    table = competition_table(season(ranks=Competition.Ranks.PLAYERS))
    placed = [(line.place, table.names[line.line], line.total) for line in table.lines]
    assert placed[:4] == [(1, "Esha", 16), (1, "Farid", 16), (3, "Anu", 16), (3, "Biju", 16)]
    assert placed[-2:] == [(None, "Indu", 6), (None, "Jacob", 6)]


def test_every_night_counted_and_match_points_summed():
    play_the_season()
    # Every night (no best N), by match points: 3 a win, 1 a loss.
    table = competition_table(season(method=seasons.MATCH_POINTS, best=None, minimum=1))
    totals = {table.names[line.line]: line.total for line in table.lines}
    assert totals == {
        "Anu & Biju": 3 + 3 + 1 + 1,
        "Chitra & Dev": 1 + 3 + 1,
        "Esha & Farid": 3 + 1 + 3 + 3,
        "Gita & Hari": 1 + 1 + 1 + 3,
        "Indu & Jacob": 3,
    }


def test_a_correction_to_an_old_night_is_in_the_next_reading():
    games = play_the_season()
    competition = season()
    # Night 1's first game corrected: B, not A, made the contract (Chitra declares).
    first = games[0]
    seating = load_seating(first)
    chitra = next(p for p in seating.players if p.name == "Chitra")
    edit_deal(
        game=first,
        number=1,
        entry=Deal(
            points={0: 16, 1: 40}, declarer=seating.seat_of(chitra.pk), bid=40, trump="hearts"
        ),
    )
    table = competition_table(competition)
    night_1 = {
        table.names[line]: result.place for line, result in table.counted_nights[0].results.items()
    }
    assert night_1 == {"Chitra & Dev": 1, "Esha & Farid": 2, "Gita & Hari": 3, "Anu & Biju": 4}


def test_a_night_made_final_after_its_deadline_counts_only_if_the_organiser_said_so():
    games = play_the_season()
    # Night 4's games were finished a week after the night: two days were allowed.
    for game in games[-2:]:
        Game.objects.filter(pk=game.pk).update(
            finished_at=evening(night_of(4) + dt.timedelta(days=7))
        )
    dropped = competition_table(season(final_within_days=2))
    assert dropped.nights[-1].state == "late_dropped"
    assert [night.key for night in dropped.counted_nights] == [
        f"n{night_of(k).isoformat()}" for k in (1, 2, 3)
    ]
    kept = competition_table(
        season(name="Winter league (late)", final_within_days=2, late_counts=True)
    )
    assert kept.nights[-1].state == "late" and len(kept.counted_nights) == 4
