"""Where the players sit: a player's page in the tournament
with the sitting in play (table, seat, partners, opponents, the game's tables or score),
and the public draw of the sitting, findable by name on a phone."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from club.games.models import Player
from club.scoring import rules as core
from club.tournaments import seats, services
from tests.tournaments.helpers import make_tournament, play_sitting, rng, win_game

pytestmark = pytest.mark.django_db


def player_url(tournament, name):
    return reverse("tournaments:player", args=[tournament.pk, Player.objects.get(name=name).pk])


def seated(teams=4, tables_per_team=3, **kwargs):
    """A tournament with its first sitting confirmed; 3 tables a team unless told."""
    tournament = make_tournament(teams=teams, tables_per_team=tables_per_team, **kwargs)
    sitting = services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    return tournament, sitting


def game_of(sitting, name):
    for placed in sitting.games.select_related("game"):
        if (
            placed.game.teams.filter(team__first_player__name=name).exists()
            or placed.game.teams.filter(team__second_player__name=name).exists()
        ):
            return placed
    raise AssertionError(name)


def test_a_players_page_says_where_they_sit_with_whom_and_against_whom(client):
    tournament, sitting = seated()
    placed = game_of(sitting, "Anu")
    game = placed.game
    [theirs] = [
        team for team in game.teams.select_related("team") if team.team.name != "Anu & Biju"
    ]
    win_game(game, "Anu & Biju")  # one deal: 4 tables to 2
    page = client.get(player_url(tournament, "Anu")).text
    assert escape(f"Sitting 1: {placed.table_label}") in page
    assert "Playing with</dt><dd>Biju</dd>" in page
    assert escape(theirs.team.name) in page
    assert "Seat " in page and "of 4, in play order" in page
    assert "Anu &amp; Biju <b>4</b>" in page and f"{escape(theirs.team.name)} <b>2</b>" in page
    assert "1 deal played." in page
    # The partner's page says the same table.
    assert (
        escape(f"Sitting 1: {placed.table_label}")
        in client.get(player_url(tournament, "Biju")).text
    )


def test_a_bye_and_the_next_draw_are_on_the_players_page(client):
    tournament, sitting = seated(teams=5, tables_per_team=1)
    [bye] = sitting.byes.select_related("entry__team__first_player")
    name = bye.entry.team.first_player.name
    assert (
        "Your team sits out this sitting (a bye)." in client.get(player_url(tournament, name)).text
    )
    play_sitting(sitting)
    nxt = services.propose_sitting(tournament=tournament, rng=rng())
    table = next(n for n, game in enumerate(nxt.proposal, 1) if bye.entry_id in game)
    page = client.get(player_url(tournament, name)).text
    assert f"Sitting 2 is drawn, not confirmed yet: you are to play at Table {table}." in page


def test_a_player_not_in_the_tournament_gets_not_found(client):
    tournament, _sitting = seated()
    stranger = Player.objects.create(name="Stranger")
    url = reverse("tournaments:player", args=[tournament.pk, stranger.pk])
    assert client.get(url).status_code == 404


def test_the_players_page_refreshes_like_the_public_pages(client):
    tournament, sitting = seated()
    url = player_url(tournament, "Anu")
    tournament.refresh_from_db()
    version = seats.page_version(tournament.pk)
    assert client.get(url, {"version": version}).status_code == 204
    win_game(game_of(sitting, "Anu").game, "Anu & Biju")
    fresh = client.get(url, {"version": version})
    assert fresh.status_code == 200 and 'id="player-live"' in fresh.text
    assert "<html" not in fresh.text  # the fragment only


def test_where_do_i_sit_lists_every_table_and_finds_a_name(client):
    tournament, sitting = seated()
    url = reverse("tournaments:seats", args=[tournament.pk])
    page = client.get(url).text
    assert page.count('class="card seat-table"') == 2
    assert f'href="{player_url(tournament, "Anu")}">Anu</a>' in page
    found = client.get(url, {"q": "  anu "}).text  # case and spaces do not matter
    assert found.count('class="card seat-table"') == 1
    assert escape(game_of(sitting, "Anu").table_label) in found
    none = client.get(url, {"q": "Zubin"}).text
    assert "Nobody called “Zubin” sits in Sitting 1." in none


def test_a_name_with_an_accent_is_found_without_it(client):
    tournament = services.create_tournament(
        name="Goa Open", starts_on=tournament_day(), rules=core.Rules(tables_per_team=2)
    )
    for first, second in [("José", "Maria"), ("Anu", "Biju")]:
        services.register_team(tournament=tournament, first=first, second=second)
    services.confirm_sitting(sitting=services.propose_sitting(tournament=tournament, rng=rng()))
    page = client.get(reverse("tournaments:seats", args=[tournament.pk]), {"q": "jose"}).text
    assert "José" in page and page.count('class="card seat-table"') == 1


def tournament_day():
    return datetime.date(2026, 12, 5)


def test_before_any_sitting_the_seats_page_says_so(client):
    tournament = make_tournament(teams=4)
    page = client.get(reverse("tournaments:seats", args=[tournament.pk])).text
    assert "No sitting has been drawn yet." in page


def test_the_profile_and_the_standings_lead_to_the_players_page(client):
    tournament, _sitting = seated()
    anu = Player.objects.get(name="Anu")
    url = player_url(tournament, "Anu")
    profile = client.get(reverse("leaderboards:player", args=[anu.pk])).text
    assert f"Playing in {tournament.name}:" in profile and f'href="{url}"' in profile
    assert f'href="{url}">Anu</a>' in client.get(tournament.get_absolute_url()).text


@pytest.mark.parametrize("page", ["player", "seats"])
def test_the_pages_cost_the_same_queries_for_a_small_and_a_big_tournament(client, page):
    counts = []
    for teams in (4, 12):
        tournament, sitting = seated(teams=teams, tables_per_team=1, name=f"Cup of {teams}")
        play_sitting(sitting)
        services.confirm_sitting(sitting=services.propose_sitting(tournament=tournament, rng=rng()))
        url = (
            player_url(tournament, "Anu")
            if page == "player"
            else reverse("tournaments:seats", args=[tournament.pk])
        )
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
