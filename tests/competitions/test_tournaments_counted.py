"""A tournament counted by a season: placed by its standings, a player by the seats they
sat in, and made final before the deadline or not. The tournament is the substitution
night of tests/tournaments/substitution_night.py, worked out by hand there: the Tuskers
won all three games (Sunil sat in for Biju in sitting 2), the Sharks had a bye.

By its standings: Tuskers 1st (9 points), Sharks 2nd (6), Lions 3rd, Eagles 4th,
Panthers 5th, Cobras 6th. A player's match points are their games' tournament points (3
a win, 1 a loss): Anu and Chitra 3 + 3 + 3 = 9, Biju 3 + 3 = 6, Sunil 3; each of them
takes the Tuskers' place, 1st.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import pytest

from club.clubs import known
from club.competitions.models import Competition
from club.competitions.services import Terms, save_competition
from club.competitions.table import competition_table, exact
from club.games.models import Player, Team
from club.scoring import seasons
from club.tournaments.models import Standing, TournamentEvent, TournamentTeam
from club.tournaments.services.lifecycle import finish_tournament, make_final, reopen
from tests.competitions.test_season_by_hand import play_the_season
from tests.tournaments.test_substitution_night import play_the_night

pytestmark = pytest.mark.django_db

TERMS = Terms(
    name="Internationals",
    starts_on=dt.date(2026, 1, 1),
    ends_on=dt.date(2026, 12, 31),
    counts=Competition.Counts.EVENTS,
    ranks=Competition.Ranks.TEAMS,
    method=seasons.PLACES,
    place_points=(10, 8, 6, 5, 4, 3),
)


@pytest.fixture
def the_night():
    tournament = play_the_night()
    return finish_tournament(tournament=tournament)


def lines(competition: Competition) -> dict[str, tuple]:
    table = competition_table(competition)
    return {table.names[line.line]: (line.place, line.total) for line in table.lines}


def test_a_tournament_places_its_teams_by_its_standings(the_night):
    competition = save_competition(club=known.home(), terms=TERMS, events=[the_night])
    assert lines(competition) == {
        "Tuskers": (1, 10),
        "Sharks": (2, 8),
        "Lions": (3, 6),
        "Eagles": (4, 5),
        "Panthers": (5, 4),
        "Cobras": (6, 3),
    }


def test_a_player_follows_the_seats_they_sat_in(the_night):
    terms = replace(TERMS, ranks=Competition.Ranks.PLAYERS, method=seasons.MATCH_POINTS)
    competition = save_competition(club=known.home(), terms=terms, events=[the_night])
    shown = lines(competition)
    assert {name: shown[name][1] for name in ("Anu", "Chitra", "Biju", "Sunil")} == {
        "Anu": 9,
        "Chitra": 9,
        "Biju": 6,
        "Sunil": 3,
    }
    by_place = save_competition(
        club=known.home(),
        terms=replace(TERMS, name="By place", ranks="players"),
        events=[the_night],
    )
    assert {lines(by_place)[name] for name in ("Anu", "Biju", "Chitra", "Sunil")} == {(1, 10)}


def test_with_a_deadline_a_tournament_counts_once_final_and_on_time(the_night):
    terms = replace(TERMS, final_within_days=2)
    competition = save_competition(club=known.home(), terms=terms, events=[the_night])
    assert competition_table(competition).nights[0].state == "waiting"
    make_final(tournament=the_night)
    assert competition_table(competition).nights[0].state == "counted"
    made_final = TournamentEvent.objects.filter(action=TournamentEvent.Action.FINALISED)
    made_final.update(made_at=dt.datetime(2027, 1, 30, tzinfo=dt.UTC))  # weeks late
    late = competition_table(competition)
    assert late.nights[0].state == "late_dropped" and not late.lines
    # A tournament imported already final (no record of when it was made final) was final
    # by its last day.
    made_final.delete()
    assert competition_table(competition).nights[0].state == "counted"


def test_a_season_of_all_counts_the_club_nights_and_the_tournaments(the_night):
    play_the_season()
    terms = replace(TERMS, name="Everything", counts=Competition.Counts.ALL)
    table = competition_table(save_competition(club=known.home(), terms=terms))
    assert [night.key for night in table.nights][-1] == f"t{the_night.pk}"
    assert len(table.counted_nights) == 5  # four club nights and the tournament


def test_reopened_and_made_final_again_it_stays_on_time(the_night):
    competition = save_competition(
        club=known.home(), terms=replace(TERMS, final_within_days=2), events=[the_night]
    )
    make_final(tournament=the_night)
    first = TournamentEvent.objects.get(action=TournamentEvent.Action.FINALISED)
    reopen(tournament=the_night, reason="A typo in a team's name")
    finish_tournament(tournament=the_night)
    make_final(tournament=the_night)
    # Made final again weeks later: the first time it was made final counts.
    TournamentEvent.objects.filter(action=TournamentEvent.Action.FINALISED).exclude(
        pk=first.pk
    ).update(made_at=dt.datetime(2027, 1, 30, tzinfo=dt.UTC))
    assert competition_table(competition).nights[0].state == "counted"


def test_a_team_registered_that_never_played_has_no_night(the_night):
    team = Team.objects.create(
        name="Ghosts",
        first_player=Player.objects.create(name="Casper"),
        second_player=Player.objects.create(name="Wraith"),
    )
    entry = TournamentTeam.objects.create(tournament=the_night, team=team)
    Standing.objects.create(
        tournament=the_night,
        entry=entry,
        place=7,
        points=0,
        games=0,
        won=0,
        net_tables=0,
        declared=0,
        made=0,
    )
    # (Rows made directly: the service refuses a team for a finished tournament.)
    competition = save_competition(club=known.home(), terms=TERMS, events=[the_night])
    assert "Ghosts" not in lines(competition)


@pytest.mark.parametrize(
    ("kept", "points"),
    [
        ("1.33", Fraction(4, 3)),
        ("3.99", Fraction(4)),
        ("2.67", Fraction(8, 3)),
        ("0.25", Fraction(1, 4)),
    ],
)
def test_a_standings_points_are_read_back_exact(kept, points):
    assert exact(Decimal(kept)) == points
