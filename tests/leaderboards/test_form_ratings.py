"""Each form of play rated as a list of its own (docs/rules.md: the ratings), kept in step
with every change beside the site's ratings, and the federation's ranking of one form."""

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from club.games.models import Game
from club.games.services import TeamEntry, create_game, edit_deal, end_game, record_deal
from club.leaderboards.models import PlayerFormRating, PlayerRating, RatingChange, RatingsState
from club.scoring import rules as core
from tests.factories import deal

from .test_maintained import assert_in_step

KODI = core.preset_rules(core.Preset.KODI, 4)
POINTS = core.Rules(scoring=core.Scoring.POINTS, deal_limit=8)


def _played(label, pairs, winner, rules=None, points=(30, 26)):
    game = create_game(
        label=label, teams=[TeamEntry(*pair) for pair in pairs], first_dealer=0, rules=rules
    )
    record_deal(game=game, number=1, entry=deal(game, {0: points[0], 1: points[1]}, winner, 28))
    end_game(game=game)
    game.refresh_from_db()
    assert game.is_finished
    return game


@pytest.fixture
def forms(club):
    """The hand-made club's table games, then a kodi night and a points sheet with some
    of the same players."""
    kodi = _played("Kodi 1", [("Anu", "Esha"), ("Chitra", "Farid")], "Chitra", KODI, (26, 30))
    points = _played("Sheet 1", [("Anu", "Biju"), ("Esha", "Farid")], "Anu", POINTS)
    return {**club, "K": kodi, "P": points}


def test_each_form_is_rated_from_its_own_games(forms):
    assert_in_step()
    anu = PlayerRating.objects.get(player__name="Anu")
    kept = {row.form: row for row in PlayerFormRating.objects.filter(player=anu.player)}
    # Anu played two table games finished, the kodi night and the points sheet.
    assert {form: row.games for form, row in kept.items()} == {
        "tables": 3,
        "kodi": 1,
        "points": 1,
    }
    assert anu.games == 5
    # She lost the kodi night and won the sheet: one game each, so opposite ratings.
    assert kept["kodi"].rating < kept["points"].rating


def test_an_earlier_correction_rerates_every_form_after_it(forms):
    before = dict(PlayerFormRating.objects.filter(form="kodi").values_list("player_id", "rating"))
    b = forms["B"]
    edit_deal(
        game=b,
        number=2,
        entry=deal(b, {0: 26, 1: 30}, "Chitra", 29, trump="clubs", doubling="redouble"),
    )
    assert Game.objects.get(pk=b.pk).winner.team.name == "Chitra & Dev"
    assert_in_step()
    # The kodi night's own list does not count the table game corrected.
    after = dict(PlayerFormRating.objects.filter(form="kodi").values_list("player_id", "rating"))
    assert after == pytest.approx(before)


def test_a_game_deleted_leaves_its_form_and_the_others_in_step(forms):
    forms["K"].delete()
    assert_in_step()
    assert not PlayerFormRating.objects.filter(form="kodi").exists()
    forms["A"].delete()
    assert_in_step()


def test_a_site_rated_before_forms_were_kept_rates_them_once_leaving_its_ratings(forms):
    RatingChange.objects.update(form="", form_mu_after=None, form_sigma_after=None)
    PlayerFormRating.objects.all().delete()
    RatingsState.objects.update(forms_kept=False)
    rows = set(RatingChange.objects.values_list("pk", "after"))
    _played("Kodi 2", [("Anu", "Esha"), ("Chitra", "Farid")], "Anu", KODI)
    assert rows <= set(RatingChange.objects.values_list("pk", "after"))  # none rewritten
    assert_in_step()


def _listed(client, **query):
    response = client.get("/ranking/", query)
    assert response.status_code == 200
    return [(row["player"].name, row["games"]) for row in response.context["rows"]], response


def test_the_ranking_of_one_form_is_that_forms_list(client, forms, settings):
    settings.CLUB_RANKING_MIN_GAMES = 1
    kodi, page = _listed(client, form="kodi")
    expected = list(
        PlayerFormRating.objects.filter(form="kodi")
        .order_by("-rating", "player__name")
        .values_list("player__name", "games")
    )
    assert kodi == expected
    assert {name for name, _ in kodi} == {"Anu", "Esha", "Chitra", "Farid"}
    html = page.content.decode()
    assert '<option value="kodi" selected>' in html
    assert "each player is rated from the games of this form of play alone" in html
    settings.CLUB_RANKING_MIN_GAMES = 2  # a setting read at start: no kept page knows it
    caches["pages"].clear()
    assert _listed(client, form="kodi")[0] == []  # one kodi night each: under the minimum
    tables, _ = _listed(client, form="tables")
    assert ("Anu", 3) in tables and "Esha" not in {name for name, _ in tables}
    # A form the site does not know shows the ranking over every form, as the list says.
    every, page = _listed(client, form="bridge")
    assert every == _listed(client)[0]


def test_the_api_serves_one_forms_ranking(client, forms, settings):
    settings.CLUB_RANKING_MIN_GAMES = 1
    answer = client.get("/api/v1/ranking/", {"form": "points"})
    assert answer.status_code == 200
    results = answer.json()["results"]
    assert [(row["name"], row["games"]) for row in results] == list(
        PlayerFormRating.objects.filter(form="points")
        .order_by("-rating", "player__name")
        .values_list("player__name", "games")
    )
    assert client.get("/api/v1/ranking/", {"form": "bridge"}).status_code == 422


def test_the_ranking_of_a_form_costs_the_same_for_more_games(client, forms, settings):
    settings.CLUB_RANKING_MIN_GAMES = 1
    counts = []
    for more in range(2):
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/ranking/", {"form": "kodi"}).status_code == 200
        counts.append(len(queries))
        for number in range(3):
            _played(
                f"Kodi {more}{number}", [(f"P{more}{number}", "Esha"), ("X", "Y")], "Esha", KODI
            )
    assert counts[0] == counts[1]


def test_migrate_rates_each_form_of_an_upgraded_site_at_once(forms):
    """The upgrade's migrate rates every form before the first game after it has to."""
    from django.core.management import call_command

    RatingChange.objects.update(form="", form_mu_after=None, form_sigma_after=None)
    PlayerFormRating.objects.all().delete()
    RatingsState.objects.update(forms_kept=False)
    rows = set(RatingChange.objects.values_list("pk", "after"))
    call_command("migrate", verbosity=0)
    assert RatingsState.objects.get().forms_kept
    assert set(RatingChange.objects.values_list("pk", "after")) == rows
    assert_in_step()
