"""The demo club: fixtures/demo.json, fixtures/demo_tournaments.json and load_demo."""

import io
import json
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from club.games.models import Change, Game, GameTeam, LedgerEntry, Player, Round
from club.games.services import TeamEntry, create_game
from club.tournaments.models import (
    Bye,
    Sitting,
    SittingGame,
    Standing,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo.json"
DEMO_TOURNAMENTS = DEMO.with_name("demo_tournaments.json")
CUP = "Kerala Piravi Cup 2025"
LEAGUE = "Thursday League, January 2026"


def demo_games() -> int:
    """Games in both demo files."""
    club = json.loads(DEMO.read_text(encoding="utf-8"))["games"]
    tournaments = json.loads(DEMO_TOURNAMENTS.read_text(encoding="utf-8"))
    return len(club) + sum(len(document["games"]) for document in tournaments)


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (
            Game,
            GameTeam,
            Round,
            LedgerEntry,
            Change,
            Player,
            get_user_model(),
            Tournament,
            TournamentTeam,
            Sitting,
            SittingGame,
            Bye,
            Standing,
            TournamentEvent,
        )
    }


def players(game: Game) -> int:
    return game.teams.count() * 2


@pytest.mark.django_db
def test_load_demo_loads_the_club_and_the_organiser_login_once(settings):
    settings.DEBUG = True
    output = run("load_demo")
    assert "Loaded the demo club" in output
    assert "demo" in output and "demo-organiser" in output
    assert "Loaded the tournament “Kerala Piravi Cup 2025”" in output
    assert Game.objects.count() == demo_games() == 4 + 12 + 6
    assert Tournament.objects.count() == 2

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
    assert Game.objects.count() == demo_games()
    assert not get_user_model().objects.filter(username="demo").exists()
    assert "demo-organiser" not in output


@pytest.mark.django_db
def test_load_demo_leaves_a_club_with_games_alone(settings):
    settings.DEBUG = True
    create_game(label="Our own game", teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")])
    output = run("load_demo")
    assert "already has games" in output
    assert list(Game.objects.values_list("label", flat=True)) == ["Our own game"]
    assert not Tournament.objects.exists()
    assert get_user_model().objects.filter(username="demo").exists()


@pytest.mark.django_db
def test_the_demo_club_has_the_games_it_promises(settings):
    settings.DEBUG = False
    run("load_demo")
    games = list(Game.objects.filter(sitting_entry__isnull=True).order_by("id"))
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


def without_club(exported: str) -> str:
    """An export of the home club less the ``club`` key every export of a club now writes
    (the demo files name no club, so that any club may load them), checked first."""
    club = {"name": "56 Club", "slug": "club"}
    documents = json.loads(exported)
    for document in documents if isinstance(documents, list) else [documents]:
        assert document["club"] == club
    return re.sub(r'\n *"club": \{\n *"name": "56 Club",\n *"slug": "club"\n *\},', "", exported)


@pytest.mark.django_db
def test_the_demo_file_is_its_own_export(settings):
    settings.DEBUG = False
    run("import_results", str(DEMO))
    assert without_club(run("export_results")) == DEMO.read_text(encoding="utf-8")


@pytest.mark.django_db
def test_the_demo_club_has_a_final_tournament_and_one_running(settings):
    settings.DEBUG = False
    run("load_demo")

    cup = Tournament.objects.get(name=CUP)
    assert cup.status == "finished" and cup.is_final
    assert cup.entries.count() == 8
    sittings = list(cup.sittings.order_by("number"))
    assert [s.number for s in sittings] == [1, 2, 3]
    assert {s.status for s in sittings} == {"confirmed"} and {s.game_size for s in sittings} == {2}
    cup_games = Game.objects.filter(sitting_entry__sitting__tournament=cup)
    assert cup_games.count() == 12
    assert all(game.is_finished and game.results_locked for game in cup_games)
    standings = list(cup.standings.order_by("place"))
    assert len(standings) == 8 and standings[0].place == 1
    # 12 games of two teams: 3 + 1 tournament points each.
    assert sum(row.points for row in standings) == 12 * 4
    assert all(row.games == 3 for row in standings)

    league = Tournament.objects.get(name=LEAGUE)
    assert league.status == "running" and not league.is_final
    assert league.entries.count() == 6
    first, second = league.sittings.order_by("number")
    assert first.status == second.status == "confirmed"
    assert all(item.game.is_finished for item in first.games.all())
    assert first.games.filter(game__ended_early=True).exists()  # time was called
    playing = [item.game for item in second.games.all()]
    assert len(playing) == 3
    assert all(not game.is_finished and 1 <= game.deals_played <= 5 for game in playing)
    assert sum(row.points for row in league.standings.all()) == 3 * 4


@pytest.mark.django_db
def test_the_demo_tournaments_file_is_its_own_export(settings):
    settings.DEBUG = False
    run("import_results", str(DEMO_TOURNAMENTS))
    exported = run("export_results", "--tournament", CUP, "--tournament", LEAGUE)
    assert without_club(exported) == DEMO_TOURNAMENTS.read_text(encoding="utf-8")
