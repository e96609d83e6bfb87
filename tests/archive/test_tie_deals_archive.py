"""A knockout game's tie rule in the archive format (optional key ``tie_deals``): written
only when set, read back so that the extra deals past the limit are valid, and a file
that plays past its limit without one is still refused."""

from __future__ import annotations

import json

import pytest

from club.archive.export import export_json
from club.archive.format import ArchiveError
from club.archive.load import import_results
from club.archive.tournament_export import export_tournament_json
from club.games.models import Game
from club.tournaments import stages
from club.tournaments.models import Tournament
from tests.archive.test_tournament_archive import wipe
from tests.factories import start_game
from tests.tournaments.test_stages import event, level_then, next_sitting

pytestmark = pytest.mark.django_db


def played_tie():
    """A final of 2 deals, level after them, decided by the one extra deal."""
    tournament = event(teams=2, tables_per_team=6)
    stage = stages.add_stage(
        tournament=tournament, kind="knockout", qualifiers=2, deal_limit=2, tie_deals=1
    )
    stages.confirm_stage(stage=stage)
    game = next_sitting(tournament).games.get().game
    level_then(game, 0, 1, 1)
    return tournament, Game.objects.get(pk=game.pk)


def test_a_tie_broken_game_exports_its_rule_and_imports_as_it_was():
    tournament, game = played_tie()
    assert game.is_finished and game.deals_played == 3
    text = export_json()
    [written] = json.loads(text)["games"]
    assert written["deal_limit"] == 2 and written["tie_deals"] == 1
    assert len(written["rounds"]) == 3 and written["winner"] == game.winner.team.name
    assert '"tie_deals"' in export_tournament_json([Tournament.objects.get(pk=tournament.pk)])
    wipe()
    import_results(text)
    again = Game.objects.get()
    assert (again.deal_limit, again.tie_deals, again.deals_played) == (2, 1, 3)
    assert again.is_finished and export_json() == text


def test_a_game_without_a_tie_rule_writes_no_key():
    wipe()
    start_game(2, label="A friendly", deal_limit=10)
    assert "tie_deals" not in export_json()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda g: g.pop("tie_deals"), "the game ends after 2 deals but the file has 3"),
        (lambda g: g.update(tie_deals=-1), "tie"),
        (lambda g: g.update(tie_deals="one"), "tie"),
    ],
)
def test_a_tie_rule_that_does_not_fit_is_refused(change, message):
    _tournament, _game = played_tie()
    document = json.loads(export_json())
    change(document["games"][0])
    wipe()
    with pytest.raises(ArchiveError, match=message):
        import_results(json.dumps(document))
    assert not Game.objects.exists()


def test_a_tournament_in_stages_exports_and_imports_as_its_sittings_and_games():
    """Its games keep their stage's deal limit and tie rule; the tournament's own house rules
    are the games' (what the importer checks), and the file exports again the same."""
    tournament, _game = played_tie()
    text = export_tournament_json([Tournament.objects.get(pk=tournament.pk)])
    wipe()
    import_results(text)
    [again] = Game.objects.all()
    assert (again.deal_limit, again.tie_deals, again.deals_played) == (2, 1, 3)
    assert export_tournament_json([Tournament.objects.get()]) == text
