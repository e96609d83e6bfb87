"""Each club's own figures, kept beside the federation's, against a count from the deals.

Two clubs share a player. At the home club Anu & Biju beat Chitra & Dev (game H); at
Gulf 56 Anu & Esha beat Gita & Hari (game G), and the same four are playing a second
game there (game G2, one deal in). Each club's boards count its own games; the site's
totals (the federation's figures, on a player's page) count both clubs'. Every step
that writes figures (a game finishing, a correction, a game reopened, ended and deleted,
a merge, the set-wise rebuild) is followed by the check of test_maintained: every club's
boards and the site's totals equal the count from the deals, and drift() finds nothing.
"""

from __future__ import annotations

import datetime
import importlib

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.forms.models import model_to_dict

from club.clubs import known
from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from club.games.models import Game, Player
from club.games.people import join
from club.games.services import (
    Deal,
    TeamEntry,
    create_game,
    edit_deal,
    end_game,
    record_deal,
    undo_last_deal,
)
from club.leaderboards import figures, selectors
from club.leaderboards.merge import merge_players
from club.leaderboards.models import (
    PlayerClubTotals,
    PlayerGameFigures,
    PlayerTotals,
    TeamClubTotals,
    TeamGameFigures,
    TeamTotals,
)
from club.leaderboards.selectors import Filters
from club.scoring import rules as core
from club.tournaments.models import Sitting, SittingGame, Tournament
from tests.factories import deal, seat

from .test_maintained import FILTERS, _from_deals, _kept, assert_in_step

pytestmark = pytest.mark.django_db

TWO_TABLES = core.Rules(tables_per_team=2)  # a 56 made ends the game: the losers pay 4


def _win(game, number: int, position: int, declarer: str) -> None:
    """Deal ``number``: the team at ``position`` declares 56 and takes every point."""
    points = {0: 0, 1: 0, position: 56}
    entry = Deal(points=points, declarer=seat(game, declarer), bid=56, trump="spades")
    record_deal(game=game, number=number, entry=entry)


def _game(label: str, club: Club, *pairs: tuple[str, str], rules=TWO_TABLES) -> Game:
    return create_game(
        label=label,
        teams=[TeamEntry(*pair) for pair in pairs],
        first_dealer=0,
        club=club,
        rules=rules,
    )


@pytest.fixture
def clubs():
    home = known.home()
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    at_home = _game("H", home, ("Anu", "Biju"), ("Chitra", "Dev"))
    _win(at_home, 1, 0, "Anu")
    join(gulf.pk, [Player.objects.get(name="Anu").pk])  # the same Anu: one of Gulf's too
    at_gulf = _game("G", gulf, ("Anu", "Esha"), ("Gita", "Hari"))
    _win(at_gulf, 1, 0, "Anu")
    playing = _game("G2", gulf, ("Anu", "Esha"), ("Gita", "Hari"))
    record_deal(game=playing, number=1, entry=deal(playing, {0: 30, 1: 26}, "Esha", 28))
    for game in (at_home, at_gulf, playing):
        game.refresh_from_db()
    assert at_home.is_finished and at_gulf.is_finished and not playing.is_finished
    return {"home": home, "gulf": gulf, "H": at_home, "G": at_gulf, "G2": playing}


def _at(club: Club) -> dict:
    """Every total kept at ``club``, the players' and the teams'."""
    return {
        **{
            ("player", row["player_id"]): row
            for row in PlayerClubTotals.objects.filter(club=club).values()
        },
        **{
            ("team", row["team_id"]): row
            for row in TeamClubTotals.objects.filter(club=club).values()
        },
    }


def _played(name: str, club: Club | None = None) -> tuple[int, int] | None:
    """A player's games played and won: at ``club``, or the federation's when None."""
    if club is None:
        return PlayerTotals.objects.filter(player__name=name).values_list("played", "won").first()
    at_club = PlayerClubTotals.objects.filter(player__name=name, club=club)
    return at_club.values_list("played", "won").first()


def test_the_clubs_boards_count_their_own_games_and_the_site_both(clubs):
    home, gulf = clubs["home"], clubs["gulf"]
    assert (_played("Anu", home), _played("Anu", gulf), _played("Anu")) == ((1, 1), (1, 1), (2, 2))
    assert _played("Esha", home) is None and _played("Biju", gulf) is None
    assert_in_step()


def test_a_game_finishing_at_one_club_moves_its_figures_and_the_sites_not_the_others(clubs):
    home, gulf = clubs["home"], clubs["gulf"]
    before_home = _at(home)
    _win(clubs["G2"], 2, 1, "Gita")  # Gita & Hari win G2
    assert Game.objects.get(pk=clubs["G2"].pk).is_finished
    assert _at(home) == before_home
    assert (_played("Anu", gulf), _played("Anu")) == ((2, 1), (3, 2))
    assert _played("Gita", gulf) == (2, 1)
    gulf_board = {row.name: row.played for row in selectors.player_board(Filters(), club=gulf)}
    home_board = {row.name: row.played for row in selectors.player_board(Filters(), club=home)}
    assert gulf_board == {"Anu": 2, "Esha": 2, "Gita": 2, "Hari": 2}
    assert home_board == {"Anu": 1, "Biju": 1, "Chitra": 1, "Dev": 1}
    assert_in_step()


def test_a_correction_a_reopening_and_a_delete_move_only_their_clubs_figures(clubs):
    home, gulf = clubs["home"], clubs["gulf"]
    before_home = _at(home)
    game = clubs["G"]
    # The correction gives game G to Gita & Hari.
    edit_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 0, 1: 56}, declarer=seat(game, "Gita"), bid=56, trump="spades"),
    )
    assert (_played("Anu", gulf), _played("Gita", gulf), _played("Anu")) == ((1, 0), (1, 1), (2, 1))
    assert _at(home) == before_home
    assert_in_step()
    # Undone, G is being played again: Esha, Gita and Hari have no finished game left at
    # all, and Anu none at Gulf.
    undo_last_deal(game=game, number=1)
    assert _played("Anu", gulf) is None and _played("Anu") == (1, 1)
    assert not PlayerClubTotals.objects.filter(player__name__in=["Esha", "Gita", "Hari"]).exists()
    assert not TeamClubTotals.objects.filter(club=gulf).exists()
    assert _at(home) == before_home
    assert_in_step()
    # Time called on it (no deal: level), then deleted.
    end_game(game=game)
    assert _played("Anu", gulf) == (1, 0)
    assert_in_step()
    Game.objects.get(pk=game.pk).delete()
    assert _played("Anu", gulf) is None and _played("Anu") == (1, 1)
    assert _at(home) == before_home
    assert_in_step()


def test_a_merge_adds_the_folded_records_figures_at_each_club(clubs):
    """Anu played at Gulf once more as "Anu M", a second record of her; merged by a site
    administrator, her figures at Gulf and the federation's count that game, the home
    club's do not."""
    home, gulf = clubs["home"], clubs["gulf"]
    before_home = _at(home)
    second = _game("G3", gulf, ("Anu M", "Gita"), ("Esha", "Hari"))
    _win(second, 1, 0, "Anu M")
    assert _played("Anu M", gulf) == (1, 1)
    assert_in_step()
    merge_players(keep=Player.objects.get(name="Anu"), fold=Player.objects.get(name="Anu M"))
    assert (_played("Anu", gulf), _played("Anu", home), _played("Anu")) == ((2, 2), (1, 1), (3, 3))
    assert not PlayerClubTotals.objects.filter(player__name="Anu M").exists()
    assert _at(home) == before_home
    assert_in_step()


def _everything() -> dict:
    """Every row and total kept, without its id and the teams' ratings (the rebuild rates
    the teams again)."""
    kept = {}
    for model in (
        PlayerGameFigures,
        TeamGameFigures,
        PlayerTotals,
        TeamTotals,
        PlayerClubTotals,
        TeamClubTotals,
    ):
        rows = [
            model_to_dict(row, exclude=["id", "rating", "mu", "sigma", "rated_games"])
            for row in model.objects.all()
        ]
        kept[model.__name__] = sorted(rows, key=lambda row: repr(sorted(row.items())))
    return kept


def test_the_set_wise_rebuild_writes_what_the_game_by_game_path_kept(clubs):
    _win(clubs["G2"], 2, 1, "Gita")
    game_by_game = _everything()
    assert all(game_by_game.values())  # every table holds rows
    assert len(game_by_game["PlayerClubTotals"]) == 8  # Anu twice, the six others once
    assert figures.rebuild_all() == 3
    assert _everything() == game_by_game
    assert_in_step()


def test_drift_finds_a_corrupted_total_of_one_club_and_the_command_repairs_it(clubs, capsys):
    gulf = clubs["gulf"]
    anu = Player.objects.get(name="Anu")
    PlayerClubTotals.objects.filter(player=anu, club=gulf).update(won=99)
    (fault,) = figures.drift()
    assert fault.startswith(f"totals of player {anu.pk} at club {gulf.pk}: (1, 99,")
    TeamClubTotals.objects.filter(club=gulf).first().delete()
    assert len(figures.drift()) == 2
    call_command("rebuild_leaderboards")
    assert figures.drift() == []
    assert _played("Anu", gulf) == (1, 1)
    assert_in_step()


def test_a_clubs_board_filtered_counts_its_own_games_only(clubs, client):
    home, gulf = clubs["home"], clubs["gulf"]
    cup = Tournament.objects.create(name="Gulf Cup", starts_on=datetime.date(2025, 1, 1), club=gulf)
    sitting = Sitting.objects.create(tournament=cup, number=1, status=Sitting.Status.CONFIRMED)
    _win(clubs["G2"], 2, 1, "Gita")
    # Game G, finished, filed under the cup afterwards (its rows follow).
    SittingGame.objects.create(sitting=sitting, game=clubs["G"], table_label="T1", position=0)
    today = datetime.date.today()
    extra = [Filters(tournament=cup.pk), Filters(form="tables"), Filters(start=today, end=today)]
    assert_in_step(extra)
    in_cup = {
        row.name: (row.played, row.won) for row in selectors.player_board(extra[0], club=gulf)
    }
    assert in_cup == {"Anu": (1, 1), "Esha": (1, 1), "Gita": (1, 0), "Hari": (1, 0)}
    assert selectors.player_board(extra[0], club=home) == []  # another club's tournament
    # The pages and the API show the same.
    page = client.get(reverse_in(gulf, "leaderboards:player_board"), {"tournament": cup.pk})
    assert {row.name: row.played for row in page.context["board"].rows} == {
        name: played for name, (played, _won) in in_cup.items()
    }
    answer = client.get(reverse_in(gulf, "api:team_board")).json()
    assert {row["name"]: row["played"] for row in answer["results"]} == {
        "Anu & Esha": 2,
        "Gita & Hari": 2,
    }
    assert {row.name for row in selectors.team_board(Filters(), club=home)} == {
        "Anu & Biju",
        "Chitra & Dev",
    }


def test_a_player_of_two_clubs_page_shows_the_federations_figures_and_each_clubs(
    clubs, client, django_assert_max_num_queries
):
    home, gulf = clubs["home"], clubs["gulf"]
    _win(clubs["G2"], 2, 1, "Gita")  # Anu: two games at Gulf, one at home
    anu = Player.objects.get(name="Anu")
    url = reverse_in(gulf, "leaderboards:player", args=[anu.pk])
    with django_assert_max_num_queries(20):  # as a player of one club's (test_pages.py)
        response = client.get(url)
    figures_shown = response.context["figures"]
    assert (figures_shown.played, figures_shown.won) == (3, 2)  # the federation's
    lines = [
        (line.club, line.figures.played, line.figures.won)
        for line in response.context["club_lines"]
    ]
    assert lines == [(gulf, 2, 1), (home, 1, 1)]  # this club first
    html = response.content.decode()
    assert "At each club" in html and "Over finished games at every club" in html
    home_page = reverse_in(home, "leaderboards:player", args=[anu.pk])
    assert f'<a href="{home_page}">{home.name}</a></th>' in html
    assert "<strong>Gulf 56</strong></th>" in html
    # A player of one club: the figures are that club's, with no line per club (none read).
    biju = client.get(
        reverse_in(home, "leaderboards:player", args=[Player.objects.get(name="Biju").pk])
    )
    assert biju.context["clubs"] == [home] and biju.context["club_lines"] == []
    assert biju.context["figures"].played == 1
    html = biju.content.decode()
    assert "At each club" not in html and "Over finished games." in html


def test_a_member_with_no_game_at_the_club_is_on_none_of_its_boards(clubs, client):
    """Esha has played at Gulf only; a member of the home club too, her page there lists
    her Gulf figures, and the home club's boards do not show her."""
    join(clubs["home"].pk, [Player.objects.get(name="Esha").pk])
    for kind in ("players", "teams"):
        for filters in FILTERS:
            assert _kept(kind, filters, clubs["home"]) == _from_deals(kind, filters, clubs["home"])
    assert "Esha" not in {row.name for row in selectors.player_board(Filters(), club=clubs["home"])}
    esha = Player.objects.get(name="Esha")
    page = client.get(reverse_in(clubs["home"], "leaderboards:player", args=[esha.pk]))
    assert [(line.club, line.figures.played) for line in page.context["club_lines"]] == [
        (clubs["gulf"], 1)
    ]


BEFORE_CLUBS = ("leaderboards", "0006_ratings_by_form_of_play")


@pytest.mark.django_db(transaction=True)
def test_the_migration_files_an_existing_sites_figures_under_each_club():
    """A site upgraded with games at two clubs: its rows take their game's club and its
    totals at each club are summed from them, so its boards are right at once."""
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    _win(_game("H", known.home(), ("Anu", "Biju"), ("Chitra", "Dev")), 1, 0, "Anu")
    join(gulf.pk, [Player.objects.get(name="Anu").pk])
    _win(_game("G", gulf, ("Anu", "Esha"), ("Gita", "Hari")), 1, 1, "Gita")
    kept = _everything()
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE_CLUBS])
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert _everything() == kept
    assert figures.drift() == []
    assert (_played("Anu", gulf), _played("Anu", known.home())) == ((1, 0), (1, 1))
    assert_in_step()


def test_a_games_day_on_the_boards_is_the_day_it_started_at_its_club():
    """At 22:30 on 4 December in London it is 02:30 on the 5th in Dubai: a Gulf game begun
    then is the 5th's on the boards, though its figures are counted where the site's own
    zone (UTC) is active (after the answer, in a command), and a rebuild agrees."""
    gulf = Club.objects.create(name="Gulf 56", slug="gulf", time_zone="Asia/Dubai")
    game = _game("G", gulf, ("Anu", "Esha"), ("Gita", "Hari"))
    started = datetime.datetime(2026, 12, 4, 22, 30, tzinfo=datetime.UTC)
    Game.objects.filter(pk=game.pk).update(created_at=started)
    game.refresh_from_db()
    _win(game, 1, 0, "Anu")
    days = set(PlayerGameFigures.objects.filter(game=game).values_list("played_on", flat=True))
    assert days == {datetime.date(2026, 12, 5)}
    figures.rebuild_all()
    days = set(TeamGameFigures.objects.filter(game=game).values_list("played_on", flat=True))
    assert days == {datetime.date(2026, 12, 5)}
    on_the_fifth = Filters(start=datetime.date(2026, 12, 5), end=datetime.date(2026, 12, 5))
    assert [row.name for row in selectors.player_board(on_the_fifth, club=gulf)]


def test_the_upgrade_files_each_counted_game_under_its_clubs_day():
    """Figures counted before a game's day was its club's were filed under the day in the
    zone active then; the upgrade files them again (run here on today's tables)."""
    upgrade = importlib.import_module("club.leaderboards.migrations.0009_a_games_day_at_its_club")
    gulf = Club.objects.create(name="Gulf 56", slug="gulf", time_zone="Asia/Dubai")
    game = _game("G", gulf, ("Anu", "Esha"), ("Gita", "Hari"))
    Game.objects.filter(pk=game.pk).update(
        created_at=datetime.datetime(2026, 12, 4, 22, 30, tzinfo=datetime.UTC)
    )
    _win(game, 1, 0, "Anu")
    home_game = _game("H", known.home(), ("Indu", "Jacob"), ("Kiran", "Lal"))
    _win(home_game, 1, 0, "Indu")
    home_day = PlayerGameFigures.objects.filter(game=home_game).values("played_on")[:1].get()
    wrong = datetime.date(2026, 12, 4)
    PlayerGameFigures.objects.filter(game=game).update(played_on=wrong)
    TeamGameFigures.objects.filter(game=game).update(played_on=wrong)
    upgrade.file_each_game_under_its_clubs_day(apps, None)
    for model in (PlayerGameFigures, TeamGameFigures):
        assert set(model.objects.filter(game=game).values_list("played_on", flat=True)) == {
            datetime.date(2026, 12, 5)
        }
    assert PlayerGameFigures.objects.filter(game=home_game).values("played_on")[:1].get() == (
        home_day
    )
