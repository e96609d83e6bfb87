"""The competitions' pages: the table as a visitor reads it, the organiser's form and its
refusals (nothing saved), a circuit of two clubs, and the kept page equal to a fresh one."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from club.clubs import known
from club.clubs.models import Club
from club.competitions.models import Competition
from club.competitions.services import CompetitionError, Terms, save_competition
from club.games.models import Player, Team
from club.scoring import seasons
from club.tournaments.models import Tournament
from tests.competitions.circuits import a_circuit_of_two_clubs
from tests.competitions.test_season_by_hand import NIGHTS, play, play_the_season, season

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.fixture
def organiser(client):
    user = User.objects.create_user("org", password="pw")
    known.home().organisers.add(user)
    client.force_login(user)
    return user


def test_the_table_shows_places_totals_and_the_tie_rule(client):
    play_the_season()
    competition = season()
    page = client.get(competition.get_absolute_url())
    assert page.status_code == 200
    shown = text(page)
    order = [
        shown.index(name) for name in ("Esha &amp; Farid", "Anu &amp; Biju", "Gita &amp; Hari")
    ]
    assert order == sorted(order)
    assert "equal total: placed by the latest night" in shown
    assert "The best 2 nights of 4 count." in shown
    assert "Not ranked yet" in shown and "Indu &amp; Jacob" in shown
    for name in ("print", "projector"):
        assert client.get(reverse(f"competitions:{name}", args=[competition.pk])).status_code == 200


def test_a_line_page_lists_its_nights_counted_and_dropped(client):
    play_the_season()
    competition = season()
    team = Team.objects.get(name="Anu & Biju")
    page = client.get(reverse("competitions:line", args=[competition.pk, team.pk]))
    assert page.status_code == 200
    shown = text(page)
    assert shown.count("Counted") == 2 and shown.count("Dropped") == 2
    assert client.get(reverse("competitions:line", args=[competition.pk, 10**6])).status_code == 404


def test_the_organiser_makes_a_season_in_one_form(client, organiser):
    answer = client.post(
        reverse("competitions:new"),
        {
            "name": "Spring league",
            "starts_on": "2026-03-01",
            "ends_on": "2026-05-31",
            "counts": "all",
            "ranks": "players",
            "method": "places",
            "preset": "five",
            "minimum": "2",
            "best": "8",
        },
    )
    made = Competition.objects.get(name="Spring league")
    assert answer.status_code == 302 and answer["Location"] == made.get_absolute_url()
    assert (made.place_points, made.best, made.minimum, made.club) == (
        [5, 4, 3, 2, 1],
        8,
        2,
        known.home(),
    )


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"ends_on": "2026-02-01"}, "is before the first day"),
        ({"preset": "custom", "place_points": "10, 12"}, "cannot rise"),
        ({"preset": "custom", "place_points": "ten"}, "as whole numbers"),
        ({"counts": "events"}, "Choose at least one tournament"),
        ({"counts": "form", "form": ""}, "Choose the form of play"),
        ({"ends_on": "9999-12-31"}, "Give days between the years 1900 and 2199."),
        ({"starts_on": "0001-01-01"}, "Give days between the years 1900 and 2199."),
        ({"preset": "custom", "place_points": "1" * 23}, "A place scores at most 9999 points."),
        ({"place_points": "12, 7, 3"}, "You typed your own points"),
        ({"form": "kodi"}, "A form of play counts only when"),
        ({"late_counts": "on"}, "Late results need a deadline"),
        ({"final_within_days": "999"}, "Enter a whole number from 0 to 365."),
    ],
)
def test_a_season_that_cannot_be_is_refused_by_name_and_nothing_saved(
    client, organiser, changes, says
):
    form = {
        "name": "Spring league",
        "starts_on": "2026-03-01",
        "ends_on": "2026-05-31",
        "counts": "all",
        "ranks": "teams",
        "method": "places",
        "preset": "ten",
        "minimum": "1",
        **changes,
    }
    answer = client.post(reverse("competitions:new"), form)
    assert answer.status_code == 200
    assert says in text(answer)
    assert not Competition.objects.exists()


def test_a_visitor_and_another_clubs_organiser_cannot_write(client):
    competition = season()
    url = reverse("competitions:edit", args=[competition.pk])
    assert client.get(url).status_code == 302  # to log in
    other = Club.objects.create(name="Gulf 56", slug="gulf")
    user = User.objects.create_user("gulf", password="pw")
    other.organisers.add(user)
    client.force_login(user)
    # On a site of two clubs the season is at its club's address.
    assert client.post(competition.get_absolute_url() + "delete/").status_code == 403
    assert Competition.objects.filter(pk=competition.pk).exists()


def test_a_circuit_counts_chosen_tournaments_of_two_clubs(client):
    made = a_circuit_of_two_clubs()
    circuit, gulf_cup = made.circuit, made.gulf_cup
    assert circuit.get_absolute_url() == f"/circuits/{circuit.pk}/"
    page = client.get(circuit.get_absolute_url())
    assert page.status_code == 200
    assert "Results not final yet" in text(page)  # neither cup has finished
    # Listed at each club whose tournament it counts.
    gulf_list = client.get("/clubs/gulf/competitions/")
    assert "Kerala circuit" in text(gulf_list)
    # A club's competition of another club's tournament is refused.
    with pytest.raises(CompetitionError, match="another club"):
        save_competition(
            club=known.home(),
            terms=Terms(
                name="Home season",
                starts_on=dt.date(2026, 1, 1),
                ends_on=dt.date(2026, 12, 31),
                counts=Competition.Counts.EVENTS,
                ranks=Competition.Ranks.TEAMS,
                method=seasons.PLACES,
                place_points=(3, 1),
            ),
            events=[gulf_cup],
        )
    assert Tournament.objects.count() == 2


def test_a_clubs_organiser_cannot_make_or_change_a_circuit(client, organiser):
    before = Competition.objects.count()
    assert client.get("/circuits/new/").status_code == 403
    form = {"name": "Mine", "starts_on": "2026-01-01", "ends_on": "2026-02-01", "counts": "events"}
    assert client.post("/circuits/new/", form).status_code == 403
    assert Competition.objects.count() == before


def test_a_players_page_shows_their_line_in_the_clubs_seasons(client):
    play_the_season()
    competition = season(ranks=Competition.Ranks.PLAYERS, starts_on=dt.date(2026, 1, 1))
    esha = Player.objects.get(name="Esha")
    shown = text(client.get(esha.get_absolute_url()))
    assert f"{competition.name} : place 1 of 8, 16 (shared) 4 nights" in shown


def _queries(client, url) -> int:
    caches["pages"].clear()  # a first render, every night placed
    with CaptureQueriesContext(connection) as done:
        assert client.get(url).status_code == 200
    return len(done.captured_queries)


def test_a_seasons_pages_read_as_many_queries_whatever_its_nights(client):
    play_the_season()
    competition = season(best=None)
    urls = [
        competition.get_absolute_url(),
        reverse("competitions:line", args=[competition.pk, Team.objects.get(name="Anu & Biju").pk]),
        reverse("competitions:print", args=[competition.pk]),
        reverse("competitions:projector", args=[competition.pk]),
    ]
    before = [_queries(client, url) for url in urls]
    # Key (3: the season, its games' newest change, its tournaments' results; the club's
    # token), the season, its games, the rows of the nights not kept, the tournaments it
    # counts, the names: the same for a line, the printout and the projector.
    assert before == [9, 9, 9, 9]
    for number, winner, loser, bid in NIGHTS:  # four more nights, a week after the first four
        play(number + 4, winner, loser, bid)
    assert [_queries(client, url) for url in urls] == before


def test_a_season_of_match_points_changes_to_places_with_the_forms_own_points(client, organiser):
    competition = season(method=seasons.MATCH_POINTS, place_points=())
    url = reverse("competitions:edit", args=[competition.pk])
    form = client.get(url).context["form"]
    assert form.initial["preset"] == "ten" and form.initial["place_points"] == ""
    posted = {
        key: ("" if value is None else value)
        for key, value in form.initial.items()
        if key not in ("events", "late_counts")
    }
    answer = client.post(url, {**posted, "method": seasons.PLACES})
    assert answer.status_code == 302
    competition.refresh_from_db()
    assert competition.place_points == list(seasons.PRESETS["ten"])
