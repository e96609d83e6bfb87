"""A season's kept pages (club.web.pages) are never stale: each write that changes what the
table shows moves the page's key in its own transaction, so the next reading shows it,
and a kept page equals a fresh render."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.db import transaction
from django.test import Client
from django.urls import reverse

from club.clubs import known
from club.competitions.services import Terms, save_competition
from club.competitions.table import competition_table
from club.games.models import Game, Player, Team
from club.games.services import Deal, edit_deal, load_seating
from club.leaderboards import merge
from club.web import pages as kept_pages
from club.web.writes import writes_of
from tests.competitions.circuits import a_circuit_of_two_clubs
from tests.competitions.test_season_by_hand import play_the_season, season

pytestmark = pytest.mark.django_db


def kept(url: str) -> str:
    """Read twice: the second answer comes from the pages cache (and equals the first)."""
    first, second = Client().get(url), Client().get(url)
    assert first.status_code == 200
    assert first.content == second.content and first["ETag"] == second["ETag"]
    return second.text


def first_place(page: str) -> str:
    row = page.split('<tr class="leader">', 1)[1]
    return row.split("</a>", 1)[0].rsplit(">", 1)[1]


@pytest.fixture
def the_season():
    games = play_the_season()
    return games, season()


def test_a_kept_table_equals_a_fresh_render(the_season):
    _games, competition = the_season
    for url in (
        competition.get_absolute_url(),
        reverse("competitions:print", args=[competition.pk]),
        reverse("competitions:projector", args=[competition.pk]),
    ):
        cached = kept(url)
        caches["pages"].clear()
        assert Client().get(url).text == cached


def test_a_correction_to_an_old_night_shows_at_the_next_reading(the_season):
    games, competition = the_season
    url = competition.get_absolute_url()
    assert first_place(kept(url)) == "Esha &amp; Farid"
    # Night 3: Esha & Farid's win over Anu & Biju becomes Anu & Biju's (Anu declares 40).
    game = games[4]
    seating = load_seating(game)
    anu = next(p for p in seating.players if p.name == "Anu")
    edit_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 16, 1: 40}, declarer=seating.seat_of(anu.pk), bid=40, trump="hearts"),
    )
    assert first_place(kept(url)) == "Anu &amp; Biju"


def test_a_rename_a_game_deleted_and_the_rule_changed_show_at_once(the_season):
    games, competition = the_season
    url = competition.get_absolute_url()
    assert "Chitra &amp; Dev" in kept(url)
    team = Team.objects.get(name="Chitra & Dev")
    team.name = "Chithra & Dev"
    team.save()  # a team saved moves the token of its players' clubs (club.games.versions)
    assert "Chithra &amp; Dev" in kept(url)
    Game.objects.get(pk=games[-1].pk).delete()  # night 4's D v B: night 4 stays (C v A)
    assert "The best 2 nights of 4 count." in kept(url)
    terms = Terms(
        name=competition.name,
        starts_on=competition.starts_on,
        ends_on=competition.ends_on,
        counts=competition.counts,
        ranks=competition.ranks,
        method=competition.method,
        place_points=(10, 6, 4, 2),
    )
    save_competition(club=competition.club, terms=terms, competition=competition)
    page = kept(url)
    assert "The best 2 nights" not in page and "Indu &amp; Jacob" in page


def _lines(competition) -> list[tuple]:
    table = competition_table(competition)
    return [
        (line.line, line.place, line.total, line.counted, line.dropped, line.decided_by)
        for line in table.lines
    ]


def fresh(competition) -> list[tuple]:
    caches["pages"].clear()
    return _lines(competition)


def test_a_nights_kept_places_equal_a_fresh_placing_after_every_change(the_season):
    games, competition = the_season
    players = season(name="Players", ranks="players")
    for each in (competition, players):
        assert _lines(each) == _lines(each) == fresh(each)  # kept, then read back
    # A correction to night 3: only that night is placed again, and the table is exact.
    game = games[4]
    seating = load_seating(game)
    anu = next(p for p in seating.players if p.name == "Anu")
    edit_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 16, 1: 40}, declarer=seating.seat_of(anu.pk), bid=40, trump="hearts"),
    )
    for each in (competition, players):
        kept_lines = _lines(each)
        assert kept_lines == fresh(each)
    # Two players merged: their seats change, and the merge moves their games' last change.
    _lines(players)
    merge.merge_players(keep=Player.objects.get(name="Esha"), fold=Player.objects.get(name="Indu"))
    assert _lines(players) == fresh(players)


def test_a_poll_that_holds_the_tables_version_is_answered_204_until_it_moves(the_season):
    games, competition = the_season
    url = competition.get_absolute_url()
    page = kept(url)
    live = page.split('data-live-version="', 1)[1].split('"', 1)[0]
    assert Client().get(url, {"version": live}).status_code == 204
    edit_deal(
        game=games[0],
        number=1,
        entry=Deal(
            points={0: 40, 1: 16},
            declarer=load_seating(games[0]).seat_of(Player.objects.get(name="Anu").pk),
            bid=28,
            trump="hearts",
        ),
    )
    assert Client().get(url, {"version": live}).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_circuit_read_at_a_clubs_address_follows_the_other_clubs_writes(settings):
    """A circuit shows several clubs' tournaments: its memo (club.web.pages) follows every
    club's writes, at the site's address and at a club's."""
    settings.PAGES_WRITE_COUNTER = True
    kept_pages.forget()
    made = a_circuit_of_two_clubs()
    home, gulf, gulf_cup, circuit = known.home(), made.gulf, made.gulf_cup, made.circuit
    urls = [f"/clubs/{home.slug}/circuits/{circuit.pk}/", f"/circuits/{circuit.pk}/"]
    for url in urls * 2:
        assert "Gulf cup" in kept(url)
    with writes_of(gulf.pk), transaction.atomic():  # a write of Gulf's, at Gulf's address
        gulf_cup.name = "Gulf grand cup"
        gulf_cup.save()
    for url in urls:
        assert "Gulf grand cup" in kept(url)
