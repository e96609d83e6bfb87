"""House rules declared once (games.models.HouseRules), for games and tournaments alike.

The two copies used to drift: tournaments took a doubling factor of 0, which
no game they started could then be played by. Now both models hold the same
fields and checks, and a migration brought the tournaments' check in line.
"""

from __future__ import annotations

import datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from club.games.models import Game, HouseRules
from club.scoring import rules as core
from club.tournaments.models import Tournament
from tests.factories import start_game

BEFORE = ("tournaments", "0003_clamp_house_rules_beyond_the_bounds")
AFTER = ("tournaments", "0004_tournament_doubling_factors_positive")
RULE_FIELDS = [
    "tables_per_team",
    "payout_bands",
    "double_factor",
    "redouble_factor",
    "team_size",
    "scoring",
    "doubling_mode",
    "all_pass",
    "kodi",
    "thani_made",
    "thani_failed",
    "small_deck",
]


def test_games_and_tournaments_take_their_house_rules_from_one_declaration():
    assert [field.name for field in HouseRules._meta.local_fields] == RULE_FIELDS
    for model in (Game, Tournament):
        names = {constraint.name for constraint in model._meta.constraints}
        kind = model._meta.model_name
        assert {f"{kind}_tables_at_least_one", f"{kind}_doubling_factors_positive"} <= names
        for name in RULE_FIELDS:
            assert (
                model._meta.get_field(name).deconstruct()[1:]
                == (HouseRules._meta.get_field(name).deconstruct()[1:])
            )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change",
    [{"double_factor": 0}, {"redouble_factor": 0}, {"tables_per_team": 0}],
    ids=lambda change: next(iter(change)),
)
def test_the_database_refuses_house_rules_no_game_can_be_played_by(change):
    game = start_game(2)
    tournament = Tournament.objects.create(name="Onam Cup", starts_on=datetime.date(2026, 9, 1))
    for model, pk in ((Game, game.pk), (Tournament, tournament.pk)):
        with pytest.raises(IntegrityError), transaction.atomic():
            model.objects.filter(pk=pk).update(**change)
    assert Tournament.objects.get(pk=tournament.pk).rules == core.DEFAULT_RULES
    assert Game.objects.get(pk=game.pk).rules == core.DEFAULT_RULES


@pytest.mark.django_db(transaction=True)
def test_the_migration_raises_a_tournaments_zero_factor_to_one_and_keeps_the_rest():
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    old = executor.loader.project_state([BEFORE]).apps.get_model("tournaments", "Tournament")
    zero = old.objects.create(
        name="Zero", starts_on=datetime.date(2026, 9, 1), double_factor=0, redouble_factor=0
    )
    kept = old.objects.create(
        name="Kept", starts_on=datetime.date(2026, 9, 1), double_factor=3, redouble_factor=9
    )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert Tournament.objects.get(pk=zero.pk).rules == core.Rules(
        double_factor=1, redouble_factor=1
    )
    assert Tournament.objects.get(pk=kept.pk).rules == core.Rules(
        double_factor=3, redouble_factor=9
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Tournament.objects.filter(pk=kept.pk).update(double_factor=0)


@pytest.mark.django_db
def test_the_database_refuses_a_points_sheet_without_a_deal_limit():
    game = start_game(2, rules=core.preset_rules(core.Preset.KODI, 4))
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.filter(pk=game.pk).update(scoring="points", kodi=False, deal_limit=None)
    tournament = Tournament.objects.create(name="Sheet Cup", starts_on=datetime.date(2026, 9, 1))
    with pytest.raises(IntegrityError), transaction.atomic():
        Tournament.objects.filter(pk=tournament.pk).update(scoring="points")
