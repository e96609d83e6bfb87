"""The leaderboards and ratings count every player of a team of three or four."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from club.games.models import Game, Player
from club.games.services import Deal, TeamEntry, create_game, record_deal
from club.leaderboards import figures
from club.leaderboards.merge import PARTNERS, merge_players
from club.leaderboards.models import PlayerGameFigures, RatingChange, TeamGameFigures, TeamTotals
from club.leaderboards.services.register import RegisterError
from club.scoring import rules as core
from club.scoring.rules import Preset

pytestmark = pytest.mark.django_db

THREES = [TeamEntry("Anu", "Biju", third="Chitra"), TeamEntry("Dev", "Esha", third="Farid")]


def international_session() -> Game:
    """A 56 International session: team 2's Dev makes 28 in each of the 18 deals."""
    game = create_game(
        label="International",
        teams=THREES,
        first_dealer=0,
        rules=core.preset_rules(Preset.INTERNATIONAL, players=6),
    )
    dev = 1  # his seat, in play order
    for number in range(1, 19):
        entry = Deal(points={0: 20, 1: 36}, declarer=dev, bid=28 + number % 3, trump="clubs")
        record_deal(game=Game.objects.get(pk=game.pk), number=number, entry=entry)
    return Game.objects.get(pk=game.pk)


def test_a_finished_game_of_teams_of_three_counts_all_six_players():
    game = international_session()
    assert game.is_finished
    rows = {row.player.name: row for row in PlayerGameFigures.objects.select_related("player")}
    assert sorted(rows) == ["Anu", "Biju", "Chitra", "Dev", "Esha", "Farid"]
    assert [rows[name].won for name in ("Anu", "Chitra", "Dev", "Farid")] == [0, 0, 1, 1]
    assert rows["Dev"].declared == rows["Dev"].made == 18
    # On a points sheet nothing moves: the ledger's points are not tables net.
    assert {row.tables_net for row in TeamGameFigures.objects.all()} == {0}
    assert RatingChange.objects.filter(game=game).count() == 6
    winners = TeamTotals.objects.get(team__name="Dev & Esha & Farid")
    assert (
        winners.rating is not None
        and winners.rating > TeamTotals.objects.exclude(pk=winners.pk).get().rating
    )
    assert figures.drift() == []
    figures.rebuild_all()  # the set-wise rebuild gives the same rows
    assert figures.drift() == []
    assert PlayerGameFigures.objects.count() == 6


def test_a_third_player_can_be_merged_and_keeps_the_games():
    international_session()
    stray = create_game(
        label="Friday",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra K", "Gita")],
        first_dealer=0,
    )
    assert stray.pk
    merge_players(keep=Player.objects.get(name="Chitra"), fold=Player.objects.get(name="Chitra K"))
    chitra = Player.objects.get(name="Chitra")
    assert chitra.pk in {
        p for team in Game.objects.get(label="Friday").teams.all() for p in team.player_ids
    }
    partners = PARTNERS % {"keep": "Chitra", "fold": "Anu"}
    with pytest.raises(RegisterError, match=re.escape(partners)):
        merge_players(keep=chitra, fold=Player.objects.get(name="Anu"))


def test_a_third_seat_players_profile_and_the_team_board_show_the_game(client):
    international_session()
    chitra = Player.objects.get(name="Chitra")
    page = client.get(reverse("leaderboards:player", args=[chitra.pk])).text
    assert "International" in page
    board = client.get(reverse("leaderboards:team_board")).text
    assert "Farid" in board and "Chitra" in board


def test_merging_a_third_seat_player_keeps_the_figures_of_the_games():
    international_session()
    create_game(
        label="Friday",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra K", "Gita")],
        first_dealer=0,
    )
    merge_players(keep=Player.objects.get(name="Chitra K"), fold=Player.objects.get(name="Chitra"))
    kept = Player.objects.get(name="Chitra K")
    assert PlayerGameFigures.objects.filter(player=kept).count() == 1  # the finished session
    assert figures.drift() == []


def test_a_profile_names_both_partners_of_a_team_of_three(client):
    international_session()
    page = client.get(reverse("leaderboards:player", args=[Player.objects.get(name="Anu").pk]))
    partners = page.text.split("Anu &amp; Biju &amp; Chitra, with", 1)[1].split("</span>", 1)[0]
    assert ">Biju</a> &amp; <a" in partners and ">Chitra</a>" in partners


def test_a_profile_line_of_a_points_sheet_gives_the_teams_points_not_tables(client):
    international_session()  # Dev's team makes 28 in all 18 deals: 18 points to 0
    for name, points in (("Dev", "18 points"), ("Anu", "0 points")):
        page = client.get(reverse("leaderboards:player", args=[Player.objects.get(name=name).pk]))
        # The profile's list of games (the night in review above it says "18–0 points").
        games = page.text.split("<h2>Games</h2>", 1)[1]
        result = games.split('<div class="profile-result">', 1)[1].split("</div>", 1)[0]
        assert f'<span class="small">{points}</span>' in result
        assert "tables" not in result
