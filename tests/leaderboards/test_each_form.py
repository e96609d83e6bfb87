"""Each form of play's own figures on the boards and profiles, and the teams' own ratings.

The club below plays one 56 International session and one kodi night, beside the
table games of conftest.py's club where a test asks for them:

- the session (points sheet, teams of three): Dev declares 28 to 30 in each of the
  18 deals and makes it, a point each (the 28-39 band), so Dev & Esha & Farid win
  18 points to 0;
- the kodi night (Anu & Biju v Chitra & Dev, 6 tables each): Anu's redoubled 56 is
  owed 16 tables and Chitra & Dev pay their 6, a kodi; then Anu's team makes 30 and
  takes a table; the organiser ends it. Anu & Biju took no kodi and gave one.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from club.games.models import Game, Player
from club.games.services import TeamEntry, create_game, end_game
from club.leaderboards import figures, team_ratings
from club.leaderboards.models import TeamTotals
from club.leaderboards.selectors import Filters, board_figures, player_board, team_board
from club.scoring import rules as core
from club.scoring.rules import Preset
from tests.games.test_forms_of_play import bid, next_deal

from .test_forms_of_play import international_session
from .test_maintained import _assert_team_ratings_are_a_rating_from_scratch, _from_deals, _kept

pytestmark = pytest.mark.django_db

SHEET = ("played", "won", "points_for", "points_against", "sessions_won", "score_difference")
KODI = ("played", "won", "kodis_taken", "kodis_given", "tables_net")


def kodi_night() -> Game:
    game = create_game(
        label="Kodi night",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=3,
        rules=core.preset_rules(Preset.KODI, players=4),
    )
    next_deal(game, bid(game, 0, 56, 56, doubling="redouble"))
    next_deal(game, bid(game, 0, 30, 36))
    end_game(game=Game.objects.get(pk=game.pk))
    return Game.objects.get(pk=game.pk)


@pytest.fixture
def night():
    international_session()
    kodi_night()


def _figures(rows, names) -> dict:
    return {row.name: tuple(getattr(row, name) for name in names) for row in rows}


def test_a_points_sheet_counts_points_for_and_against_and_sessions_won(night):
    board = _figures(player_board(Filters(form="points")), SHEET)
    assert board == {
        **dict.fromkeys(("Anu", "Biju", "Chitra"), (1, 0, 0, 18, 0, -18)),
        **dict.fromkeys(("Dev", "Esha", "Farid"), (1, 1, 18, 0, 1, 18)),
    }
    teams = _figures(team_board(Filters(form="points")), SHEET)
    assert teams == {
        "Anu & Biju & Chitra": (1, 0, 0, 18, 0, -18),
        "Dev & Esha & Farid": (1, 1, 18, 0, 1, 18),
    }


def test_a_kodi_night_counts_kodis_taken_and_given(night):
    teams = _figures(team_board(Filters(form="kodi")), KODI)
    # The redoubled 56 moves CD's 6 tables (a kodi, both start again at 6); the 30 moves 1.
    # Tables won net is the ledger's: 6 at the kodi, then 1.
    assert teams == {"Anu & Biju": (1, 1, 0, 1, 7), "Chitra & Dev": (1, 0, 1, 0, -7)}
    players = _figures(player_board(Filters(form="kodi")), KODI)
    assert players["Biju"] == (1, 1, 0, 1, 7) and players["Dev"] == (1, 0, 1, 0, -7)


def test_every_form_sums_its_own_figures_and_no_other(night):
    every = _figures(player_board(Filters()), (*SHEET, "kodis_taken", "kodis_given"))
    # Dev played both: the session's points, the kodi night's kodi, two games.
    assert every["Dev"] == (2, 1, 18, 0, 1, 18, 1, 0)
    assert every["Anu"] == (2, 1, 0, 18, 0, -18, 0, 1)
    assert {row.name for row in player_board(Filters(form="tables"))} == set()


@pytest.mark.parametrize("form", [None, "tables", "points", "kodi"])
def test_the_kept_figures_of_each_form_equal_a_count_from_the_deals(club, night, form):
    for kind in ("players", "teams"):
        assert _kept(kind, Filters(form=form)) == _from_deals(kind, Filters(form=form))
    assert figures.drift() == []
    figures.rebuild_all()  # the set-wise rebuild writes the same rows
    assert figures.drift() == []


def test_a_board_of_one_form_shows_only_its_figures():
    played = ["tables", "points", "kodi"]
    points = board_figures(Filters(form="points"), played)
    assert "tables_net" not in points and "kodis_taken" not in points
    assert {"points_for", "points_against", "score_difference", "sessions_won"} <= set(points)
    assert "won" not in points  # a session won is the game won: said once
    kodi = board_figures(Filters(form="kodi"), played)
    assert {"kodis_taken", "kodis_given"} <= set(kodi) and "points_for" not in kodi
    assert "tables_net" not in kodi
    tables = board_figures(Filters(form="tables"), played)
    assert "tables_net" in tables and "points_for" not in tables and "kodis_given" not in tables
    # Every form: the figures of the forms the club has played, and no other.
    assert board_figures(Filters(), ["points"]) == points
    assert set(board_figures(Filters(), played)) == set(tables) | set(points) | set(kodi)


def test_the_board_pages_label_each_forms_figures(client, night):
    url = reverse("leaderboards:team_board")
    page = client.get(url, {"form": "points"}).text
    for label in ("Points for", "Points against", "Score difference", "Sessions won"):
        assert f">{label}" in page
    assert "Tables net" not in page and "Kodis taken" not in page
    row = page.split("Dev &amp; Esha &amp; Farid", 1)[1].split("</tr>", 1)[0]
    assert '<td class="num up">+18</td>' in row
    page = client.get(url, {"form": "kodi"}).text
    assert ">Kodis taken" in page and ">Kodis given" in page and "Points for" not in page
    every = client.get(url).text
    # The club has played points and kodi games, no plain table game.
    assert ">Points for" in every and ">Kodis taken" in every and "Tables net" not in every
    assert '<option value="points" selected>' in client.get(url, {"form": "points"}).text


def test_a_profile_labels_every_figure_and_each_rating_change(client, night):
    dev = Player.objects.get(name="Dev")
    page = client.get(reverse("leaderboards:player", args=[dev.pk])).text
    figures_card = page.split('<dl class="figures">', 1)[1].split("</dl>", 1)[0]
    assert "<dt>Points for</dt><dd>18</dd>" in figures_card
    assert '<dt>Score difference</dt><dd class="up">+18</dd>' in figures_card
    assert "<dt>Kodis taken</dt><dd>1</dd>" in figures_card
    assert "Tables won net" not in figures_card  # Dev played no plain table game
    games = page.split('<ul class="profile-games">', 1)[1].split("</ul>", 1)[0]
    assert games.count('title="rating change">rating ') == 2


def test_a_team_that_won_three_of_three_ranks_above_one_that_lost_its_only_game(db):
    """Anu and Biju won six games each apart (with Chitra and Dev), then lost as a pair;
    Gita and Hari, new, won three games as a pair. The mean of the players' ratings put
    Anu & Biju first; the pairs' own results rank Gita & Hari first."""
    tables = core.Rules(tables_per_team=1)

    def won(first: TeamEntry, second: TeamEntry, label: str) -> None:
        game = create_game(label=label, teams=[first, second], first_dealer=0, rules=tables)
        next_deal(game, bid(game, 0, 28, 30))  # the first team's 28 made: 1 table, out
        assert Game.objects.get(pk=game.pk).is_finished

    for number in range(6):  # each against a new pair
        won(TeamEntry("Anu", "Chitra"), TeamEntry(f"K{number}", f"L{number}"), f"A{number}")
        won(TeamEntry("Biju", "Dev"), TeamEntry(f"M{number}", f"N{number}"), f"B{number}")
    won(TeamEntry("Esha", "Farid"), TeamEntry("Anu", "Biju"), "Pair")
    for number in range(3):
        won(TeamEntry("Gita", "Hari"), TeamEntry("Iqbal", "Jaya"), f"G{number}")
    rows = {row.name: row for row in team_board(Filters())}
    assert (rows["Anu & Biju"].played, rows["Anu & Biju"].won) == (1, 0)
    assert (rows["Gita & Hari"].played, rows["Gita & Hari"].won) == (3, 3)
    players = {row.name: row.rating for row in player_board(Filters())}
    assert (players["Anu"] + players["Biju"]) / 2 > (players["Gita"] + players["Hari"]) / 2
    assert rows["Gita & Hari"].rating > 0 > rows["Anu & Biju"].rating
    ranked = [row.name for row in team_board(Filters())]
    assert ranked.index("Gita & Hari") < ranked.index("Anu & Biju")
    _assert_team_ratings_are_a_rating_from_scratch()


def test_team_ratings_are_rated_again_from_what_the_games_say(club):
    """Every change a game can go through is checked by test_maintained's assert_in_step;
    here, ratings kept wrong by hand are put right by the full rating."""
    TeamTotals.objects.update(mu=1.0, sigma=1.0, rating=5.0, rated_games=9)
    team_ratings.rebuild()
    _assert_team_ratings_are_a_rating_from_scratch()


BEFORE = ("leaderboards", "0003_owed_games")


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_each_forms_figures_and_the_teams_ratings_of_past_games():
    international_session()
    kodi_night()
    wanted = {
        (kind, form): _kept(kind, Filters(form=form))
        for kind in ("players", "teams")
        for form in (None, "points", "kodi")
    }
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert figures.drift() == []
    assert {
        (kind, form): _kept(kind, Filters(form=form))
        for kind in ("players", "teams")
        for form in (None, "points", "kodi")
    } == wanted
    _assert_team_ratings_are_a_rating_from_scratch()
