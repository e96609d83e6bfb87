"""The night of tests/tournaments/substitution_night.py (a late team, a substitution for
one sitting) played through the services, on both databases: its standings, its player
figures, its ratings and its archive against the figures worked out there by hand. The
browser test plays the same night on phones (tests/browser/test_substitution_night.py).
"""

from __future__ import annotations

import json

import pytest

from club.games.models import Game, GameTeam, Player
from club.games.services import Deal, load_seating, record_deal
from club.leaderboards.models import PlayerRating, PlayerTotals, TeamTotals
from club.tournaments import checkin, services, substitutions
from club.tournaments.models import Standing, TournamentTeam
from tests.archive.test_tournament_archive import export, import_text, wipe
from tests.tournaments import substitution_night as night
from tests.tournaments.helpers import rng

pytestmark = pytest.mark.django_db


def entry(name: str) -> TournamentTeam:
    return TournamentTeam.objects.select_related("tournament", "team").get(team__name=name)


def play_deal(game: Game, planned: night.Game) -> None:
    seating = load_seating(game)
    declarer = next(player for player in seating.players if player.name == planned.declarer)
    record_deal(
        game=game,
        number=1,
        entry=Deal(
            points=planned.piles(),
            declarer=seating.seat_of(declarer.pk),
            bid=planned.bid,
            trump="hearts",
        ),
    )


def play_the_night():
    tournament = night.register()
    for number, sitting_plan in enumerate(night.SITTINGS, start=1):
        if number == 2:
            team, out, player_in = night.SUBSTITUTE
            made = substitutions.substitute(
                entry=entry(team), player_out=Player.objects.get(name=out), player_in=player_in
            )
        if number == 3:
            substitutions.bring_back(substitution=made)
        for name in sitting_plan["present"]:
            checkin.check_in(entry=entry(name))
        sitting = services.propose_sitting(tournament=tournament, rng=rng(number))
        ids = {name: entry(name).pk for name in night.TEAMS}
        sitting = services.adjust_sitting(
            sitting=sitting,
            games=[[ids[team] for team in game.teams] for game in sitting_plan["games"]],
            byes=[ids[team] for team in sitting_plan["byes"]],
        )
        services.confirm_sitting(sitting=sitting, rng=rng(number))
        for game, planned in zip(
            Game.objects.filter(sitting_entry__sitting=sitting).order_by("sitting_entry__position"),
            sitting_plan["games"],
            strict=True,
        ):
            play_deal(game, planned)
        services.call_time(sitting=sitting)
    tournament.refresh_from_db()
    return tournament


def standings() -> list[tuple]:
    return [
        (s.place, s.entry.team.name, int(s.points), s.games, s.won, s.score_difference, s.byes)
        for s in Standing.objects.select_related("entry__team").order_by("place")
    ]


def test_the_night_with_a_late_team_and_a_substitute_agrees_with_the_hand_check(tmp_path):
    tournament = play_the_night()
    assert standings() == night.STANDINGS
    assert [
        [
            player.name
            for player in GameTeam.objects.get(
                game__sitting_entry__sitting__number=number, team__name="Tuskers"
            ).players
        ]
        for number in (1, 2, 3)
    ] == night.TUSKERS_SAT
    totals = {
        t.player.name: (t.played, t.won, t.declared, t.made)
        for t in PlayerTotals.objects.select_related("player")
    }
    assert {name: totals[name] for name in night.PLAYERS} == night.PLAYERS
    points = dict(
        (t.player.name, (t.points_for, t.points_against))
        for t in PlayerTotals.objects.select_related("player")
    )
    assert {name: points[name] for name in night.POINTS} == night.POINTS
    rated = dict(PlayerRating.objects.values_list("player__name", "games"))
    assert {name: rated[name] for name in night.RATED_GAMES} == night.RATED_GAMES
    assert TeamTotals.objects.get(team__name="Tuskers").rated_games == 3
    assert TeamTotals.objects.get(team__name="Panthers").rated_games == 2

    text = export("--tournament", night.NAME)
    document = json.loads(text)["tournament"]
    assert document["substitutions"] == [
        {"team": "Tuskers", "out": "Biju", "in": "Sunil", "from": 2, "until": 2}
    ]
    assert document["sittings"][0]["absent"] == ["Panthers"]
    assert document["sittings"][0]["byes"] == ["Sharks"]
    assert [
        (row["place"], row["team"], row["points"], row["won"], row["score_difference"])
        for row in document["standings"]
    ] == [
        (place, team, str(points), won, diff)
        for place, team, points, _games, won, diff, _byes in night.STANDINGS
    ]
    assert tournament.substitutions == 1

    # The archive imports again into an empty club as it was, and exports identically.
    wipe()
    import_text(tmp_path, text)
    assert export("--tournament", night.NAME) == text
    assert standings() == night.STANDINGS
    totals = {
        t.player.name: (t.played, t.won, t.declared, t.made)
        for t in PlayerTotals.objects.select_related("player")
    }
    assert {name: totals[name] for name in night.PLAYERS} == night.PLAYERS


def test_the_games_alone_export_and_import_again_with_the_substitute_seated(tmp_path):
    """Exported without its tournament, the night's games import into an empty club: a
    game that seats a substitute is its team's game, the team's name kept."""
    play_the_night()
    text = export()
    wipe()
    import_text(tmp_path, text)
    assert export() == text
    assert [
        [p.name for p in row.players]
        for row in GameTeam.objects.filter(team__name="Tuskers").order_by("game__label")
    ] == night.TUSKERS_SAT
