"""Long lists a page at a time: the register of players, the
finished tournaments, a player's games and the home page's finished games are read one
page at a time, with their count, so no page grows with the club's history."""

from __future__ import annotations

import datetime

import pytest
from django.test import RequestFactory
from django.urls import reverse

from club.clubs import known
from club.games.models import Player
from club.games.people import join
from club.tournaments.models import Tournament
from club.web.paging import kept_query, page_number, page_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("raw", "number"),
    [("2", 2), ("1", 1), ("0", 1), ("-1", 1), ("two", 1), ("", 1), ("9" * 20, 1), ("٣", 1)],
)
def test_a_page_number_is_a_whole_number_from_1(raw, number):
    assert page_number(RequestFactory().get("/", {"page": raw})) == number


def test_the_pager_keeps_the_search_but_not_the_page_or_the_poll():
    request = RequestFactory().get("/", {"q": "Anu & co", "page": "3", "version": "9"})
    assert kept_query(request) == "q=Anu+%26+co"


def test_a_page_past_the_end_reads_the_last():
    for name in ("Anu", "Biju", "Chitra"):
        Player.objects.create(name=name)
    page = page_of(Player.objects.order_by("name"), 7, 2)
    assert (page.number, page.pages, page.total) == (2, 2, 3)
    assert [p.name for p in page.items] == ["Chitra"]
    assert page.previous_link == "?page=1" and page.next_link == ""


def test_a_page_comes_with_its_count_in_one_query(django_assert_num_queries):
    """Rows of models or of values: the list's count rides on each row of the page (a
    window), one query; a list with no row is one query too. Rows made distinct, or
    tuples, are counted apart: two."""
    for name in ("Anu", "Biju", "Chitra", "Deepa", "Esha"):
        Player.objects.create(name=name)
    players = Player.objects.order_by("name")
    with django_assert_num_queries(1):
        page = page_of(players, 2, 2)
    assert (page.number, page.pages, page.total) == (2, 3, 5)
    assert [p.name for p in page.items] == ["Chitra", "Deepa"]
    with django_assert_num_queries(1):
        rows = page_of(players.values("pk", "name"), 3, 2)
    assert (rows.number, rows.pages, rows.total) == (3, 3, 5)
    assert [set(row) for row in rows.items] == [{"pk", "name"}]  # the count taken out
    with django_assert_num_queries(1):
        none = page_of(players.filter(name="Nobody"), 1, 2)
    assert (none.items, none.number, none.pages, none.total) == ([], 1, 1, 0)
    with django_assert_num_queries(2):
        names = page_of(players.values_list("name", flat=True).distinct(), 1, 2)
    assert (names.items, names.total) == (["Anu", "Biju"], 5)
    anu, esha = (Player.objects.filter(name=name).order_by() for name in ("Anu", "Esha"))
    union = anu.union(esha).order_by("name")
    with django_assert_num_queries(2):  # a union's parts take no window: counted apart
        both = page_of(union, 1, 2)
    assert ([p.name for p in both.items], both.total) == (["Anu", "Esha"], 2)
    with django_assert_num_queries(3):  # past the end: counted, then the last page
        last = page_of(players, 9, 2)
    assert [p.name for p in last.items] == ["Esha"] and last.number == 3


def test_a_list_too_long_to_count_says_more_than_and_pages_on(client, monkeypatch):
    for number in range(7):
        Player.objects.create(name=f"Player {number}")
    players = Player.objects.order_by("name")
    page = page_of(players, 1, 2, count_up_to=4)
    assert (page.capped, page.total, page.pages) == (True, 4, 2)
    assert [p.name for p in page.items] == ["Player 0", "Player 1"]
    third = page_of(players, 3, 2, count_up_to=4)  # past what was counted: it goes on
    assert [p.name for p in third.items] == ["Player 4", "Player 5"] and third.next == 4
    last = page_of(players, 4, 2, count_up_to=4)
    assert [p.name for p in last.items] == ["Player 6"] and last.next is None
    assert page_of(players, 9, 2, count_up_to=4).number == 1  # far past the end: the first
    exact = page_of(players, 1, 2, count_up_to=7)
    assert (exact.capped, exact.total, exact.pages) == (False, 7, 4)
    # On the home page: the finished games past the count say "more than".
    from club.games import selectors
    from club.games.services import end_game
    from tests.factories import start_game

    for _ in range(3):
        end_game(game=start_game(2))
    monkeypatch.setattr(selectors, "FINISHED_PER_PAGE", 1)
    monkeypatch.setattr(selectors, "FINISHED_COUNTED", 2)
    home = client.get("/").text
    assert "Page 1 (more than 2 in all)" in home and 'rel="next"' in home


def test_the_register_is_paged_and_keeps_its_search(client):
    players = [Player.objects.create(name=f"Player {number:03d}") for number in range(120)]
    join(known.home_id(), [player.pk for player in players])  # the club's register
    first = client.get(reverse("leaderboards:players"))
    assert first.text.count('class="register-name"') == 50
    assert "120 players" in first.text and "Page 1 of 3 (120 in all)" in first.text
    found = client.get(reverse("leaderboards:players"), {"q": "Player 0", "page": "2"})
    # "Player 0" finds Player 000 to 099: 100, two pages of them.
    assert "100 players" in found.text and "Page 2 of 2 (100 in all)" in found.text
    assert found.text.count('class="register-name"') == 50
    assert 'href="?q=Player+0&amp;page=1"' in found.text


def test_finished_tournaments_are_paged(client):
    for number in range(30):
        Tournament.objects.create(
            name=f"Cup {number:02d}",
            starts_on=datetime.date(2026, 1, 1) + datetime.timedelta(days=number),
            status=Tournament.Status.FINISHED,
        )
    Tournament.objects.create(
        name="Running cup", starts_on=datetime.date(2026, 12, 1), status="running"
    )
    first = client.get(reverse("tournaments:list")).text
    assert "Cup 29" in first and "Cup 04" not in first and "Running cup" in first
    assert "Page 1 of 2 (30 in all)" in first
    second = client.get(reverse("tournaments:list"), {"page": "2"}).text
    assert "Cup 04" in second and "Running cup" in second
