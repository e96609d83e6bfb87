"""A level game is played and not won (docs/rules.md, B.5; docs/for-players.md).

A game ends level when two or more teams share its first place: time called on equal
tables, equal totals at the end of a points sheet, equal kodis and tables on a kodi
night. No team won it, as the tournament standings have always counted. Each form of
play below ends a game level, most beside a game Anu & Biju won outright, and every figure
that counts wins is checked: the player and team boards (of every form and of the
game's own), the profile (games won, win %, sessions won, the form's badges), the API,
and the figures kept game by game against the set-wise rebuild and a count from the
deals.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Sum
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.games.models import Game, GameTeam, Player, Team
from club.games.services import (
    Deal,
    TeamEntry,
    create_game,
    end_game,
    load_seating,
    record_deal,
)
from club.leaderboards import figures
from club.leaderboards.models import (
    PlayerGameFigures,
    PlayerTotals,
    TeamGameFigures,
    TeamTotals,
)
from club.leaderboards.profile import form_badge
from club.leaderboards.selectors import Filters, player_board, team_board
from club.scoring import rules as core
from club.scoring.rules import Preset
from club.tournaments import services as tournaments
from club.tournaments import stages
from club.tournaments.models import Standing
from tests.api.test_api import get
from tests.factories import PAIRS, start_game
from tests.tournaments.helpers import make_tournament, rng

from .test_maintained import FILTERS, _from_deals, _kept

pytestmark = pytest.mark.django_db

AB, CD = TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")


def made(game: Game, position: int, *, failed: bool = False) -> None:
    """The next deal: the first player of the team at ``position`` bids 28 and makes it
    with 30 of the 56 (with 20, fails it); the next team still playing holds the rest."""
    game.refresh_from_db()
    seating = load_seating(game)
    ours = 20 if failed else 30
    left = playing(game)
    points = dict.fromkeys(left, 0)
    points[position] = ours
    points[left[(left.index(position) + 1) % len(left)]] = 56 - ours
    record_deal(
        game=game,
        number=game.deals_played + 1,
        entry=Deal(
            points=points,
            declarer=seating.seat_of(seating.teams[position].first_player_id),
            bid=28,
            trump="hearts",
        ),
    )


def playing(game: Game) -> list[int]:
    """The positions of the teams still at the table (every team, where none goes out)."""
    return list(
        game.teams.filter(out_in_deal__isnull=True)
        .order_by("position")
        .values_list("position", flat=True)
    )


def time_called(game: Game) -> Game:
    end_game(game=Game.objects.get(pk=game.pk))
    return Game.objects.get(pk=game.pk)


def anu_and_biju_win() -> Game:
    """One table each: Anu makes 28, Chitra & Dev's only table is paid, they are out."""
    game = create_game(
        label="Won outright", teams=[AB, CD], first_dealer=0, rules=core.Rules(tables_per_team=1)
    )
    made(game, 0)
    game = Game.objects.get(pk=game.pk)
    assert game.is_finished and game.winner.team.name == "Anu & Biju"
    return game


def level_at_tables(teams: int) -> Game:
    """Four tables each; the first two teams make a contract each, then time is called:
    two teams, 4 and 4; three, 5 5 2 (a made 28 takes a table from each other team);
    four, 6 6 2 2."""
    game = start_game(teams, label=f"Level at {teams}", rules=core.Rules(tables_per_team=4))
    made(game, 0)
    made(game, 1)
    return time_called(game)


def level_session() -> Game:
    """A 56 International session (teams of three): each team makes 28 in nine of the 18
    deals, a point each, 9 to 9."""
    game = create_game(
        label="Level session",
        teams=[TeamEntry("Anu", "Biju", third="Esha"), TeamEntry("Chitra", "Dev", third="Farid")],
        first_dealer=0,
        rules=core.preset_rules(Preset.INTERNATIONAL, players=6),
    )
    for number in range(18):
        made(game, number % 2)
    return Game.objects.get(pk=game.pk)


def level_kodi_night() -> Game:
    """Six tables each: each team makes 28 once (a table each way), no kodi; time called."""
    game = create_game(
        label="Level kodi night",
        teams=[AB, CD],
        first_dealer=0,
        rules=core.preset_rules(Preset.KODI, players=4),
    )
    made(game, 0)
    made(game, 1)
    return time_called(game)


def _results(rows) -> dict:
    return {row.name: (row.played, row.won, row.sessions_won, row.win_percent) for row in rows}


def assert_no_win_at(game: Game) -> None:
    """The level game's own rows: every side played it, none won it."""
    places = sorted(game.teams.values_list("place", flat=True))
    assert places.count(1) >= 2 and game.winner_id is None  # the game is level
    seats = list(game.teams.select_related("team"))
    teams = TeamGameFigures.objects.filter(game=game)
    assert {row.team_id: (row.played, row.won, row.sessions_won) for row in teams} == {
        seat.team_id: (1, 0, 0) for seat in seats
    }
    players = PlayerGameFigures.objects.filter(game=game)
    assert {row.player_id: (row.played, row.won, row.sessions_won) for row in players} == {
        player: (1, 0, 0) for seat in seats for player in seat.player_ids
    }


def assert_in_step() -> None:
    """The figures kept game by game equal a count from the deals and the set-wise rebuild."""
    assert figures.drift() == []
    forms = [Filters(form=form) for form in ("tables", "points", "kodi")]
    kept = {}
    for filters in (*FILTERS, *forms):
        for kind in ("players", "teams"):
            kept[kind, filters] = _kept(kind, filters)
            assert kept[kind, filters] == _from_deals(kind, filters), (kind, filters)
    figures.rebuild_all()
    assert figures.drift() == []
    for (kind, filters), board in kept.items():
        assert _kept(kind, filters) == board, (kind, filters)


def profile(client, name: str) -> dict:
    """What a player's page and the API say of the player: figures, form and badges."""
    player = Player.objects.get(name=name)
    page = client.get(reverse("leaderboards:player", args=[player.pk]))
    html = page.text
    figures_card = html.split('<dl class="figures">', 1)[1].split("</dl>", 1)[0]
    form = html.split('<p class="form-badges"', 1)[1].split("</p>", 1)[0]
    api = get(client, f"/api/v1/players/{player.pk}/")
    row = page.context["figures"]
    assert api["form"] == page.context["form"]
    assert (api["figures"]["won"], api["figures"]["sessions_won"]) == (row.won, row.sessions_won)
    assert api["figures"]["win_share"] == row.win_share
    return {
        "figures": figures_card,
        "form": page.context["form"],
        "form_html": form,
        "games_html": html.split('<ul class="profile-games">', 1)[1].split("</ul>", 1)[0],
        "won": (row.played, row.won, row.sessions_won),
    }


def api_board(client, kind: str, **query) -> dict:
    filters = "&".join(f"{key}={value}" for key, value in query.items())
    answer = get(client, f"/api/v1/leaderboards/{kind}/?{filters}")
    return {
        row["name"]: (row["played"], row["won"], row["sessions_won"], row["win_share"])
        for row in answer["results"]
    }


LEVEL_BADGE = '<span class="result result-level" title="level: a shared first place">=</span>'


def test_a_pair_with_a_level_game_and_a_win_has_won_one_of_two(client):
    level_at_tables(2)  # 4 tables to 4
    anu_and_biju_win()
    assert _results(player_board(Filters())) == {
        "Anu": (2, 1, 0, 50),
        "Biju": (2, 1, 0, 50),
        "Chitra": (2, 0, 0, 0),
        "Dev": (2, 0, 0, 0),
    }
    assert _results(team_board(Filters(form="tables"))) == {
        "Anu & Biju": (2, 1, 0, 50),
        "Chitra & Dev": (2, 0, 0, 0),
    }
    anu = profile(client, "Anu")
    assert anu["won"] == (2, 1, 0)
    assert '<dt>Games won</dt><dd>1 <span class="muted">(50%)</span></dd>' in anu["figures"]
    assert anu["form"] == ["W", "="]  # newest first
    assert LEVEL_BADGE in anu["form_html"] and LEVEL_BADGE in anu["games_html"]
    chitra = profile(client, "Chitra")
    assert chitra["form"] == ["L", "="]
    assert '<dt>Games won</dt><dd>0 <span class="muted">(0%)</span></dd>' in chitra["figures"]
    assert api_board(client, "teams") == {
        "Anu & Biju": (2, 1, 0, 0.5),
        "Chitra & Dev": (2, 0, 0, 0.0),
    }
    page = client.get(reverse("leaderboards:team_board")).text
    row = page.split("Anu &amp; Biju", 1)[1].split("</tr>", 1)[0]
    # Played, won, win %: the columns after the name and the rating.
    assert '<td class="num">2</td><td class="num">1</td><td class="num">50%</td>' in row
    team = Team.objects.get(name="Anu & Biju")
    assert get(client, f"/api/v1/teams/{team.pk}/")["figures"]["won"] == 1
    assert TeamTotals.objects.get(team=team).won == 1
    assert_no_win_at(Game.objects.get(label="Level at 2"))
    assert_in_step()


@pytest.mark.parametrize(
    ("teams", "badges"),
    [
        (3, {"Anu": "=", "Chitra": "=", "Esha": "L"}),  # 5, 5, 2
        (4, {"Anu": "=", "Chitra": "=", "Esha": "3", "Gita": "3"}),  # 6, 6, 2, 2
    ],
)
def test_three_and_four_teams_level_at_the_top_win_nothing(client, teams, badges):
    game = level_at_tables(teams)
    assert list(game.teams.order_by("position").values_list("place", flat=True)) == (
        [1, 1, 3] if teams == 3 else [1, 1, 3, 3]
    )
    assert {row.name: row.won for row in player_board(Filters())} == dict.fromkeys(
        (name for pair in PAIRS[:teams] for name in pair), 0
    )
    for name, badge in badges.items():
        assert profile(client, name)["form"] == [badge]
    assert all(row[1] == 0 for row in api_board(client, "players").values())
    assert_no_win_at(game)
    assert_in_step()


def test_a_level_points_sheet_is_no_session_won(client):
    session = level_session()
    assert [team.score for team in session.teams.order_by("position")] == [9, 9]
    anu_and_biju_win()
    assert _results(player_board(Filters(form="points"))) == dict.fromkeys(
        ("Anu", "Biju", "Esha", "Chitra", "Dev", "Farid"), (1, 0, 0, 0)
    )
    assert _results(team_board(Filters())) == {
        "Anu & Biju & Esha": (1, 0, 0, 0),
        "Chitra & Dev & Farid": (1, 0, 0, 0),
        "Anu & Biju": (1, 1, 0, 100),
        "Chitra & Dev": (1, 0, 0, 0),
    }
    anu = profile(client, "Anu")
    assert anu["won"] == (2, 1, 0)
    assert "<dt>Sessions won</dt><dd>0</dd>" in anu["figures"]
    assert anu["form"] == ["W", "="]
    esha = profile(client, "Esha")  # the session only: its board shows sessions, not wins
    assert esha["won"] == (1, 0, 0) and esha["form"] == ["="]
    assert "<dt>Sessions won</dt><dd>0</dd>" in esha["figures"]
    assert api_board(client, "teams", form="points") == {
        "Anu & Biju & Esha": (1, 0, 0, 0.0),
        "Chitra & Dev & Farid": (1, 0, 0, 0.0),
    }
    assert_no_win_at(session)
    assert_in_step()


def test_a_level_kodi_night_is_no_win(client):
    night = level_kodi_night()
    assert [(t.kodis, t.tables) for t in night.teams.order_by("position")] == [(0, 6), (0, 6)]
    anu_and_biju_win()
    assert _results(team_board(Filters(form="kodi"))) == {
        "Anu & Biju": (1, 0, 0, 0),
        "Chitra & Dev": (1, 0, 0, 0),
    }
    assert _results(team_board(Filters())) == {
        "Anu & Biju": (2, 1, 0, 50),
        "Chitra & Dev": (2, 0, 0, 0),
    }
    assert profile(client, "Dev")["form"] == ["L", "="]
    assert api_board(client, "players", form="kodi")["Biju"] == (1, 0, 0, 0.0)
    assert_no_win_at(night)
    assert_in_step()


def test_a_tournament_game_ended_level_counts_as_its_standings_count(client):
    """The standings' W column and the boards of the tournament agree: a level game is
    no team's win."""
    tournament = make_tournament("Level Cup", teams=2, tables_per_team=4)
    sitting = tournaments.confirm_sitting(
        sitting=tournaments.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    game = sitting.games.get().game
    made(game, 0)
    made(game, 1)
    tournaments.call_time(sitting=sitting)
    game.refresh_from_db()
    assert game.is_finished
    standings = {
        row.entry.team.name: (row.games, row.won, row.shared)
        for row in Standing.objects.filter(tournament=tournament).select_related("entry__team")
    }
    assert standings == {"Anu & Biju": (1, 0, True), "Chitra & Dev": (1, 0, True)}
    board = team_board(Filters(tournament=tournament.pk))
    assert {row.name: (row.played, row.won) for row in board} == {
        name: (games, won) for name, (games, won, _shared) in standings.items()
    }
    assert api_board(client, "teams", tournament=tournament.pk) == {
        "Anu & Biju": (1, 0, 0, 0.0),
        "Chitra & Dev": (1, 0, 0, 0.0),
    }
    assert_no_win_at(game)
    assert_in_step()


def test_a_knockout_level_at_its_limit_counts_only_once_its_tie_deals_decide_it(client):
    """A knockout cannot end level: at its limit the game plays its tie deals, and counts
    (one win, one loss) only when a deal decides it."""
    tournament = make_tournament("Knockout Cup", teams=2, tables_per_team=6)
    stage = stages.add_stage(
        tournament=tournament, kind="knockout", qualifiers=2, deal_limit=2, tie_deals=1
    )
    stages.confirm_stage(stage=stage)
    sitting = tournaments.confirm_sitting(
        sitting=tournaments.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    game = sitting.games.get().game
    at = dict(game.teams.values_list("team__name", "position"))
    made(game, at["Anu & Biju"])
    made(game, at["Chitra & Dev"])  # level at the limit: the tie deal is next
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS
    assert player_board(Filters()) == [] and team_board(Filters()) == []
    made(game, at["Chitra & Dev"])  # the tie deal: Chitra & Dev ahead, 7 tables to 5
    game.refresh_from_db()
    assert game.is_finished and game.winner.team.name == "Chitra & Dev"
    assert _results(team_board(Filters(tournament=tournament.pk))) == {
        "Chitra & Dev": (1, 1, 0, 100),
        "Anu & Biju": (1, 0, 0, 0),
    }
    assert profile(client, "Dev")["form"] == ["W"]
    assert profile(client, "Anu")["form"] == ["L"]
    standings = dict(
        Standing.objects.filter(tournament=tournament).values_list("entry__team__name", "won")
    )
    assert standings == {"Chitra & Dev": 1, "Anu & Biju": 0}
    assert_in_step()


def test_a_form_badge_tells_a_level_game_from_a_win():
    assert form_badge(1, 2, won=True) == "W"
    assert form_badge(1, 2, won=False) == "="  # level: a shared first place
    assert form_badge(1, 4, won=False) == "="
    assert [form_badge(place, 4, won=False) for place in (2, 3, 4)] == ["2", "3", "L"]
    assert form_badge(None, 2, won=False) == ""


BEFORE = ("leaderboards", "0004_figures_of_each_form_and_team_ratings")


def _as_counted_before(apps) -> dict:
    """The figures as they were kept before a level game was no win, in the schema of then
    (``apps``, the models at BEFORE: the code of today reads columns added since): each
    team placed first counted it as a game won, and on a points sheet as a session won.
    Returns each player's totals then: played, won, sessions won and win share."""
    rows = {side: apps.get_model("leaderboards", f"{side}GameFigures") for side in SIDES}
    for seat in GameTeam.objects.filter(game__status=Game.Status.FINISHED, place=1):
        session = int(seat.game.scoring == "points")
        rows["Team"].objects.filter(game_id=seat.game_id, team_id=seat.team_id).update(
            won=1, sessions_won=session
        )
        rows["Player"].objects.filter(game_id=seat.game_id, player_id__in=seat.player_ids).update(
            won=1, sessions_won=session
        )
    for side, key in SIDES.items():
        totals = apps.get_model("leaderboards", f"{side}Totals")
        summed = (
            rows[side]
            .objects.values(key)
            .annotate(won=Sum("won"), sessions_won=Sum("sessions_won"))
        )
        for row in summed.order_by():
            totals.objects.filter(**{key: row[key]}).update(
                won=row["won"], sessions_won=row["sessions_won"]
            )
    players = apps.get_model("leaderboards", "PlayerTotals").objects.select_related("player")
    return {
        row.player.name: (row.played, row.won, row.sessions_won, round(100 * row.won / row.played))
        for row in players
    }


SIDES = {"Player": "player_id", "Team": "team_id"}


@pytest.mark.django_db(transaction=True)
def test_the_migration_takes_the_win_from_level_games_counted_before():
    """Counted as before, then migrated: the figures are the deals' again, the site's and
    each club's (the boards read these: filled by a later migration from the rows)."""
    level_at_tables(3)  # Anu & Biju and Chitra & Dev level at the top, Esha & Farid last
    level_session()  # Anu & Biju & Esha level with Chitra & Dev & Farid
    anu_and_biju_win()
    boards = [Filters(), Filters(form="points"), Filters(form="tables")]
    wanted = {
        (kind, filters): _kept(kind, filters) for kind in ("players", "teams") for filters in boards
    }
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    before = _as_counted_before(executor.loader.project_state([BEFORE]).apps)
    assert before["Anu"] == (3, 3, 1, 100) and before["Esha"] == (2, 1, 1, 50)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert figures.drift() == []
    after = {
        (kind, filters): _kept(kind, filters) for kind in ("players", "teams") for filters in boards
    }
    assert after == wanted
    assert _results(player_board(Filters()))["Anu"] == (3, 1, 0, 33)
    assert _results(player_board(Filters()))["Esha"] == (2, 0, 0, 0)


# --- Any finished game ---------------------------------------------------------------

FORMS = {
    "tables": core.Rules(tables_per_team=3),
    "kodi": core.Rules(tables_per_team=3, kodi=True),
    "points": core.Rules(
        scoring=core.Scoring.POINTS, doubling_mode="add", all_pass=False, deal_limit=4
    ),
}


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    form=st.sampled_from(sorted(FORMS)),
    teams=st.integers(2, 4),
    deals=st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=6),
)
def test_only_a_sole_first_place_wins_and_no_side_wins_more_than_it_played(form, teams, deals):
    game = start_game(teams, rules=FORMS[form])
    for which, failed in deals:
        if Game.objects.get(pk=game.pk).is_finished:
            break
        left = playing(game)
        made(game, left[which % len(left)], failed=failed)
    if not Game.objects.get(pk=game.pk).is_finished:
        time_called(game)
    seats = list(GameTeam.objects.filter(game=game))
    firsts = [seat for seat in seats if seat.place == 1]
    teams_won = {row.team_id: row.won for row in TeamGameFigures.objects.filter(game=game)}
    assert teams_won == {seat.team_id: int(firsts == [seat]) for seat in seats}
    players_won = {row.player_id: row.won for row in PlayerGameFigures.objects.filter(game=game)}
    assert players_won == {
        player: int(firsts == [seat]) for seat in seats for player in seat.player_ids
    }
    for totals in (*PlayerTotals.objects.all(), *TeamTotals.objects.all()):
        assert totals.won <= totals.played
        assert totals.sessions_won <= totals.won
    assert figures.drift() == []
