"""Each team's contracts declared and made, kept on its row of the game.

The standings count them for every finished game of a tournament, at every
deal that ends a game; reading them from the team's row instead of counting
the tournament's deals keeps that deal's cost flat. They are derived like the
ledger: every write keeps them equal to a replay (``assert_consistent`` in
test_services checks it after each write), the migration that added them
counted them once, and a restore counts them again.
"""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from club.games.models import GameTeam
from club.games.services import edit_deal, record_deal, recount_contracts, undo_last_deal
from tests.factories import all_pass, deal, start_game

pytestmark = pytest.mark.django_db


def played():
    """Anu & Biju declare twice (made, then failed), Chitra & Dev once (made); one pass."""
    game = start_game(2)
    for number, entry in enumerate(
        [
            deal(game, {0: 30, 1: 26}, "Anu", 28),  # made
            deal(game, {0: 20, 1: 36}, "Chitra", 28),  # made
            deal(game, {0: 20, 1: 36}, "Biju", 30),  # failed
            all_pass({0: 28, 1: 28}),
        ],
        start=1,
    ):
        record_deal(game=game, number=number, entry=entry)
    return game


def contracts(game) -> list[tuple[int, int]]:
    return [(team.declared, team.made) for team in GameTeam.objects.filter(game=game)]


def counted(game) -> list[tuple[int, int]]:
    """The contracts counted from the stored deals, team by team."""
    return [
        (
            game.rounds.filter(declaring_team=team).count(),
            game.rounds.filter(declaring_team=team, made=True).count(),
        )
        for team in GameTeam.objects.filter(game=game)
    ]


def test_recording_correcting_and_undoing_keep_the_counts_of_the_deals():
    game = played()
    assert contracts(game) == counted(game)
    assert sum(declared for declared, _ in contracts(game)) == 4  # the pass counts, as before
    edit_deal(game=game, number=3, entry=deal(game, {0: 31, 1: 25}, "Biju", 30))  # now made
    assert contracts(game) == counted(game)
    undo_last_deal(game=game, number=4)
    assert contracts(game) == counted(game)
    assert sum(declared for declared, _ in contracts(game)) == 3


def test_the_migration_and_a_restore_count_them_from_the_deals():
    game, other = played(), played()
    expected = {game.pk: contracts(game), other.pk: contracts(other)}
    GameTeam.objects.update(declared=0, made=0)
    migration = importlib.import_module("club.games.migrations.0013_team_contracts")
    migration.count_contracts(apps, None)
    assert {pk: contracts(pk) for pk in expected} == expected
    GameTeam.objects.update(declared=9, made=9)
    recount_contracts([game])  # only the games given
    assert contracts(game) == expected[game.pk]
    assert contracts(other) == [(9, 9), (9, 9)]
    recount_contracts()
    assert {pk: contracts(pk) for pk in expected} == expected
