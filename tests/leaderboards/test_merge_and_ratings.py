"""Merging two records of one person, and ratings recomputed after a correction."""

import datetime
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from club.games.models import GameTeam, Player, Round, Team
from club.games.services import Deal, TeamEntry, create_game, edit_deal, record_deal
from club.leaderboards.merge import (
    PARTNERS,
    SAT_AT_ONE_GAME,
    TWO_DIFFERENT_PLAYERS,
    TWO_TEAMS_OF_A_TOURNAMENT,
    merge_players,
)
from club.leaderboards.models import PlayerRating, RatingChange
from club.leaderboards.selectors import Filters, player_board, team_board
from club.leaderboards.services.ratings import rebuild_ratings
from club.leaderboards.services.register import RegisterError
from club.scoring import ratings
from club.scoring import rules as core
from club.tournaments.models import Tournament, TournamentTeam
from tests.factories import pid, seat

from .conftest import play
from .test_boards import PLAYERS_ALL
from .test_boards import TABLE_FIGURES as FIELDS


@pytest.fixture
def duplicate(club):
    """Game E: "Anu M" (Anu under another name) & Biju, as "Menon & Biju", beat Gita & Hari.

    2 tables each; Anu M sits in seat 0 and deals, Gita bids first.
    1. Anu M 45 spades, piles 45 / 11: made, 2 tables; Gita & Hari hold 2 and go out.
    """
    game = create_game(
        label="Game E",
        teams=[TeamEntry("Anu M", "Biju", name="Menon & Biju"), TeamEntry("Gita", "Hari")],
        first_dealer=0,
        rules=core.Rules(tables_per_team=2),
    )
    play(game, Deal(points={0: 45, 1: 11}, declarer=seat(game, "Anu M"), bid=45, trump="spades"))
    Player.objects.filter(name="Anu M").update(member_number="M-7", nickname="Ammu")
    return game


def test_merge_keeps_every_result(duplicate):
    before = {row.name: row for row in player_board(Filters())}
    assert before["Anu M"].played == 1 and before["Anu"].played == 3
    anu, anu_m = Player.objects.get(name="Anu"), Player.objects.get(name="Anu M")
    result = merge_players(keep=anu, fold=anu_m)
    assert (result.kept, result.folded_name, result.games) == (anu, "Anu M", 1)

    after = {row.name: row for row in player_board(Filters())}
    assert "Anu M" not in after
    # Counts add up; the biggest bid made is the larger of the two (45 over 30).
    summed = [
        getattr(before["Anu"], name) + getattr(before["Anu M"], name)
        for name in FIELDS
        if name != "biggest_bid"
    ]
    assert [getattr(after["Anu"], name) for name in FIELDS if name != "biggest_bid"] == summed
    assert tuple(getattr(after["Anu"], name) for name in FIELDS) == (4, 3, 2, 2, 1, 0, 1, 0, 8, 45)
    # Everyone else is untouched.
    for name in ("Chitra", "Dev", "Esha", "Farid"):
        assert tuple(getattr(after[name], f) for f in FIELDS) == PLAYERS_ALL[name]
    for name in ("Biju", "Gita", "Hari"):
        assert [getattr(after[name], f) for f in FIELDS] == [
            getattr(before[name], f) for f in FIELDS
        ]
    # Every reference moved.
    assert not Player.objects.filter(name="Anu M").exists()
    assert Round.objects.filter(declarer=anu).count() == 3  # A, D and E
    assert Round.objects.filter(game__label="Game E", number=1, dealer=anu).exists()
    assert GameTeam.objects.filter(first_player=anu).count() == 5
    # The two teams of the same pair are both kept, under their own names.
    assert sorted(
        Team.objects.filter(first_player=anu, second_player__name="Biju").values_list(
            "name", flat=True
        )
    ) == ["Anu & Biju", "Menon & Biju"]
    # Ratings rebuilt: Anu is rated over four games, and nothing is left of Anu M.
    assert PlayerRating.objects.get(player=anu).games == 4
    assert RatingChange.objects.filter(player=anu).count() == 4
    # The empty member number and nickname came from the folded record.
    anu.refresh_from_db()
    assert (anu.member_number, anu.nickname) == ("M-7", "Ammu")


def test_merge_refusals(duplicate):
    anu, biju, chitra = (Player.objects.get(name=n) for n in ("Anu", "Biju", "Chitra"))
    with pytest.raises(RegisterError) as error:
        merge_players(keep=anu, fold=biju)
    assert error.value.message == PARTNERS % {"keep": "Anu", "fold": "Biju"}
    with pytest.raises(RegisterError) as error:
        merge_players(keep=anu, fold=chitra)
    assert error.value.message == SAT_AT_ONE_GAME % {
        "keep": "Anu",
        "fold": "Chitra",
        "game": "Game A",
    }
    with pytest.raises(RegisterError, match=re.escape(str(TWO_DIFFERENT_PLAYERS))):
        merge_players(keep=anu, fold=anu)
    # Anu M and Gita were opponents at game E; they never partnered.
    sat = SAT_AT_ONE_GAME % {"keep": "Gita", "fold": "Anu M", "game": "Game E"}
    with pytest.raises(RegisterError, match=re.escape(sat)):
        merge_players(keep=Player.objects.get(name="Gita"), fold=Player.objects.get(name="Anu M"))
    # Esha and Hari never met, but play in different teams of one tournament.
    cup = Tournament.objects.create(name="Cup", starts_on=datetime.date(2025, 4, 1))
    TournamentTeam.objects.create(tournament=cup, team=Team.objects.get(name="Esha & Farid"))
    TournamentTeam.objects.create(tournament=cup, team=Team.objects.get(name="Gita & Hari"))
    two = TWO_TEAMS_OF_A_TOURNAMENT % {"keep": "Esha", "fold": "Hari", "tournament": "Cup"}
    with pytest.raises(RegisterError, match=re.escape(two)):
        merge_players(keep=Player.objects.get(name="Esha"), fold=Player.objects.get(name="Hari"))
    assert Player.objects.count() == 9  # nothing merged


def test_merge_page(organiser_client, duplicate):
    anu, anu_m, biju = (Player.objects.get(name=n) for n in ("Anu", "Anu M", "Biju"))
    url = reverse("leaderboards:merge")
    response = organiser_client.post(url, {"keep": anu.pk, "fold": biju.pk})
    assert response.status_code == 200
    assert PARTNERS % {"keep": "Anu", "fold": "Biju"} in response.content.decode()
    response = organiser_client.post(url, {"keep": anu.pk, "fold": anu.pk})
    assert str(TWO_DIFFERENT_PLAYERS) in response.content.decode()
    response = organiser_client.post(url, {"keep": anu.pk, "fold": anu_m.pk})
    assert response.status_code == 302 and response.url == anu.get_absolute_url()
    assert not Player.objects.filter(pk=anu_m.pk).exists()


def _stored():
    return {r.player_id: (r.mu, r.sigma, r.rating, r.games) for r in PlayerRating.objects.all()}


def test_correction_that_changes_the_winner_recomputes_ratings(club):
    a, b, c = club["A"], club["B"], club["C"]
    before = _stored()
    # Correct game B's last deal: Chitra's redoubled 29 clubs made (30 to 26) instead of
    # failed. Anu & Biju hold 2 tables after deal 1, owe 1 x 4 and pay 2: they are out,
    # and Chitra & Dev win game B.
    edit_deal(
        game=b,
        number=2,
        entry=Deal(
            points={0: 26, 1: 30},
            declarer=seat(b, "Chitra"),
            bid=29,
            trump="clubs",
            doubling="redouble",
        ),
    )
    b.refresh_from_db()
    assert b.winner.team.name == "Chitra & Dev"
    stored = _stored()
    assert stored != before

    anu, biju, chitra, dev, esha, farid = (
        pid(n) for n in ("Anu", "Biju", "Chitra", "Dev", "Esha", "Farid")
    )
    expected, _changes = ratings.rate_games(
        [
            ratings.RatedGame(a.pk, [(anu, biju), (chitra, dev)], [1, 2]),
            ratings.RatedGame(b.pk, [(anu, biju), (chitra, dev)], [2, 1]),
            ratings.RatedGame(c.pk, [(anu, biju), (chitra, dev), (esha, farid)], [2, 2, 1]),
        ]
    )
    assert stored.keys() == expected.keys()
    for player, rating in expected.items():
        assert stored[player] == pytest.approx(
            (rating.mu, rating.sigma, rating.rating, rating.games)
        )
    history = list(RatingChange.objects.filter(player=chitra).order_by("position"))
    assert [(h.game_id, h.before, h.after) for h in history] == [
        (ch.game, ch.before, ch.after) for ch in _changes if ch.player == chitra
    ]
    # And a fresh rebuild from scratch gives exactly the same rows.
    assert rebuild_ratings() == 3
    assert _stored() == stored
    # The figures follow the correction too: Chitra made the redouble and won game B.
    rows = {row.name: row for row in player_board(Filters())}
    assert (rows["Chitra"].won, rows["Chitra"].made, rows["Chitra"].redoubles_won) == (1, 1, 1)
    assert rows["Anu"].redoubles_lost == 1
    teams = {row.name: row for row in team_board(Filters())}
    assert teams["Chitra & Dev"].tables_net == -4 + 4 - 2  # A -4, B +2 +2, C -2


def test_rebuild_ratings_command(club, capsys):
    call_command("rebuild_ratings")
    assert capsys.readouterr().out.strip() == "Rated 3 finished games."
    # The in-progress game D finishing makes four.
    game = club["D"]
    record_deal(
        game=game,
        number=2,
        entry=Deal(points={0: 56, 1: 0}, declarer=seat(game, "Biju"), bid=56, trump="hearts"),
    )
    game.refresh_from_db()
    assert game.is_finished
    call_command("rebuild_ratings")
    assert capsys.readouterr().out.strip() == "Rated 4 finished games."
