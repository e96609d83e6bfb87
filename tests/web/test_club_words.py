"""The small things a club notices: dates read day first,
every number a form refuses is refused in the club's words with its range, and the
printed standings say how far they go."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import formats, translation

from club.games.services import TeamEntry, create_game
from club.tournaments import services
from tests.factories import deal_form
from tests.tournaments.helpers import make_tournament, rng, win_game

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


# --- Dates -------------------------------------------------------------------------


def test_dates_read_day_first_in_english_by_default(client):
    tournament = make_tournament(teams=2)  # starts on 5 July 2025
    page = client.get(tournament.get_absolute_url()).text
    assert "5 July 2025" in page and "July 5, 2025" not in page
    with translation.override("en"):
        assert formats.date_format(datetime.date(2026, 12, 1), "SHORT_DATE_FORMAT") == "01/12/2026"


@pytest.mark.parametrize("language", ["ml", "mr"])
def test_malayalam_and_marathi_dates_are_day_first_too(language):
    with translation.override(language):
        text = formats.date_format(datetime.date(2026, 12, 1), "SHORT_DATE_FORMAT")
    assert text == "01/12/2026"


def test_a_club_may_read_dates_month_first(client, settings):
    settings.FORMAT_MODULE_PATH = None  # DJANGO_DATE_ORDER=month
    formats.reset_format_cache()
    try:
        tournament = make_tournament(teams=2)
        assert "July 5, 2025" in client.get(tournament.get_absolute_url()).text
    finally:
        formats.reset_format_cache()


def _settings_with(**env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; from django.conf import settings; django.setup(); "
            "print(settings.DATE_ORDER, getattr(settings, 'FORMAT_MODULE_PATH', None))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**clean, **env, "DJANGO_SETTINGS_MODULE": "club.settings"},
    )


def test_the_date_order_setting_is_read_and_a_wrong_one_refused():
    assert _settings_with().stdout.split() == ["day", "['club.formats']"]
    assert _settings_with(DJANGO_DATE_ORDER="Month").stdout.split() == ["month", "None"]
    wrong = _settings_with(DJANGO_DATE_ORDER="sideways")
    assert wrong.returncode != 0 and "give day (the default) or month" in wrong.stderr


# --- Numbers refused in the club's words ------------------------------------------------


def _game(*names):
    teams = [TeamEntry(*pair) for pair in names] or [
        TeamEntry("Anu", "Biju", "50% Club"),
        TeamEntry("Chitra", "Dev"),
    ]
    return create_game(label="Friday", teams=teams, first_dealer=0)


@pytest.mark.parametrize(
    "bid, message",
    [
        ("27", "A bid must be from 28 to 56; 27 is not."),
        ("57", "A bid must be from 28 to 56; 57 is not."),
        ("twenty-eight", "The bid must be a whole number from 28 to 56."),
        ("", "Enter the bid, from 28 to 56."),
    ],
)
def test_a_bid_outside_28_to_56_is_refused_in_the_clubs_words(organiser_client, bid, message):
    game = _game()
    anu = game.teams.get(position=0).first_player
    post = deal_form(1, declarer=str(anu.pk), bid=bid, trump="hearts", p0=30, p1=26)
    response = organiser_client.post(reverse("games:record", args=[game.pk]), post)
    assert response.status_code == 200
    assert response.context["form"].errors["bid"] == [message]
    assert not game.rounds.exists()


@pytest.mark.parametrize("pile", ["57", "-1"])
def test_a_pile_outside_0_to_56_names_the_team_even_with_a_percent_in_its_name(
    organiser_client, pile
):
    game = _game()
    anu = game.teams.get(position=0).first_player
    post = deal_form(1, declarer=str(anu.pk), bid="28", trump="hearts", p0=pile, p1=26)
    response = organiser_client.post(reverse("games:record", args=[game.pk]), post)
    assert response.context["form"].errors["points_0"] == [
        "The pile of 50% Club is from 0 to 56 card points."
    ]
    assert not game.rounds.exists()


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("tables_per_team", "0", "Enter a whole number from 1 to "),
        ("double_factor", "x", "Enter a whole number from 1 to "),
        ("deal_limit", "0", "Enter a whole number from 1 to "),
    ],
)
def test_the_house_rules_numbers_say_their_range(organiser_client, field, value, message):
    from tests.tournaments.test_views import new_tournament_post

    response = organiser_client.post(
        reverse("tournaments:new"), new_tournament_post(**{field: value})
    )
    assert response.status_code == 200
    (error,) = response.context["form"].errors[field]
    assert error.startswith(message) and "Ensure this value" not in error


# --- The printed standings say how far they go ----------------------------------------


def test_the_printout_counts_only_finished_sittings_and_says_what_is_played_of_the_next(client):
    tournament = make_tournament(teams=4)
    url = reverse("tournaments:print_standings", args=[tournament.pk])
    first = services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    text = client.get(url).text
    assert "Standings after 0 sittings" in text and "games of sitting" not in text
    games = [entry.game for entry in first.games.select_related("game").order_by("position")]
    win_game(games[0], games[0].teams.first().team.name)
    text = client.get(url).text
    assert "Standings after 0 sittings, and 1 of the 2 games of sitting 1" in text
    win_game(games[1], games[1].teams.first().team.name)
    second = services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    assert second.number == 2
    text = client.get(url).text
    assert "Standings after 1 sitting" in text and "of sitting 2" not in text
