"""A name typed at a club that is another club's player is that person only when the
organiser says so (club.games.other_clubs).

Two clubs: the home club (56 Club), where Anu & Biju played Chitra & Dev, and Leeds 56,
where Esha & Farid played Gita & Hari. At Leeds, its organiser types "Anu" for a new
member on every path that seats or registers players by name: the new game, a
tournament's team (one, a pasted list, a change), a substitute, the register. Each time
the form comes back, nothing saved, saying Anu plays at 56 Club, with the tick "The same
Anu"; ticked, Anu is seated and becomes Leeds's. A Leeds player, a new name and a player
of no club are taken at once; a site administrator is asked too (it is about people, not
rights), and a site of one club never asks.
"""

from __future__ import annotations

import datetime
import threading
import time

import pytest
from django.contrib.messages import get_messages
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape

from club.clubs import known
from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from club.games.models import Game, Membership, Player, Team
from club.games.other_clubs import (
    PLAYS_ELSEWHERE,
    SAME_PERSON,
    PlayersOfOtherClubs,
    of_other_clubs,
)
from club.games.services import TeamEntry, create_game
from club.leaderboards.services import register_player
from club.leaderboards.views import JOINED
from club.tournaments import services as tournaments
from club.tournaments import substitutions
from club.tournaments.models import Substitution, Tournament, TournamentTeam

pytestmark = pytest.mark.django_db

TICK = 'type="checkbox" name="same_people" value="anu"'


def refusal(name: str = "Anu", clubs: str = "56 Club") -> str:
    """The words the form shows for ``name`` of ``clubs``, as the page escapes them."""
    tick = SAME_PERSON % {"name": name}
    return escape(PLAYS_ELSEWHERE % {"name": name, "clubs": clubs, "tick": tick})


def rows() -> tuple[int, ...]:
    """What a refused form must leave as it was."""
    return (
        Game.objects.count(),
        Player.objects.count(),
        Team.objects.count(),
        Membership.objects.count(),
        TournamentTeam.objects.count(),
        Substitution.objects.count(),
    )


def plays_at_leeds(name: str, leeds: Club) -> bool:
    return Membership.objects.filter(club=leeds, player__name=name).exists()


@pytest.fixture
def leeds(django_user_model):
    home = known.home()
    create_game(
        label="Home table", teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")], club=home
    )
    club = Club.objects.create(name="Leeds 56", slug="leeds")
    create_game(
        label="Leeds table",
        teams=[TeamEntry("Esha", "Farid"), TeamEntry("Gita", "Hari")],
        club=club,
    )
    return club


@pytest.fixture
def organiser(leeds, django_user_model):
    """Leeds's organiser, logged in (an organiser of Leeds only, not a site administrator)."""
    user = django_user_model.objects.create_user(username="leeds-organiser", password="pw")
    leeds.organisers.add(user)
    browser = Client()
    browser.force_login(user)
    return browser


def new_game(**players) -> dict:
    """The new-game form as sent: a table of four, Tables' settings."""
    return {
        "label": "Leeds night",
        "players": "4",
        "first_dealer": "random",
        "team1_player1": "Esha",
        "team1_player2": "Farid",
        "team2_player1": "Gita",
        "team2_player2": "Hari",
        "tables_per_team": "12",
        "payout": "28-39: 1 2\n40-47: 2 3\n48-55: 3 4\n56-56: 4 5",
        "double_factor": "2",
        "redouble_factor": "4",
        **players,
    }


# --- The new game ------------------------------------------------------------------------


def test_another_clubs_player_typed_for_a_new_game_is_asked_about_then_seated(organiser, leeds):
    url = reverse_in(leeds, "games:new")
    before = rows()
    answer = organiser.post(url, new_game(team1_player1="anu"))
    assert answer.status_code == 200
    assert rows() == before  # nothing saved: no game, no team, Anu not Leeds's
    form = answer.context["form"]
    assert form.errors["team1_player1"] == [
        PLAYS_ELSEWHERE % {"name": "Anu", "clubs": "56 Club", "tick": "The same Anu"}
    ]
    page = answer.content.decode()
    assert refusal() in page
    assert f"{TICK}> The same Anu</label>" in page  # the tick, beside the field
    # Ticked and sent again: seated, and one of Leeds's players from now on.
    answer = organiser.post(url, new_game(team1_player1="anu", same_people="anu"))
    assert answer.status_code == 302
    game = Game.objects.get(label="Leeds night", club=leeds)
    assert "Anu" in [player.name for team in game.teams.all() for player in team.players]
    assert Player.objects.filter(name__iexact="anu").count() == 1  # the one Anu
    assert plays_at_leeds("Anu", leeds)


def test_a_clubs_own_player_or_a_new_name_starts_the_game_at_once(organiser, leeds):
    url = reverse_in(leeds, "games:new")
    answer = organiser.post(url, new_game(team1_player1="Zara"))  # a name nobody has
    assert answer.status_code == 302
    assert plays_at_leeds("Zara", leeds)
    answer = organiser.post(url, new_game(label="Second", team1_player1="zara"))  # Leeds's now
    assert answer.status_code == 302


def test_a_player_of_no_club_is_nobodys_and_is_taken_at_once(organiser, leeds):
    Player.objects.create(name="Omana")  # made in the admin: no club's yet
    answer = organiser.post(reverse_in(leeds, "games:new"), new_game(team1_player1="Omana"))
    assert answer.status_code == 302
    assert plays_at_leeds("Omana", leeds)


def test_a_site_administrator_is_asked_too(leeds, admin_client):
    before = rows()
    answer = admin_client.post(reverse_in(leeds, "games:new"), new_game(team2_player2="Biju"))
    assert answer.status_code == 200
    assert refusal("Biju") in answer.content.decode()
    assert rows() == before


def test_every_player_of_another_club_is_asked_about_at_once_and_a_tick_is_kept(organiser, leeds):
    """Anu and Biju both: each on their own field. Biju ticked, the label refused: the
    form comes back keeping Biju's tick (a hidden input) and asking about Anu only."""
    url = reverse_in(leeds, "games:new")
    answer = organiser.post(url, new_game(team1_player1="Anu", team2_player1="Biju"))
    errors = answer.context["form"].errors
    assert refusal("Biju") in answer.content.decode()
    assert {"team1_player1", "team2_player1"} <= set(errors)
    answer = organiser.post(
        url,
        new_game(
            label="Leeds table", team1_player1="Anu", team2_player1="Biju", same_people="biju"
        ),
    )
    page = answer.content.decode()
    assert "There is already a game called" in page
    assert '<input type="hidden" name="same_people" value="biju"' in page
    answer = organiser.post(
        url,
        new_game(team1_player1="Anu", team2_player1="Biju", same_people=["biju", "ANU "]),
    )
    assert answer.status_code == 302
    assert plays_at_leeds("Anu", leeds) and plays_at_leeds("Biju", leeds)


def test_the_page_asked_again_by_htmx_keeps_the_ticks(organiser, leeds):
    answer = organiser.get(
        reverse_in(leeds, "games:new"),
        {"players": "6", "same_people": "anu"},
        HTTP_HX_REQUEST="true",
    )
    assert answer.content.decode().count('name="same_people"') == 1
    assert '<input type="hidden" name="same_people" value="anu"' in answer.content.decode()


def test_the_new_game_page_costs_one_query_more_at_most(organiser, leeds):
    """The page, and a game of the club's own players started: 6 and 20 queries before
    players of other clubs were asked about; now the same, and one more to ask."""
    url = reverse_in(leeds, "games:new")
    with CaptureQueriesContext(connection) as page:
        assert organiser.get(url).status_code == 200
    assert len(page) <= 6
    with CaptureQueriesContext(connection) as started:
        assert organiser.post(url, new_game(label="Counted")).status_code == 302
    assert len(started) <= 21


# --- The service: no path around the question --------------------------------------------


def test_the_service_refuses_another_clubs_player_unless_the_same_person_is_confirmed(leeds):
    teams = [TeamEntry("Anu", "Esha"), TeamEntry("Gita", "Hari")]
    before = rows()
    with pytest.raises(PlayersOfOtherClubs) as refused:
        create_game(label="By a command", teams=teams, club=leeds)
    assert [(other.player.name, other.clubs) for other in refused.value.others] == [
        ("Anu", ("56 Club",))
    ]
    assert refused.value.field == "teams"
    assert "Anu plays at 56 Club, not at this club." in refused.value.message
    assert rows() == before
    create_game(label="By a command", teams=teams, club=leeds, same_people={"anu"})
    assert plays_at_leeds("Anu", leeds)


def test_a_name_that_became_another_clubs_after_the_page_was_shown_is_asked_at_the_save(
    organiser, leeds
):
    """The form was shown; meanwhile the home club added Rashid to its register. The save
    itself finds Rashid is the home club's, and asks."""
    url = reverse_in(leeds, "games:new")
    assert organiser.get(url).status_code == 200
    register_player(name="Rashid")
    answer = organiser.post(url, new_game(team1_player1="Rashid"))
    assert answer.status_code == 200
    assert refusal("Rashid") in answer.content.decode()
    assert not plays_at_leeds("Rashid", leeds)


def test_a_registered_teams_game_seats_its_players_without_asking(leeds):
    """A tournament's sitting seats the registered teams: their registration asked."""
    team = Team.objects.get(name="Anu & Biju")
    game = create_game(
        label="Sitting 1",
        teams=[TeamEntry("Anu", "Biju", "Anu & Biju", team=team), TeamEntry("Gita", "Hari")],
        club=leeds,
    )
    assert game.club == leeds


def test_a_site_of_one_club_never_asks_and_pays_nothing_for_it(db):
    create_game(label="One", teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")])
    anu = Player.objects.get(name="Anu")
    with CaptureQueriesContext(connection) as asked:
        assert of_other_clubs([anu], club_id=known.home_id()) == []
    assert len(asked) == 0
    create_game(label="Two", teams=[TeamEntry("Anu", "Chitra"), TeamEntry("Biju", "Dev")])


# --- A tournament's teams and substitutes ------------------------------------------------


@pytest.fixture
def cup(leeds):
    return tournaments.create_tournament(
        name="Leeds cup", starts_on=datetime.date(2026, 5, 2), club=leeds
    )


def test_a_team_registered_by_the_organiser_asks_about_another_clubs_player(organiser, cup):
    leeds = cup.club
    url = reverse_in(leeds, "tournaments:register", args=[cup.pk])
    before = rows()
    answer = organiser.post(url, {"first": "Esha", "second": "Anu"})
    assert answer.status_code == 200
    assert rows() == before
    assert answer.context["register_form"].errors["second"]
    page = answer.content.decode()
    assert refusal() in page and TICK in page
    answer = organiser.post(url, {"first": "Esha", "second": "Anu", "same_people": "anu"})
    assert answer.status_code == 302
    assert TournamentTeam.objects.filter(tournament=cup, team__name="Esha & Anu").exists()
    assert plays_at_leeds("Anu", leeds)
    # The club's own players and new names: registered at once.
    answer = organiser.post(url, {"first": "Gita", "second": "Yusuf"})
    assert answer.status_code == 302


def test_a_pasted_list_of_teams_asks_about_each_other_clubs_player(organiser, cup):
    leeds = cup.club
    url = reverse_in(leeds, "tournaments:register_list", args=[cup.pk])
    before = rows()
    answer = organiser.post(url, {"teams": "Esha, Anu\nGita, Hari\nFarid, Biju"})
    assert answer.status_code == 200
    assert rows() == before
    page = answer.content.decode()
    assert escape("Line 1: ") + refusal() in page
    assert escape("Line 3: ") + refusal("Biju") in page
    assert TICK in page and 'name="same_people" value="biju"' in page
    answer = organiser.post(
        url, {"teams": "Esha, Anu\nGita, Hari\nFarid, Biju", "same_people": ["anu", "biju"]}
    )
    assert answer.status_code == 302
    assert TournamentTeam.objects.filter(tournament=cup).count() == 3
    assert plays_at_leeds("Anu", leeds) and plays_at_leeds("Biju", leeds)


def test_a_teams_change_asks_about_another_clubs_player(organiser, cup):
    leeds = cup.club
    entry = tournaments.register_team(tournament=cup, first="Esha", second="Farid")
    url = reverse_in(leeds, "tournaments:team_edit", args=[cup.pk, entry.pk])
    answer = organiser.post(url, {"first": "Esha", "second": "Anu", "name": ""})
    assert answer.status_code == 200
    page = answer.content.decode()
    assert refusal() in page and TICK in page
    assert 'for="id_same_people"' not in page  # the hidden field has no label of its own
    entry.refresh_from_db()
    assert entry.team.name == "Esha & Farid"
    answer = organiser.post(url, {"first": "Esha", "second": "Anu", "same_people": "anu"})
    assert answer.status_code == 302
    entry.refresh_from_db()
    assert entry.team.name == "Esha & Anu"
    assert plays_at_leeds("Anu", leeds)


def test_a_substitute_of_another_club_is_asked_about(organiser, cup):
    leeds = cup.club
    entry = tournaments.register_team(tournament=cup, first="Esha", second="Farid")
    tournaments.register_team(tournament=cup, first="Gita", second="Hari")
    url = reverse_in(leeds, "tournaments:team_players", args=[cup.pk, entry.pk])
    farid = Player.objects.get(name="Farid")
    sent = {"player_out": farid.pk, "player_in": "Anu", "first_sitting": 1}
    before = rows()
    answer = organiser.post(url, sent)
    assert answer.status_code == 200
    assert rows() == before
    assert answer.context["form"].errors["player_in"]
    page = answer.content.decode()
    assert refusal() in page and TICK in page
    answer = organiser.post(url, {**sent, "same_people": "anu"})
    assert answer.status_code == 302
    assert Substitution.objects.get().player_in.name == "Anu"
    assert plays_at_leeds("Anu", leeds)


def test_the_tournament_services_refuse_without_the_confirmation(cup):
    before = rows()
    with pytest.raises(PlayersOfOtherClubs):
        tournaments.register_team(tournament=cup, first="Esha", second="Dev")
    with pytest.raises(tournaments.RegistrationErrors) as refused:
        tournaments.register_teams(tournament=cup, teams=[tournaments.TeamLine(1, ("Esha", "Dev"))])
    assert [other.player.name for other in refused.value.others] == ["Dev"]
    entry = tournaments.register_team(tournament=cup, first="Gita", second="Hari")
    with pytest.raises(PlayersOfOtherClubs):
        substitutions.substitute(entry=entry, player_out=entry.team.first_player, player_in="Dev")
    assert Player.objects.count() == before[1] and not Substitution.objects.exists()
    assert not plays_at_leeds("Dev", cup.club)
    substitutions.substitute(
        entry=entry, player_out=entry.team.first_player, player_in="Dev", same_people={"dev"}
    )
    assert plays_at_leeds("Dev", cup.club)


# --- The register ------------------------------------------------------------------------


def test_adding_another_clubs_player_to_the_register_asks_first(organiser, leeds):
    url = reverse_in(leeds, "leaderboards:player_new")
    before = rows()
    answer = organiser.post(url, {"name": "anu", "active": "on"})
    assert answer.status_code == 200
    assert rows() == before
    assert answer.context["form"].errors["name"]
    page = answer.content.decode()
    assert refusal() in page and TICK in page
    answer = organiser.post(url, {"name": "anu", "active": "on", "same_people": "anu"})
    assert answer.status_code == 302
    assert [str(message) for message in get_messages(answer.wsgi_request)] == [
        JOINED % {"name": "Anu"}
    ]
    assert plays_at_leeds("Anu", leeds)
    # A new name: added at once.
    answer = organiser.post(url, {"name": "Zara", "active": "on"})
    assert answer.status_code == 302


def test_the_register_is_unchanged_for_a_player_of_no_club(organiser, leeds):
    Player.objects.create(name="Omana")
    answer = organiser.post(reverse_in(leeds, "leaderboards:player_new"), {"name": "Omana"})
    assert answer.status_code == 302
    assert plays_at_leeds("Omana", leeds)


def test_the_tick_names_every_club_the_player_plays_at(leeds):
    other = Club.objects.create(name="Gulf 56", slug="gulf")
    create_game(
        label="Gulf table",
        teams=[TeamEntry("Anu", "Rashid"), TeamEntry("Salim", "Tariq")],
        club=other,
        same_people={"anu"},
    )
    with pytest.raises(PlayersOfOtherClubs) as refused:
        register_player(name="Anu", club=leeds)
    assert refused.value.others[0].clubs == ("56 Club", "Gulf 56")
    assert "Anu plays at 56 Club, Gulf 56, not at this club." in refused.value.message
    assert not Tournament.objects.exists()


# --- Two clubs taking a player of no club at the same moment -----------------------------


@pytest.mark.django_db(transaction=True)
def test_two_clubs_taking_a_player_of_no_club_at_once_ask_the_second():
    """Leeds seats Omana (nobody's) and has not committed yet; Gulf adds Omana to its
    register meanwhile. Gulf waits for Leeds's write, then finds Omana is Leeds's, and asks.
    (Without the lock both would take her, each thinking her nobody's.)"""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite writes one transaction at a time: no two writes to interleave")
    leeds = Club.objects.create(name="Leeds 56", slug="leeds")
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    Player.objects.create(name="Omana")
    seated, release = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def at_leeds():
        try:
            with transaction.atomic():
                create_game(
                    label="Leeds night",
                    teams=[TeamEntry("Omana", "Esha"), TeamEntry("Gita", "Hari")],
                    club=leeds,
                )
                seated.set()
                release.wait(10)
        finally:
            connection.close()

    def at_gulf():
        seated.wait(10)
        try:
            register_player(name="Omana", club=gulf)
        except PlayersOfOtherClubs as refused:
            outcome["gulf"] = refused.others[0].clubs
        else:
            outcome["gulf"] = "joined"
        finally:
            connection.close()

    threads = [threading.Thread(target=at_leeds), threading.Thread(target=at_gulf)]
    for thread in threads:
        thread.start()
    seated.wait(10)
    time.sleep(0.5)  # Gulf is waiting for the lock by now
    assert "gulf" not in outcome
    release.set()
    for thread in threads:
        thread.join(20)
    assert outcome["gulf"] == ("Leeds 56",)
    assert list(
        Membership.objects.filter(player__name="Omana").values_list("club__slug", flat=True)
    ) == ["leeds"]
