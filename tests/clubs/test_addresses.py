"""Where a club's pages are (club.clubs.addresses): the short addresses on a site of one
club, /clubs/<slug>/ on a site of several, and a redirect from the old addresses."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import get_script_prefix, reverse

from club.clubs import known
from club.clubs.addresses import reverse_in, site_reverse
from club.clubs.models import Club
from club.games.models import Game
from club.tournaments import services as tournaments
from tests.factories import start_game


@pytest.fixture
def gulf(db):
    return Club.objects.create(name="Gulf 56", slug="gulf", time_zone="Asia/Dubai")


def test_a_one_club_site_keeps_its_short_addresses(client, db):
    game = start_game(2, label="Table one")
    assert not known.clubs().several
    assert game.get_absolute_url() == f"/games/{game.pk}/"
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    assert response.wsgi_request.club == known.home()
    # Its links are short too, and the address with the club's part serves it as well.
    assert 'href="/rules/"' in response.content.decode()
    home = known.home()
    assert client.get(f"/clubs/{home.slug}/games/{game.pk}/").status_code == 200
    assert client.get("/").status_code == 200  # the club's games, as before
    assert b"Table one" in client.get("/").content


def test_a_site_of_several_clubs_sends_the_old_addresses_to_the_first_club(client, gulf):
    game = start_game(2, label="Table one")
    home = known.home()
    assert known.clubs().several
    assert game.get_absolute_url() == f"/clubs/{home.slug}/games/{game.pk}/"
    response = client.get(f"/games/{game.pk}/?page=2")
    assert response.status_code == 301
    assert response["Location"] == f"/clubs/{home.slug}/games/{game.pk}/?page=2"
    # A form sent to an old address is sent again, as it was, to the new one.
    response = client.post(f"/games/{game.pk}/deals/", {"x": "1"})
    assert response.status_code == 308
    assert response["Location"] == f"/clubs/{home.slug}/games/{game.pk}/deals/"
    page = client.get(f"/clubs/{home.slug}/games/{game.pk}/")
    assert page.status_code == 200
    assert f'href="/clubs/{home.slug}/rules/"' in page.content.decode()
    # The game is the home club's: at Gulf's address there is no such game.
    assert client.get(f"/clubs/gulf/games/{game.pk}/").status_code == 404


def test_the_site_home_lists_the_clubs_and_each_club_has_its_home(client, gulf):
    start_game(2, label="Table one")
    page = client.get("/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Gulf 56" in text and known.home().name in text
    assert 'href="/clubs/gulf/"' in text
    gulf_home = client.get("/clubs/gulf/")
    assert gulf_home.status_code == 200
    assert b"Table one" not in gulf_home.content
    assert b"Gulf 56" in gulf_home.content  # the header names the club
    assert client.get("/clubs/gulf").status_code == 301
    assert client.get("/clubs/nowhere/").status_code == 404
    assert client.get("/clubs/").status_code == 200


def test_the_sites_list_of_clubs_is_kept_and_shows_each_change_at_once(
    client, gulf, django_assert_num_queries
):
    first = client.get("/clubs/")
    assert first.text.count("No game played yet") == 2
    with django_assert_num_queries(1):  # its key (club.web.pages): every club and its latest game
        again = client.get("/clubs/")
    assert again.content == first.content
    start_game(2, label="Table one", club=gulf)  # a game begun at Gulf: it has played
    played = client.get("/clubs/").text
    assert played.count("No game played yet") == 1 and "Last played" in played
    gulf.name = "Gulf 56 Association"
    gulf.save()
    assert "Gulf 56 Association" in client.get("/clubs/").text
    gulf.slug = "gulf-56"
    gulf.save()
    assert 'href="/clubs/gulf-56/"' in client.get("/clubs/").text
    Game.objects.filter(club=gulf).delete()  # its only game: it has played nothing now
    assert client.get("/clubs/").text.count("No game played yet") == 2
    Club.objects.create(name="Kochi 56", slug="kochi")
    assert "Kochi 56" in client.get("/").text  # the site's home is the same list


def test_a_club_pages_dates_are_in_its_time_zone(client, gulf, organiser, rf):
    from django.http import HttpResponse
    from django.utils import timezone

    from club.clubs.addresses import ClubAddressMiddleware

    seen = {}

    def view(request):
        seen[request.path_info] = (request.club.slug, timezone.get_current_timezone_name())
        return HttpResponse()

    middleware = ClubAddressMiddleware(view)
    middleware(rf.get("/clubs/gulf/rules/"))
    middleware(rf.get("/clubs/club/games/"))
    assert seen == {"/rules/": ("gulf", "Asia/Dubai"), "/games/": ("club", "UTC")}
    assert timezone.get_current_timezone_name() != "Asia/Dubai"  # put back after the request
    response = client.get("/clubs/gulf/")
    assert response.wsgi_request.club == gulf
    tournament = tournaments.create_tournament(
        name="Dubai night", starts_on=datetime.date(2026, 12, 4), club=gulf
    )
    assert tournament.get_absolute_url() == f"/clubs/gulf/tournaments/{tournament.pk}/"


def test_the_script_prefix_is_put_back_after_a_clubs_page(client, gulf):
    client.get("/clubs/gulf/")
    assert get_script_prefix() == "/"
    assert reverse("games:list") == "/"
    assert reverse_in(gulf, "games:list") == "/clubs/gulf/"
    assert site_reverse("clubs") == "/clubs/"


def test_a_clubs_page_read_first_links_the_sites_static_files(client, gulf, settings):
    """Django keeps STATIC_URL as first read, with the script prefix of that moment: a
    club's page read first must still link the styles where the site serves them."""
    client.get("/")  # the server is up: its middleware has read the setting
    settings.STATIC_URL = "static/"  # changed, and not read again until a page needs it
    page = client.get("/clubs/gulf/").content.decode()
    styles = re.findall(r'<link rel="stylesheet" href="([^"]+)"', page)
    assert styles and all(href.startswith("/static/") for href in styles), styles
    assert settings.STATIC_URL == "/static/"


def test_labels_and_names_are_the_clubs_own(gulf):
    start_game(2, label="Table one")
    start_game(2, label="Table one", club=gulf, same_people={"anu", "biju", "chitra", "dev"})
    tournaments.create_tournament(name="Onam cup", starts_on=datetime.date(2026, 9, 1))
    tournaments.create_tournament(name="Onam cup", starts_on=datetime.date(2026, 9, 1), club=gulf)
    with pytest.raises(tournaments.TournamentError):
        tournaments.create_tournament(
            name="onam CUP", starts_on=datetime.date(2026, 9, 1), club=gulf
        )


def test_a_game_makes_its_players_the_clubs(gulf):
    game = start_game(2, label="Table one", club=gulf)
    members = set(gulf.memberships.values_list("player__name", flat=True))
    seated = {team.first_player.name for team in game.teams.select_related("first_player")}
    assert seated <= members
    assert not known.home().memberships.filter(player__name__in=members).exists()


@pytest.mark.parametrize(
    "path", ["/games/%0a/deals/", "/games/%E0%B4%AE/", "/x%0d%0aSet-Cookie:a=b/"]
)
def test_an_old_address_of_any_shape_is_redirected_safely(client, gulf, path):
    home = known.home()
    for send in (client.get, client.post):
        response = send(path)
        assert response.status_code in (301, 308)
        location = response["Location"]
        assert location.startswith(f"/clubs/{home.slug}/")
        assert "\n" not in location and "\r" not in location and " " not in location


def test_a_clubs_pages_offer_its_languages(client, gulf):
    gulf.languages = ["en", "ml"]
    gulf.save()
    page = client.get("/clubs/gulf/").content.decode()
    offered = set(re.findall(r'<option value="([a-z]+)" lang=', page))
    assert offered == {"en", "ml"}
    site = client.get("/").content.decode()
    assert set(re.findall(r'<option value="([a-z]+)" lang=', site)) == {
        "en",
        "ml",
        "el",
        "da",
        "mr",
        "th",
        "es",
    }


def test_a_reading_begun_before_the_clubs_were_forgotten_is_not_kept(db, monkeypatch):
    """Another thread read the clubs while a club was deleted (or a test's database
    emptied): what it read is its own answer, never the process's list."""
    gone = Club.objects.create(name="Gone 56", slug="gone")
    known.forget()
    read = known._read

    def read_then_lose_a_club():
        clubs = read()
        gone.delete()  # its signal forgets the clubs while this reading is on its way
        return clubs

    monkeypatch.setattr(known, "_read", read_then_lose_a_club)
    assert "gone" in known.clubs().by_slug
    monkeypatch.setattr(known, "_read", read)
    assert "gone" not in known.clubs().by_slug
