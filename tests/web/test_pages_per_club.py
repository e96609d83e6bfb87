"""Kept pages per club: one club's writes leave the other clubs' pages where they were, and
no page is ever stale (club.web.writes, club.games.versions).

A site of two clubs, the home club and Gulf 56, each with a game of its own players, and
the shared cache's write counters on (in this process's memory, as test_write_counter
runs them), in transactions that commit as a server's do. A deal in one club leaves the
other club's pages in their memo (no query at all) and shows at once on its own; a team
renamed in one club leaves the other's keys as they were; the federation's ranking
follows a write in either club; a write of no club (the admin, at any address) sends
every club's pages back to their keys. After each write, every page kept equals a
fresh render of it.
"""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from club.clubs import known
from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from club.games.models import ClubVersion, Game, Player, Round, Team
from club.games.people import join
from club.games.services import TeamEntry, create_game, end_game, record_deal
from club.games.versions import (
    bump_names,
    club_version,
    every_club_version,
    names_moved_once,
)
from club.leaderboards import services as register
from club.web import pages, writes
from tests.factories import deal, deal_form

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def write_counter(settings):
    settings.PAGES_WRITE_COUNTER = True
    settings.CLUB_RANKING_MIN_GAMES = 1
    pages.forget()


@pytest.fixture
def clubs():
    home = known.home()
    gulf = Club.objects.create(name="Gulf 56", slug="gulf", time_zone="Asia/Dubai")
    known.forget()
    home_game = create_game(
        label="Home table",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=0,
        club=home,
    )
    gulf_game = create_game(
        label="Gulf table",
        teams=[TeamEntry("Rashid", "Salim"), TeamEntry("Tariq", "Omar")],
        first_dealer=0,
        club=gulf,
    )
    return home, gulf, home_game, gulf_game


def pages_of(club: Club, game: Game) -> list[str]:
    """A club's kept pages: its games, a game, its embed card and its boards."""
    return [
        reverse_in(club, "games:list"),
        game.get_absolute_url(),
        reverse_in(club, "games:embed", args=[game.pk]),
        reverse_in(club, "leaderboards:player_board"),
        reverse_in(club, "leaderboards:team_board"),
    ]


# The federation's ranking and its API, at the site's address and at a club's.
RANKING = ["/ranking/", "/clubs/gulf/ranking/", "/clubs/gulf/api/v1/ranking/"]


def get(url: str):
    response = Client().get(url)
    assert response.status_code == 200, url
    return response


def warm(urls: list[str]) -> dict[str, bytes]:
    """Each page read until it is served from its memo (the first reads may make a club's
    token or bring the boards up to date, which moves a counter)."""
    for _round in range(2):
        for url in urls:
            get(url)
    return {url: get(url).content for url in urls}


def queries(url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        get(url)
    return len(captured)


def fresh(urls: list[str]) -> None:
    """The invariant: a page served from the pages cache equals a fresh render of it."""
    kept = {url: get(url).content for url in urls}
    caches["pages"].clear()
    pages.forget()
    for url in urls:
        assert get(url).content == kept[url], url


def record_at(organiser: Client, club: Club, game: Game, number: int) -> None:
    """An organiser records a deal on the club's page (the middleware: the club's write).
    The organiser logs in before any page is kept: making a login is a write."""
    declarer = game.teams.order_by("position").first().first_player_id
    answer = organiser.post(
        reverse_in(club, "games:record", args=[game.pk]),
        deal_form(number, str(declarer), "28", "hearts", p0="30", p1="26"),
    )
    assert answer.status_code in (200, 302), answer
    assert Round.objects.filter(game=game, number=number).exists()


def counters(*names: str) -> list[int | None]:
    return [caches["pages"].get(name) for name in names]


def test_a_deal_in_one_club_leaves_the_others_pages_in_their_memo(
    clubs, organiser_client, django_assert_num_queries
):
    home, gulf, home_game, gulf_game = clubs
    gulf_pages, home_pages = pages_of(gulf, gulf_game), pages_of(home, home_game)
    before = warm(gulf_pages + home_pages)
    gulf_counters = counters(writes.club_counter(gulf.pk), writes.WRITES)

    record_at(organiser_client, home, home_game, 1)

    assert counters(writes.club_counter(gulf.pk), writes.WRITES) == gulf_counters
    with django_assert_num_queries(0):
        for url in gulf_pages:
            assert Client().get(url).content == before[url], url
    # The home club's game shows the deal at once: its page and its card are new.
    assert 'class="declaring"' in get(home_game.get_absolute_url()).text
    assert get(home_pages[2]).content != before[home_pages[2]]
    fresh(gulf_pages + home_pages)


def test_a_deal_recorded_for_a_club_by_a_service_moves_only_its_counter(clubs):
    home, gulf, home_game, gulf_game = clubs
    warm(pages_of(home, home_game) + pages_of(gulf, gulf_game) + RANKING)
    names = (
        writes.club_counter(home.pk),
        writes.club_counter(gulf.pk),
        writes.WRITES,
        writes.EVERY,
    )
    before = counters(*names)
    with writes.writes_of(gulf.pk):
        record_deal(game=gulf_game, number=1, entry=deal(gulf_game, {0: 30, 1: 26}, "Rashid", 28))
    home_now, gulf_now, site_now, every_now = counters(*names)
    assert (home_now, site_now) == (before[0], before[2])  # once, for the whole transaction
    assert (gulf_now, every_now) == (before[1] + 1, before[3] + 1)
    assert 'class="declaring"' in get(gulf_game.get_absolute_url()).text
    assert queries(pages_of(home, home_game)[1]) == 0
    fresh(pages_of(home, home_game) + pages_of(gulf, gulf_game))


def test_a_team_renamed_in_one_club_leaves_the_others_keys(clubs):
    home, gulf, home_game, gulf_game = clubs
    gulf_pages = pages_of(gulf, gulf_game)
    etags = {url: get(url)["ETag"] for url in gulf_pages}
    gulf_token, home_token = club_version(gulf), club_version(home)

    team = Team.objects.get(first_player__name="Anu", second_player__name="Biju")
    with writes.writes_of(home.pk):
        team.name = "Kerala Kings"
        team.save()

    assert club_version(gulf) == gulf_token and club_version(home) != home_token
    for url in gulf_pages:
        assert get(url)["ETag"] == etags[url], url  # the same key: the page as it was kept
    fresh(gulf_pages + pages_of(home, home_game))


def test_a_player_of_both_clubs_renamed_moves_both_tokens_one_of_one_club_only_its_own(
    clubs,
):
    home, gulf, home_game, gulf_game = clubs
    join(gulf.pk, [Player.objects.get(name="Anu").pk])  # Anu plays at Gulf too
    home_token, gulf_token = club_version(home), club_version(gulf)
    register.update_player(player=Player.objects.get(name="Biju"), name="Biju K")
    assert club_version(home) != home_token and club_version(gulf) == gulf_token
    home_token = club_version(home)
    register.update_player(player=Player.objects.get(name="Anu"), name="Anu V")
    assert club_version(home) != home_token and club_version(gulf) != gulf_token
    assert "Anu V" in get(home_game.get_absolute_url()).text
    fresh(pages_of(home, home_game) + pages_of(gulf, gulf_game))


def test_the_ranking_follows_a_write_in_either_club(clubs, organiser_client):
    home, gulf, home_game, gulf_game = clubs
    before = warm(RANKING)
    assert "Rashid" not in before["/ranking/"].decode()
    every = counters(writes.EVERY)

    with writes.writes_of(gulf.pk):
        record_deal(game=gulf_game, number=1, entry=deal(gulf_game, {0: 56, 1: 0}, "Rashid", 28))
        end_game(game=gulf_game)
    assert counters(writes.EVERY) != every
    for url in RANKING:
        assert "Rashid" in get(url).text, url  # Gulf's game, rated: the ranking lists him

    warm(RANKING)
    every = counters(writes.EVERY)
    record_at(
        organiser_client, home, home_game, 1
    )  # a deal at the home club: the ranking reads its key again
    assert counters(writes.EVERY) != every
    assert all(queries(url) > 0 for url in RANKING)
    fresh(RANKING)


def test_the_rankings_token_moves_with_any_clubs(clubs):
    home, gulf, _home_game, _gulf_game = clubs
    club_version(home), club_version(gulf)
    token = every_club_version()
    with writes.writes_of(gulf.pk):
        bump_names()  # the club the write is for: Gulf's
    assert every_club_version() != token
    assert ClubVersion.objects.get(club=home).names == 0


def test_a_write_of_no_club_sends_every_clubs_pages_back_to_their_keys(clubs, admin_client):
    home, gulf, home_game, gulf_game = clubs
    other = create_game(
        label="Deleted in the admin",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=0,
        club=home,
    )
    urls = pages_of(home, home_game) + pages_of(gulf, gulf_game)
    assert "Deleted in the admin" in warm(urls)[urls[0]].decode()
    site = counters(writes.WRITES)
    # The admin, even at a club's address, writes for no club: it reaches every club's rows.
    answer = admin_client.post(
        reverse_in(gulf, "admin:games_game_delete", args=[other.pk]), {"post": "yes"}
    )
    assert answer.status_code == 302 and not Game.objects.filter(pk=other.pk).exists()
    assert counters(writes.WRITES) != site
    assert all(queries(url) > 0 for url in urls)
    assert "Deleted in the admin" not in get(urls[0]).text
    fresh(urls)


def test_a_command_without_a_club_sends_every_clubs_pages_back_to_their_keys(clubs):
    home, gulf, home_game, gulf_game = clubs
    urls = pages_of(home, home_game) + pages_of(gulf, gulf_game)
    warm(urls)
    record_deal(  # no club known: a command, a script
        game=home_game, number=1, entry=deal(home_game, {0: 30, 1: 26}, "Anu", 28)
    )
    assert all(queries(url) > 0 for url in urls)
    fresh(urls)


def test_a_change_holding_the_tokens_moves_each_once_at_its_end(clubs):
    home, gulf, _home_game, _gulf_game = clubs
    before = {club.pk: int(club_version(club).split(".")[1]) for club in (home, gulf)}
    with CaptureQueriesContext(connection) as captured, names_moved_once():
        bump_names([home.pk])
        bump_names([gulf.pk])
        bump_names([home.pk])
    updates = [q for q in captured if q["sql"].startswith("UPDATE") and "clubversion" in q["sql"]]
    assert len(updates) == 1  # one statement, at the end
    after = {club.pk: int(club_version(club).split(".")[1]) for club in (home, gulf)}
    assert after == {pk: moved + 1 for pk, moved in before.items()}


def test_the_local_memory_default_keeps_no_counter(clubs, settings):
    settings.PAGES_WRITE_COUNTER = None  # the default: this process's memory, no counter
    home, _gulf, home_game, _gulf_game = clubs
    names = (writes.WRITES, writes.EVERY, writes.club_counter(home.pk))
    before = counters(*names)
    get(home_game.get_absolute_url())
    record_deal(game=home_game, number=1, entry=deal(home_game, {0: 30, 1: 26}, "Anu", 28))
    assert counters(*names) == before
    assert queries(home_game.get_absolute_url()) > 0  # the key is read on every request
    assert 'class="declaring"' in get(home_game.get_absolute_url()).text


def test_a_shared_cache_that_is_down_serves_every_club_from_the_database(clubs, monkeypatch):
    home, gulf, home_game, gulf_game = clubs
    warm(pages_of(gulf, gulf_game) + pages_of(home, home_game))

    def down(*args, **kwargs):
        raise ConnectionError("the shared cache is down")

    for method in ("get_many", "get", "set", "add", "incr"):
        monkeypatch.setattr(caches["pages"], method, down)
    with writes.writes_of(home.pk):
        record_deal(game=home_game, number=1, entry=deal(home_game, {0: 30, 1: 26}, "Anu", 28))
    for url in pages_of(gulf, gulf_game):
        assert queries(url) > 0, url  # rendered, as if nothing were kept
    assert 'class="declaring"' in get(home_game.get_absolute_url()).text


def test_a_login_moves_no_counter(clubs, django_user_model, django_assert_num_queries):
    home, gulf, home_game, gulf_game = clubs
    user = django_user_model.objects.create_user(username="rashid", password="pw")
    urls = pages_of(home, home_game) + pages_of(gulf, gulf_game)
    warm(urls)
    # The login page: a session, the login's time (no page shows either).
    answer = Client().post("/accounts/login/", {"username": "rashid", "password": "pw"})
    assert answer.status_code == 302
    user.refresh_from_db()
    assert user.last_login is not None
    with django_assert_num_queries(0):
        for url in urls:
            Client().get(url)
    user.first_name = "Rashid"
    user.save()  # a rename shows in a game's history, at any club
    assert all(queries(url) > 0 for url in urls)


def test_a_players_page_names_a_club_they_join_at_once(clubs):
    """Anu's page at the home club names her clubs: added to Gulf's register (the same
    person), she is Gulf's too before any game of hers there, and her kept page says so."""
    home, gulf, _home_game, _gulf_game = clubs
    anu = Player.objects.get(name="Anu")
    url = reverse_in(home, "leaderboards:player", args=[anu.pk])
    assert "Gulf 56" not in warm([url])[url].decode()
    with writes.writes_of(gulf.pk):  # as at Gulf's address (ClubWritesMiddleware)
        register.register.add_player(club=gulf, name="Anu", same_people={"anu"})
    assert "Gulf 56" in get(url).content.decode()
    fresh([url])
