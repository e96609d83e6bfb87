"""A club's players pages and boards are the club's.

Two clubs: the home club, where Anu & Biju played Chitra & Dev, and Gulf 56, where Anu
& Esha played Gita & Hari. Anu is a player of both. Each club's register lists its own
players, its boards its own players and teams with their figures at the club (Anu's
count one game on each club's boards, and two on her page, the federation's); another
club's player is no page at a club's address; Gulf's
organiser writes nothing of the home club's, at either address; adding a player the site
already has joins them to the club, and a merge is between two of the club's players.
"""

from __future__ import annotations

import datetime

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from club.clubs import known
from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from club.games.models import Membership, Player
from club.games.services import TeamEntry, create_game, end_game, record_deal
from club.leaderboards import selectors
from club.leaderboards.merge import NOT_THE_CLUBS
from club.leaderboards.models import PlayerRating
from club.leaderboards.services import register_player
from club.leaderboards.services.register import ALREADY_THE_CLUBS
from club.leaderboards.views import JOINED
from club.tournaments.models import Tournament
from tests.factories import deal, start_game

pytestmark = pytest.mark.django_db

HOME_PLAYERS = ["Anu", "Biju", "Chitra", "Dev"]
GULF_PLAYERS = ["Anu", "Esha", "Gita", "Hari"]


def _finished(game, declarer: str):
    record_deal(game=game, number=1, entry=deal(game, {0: 40, 1: 16}, declarer, 40))
    end_game(game=game)
    game.refresh_from_db()
    assert game.is_finished
    return game


@pytest.fixture
def clubs(django_user_model):
    home = known.home()
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    organiser = django_user_model.objects.create_user(username="gulf-organiser", password="pw")
    gulf.organisers.add(organiser)
    at_home = _finished(start_game(2, label="Home table", club=home), "Anu")
    at_gulf = create_game(
        label="Gulf table",
        teams=[TeamEntry("Anu", "Esha"), TeamEntry("Gita", "Hari")],
        first_dealer=0,
        club=gulf,
        same_people={"anu"},  # the home club's Anu, the organiser said
    )
    _finished(at_gulf, "Gita")
    gulf_organiser = Client()
    gulf_organiser.force_login(organiser)
    return {
        "home": home,
        "gulf": gulf,
        "games": {"home": at_home, "gulf": at_gulf},
        "gulf organiser": gulf_organiser,
    }


def _names(rows) -> list[str]:
    return sorted(row.name for row in rows)


def test_each_clubs_register_lists_its_own_players(client, clubs):
    for club, players in (("home", HOME_PLAYERS), ("gulf", GULF_PLAYERS)):
        response = client.get(reverse_in(clubs[club], "leaderboards:players"))
        assert response.status_code == 200
        assert [player.name for player in response.context["players"]] == players
        assert response.context["page"].total == 4
    found = client.get(reverse_in(clubs["gulf"], "leaderboards:players"), {"q": "biju"})
    assert list(found.context["players"]) == []  # the home club's Biju is not Gulf's


def test_each_clubs_boards_list_its_players_and_teams_with_the_clubs_figures(client, clubs):
    """Anu played once at each club: each club's boards count that club's game alone."""
    expected = {
        "home": (HOME_PLAYERS, ["Anu & Biju", "Chitra & Dev"]),
        "gulf": (GULF_PLAYERS, ["Anu & Esha", "Gita & Hari"]),
    }
    for club, (players, teams) in expected.items():
        board = client.get(reverse_in(clubs[club], "leaderboards:player_board")).context["board"]
        assert _names(board.rows) == players
        anu = next(row for row in board.rows if row.name == "Anu")
        assert (anu.played, anu.won) == (1, 1)
        assert anu.rating == PlayerRating.objects.get(player__name="Anu").rating  # her one
        page = client.get(reverse_in(clubs[club], "leaderboards:team_board"))
        assert _names(page.context["board"].rows) == teams
        assert _names(selectors.player_board(selectors.Filters(), club=clubs[club])) == players
        assert _names(selectors.team_board(selectors.Filters(), club=clubs[club])) == teams


def test_a_board_filtered_by_period_keeps_to_the_clubs_sides(client, clubs):
    today = datetime.date.today().isoformat()
    url = reverse_in(clubs["gulf"], "leaderboards:player_board")
    board = client.get(url, {"start": "2000-01-01", "end": today}).context["board"]
    assert _names(board.rows) == GULF_PLAYERS
    teams = client.get(
        reverse_in(clubs["gulf"], "leaderboards:team_board"), {"start": "2000-01-01"}
    )
    assert _names(teams.context["board"].rows) == ["Anu & Esha", "Gita & Hari"]


def test_the_boards_filter_offers_the_clubs_tournaments_only(client, clubs):
    day = datetime.date(2025, 7, 5)
    Tournament.objects.create(name="Onam Cup", starts_on=day, club=clubs["home"])
    gulf_cup = Tournament.objects.create(name="Gulf Cup", starts_on=day, club=clubs["gulf"])
    url = reverse_in(clubs["gulf"], "leaderboards:player_board")
    offered = client.get(url).context["form"].fields["tournament"].choices
    assert [name for _pk, name in offered[1:]] == ["Gulf Cup"]
    onam = Tournament.objects.get(name="Onam Cup")
    form = client.get(url, {"tournament": onam.pk}).context["form"]
    assert not form.is_valid()  # another club's tournament is no choice here
    # Read straight from the selectors, another club's tournament counts nothing.
    filters = selectors.Filters(tournament=onam.pk)
    assert selectors.player_board(filters, club=clubs["gulf"]) == []
    assert (
        selectors.player_board(selectors.Filters(tournament=gulf_cup.pk), club=clubs["gulf"]) == []
    )


def test_a_player_of_both_clubs_has_a_profile_at_each_with_that_clubs_games(client, clubs):
    anu = Player.objects.get(name="Anu")
    for club in ("home", "gulf"):
        response = client.get(reverse_in(clubs[club], "leaderboards:player", args=[anu.pk]))
        assert response.status_code == 200
        assert [line.game_id for line in response.context["games"]] == [clubs["games"][club].pk]
        assert response.context["figures"].played == 2  # the federation's figures
        html = response.content.decode()
        game_url = reverse_in(clubs[club], "games:detail", args=[clubs["games"][club].pk])
        assert game_url in html


def test_another_clubs_player_is_no_page_at_a_clubs_address(client, clubs):
    biju, esha = Player.objects.get(name="Biju"), Player.objects.get(name="Esha")
    for club, stranger in (("gulf", biju), ("home", esha)):
        url = reverse_in(clubs[club], "leaderboards:player", args=[stranger.pk])
        assert client.get(url).status_code == 404
        assert client.get(url).status_code == 404  # and the 404 is not kept as a page
    assert (
        client.get(reverse_in(clubs["home"], "leaderboards:player", args=[biju.pk])).status_code
        == 200
    )


def _details():
    return sorted(Player.objects.values_list("name", "nickname", "member_number", "active"))


def test_another_clubs_organiser_cannot_edit_a_player_anywhere(clubs):
    """Gulf's organiser, at the home club's address, is told they do not organise it (403:
    logged in already, not sent to log in again); at Gulf's address the home club's Biju is
    no one (404). Nothing changes."""
    gulf_organiser = clubs["gulf organiser"]
    biju = Player.objects.get(name="Biju")
    before = (_details(), sorted(Membership.objects.values_list("club_id", "player_id")))
    writes = [
        ("leaderboards:player_edit", {"name": "Eve", "nickname": "", "member_number": ""}),
        ("leaderboards:player_active", {"active": "0"}),
    ]
    for name, data in writes:
        at_home = reverse_in(clubs["home"], name, args=[biju.pk])
        for response in (gulf_organiser.get(at_home), gulf_organiser.post(at_home, data)):
            assert response.status_code == 403
            assert "who does not organise 56 Club" in response.content.decode()
        at_gulf = reverse_in(clubs["gulf"], name, args=[biju.pk])
        assert gulf_organiser.post(at_gulf, data).status_code == 404
        if name == "leaderboards:player_edit":
            assert gulf_organiser.get(at_gulf).status_code == 404
    merge = reverse_in(clubs["home"], "leaderboards:merge")
    anu = Player.objects.get(name="Anu")
    response = gulf_organiser.post(merge, {"keep": anu.pk, "fold": biju.pk})
    assert response.status_code == 403
    after = (_details(), sorted(Membership.objects.values_list("club_id", "player_id")))
    assert after == before


def test_adding_a_name_the_site_has_joins_that_player_to_the_club(clubs):
    gulf_organiser = clubs["gulf organiser"]
    url = reverse_in(clubs["gulf"], "leaderboards:player_new")
    players = Player.objects.count()
    response = gulf_organiser.post(
        url,
        {
            "name": "biju",
            "nickname": "",
            "member_number": "",
            "active": "on",
            "same_people": "biju",
        },
    )
    assert response.status_code == 302
    assert [str(message) for message in get_messages(response.wsgi_request)] == [
        JOINED % {"name": "Biju"}
    ]
    assert Player.objects.count() == players  # the same person, not a second record
    biju = Player.objects.get(name="Biju")
    assert (biju.nickname, biju.member_number) == ("", "")  # their details as they were
    listed = gulf_organiser.get(reverse_in(clubs["gulf"], "leaderboards:players"))
    assert "Biju" in [player.name for player in listed.context["players"]]
    assert (
        gulf_organiser.get(
            reverse_in(clubs["gulf"], "leaderboards:player", args=[biju.pk])
        ).status_code
        == 200
    )
    # One of Gulf's players already: refused, with nothing saved.
    again = gulf_organiser.post(url, {"name": "ESHA", "member_number": ""})
    assert again.status_code == 200
    assert again.context["form"].errors["name"] == [ALREADY_THE_CLUBS % {"name": "Esha"}]
    # A new name is a new player, of Gulf only.
    gulf_organiser.post(url, {"name": "Zainab", "nickname": "", "member_number": ""})
    zainab = Player.objects.get(name="Zainab")
    assert list(zainab.memberships.values_list("club__slug", flat=True)) == ["gulf"]


def test_the_import_joins_the_players_the_site_has_and_says_so(clubs):
    gulf_organiser = clubs["gulf organiser"]
    # Chitra is the home club's player: Gulf may name her, not change her nickname.
    before = list(Player.objects.order_by("pk").values_list("name", "nickname", "active"))
    upload = SimpleUploadedFile("players.csv", b"name,nickname\nChitra,Chit\nZainab,\n")
    refused = gulf_organiser.post(
        reverse_in(clubs["gulf"], "leaderboards:import"), {"file": upload}
    )
    assert refused.status_code == 200
    assert "Chitra is also a player of another club" in refused.content.decode()
    assert list(Player.objects.order_by("pk").values_list("name", "nickname", "active")) == before
    assert not Membership.objects.filter(club=clubs["gulf"], player__name="Chitra").exists()
    upload = SimpleUploadedFile("players.csv", b"name,nickname\nChitra,\nZainab,\nEsha,Es\n")
    response = gulf_organiser.post(
        reverse_in(clubs["gulf"], "leaderboards:import"), {"file": upload}
    )
    assert response.status_code == 302, response.content.decode()[-3000:]
    (message,) = [str(message) for message in get_messages(response.wsgi_request)]
    assert message == (
        "Import done: 1 added, 1 updated, 1 unchanged. 1 of them was already a player on "
        "this site and is now one of the club's players too."
    )
    listed = gulf_organiser.get(reverse_in(clubs["gulf"], "leaderboards:players"))
    assert [player.name for player in listed.context["players"]] == [
        "Anu",
        "Chitra",
        "Esha",
        "Gita",
        "Hari",
        "Zainab",
    ]
    assert Player.objects.get(name="Chitra").nickname == ""
    assert Player.objects.get(name="Esha").nickname == "Es"
    assert Player.objects.filter(name="Chitra").count() == 1
    assert not Membership.objects.filter(club=clubs["home"], player__name="Zainab").exists()


def test_the_import_finds_only_the_clubs_own_member_numbers(clubs):
    """A member number another club's player holds is that player's, not a row's match:
    the row is refused, and the other club's player keeps their name."""
    Player.objects.filter(name="Biju").update(member_number="7")
    gulf_organiser = clubs["gulf organiser"]
    upload = SimpleUploadedFile("players.csv", b"name,member_number\nRavi,7\n")
    response = gulf_organiser.post(
        reverse_in(clubs["gulf"], "leaderboards:import"), {"file": upload}
    )
    assert response.status_code == 200
    assert [str(fault) for fault in response.context["faults"]] == [
        "Row 2, column member_number: Member number 7 already belongs to Biju, a player on "
        "this site."
    ]
    assert not Player.objects.filter(name="Ravi").exists()


def test_a_merge_is_between_two_of_the_clubs_players(clubs):
    gulf_organiser = clubs["gulf organiser"]
    url = reverse_in(clubs["gulf"], "leaderboards:merge")
    esha, biju = Player.objects.get(name="Esha"), Player.objects.get(name="Biju")
    before = _details()
    response = gulf_organiser.post(url, {"keep": esha.pk, "fold": biju.pk})
    assert response.status_code == 200
    assert response.context["form"].errors["fold"] == [NOT_THE_CLUBS % {"name": "Biju"}]
    offered = [name for _pk, name in response.context["form"].fields["keep"].choices][1:]
    assert offered == GULF_PLAYERS  # the choices are Gulf's players
    assert _details() == before


def test_a_merge_keeps_the_person_in_every_club_of_the_folded_record(clubs, admin_client):
    """Esha K, the home club's, joined Gulf too; merged into Gulf's Esha by a site
    administrator (Gulf's organiser may not: Esha K is the home club's too), Esha is a player
    of both clubs."""
    register_player(name="Esha K", club=clubs["home"])
    gulf_organiser = clubs["gulf organiser"]
    gulf_organiser.post(
        reverse_in(clubs["gulf"], "leaderboards:player_new"),
        {"name": "Esha K", "nickname": "", "member_number": "", "same_people": "esha k"},
    )
    esha, esha_k = Player.objects.get(name="Esha"), Player.objects.get(name="Esha K")
    refused = gulf_organiser.post(
        reverse_in(clubs["gulf"], "leaderboards:merge"), {"keep": esha.pk, "fold": esha_k.pk}
    )
    assert "Esha K is also a player of another club" in refused.content.decode()
    assert Player.objects.filter(name="Esha K").exists()
    response = admin_client.post(
        reverse_in(clubs["gulf"], "leaderboards:merge"), {"keep": esha.pk, "fold": esha_k.pk}
    )
    assert response.status_code == 302
    assert not Player.objects.filter(name="Esha K").exists()
    assert sorted(esha.memberships.values_list("club_id", flat=True)) == sorted(
        [clubs["home"].pk, clubs["gulf"].pk]
    )


def test_a_player_who_joined_the_club_is_on_its_board_once_they_finish_a_game_there(client, clubs):
    """Chitra, the home club's, joins Gulf: no game of Gulf's yet, so on none of its boards
    (her figures are the home club's). Her first finished game at Gulf puts her on its
    board, with that game alone, though the board was kept."""
    url = reverse_in(clubs["gulf"], "leaderboards:player_board")
    assert _names(client.get(url).context["board"].rows) == GULF_PLAYERS
    assert client.get(url).context is None  # served as kept
    clubs["gulf organiser"].post(
        reverse_in(clubs["gulf"], "leaderboards:player_new"),
        {"name": "Chitra", "nickname": "", "member_number": "", "same_people": "Chitra"},
    )
    joined = client.get(url).context["board"]
    assert _names(joined.rows) == GULF_PLAYERS
    game = create_game(
        label="Chitra's first at Gulf",
        teams=[TeamEntry("Chitra", "Esha"), TeamEntry("Gita", "Hari")],
        first_dealer=0,
        club=clubs["gulf"],
    )
    _finished(game, "Chitra")
    rows = {row.name: row for row in client.get(url).context["board"].rows}
    assert sorted(rows) == sorted([*GULF_PLAYERS, "Chitra"])
    assert (rows["Chitra"].played, rows["Esha"].played, rows["Anu"].played) == (1, 2, 1)


# The pages of a club cost what the home club's do (tests/leaderboards/test_pages.py).
QUERIES = {"leaderboards:player_board": 6, "leaderboards:team_board": 7, "leaderboards:players": 2}


def test_a_clubs_pages_cost_what_the_home_clubs_do(rendered_queries, clubs):
    for name, queries in QUERIES.items():
        for club in ("home", "gulf"):
            assert rendered_queries(reverse_in(clubs[club], name)) == queries, (name, club)
    anu = Player.objects.get(name="Anu").pk
    profile = {
        club: rendered_queries(reverse_in(clubs[club], "leaderboards:player", args=[anu]))
        for club in ("home", "gulf")
    }
    assert profile["home"] == profile["gulf"]


def test_a_player_of_two_clubs_is_changed_by_a_site_administrator_only(clubs, admin_client):
    """Anu plays in both clubs: Gulf's organiser may not rename her nor mark her inactive
    (her details are the home club's too); a site administrator may."""
    gulf_organiser = clubs["gulf organiser"]
    anu = Player.objects.get(name="Anu")
    edit = reverse_in(clubs["gulf"], "leaderboards:player_edit", kwargs={"pk": anu.pk})
    refused = gulf_organiser.post(
        edit, {"name": "Anu G", "nickname": "", "member_number": "", "active": "on"}
    )
    assert refused.status_code == 200
    assert "Anu is also a player of another club" in refused.content.decode()
    active = reverse_in(clubs["gulf"], "leaderboards:player_active", kwargs={"pk": anu.pk})
    answer = gulf_organiser.post(active, {"active": "0"})
    assert answer.status_code == 302
    anu.refresh_from_db()
    assert (anu.name, anu.active) == ("Anu", True)
    done = admin_client.post(
        edit, {"name": "Anu G", "nickname": "", "member_number": "", "active": "on"}
    )
    assert done.status_code == 302
    anu.refresh_from_db()
    assert anu.name == "Anu G"


def test_a_player_of_two_clubs_is_one_person_whose_page_names_both(client, clubs):
    """Anu plays at home and at Gulf: one record, one rating over both clubs' games, and
    each club's page of her names the other club and links to her page there."""
    anu = Player.objects.get(name="Anu")
    at_gulf = client.get(reverse_in(clubs["gulf"], "leaderboards:player", kwargs={"pk": anu.pk}))
    assert at_gulf.status_code == 200
    assert [club.slug for club in at_gulf.context["clubs"]] == ["gulf", clubs["home"].slug]
    home_page = reverse_in(clubs["home"], "leaderboards:player", kwargs={"pk": anu.pk})
    assert f'href="{home_page}"' in at_gulf.content.decode()
    assert PlayerRating.objects.get(player=anu).games == 2  # a game of each club
    only_home = Player.objects.get(name="Biju")
    page = client.get(reverse_in(clubs["home"], "leaderboards:player", kwargs={"pk": only_home.pk}))
    assert "player-clubs" not in page.content.decode()


def test_a_player_of_two_clubs_page_offers_no_change_to_a_clubs_organiser(clubs, admin_client):
    anu = Player.objects.get(name="Anu")
    url = reverse_in(clubs["gulf"], "leaderboards:player", kwargs={"pk": anu.pk})
    page = clubs["gulf organiser"].get(url).content.decode()
    assert "Anu is also a player of another club" in page
    assert "player_edit" not in page and f"/players/{anu.pk}/edit/" not in page
    assert f"/players/{anu.pk}/edit/" in admin_client.get(url).content.decode()


def test_a_name_the_site_has_given_with_other_details_is_refused_not_half_saved(clubs):
    """Adding "Biju" (the home club's) at Gulf with a member number of Gulf's: the number is
    not Biju's, so nothing is saved and the form says why, naming him."""
    gulf_organiser = clubs["gulf organiser"]
    url = reverse_in(clubs["gulf"], "leaderboards:player_new")
    before = (_details(), sorted(Membership.objects.values_list("club_id", "player_id")))
    answer = gulf_organiser.post(url, {"name": "Biju", "nickname": "", "member_number": "L005"})
    assert answer.status_code == 200
    assert "Biju is already a player on this site, with other details" in answer.content.decode()
    assert (_details(), sorted(Membership.objects.values_list("club_id", "player_id"))) == before
