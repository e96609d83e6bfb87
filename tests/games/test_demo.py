"""The demo club: fixtures/demo.json and the load_demo command."""

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from club.games.models import Change, Game, GameTeam, LedgerEntry, Player, Round
from club.scoring.services import TeamEntry, create_game

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo.json"


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Game, GameTeam, Round, LedgerEntry, Change, Player, get_user_model())
    }


def players(game: Game) -> int:
    return game.teams.count() * 2


@pytest.mark.django_db
def test_load_demo_loads_the_club_and_the_organiser_login_once(settings):
    settings.DEBUG = True
    output = run("load_demo")
    assert "Loaded the demo club" in output
    assert "demo" in output and "demo-organiser" in output
    assert Game.objects.count() == len(json.loads(DEMO.read_text(encoding="utf-8"))["games"])

    user = get_user_model().objects.get(username="demo")
    assert user.is_staff and user.is_superuser and user.is_active
    assert user.check_password("demo-organiser")

    before, password = counts(), user.password
    again = run("load_demo")
    assert "already has games" in again
    assert "demo-organiser" not in again
    assert counts() == before
    user.refresh_from_db()
    assert user.password == password


@pytest.mark.django_db
def test_load_demo_makes_no_login_without_debug(settings):
    settings.DEBUG = False
    output = run("load_demo")
    assert Game.objects.count() == 4
    assert not get_user_model().objects.filter(username="demo").exists()
    assert "demo-organiser" not in output


@pytest.mark.django_db
def test_load_demo_leaves_a_club_with_games_alone(settings):
    settings.DEBUG = True
    create_game(label="Our own game", teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")])
    output = run("load_demo")
    assert "already has games" in output
    assert list(Game.objects.values_list("label", flat=True)) == ["Our own game"]
    assert get_user_model().objects.filter(username="demo").exists()


@pytest.mark.django_db
def test_the_demo_club_has_the_games_it_promises(settings):
    settings.DEBUG = False
    run("load_demo")
    games = list(Game.objects.order_by("id"))
    assert len(games) == 4

    finished_four = [g for g in games if players(g) == 4 and g.is_finished]
    finished_six = [g for g in games if players(g) == 6 and g.is_finished]
    playing_eight = [g for g in games if players(g) == 8 and not g.is_finished]
    playing_four = [g for g in games if players(g) == 4 and not g.is_finished]
    assert finished_four and finished_six and playing_eight and playing_four
    assert all(g.winner is not None for g in finished_four + finished_six)
    assert 1 <= playing_four[0].deals_played <= 10

    # In the six-player game a team goes out midway and the others play on.
    six = finished_six[0]
    first_out = min(t.out_in_deal for t in six.teams.all() if t.out_in_deal)
    assert first_out < six.deals_played - 3
    assert sorted(t.place for t in six.teams.all()) == [1, 2, 3]

    rounds = Round.objects.all()
    assert rounds.filter(all_pass=True).exists()
    assert rounds.filter(doubling="double").exists()
    assert rounds.filter(doubling="redouble").exists()
    assert rounds.filter(made=False).exists()
    small = playing_four[0].rounds
    assert small.filter(all_pass=True).exists() and small.filter(made=False).exists()
    assert small.filter(doubling="double").exists() and small.filter(doubling="redouble").exists()

    # Tables are conserved in every game.
    for game in games:
        assert sum(t.tables for t in game.teams.all()) == game.tables_per_team * game.teams.count()


@pytest.mark.django_db
def test_the_demo_file_is_its_own_export(settings):
    settings.DEBUG = False
    run("import_results", str(DEMO))
    assert run("export_results") == DEMO.read_text(encoding="utf-8")
