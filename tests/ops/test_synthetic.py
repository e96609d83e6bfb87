"""generate_club writes valid games: every sampled game replays to what is stored."""

import pytest
from django.core.management import call_command
from django.db import transaction

from club.games.models import Game, LedgerEntry, Round
from club.leaderboards.models import PlayerRating
from club.ops import synthetic
from club.ops.synthetic_check import CheckFailed, check_games
from club.tournaments.models import Standing, Tournament

pytestmark = pytest.mark.django_db


class Rollback(Exception):
    pass


def generate_and_measure(seed: int) -> dict:
    plan = synthetic.PRESETS["small"]
    plan = synthetic.Plan(**{**plan.__dict__, "seed": seed})
    try:
        with transaction.atomic():
            synthetic.generate(plan, say=lambda text: None, check=0)
            figures = synthetic.ledger_sums(f"S{seed} Cup")
            raise Rollback
    except Rollback:
        return figures


def test_small_preset_writes_valid_games_standings_and_ratings(capsys):
    call_command("generate_club", "--preset", "small", "--check", "12")

    games = Game.objects.filter(sitting_entry__isnull=False)
    assert games.count() == 12  # 8 teams: 4 games a sitting, 3 sittings
    assert all(game.status == Game.Status.FINISHED for game in games)
    # Every game of the club, replayed through the scoring service, matches its rows.
    assert check_games(games.values_list("pk", flat=True)) == 12
    for game in games:
        balances = LedgerEntry.objects.filter(round__game=game, round__number=game.deals_played)
        assert sum(entry.balance for entry in balances) == 24  # tables are conserved
    for tournament in Tournament.objects.all():
        assert Standing.objects.filter(tournament=tournament).count() == 8
    # Beside the tournament, two games of each form of play (docs/rules.md section D).
    forms = Game.objects.filter(sitting_entry__isnull=True)
    assert forms.count() == 2 * len(synthetic.FORMS_OF_PLAY)
    assert check_games(forms.values_list("pk", flat=True)) == forms.count()
    assert set(forms.values_list("team_size", "scoring", "kodi")) == {
        (3, "points", False),
        (3, "tables", True),
        (2, "tables", False),
        (4, "tables", False),
    }
    assert all(game.status == Game.Status.FINISHED for game in forms)
    assert PlayerRating.objects.count() >= 16  # the 16 players of the 8 teams, and more
    assert "all match" in capsys.readouterr().out


def test_a_tampered_game_fails_the_check():
    call_command("generate_club", "--preset", "small", "--check", "0")
    round_ = Round.objects.order_by("id").first()
    Round.objects.filter(pk=round_.pk).update(made=not round_.made)
    with pytest.raises(CheckFailed, match="deal 1"):
        check_games([round_.game_id])


def test_the_same_seed_gives_the_same_club():
    first, again, other = generate_and_measure(7), generate_and_measure(7), generate_and_measure(8)
    assert first == again
    assert first["deals"] > 0 and first["games"] == 12
    assert other != first


def test_games_that_reach_their_deal_limit_are_written_finished_and_replay_alike():
    """large and federation end every fifth tournament's games at 30 deals, and every
    fourth plays 4-team games to 60: each game written must be what the services make of
    its deals (it once was written still in progress at its limit)."""
    plan = synthetic.Plan(
        **{
            **synthetic.PRESETS["small"].__dict__,
            "tournaments": 2,
            "deal_limit_every": 1,
            "four_team_every": 2,
            "seed": 35,
        }
    )
    synthetic.generate(plan, say=lambda text: None, check=0)
    games = Game.objects.filter(sitting_entry__isnull=False)
    assert games.filter(deal_limit__isnull=False).count() == games.count()
    assert all(game.status == Game.Status.FINISHED for game in games)
    at_limit = [game for game in games if game.deals_played == game.deal_limit]
    assert at_limit  # some games were ended by their limit, not by a team left alone
    assert check_games(games.values_list("pk", flat=True)) == games.count()
