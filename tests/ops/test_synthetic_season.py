"""generate_club's season: club nights on top of a club's history, and their competition.

The season is added to the small preset's club: its table must hold the season's nights
and teams only (the history is outside its days), every team at a table every night,
and each team's best 30 of 40 nights counted; its games replay to what is stored.
"""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from club.competitions.models import Competition
from club.competitions.table import COUNTED, competition_table
from club.games.models import Game
from club.ops.synthetic_check import check_games

pytestmark = pytest.mark.django_db


def test_a_season_of_club_nights_sits_on_the_clubs_history(capsys):
    call_command("generate_club", "--preset", "small", "--check", "0")
    history = Game.objects.count()
    call_command("generate_club", "--preset", "season", "--teams", "6", "--check", "5")
    assert "all match" in capsys.readouterr().out

    season = Game.objects.filter(label__startswith="S56 Season night ")
    assert season.count() == 40 * 3 == Game.objects.count() - history
    assert set(season.values_list("status", flat=True)) == {Game.Status.FINISHED}
    assert check_games(season.order_by("id").values_list("pk", flat=True)[:12]) == 12
    competition = Competition.objects.get()
    assert (competition.name, competition.best, competition.minimum) == ("S56 Season 2025", 30, 5)
    table = competition_table(competition)
    # 40 nights on 40 days, a week apart, each with the six teams at three tables.
    days = [night.day for night in table.nights]
    assert len(set(days)) == 40 and all(
        (b - a).days == 7 for a, b in zip(days, days[1:], strict=False)
    )
    assert {night.state for night in table.nights} == {COUNTED}
    assert all(len(night.results) == 6 for night in table.nights)
    assert len(table.lines) == 6
    assert all(line.place is not None for line in table.lines)
    assert {(line.nights, len(line.counted), len(line.dropped)) for line in table.lines} == {
        (40, 30, 10)
    }


def test_a_second_season_of_the_same_seed_and_an_odd_number_of_teams_are_refused():
    call_command("generate_club", "--preset", "season", "--teams", "2", "--check", "0")
    with pytest.raises(CommandError, match="already holds the season of seed 56"):
        call_command("generate_club", "--preset", "season", "--teams", "2", "--check", "0")
    with pytest.raises(CommandError, match="not an even number"):
        call_command("generate_club", "--preset", "season", "--teams", "5", "--seed", "7")
    with pytest.raises(CommandError, match="for the clubs preset only"):
        call_command("generate_club", "--preset", "season", "--clubs", "3")
    assert Competition.objects.count() == 1
