"""Games that end before one team is left: a deal limit, or the organiser calling time."""

import pytest

from club.games.models import Change, Game
from club.games.services import (
    Deal,
    ScoringError,
    edit_deal,
    end_game,
    record_deal,
    undo_last_deal,
)
from club.games.services.refusals import OVER_SHARED, OVER_WON, RESULTS_FINAL
from club.leaderboards.models import PlayerRating, RatingChange
from tests.factories import start_game

pytestmark = pytest.mark.django_db


def tables(game):
    return [team.tables for team in game.teams.order_by("position")]


def places(game):
    return [team.place for team in game.teams.order_by("position")]


def test_a_game_with_a_deal_limit_ends_after_that_many_deals():
    game = start_game(2, deal_limit=2)
    anu, chitra = 0, 1  # their seats, in play order
    # Deal 1: Anu 28 made with 30: Anu & Biju 13, Chitra & Dev 11.
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 30, 1: 26}, declarer=anu, bid=28, trump="spades"),
    )
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS
    # Deal 2: Chitra 40 made with 40: 2 tables to Chitra & Dev: 11 / 13.
    record_deal(
        game=game,
        number=2,
        entry=Deal(points={0: 16, 1: 40}, declarer=chitra, bid=40, trump="hearts"),
    )
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert tables(game) == [11, 13]
    assert places(game) == [2, 1]
    assert game.winner.team.name == "Chitra & Dev"
    assert game.finished_at is not None
    with pytest.raises(ScoringError, match=str(OVER_WON) % {"team": "Chitra & Dev"}):
        record_deal(game=game, number=3, entry=Deal(points={0: 28, 1: 28}))


def test_equal_tables_at_the_limit_share_first_place_and_there_is_no_winner():
    game = start_game(2, deal_limit=2)
    anu, chitra = 0, 1  # their seats, in play order
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 30, 1: 26}, declarer=anu, bid=28, trump="spades"),
    )
    record_deal(
        game=game,
        number=2,
        entry=Deal(points={0: 26, 1: 30}, declarer=chitra, bid=28, trump="spades"),
    )
    game.refresh_from_db()
    assert tables(game) == [12, 12]
    assert places(game) == [1, 1]
    assert game.winner is None
    with pytest.raises(ScoringError, match=str(OVER_SHARED)):
        record_deal(game=game, number=3, entry=Deal(points={0: 28, 1: 28}))


def test_a_correction_cannot_add_deals_beyond_the_limit_and_undo_reopens():
    game = start_game(2, deal_limit=1)
    anu = 0  # her seat, in play order
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 30, 1: 26}, declarer=anu, bid=28, trump="spades"),
    )
    game.refresh_from_db()
    assert game.is_finished
    undo_last_deal(game=game, number=1)
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS
    assert game.finished_at is None
    assert places(game) == [None, None]


def test_calling_time_places_three_teams_by_tables_held():
    game = start_game(3, first_dealer=0)
    chitra, esha = 1, 2  # their seats, in play order
    # Deal 1: Esha 40 made: 2 tables from each: 10, 10, 16.
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 8, 1: 8, 2: 40}, declarer=esha, bid=40, trump="clubs"),
    )
    # Deal 2: Chitra 28 made: 1 from each: 9, 12, 15.
    record_deal(
        game=game,
        number=2,
        entry=Deal(points={0: 10, 1: 30, 2: 16}, declarer=chitra, bid=28, trump="clubs"),
    )
    end_game(game=game)
    game.refresh_from_db()
    assert game.is_finished and game.ended_early
    assert tables(game) == [9, 12, 15]
    assert places(game) == [3, 2, 1]
    assert game.winner.team.name == "Esha & Farid"
    assert Change.objects.filter(game=game, action=Change.Action.ENDED, number=2).exists()
    with pytest.raises(ScoringError, match=str(OVER_WON) % {"team": "Esha & Farid"}):
        end_game(game=game)


def test_undoing_the_last_deal_after_time_was_called_reopens_the_game():
    game = start_game(2)
    anu = 0  # her seat, in play order
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 30, 1: 26}, declarer=anu, bid=28, trump="spades"),
    )
    end_game(game=game)
    undo_last_deal(game=game, number=1)
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS
    assert not game.ended_early
    assert tables(game) == [12, 12]


def test_a_locked_game_refuses_every_change():
    game = start_game(2)
    anu = 0  # her seat, in play order
    entry = Deal(points={0: 30, 1: 26}, declarer=anu, bid=28, trump="spades")
    record_deal(game=game, number=1, entry=entry)
    Game.objects.filter(pk=game.pk).update(results_locked=True)
    message = str(RESULTS_FINAL)
    with pytest.raises(ScoringError, match=message):
        record_deal(game=game, number=2, entry=entry)
    with pytest.raises(ScoringError, match=message):
        edit_deal(game=game, number=1, entry=entry)
    with pytest.raises(ScoringError, match=message):
        undo_last_deal(game=game, number=1)
    with pytest.raises(ScoringError, match=message):
        end_game(game=game)
    assert game.rounds.count() == 1


def test_ratings_follow_finished_games_and_their_corrections():
    from club.leaderboards.services import rated_games
    from club.scoring.ratings import rate_games
    from club.scoring.rules import Rules

    game = start_game(2, rules=Rules(tables_per_team=1))
    anu = 0  # her seat, in play order
    assert not PlayerRating.objects.exists()  # nothing finished yet
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 30, 1: 26}, declarer=anu, bid=28, trump="spades"),
    )
    # Anu & Biju won: their players rate above Chitra & Dev's.
    ratings = {r.player.name: r.rating for r in PlayerRating.objects.select_related("player")}
    assert ratings["Anu"] > 0 > ratings["Chitra"]
    assert RatingChange.objects.count() == 4

    # Corrected so that Chitra & Dev won instead: the ratings are rebuilt, never patched.
    edit_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 20, 1: 36}, declarer=anu, bid=28, trump="spades"),
    )
    ratings = {r.player.name: r.rating for r in PlayerRating.objects.select_related("player")}
    assert ratings["Chitra"] > 0 > ratings["Anu"]
    fresh, _ = rate_games(rated_games())
    stored = {r.player_id: r.rating for r in PlayerRating.objects.all()}
    assert stored == {player: rating.rating for player, rating in fresh.items()}
