"""One set of bounds for house rules: the forms, the importer, the core and the database.

A game created on the web with a payout of 5,000 tables used to play, and then
the club's export no longer imported ("band 1 needs made as a whole number
from 0 to 1000"), which blocked restoring the whole club from its export.
Now whatever the web accepts the importer accepts, and the other way round.
"""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.archive.export import export_json
from club.archive.format import FORMAT, ArchiveError
from club.archive.load import import_results
from club.games.models import Game
from club.games.services import Deal, ScoringError, record_deal, replay_game
from club.scoring import rules as core
from club.tournaments.models import Tournament
from tests.factories import start_game
from tests.games import test_views as game_views
from tests.tournaments.test_views import new_tournament_post

pytestmark = pytest.mark.django_db

TOO_BIG = {
    "payout": (
        "28-39: 5000 2\n40-56: 2 3",
        "Payout band 1 moves 5000 tables; a band moves at most 4000.",
    ),
    "tables_per_team": ("1001", "Enter a whole number from 1 to 1000."),
    "double_factor": ("4001", "Enter a whole number from 1 to 4000."),
}


@pytest.mark.parametrize("field", TOO_BIG)
def test_a_new_game_beyond_the_bounds_is_refused_with_the_band_named(organiser_client, field):
    value, message = TOO_BIG[field]
    response = organiser_client.post(
        reverse("games:new"), game_views.TestNewGame().valid(**{field: value})
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Game.objects.exists()


@pytest.mark.parametrize("field", TOO_BIG)
def test_a_new_tournament_beyond_the_bounds_is_refused(organiser_client, field):
    value, message = TOO_BIG[field]
    response = organiser_client.post(
        reverse("tournaments:new"), new_tournament_post(**{field: value})
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Tournament.objects.exists()


def test_the_core_refuses_what_the_importer_refuses():
    for rules in (
        {"tables_per_team": core.MAX_TABLES + 1},
        {"double_factor": core.MAX_FACTOR + 1},
        {"redouble_factor": 10**30},
        {"bands": (core.Band(28, 56, core.MAX_BAND_TABLES + 1, 2),)},
    ):
        with pytest.raises(core.RulesError):
            core.check_house_rules(core.Rules(**rules))
    with pytest.raises(ScoringError, match="a band moves at most 4000"):
        start_game(2, rules=core.Rules(bands=(core.Band(28, 56, 5000, 2),)))


def test_a_game_kept_from_before_the_bounds_still_shows_and_is_brought_inside_them(client):
    """The web used to take any payout. Such a game still shows, and the migration that
    clamps its bands and factors to 4,000 (more than any team can hold) changes no deal."""
    import importlib

    game = start_game(2, rules=core.Rules(tables_per_team=10))
    chitra = 1  # her seat, in play order
    Game.objects.filter(pk=game.pk).update(
        payout_bands=[[28, 39, 10**30, 5000], [40, 56, 2, 3]], redouble_factor=10**4
    )
    deals = [  # made at 40, failed at 45, then made at 30 redoubled: all the tables
        (40, "none", {0: 16, 1: 40}),
        (45, "none", {0: 20, 1: 36}),
        (30, "redouble", {0: 20, 1: 36}),
    ]
    for number, (bid, doubling, points) in enumerate(deals, start=1):
        record_deal(
            game=Game.objects.get(pk=game.pk),
            number=number,
            entry=Deal(points=points, declarer=chitra, bid=bid, trump="hearts", doubling=doubling),
        )
    assert client.get(reverse("games:detail", args=[game.pk])).status_code == 200
    assert client.get(reverse("games:rules") + f"?game={game.pk}").status_code == 200
    game.refresh_from_db()
    before = [(s.transfers, s.tables_after) for s in replay_game(game)[1]]
    assert before[-1][1] == (0, 20)  # the huge band took every table
    with pytest.raises(ArchiveError):
        round_trips(game)  # the export of such a game did not import
    migration = importlib.import_module(
        "club.games.migrations.0005_clamp_house_rules_beyond_the_bounds"
    )
    migration.clamp(Game.objects.all())
    game.refresh_from_db()
    assert game.payout_bands == [[28, 39, 4000, 4000], [40, 56, 2, 3]]
    assert game.redouble_factor == 4000
    assert [(s.transfers, s.tables_after) for s in replay_game(game)[1]] == before
    round_trips(game)


def round_trips(game: Game) -> None:
    """The club's export of this game imports (under another label)."""
    document = json.loads(export_json())
    [exported] = [entry for entry in document["games"] if entry["label"] == game.label]
    exported["label"] += " (again)"
    with transaction.atomic():
        import_results(json.dumps({"format": FORMAT, "games": [exported]}))
        transaction.set_rollback(True)


def test_a_web_game_at_every_bound_exports_and_imports(organiser_client):
    response = organiser_client.post(
        reverse("games:new"),
        game_views.TestNewGame().valid(
            tables_per_team=str(core.MAX_TABLES),
            payout="28-39: 4000 4000\n40-56: 0 4000",
            double_factor=str(core.MAX_FACTOR),
            redouble_factor=str(core.MAX_FACTOR),
        ),
    )
    assert response.status_code == 302
    round_trips(Game.objects.get())


bands = (
    st.lists(st.integers(28, 55), unique=True, max_size=4)
    .map(sorted)
    .flatmap(
        lambda cuts: st.tuples(
            *[
                st.tuples(
                    st.integers(0, core.MAX_BAND_TABLES), st.integers(0, core.MAX_BAND_TABLES)
                )
                for _ in range(len(cuts) + 1)
            ]
        ).map(
            lambda payouts: tuple(
                core.Band(low, high, made, failed)
                for (low, high), (made, failed) in zip(
                    zip([28, *[cut + 1 for cut in cuts]], [*cuts, 56], strict=True),
                    payouts,
                    strict=True,
                )
            )
        )
    )
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    tables=st.integers(1, core.MAX_TABLES),
    bands=bands,
    double=st.integers(1, core.MAX_FACTOR),
    redouble=st.integers(1, core.MAX_FACTOR),
)
def test_any_rules_the_core_accepts_survive_an_export_and_import(tables, bands, double, redouble):
    rules = core.Rules(
        tables_per_team=tables, bands=bands, double_factor=double, redouble_factor=redouble
    )
    round_trips(start_game(2, rules=rules))
