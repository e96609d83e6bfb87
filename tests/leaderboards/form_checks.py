"""Each form of play's ratings against a rating of that form's games from scratch."""

import pytest

from club.games.models import Game
from club.games.words import form_named
from club.leaderboards.models import PlayerFormRating, RatingChange, RatingsState
from club.leaderboards.services.ratings import FORMS, rated_games
from club.scoring import ratings


def assert_form_ratings_in_step() -> None:
    """Every form's stored list, and each rating change's skill in its form, equal the
    form's finished games rated alone, in the order they finished."""
    games = rated_games()
    form = {
        pk: form_named(scoring, kodi)
        for pk, scoring, kodi in Game.objects.values_list("pk", "scoring", "kodi")
    }
    if games:
        assert RatingsState.objects.get().forms_kept
    for each in FORMS:
        expected, changes = ratings.rate_games([g for g in games if form[g.game] == each])
        stored = {
            row.player_id: (row.mu, row.sigma, row.rating, row.games)
            for row in PlayerFormRating.objects.filter(form=each)
        }
        assert stored.keys() == expected.keys(), each
        for player, rating in expected.items():
            assert stored[player] == pytest.approx(
                (rating.mu, rating.sigma, rating.rating, rating.games)
            )
        by_key = {(c.game, c.player): c for c in changes}
        rows = RatingChange.objects.filter(form=each)
        assert sorted((r.game_id, r.player_id) for r in rows) == sorted(by_key)
        for row in rows:
            change = by_key[row.game_id, row.player_id]
            assert (row.form_mu_after, row.form_sigma_after) == pytest.approx(
                (change.mu_after, change.sigma_after)
            )
    assert not RatingChange.objects.exclude(form__in=FORMS).exists()
