"""One set of bounds for house rules: the forms, the importer, the core and the database.

A game created on the web with a payout of 5,000 tables used to play, and then
the club's export no longer imported ("band 1 needs made as a whole number
from 0 to 1000"), which blocked restoring the whole club from its export.
Now whatever the web accepts the importer accepts, and the other way round.
"""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.games.models import Game
from club.scoring import archive
from club.scoring import rules as core
from club.tournaments.models import Tournament
from tests.factories import start_game
from tests.games import test_views as game_views
from tests.tournaments.test_views import new_tournament_post

pytestmark = pytest.mark.django_db

TOO_BIG = {
    "payout": (
        "28-39: 5000 2\n40-56: 2 3",
        "Payout band 1 moves 5000 tables; a band moves at most 1000.",
    ),
    "tables_per_team": ("1001", "less than or equal to 1000"),
    "double_factor": ("1001", "less than or equal to 1000"),
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
            core.Rules(**rules)


def test_the_database_refuses_rules_beyond_the_bounds_written_around_the_core():
    game = start_game(2)
    for values in ({"tables_per_team": 5000}, {"double_factor": 5000}, {"deal_limit": 5000}):
        with pytest.raises(IntegrityError), transaction.atomic():
            Game.objects.filter(pk=game.pk).update(**values)


def round_trips(game: Game) -> None:
    """The club's export of this game imports (under another label)."""
    document = json.loads(archive.export_json())
    [exported] = [entry for entry in document["games"] if entry["label"] == game.label]
    exported["label"] += " (again)"
    with transaction.atomic():
        archive.import_results(json.dumps({"format": archive.FORMAT, "games": [exported]}))
        transaction.set_rollback(True)


def test_a_web_game_at_every_bound_exports_and_imports(organiser_client):
    response = organiser_client.post(
        reverse("games:new"),
        game_views.TestNewGame().valid(
            tables_per_team=str(core.MAX_TABLES),
            payout="28-39: 1000 1000\n40-56: 0 1000",
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
