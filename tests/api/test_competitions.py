"""The API's seasons and circuits (club/api/competitions.py).

The season is the one worked out by hand in tests/competitions/test_season_by_hand.py
(four club nights, five teams, the best 2 nights count, 2 to be ranked): its answer must
be those figures. Beside it, a second club (Gulf 56) with a season of its own, and two
circuits of the federation: one counting a tournament of each club, one counting Gulf's
only. At a club's address the API shows the club's seasons and the circuits that count
one of its tournaments, and nothing else (404, in the same words as an id nobody has);
at the site's own address, the circuits only. An answer is kept until what it shows
changes (a correction, a game started in its days), and costs the same number of
queries with twice the nights.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest

from club.clubs import addresses, known
from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from club.competitions.models import Competition
from club.competitions.services import Terms, save_competition
from club.games.models import Game
from club.games.services import Deal, TeamEntry, create_game, edit_deal, load_seating
from club.scoring import rules as core
from club.scoring import seasons
from club.tournaments import services as tournaments
from club.web import pages
from tests.api.test_api import get
from tests.api.test_schema import schema
from tests.competitions.test_season_by_hand import (
    NIGHTS,
    night_of,
    play,
    play_the_season,
    season,
)
from tests.tournaments.helpers import PAIRS, night

pytestmark = pytest.mark.django_db

N = {number: f"n{night_of(number).isoformat()}" for number in range(1, 5)}


def _url(club: Club, name: str, **kwargs) -> str:
    return reverse_in(club, f"api:{name}", kwargs=kwargs or None)


def _cup(name: str, club: Club, seed: int, pairs=PAIRS[:4]):
    """A finished tournament of four teams, one sitting played."""
    cup = tournaments.create_tournament(
        name=name, starts_on=dt.date(2025, 7, 5), rules=core.Rules(tables_per_team=1), club=club
    )
    for first, second in pairs:
        tournaments.register_team(tournament=cup, first=first, second=second)
    night(cup, seed)
    return tournaments.finish_tournament(tournament=cup)


def _circuit(name: str, events: list) -> Competition:
    return save_competition(
        club=None,
        terms=Terms(
            name=name,
            starts_on=dt.date(2025, 1, 1),
            ends_on=dt.date(2025, 12, 31),
            counts=Competition.Counts.EVENTS,
            ranks=Competition.Ranks.TEAMS,
            method=seasons.PLACES,
            place_points=(10, 6, 4, 2),
        ),
        events=events,
    )


@pytest.fixture
def federation():
    """The home club's season, Gulf's season, and two circuits."""
    home = known.home()
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    play_the_season()
    home_cup, gulf_cup = _cup("Home cup", home, 3), _cup("Gulf cup", gulf, 4, PAIRS[6:10])
    gulf_season = save_competition(
        club=gulf,
        terms=Terms(
            name="Gulf winter",
            starts_on=dt.date(2026, 1, 1),
            ends_on=dt.date(2026, 3, 31),
            counts=Competition.Counts.ALL,
            ranks=Competition.Ranks.PLAYERS,
            method=seasons.MATCH_POINTS,
        ),
    )
    return {
        "home": home,
        "gulf": gulf,
        "season": season(),
        "gulf_season": gulf_season,
        "both": _circuit("Kerala circuit", [home_cup, gulf_cup]),
        "gulf_only": _circuit("Gulf circuit", [gulf_cup]),
        "cups": (home_cup, gulf_cup),
    }


def _ids(answer: dict) -> list[int]:
    return [competition["id"] for competition in answer["results"]]


# --- What it answers ----------------------------------------------------------------------


def test_a_season_is_its_table_worked_out_by_hand(client):
    play_the_season()
    competition = season()
    answer = get(client, f"/api/v1/competitions/{competition.pk}/")
    assert answer["rule"] == {
        "method": "places",
        "place_points": [10, 6, 4, 2],
        "best": 2,
        "minimum": 2,
        "final_within_days": None,
        "late_counts": False,
    }
    assert (answer["circuit"], answer["club"], answer["counts"], answer["ranks"]) == (
        False,
        known.home().slug,
        "all",
        "teams",
    )
    assert answer["page"] == competition.get_absolute_url()
    assert answer["url"] == f"/api/v1/competitions/{competition.pk}/"
    assert [
        (night["key"], night["event"], night["state"], night["counts"], night["lines"])
        for night in answer["nights"]
    ] == [(N[number], False, "counted", True, 4) for number in range(1, 5)]
    assert [
        (line["place"], line["shared"], line["name"], line["total"], line["decided_by"])
        for line in answer["table"]
    ] == [
        (1, False, "Esha & Farid", 16, "latest"),
        (2, False, "Anu & Biju", 16, "latest"),
        (3, False, "Gita & Hari", 14, ""),
        (4, False, "Chitra & Dev", 12, ""),
        (None, False, "Indu & Jacob", 6, ""),
    ]
    lines = {line["name"]: line for line in answer["table"]}
    assert lines["Anu & Biju"]["counted"] == [N[1], N[2]]
    assert lines["Anu & Biju"]["dropped"] == [N[3], N[4]]
    assert lines["Anu & Biju"]["scores"] == {N[1]: 10, N[2]: 6, N[3]: 2, N[4]: 4}
    assert lines["Gita & Hari"]["counted"] == [N[3], N[4]]  # the later of two 4s
    assert (lines["Esha & Farid"]["nights"], lines["Esha & Farid"]["won"]) == (4, 1)
    assert lines["Indu & Jacob"]["nights"] == 1


def test_ranked_by_players_partners_share_their_place(client):
    play_the_season()
    competition = season(ranks=Competition.Ranks.PLAYERS)
    answer = get(client, f"/api/v1/competitions/{competition.pk}/")
    assert answer["ranks"] == "players"
    placed = [(line["place"], line["shared"], line["name"]) for line in answer["table"]]
    assert placed[:4] == [
        (1, True, "Esha"),
        (1, True, "Farid"),
        (3, True, "Anu"),
        (3, True, "Biju"),
    ]
    assert placed[-2:] == [(None, False, "Indu"), (None, False, "Jacob")]
    esha = answer["table"][0]
    # Level with Farid on everything (the place shared), set apart from Anu and Biju's 16
    # by the latest night.
    assert esha["decided_by"] == "latest"
    assert esha["total_exact"] == "16"


def test_a_circuit_lists_its_events_with_their_clubs(client, federation):
    home_cup, gulf_cup = federation["cups"]
    circuit = federation["both"]
    answer = get(client, _url(federation["home"], "competition", pk=circuit.pk))
    assert (answer["circuit"], answer["club"], answer["counts"]) == (True, None, "events")
    assert answer["page"] == f"/circuits/{circuit.pk}/"
    assert [
        (night["key"], night["event"], night["tournament"], night["name"], night["club"])
        for night in answer["nights"]
    ] == [
        (f"t{home_cup.pk}", True, home_cup.pk, "Home cup", known.home().slug),
        (f"t{gulf_cup.pk}", True, gulf_cup.pk, "Gulf cup", "gulf"),
    ]
    assert all(night["state"] == "counted" and night["lines"] == 4 for night in answer["nights"])
    assert answer["nights"][1]["page"] == gulf_cup.get_absolute_url()
    # The same answer at Gulf's address, which it counts a tournament of too.
    at_gulf = get(client, _url(federation["gulf"], "competition", pk=circuit.pk))
    assert at_gulf["table"] == answer["table"]
    # Four pairs of each club, a cup each on one day: eight lines of one night each, two
    # of each place in each cup. The cups are equally late, so each pair of places of
    # one cup shares its place with the other cup's: no cup's teams above the other's.
    assert [(line["place"], line["nights"]) for line in answer["table"]] == [
        (1, 1),
        (1, 1),
        (1, 1),
        (1, 1),
        (5, 1),
        (5, 1),
        (5, 1),
        (5, 1),
    ]


def test_a_clubs_list_holds_its_seasons_and_the_circuits_that_count_it(client, federation):
    f = federation
    assert _ids(get(client, _url(f["home"], "competitions"))) == [
        f["season"].pk,  # ends 31 March 2026
        f["both"].pk,  # ends 31 December 2025
    ]
    assert _ids(get(client, _url(f["gulf"], "competitions"))) == [
        f["gulf_season"].pk,
        f["gulf_only"].pk,  # Gulf circuit, before Kerala circuit by name
        f["both"].pk,
    ]
    listed = get(client, _url(f["gulf"], "competitions"))["results"][0]
    assert listed == {
        "id": f["gulf_season"].pk,
        "name": "Gulf winter",
        "circuit": False,
        "club": "gulf",
        "starts_on": "2026-01-01",
        "ends_on": "2026-03-31",
        "counts": "all",
        "form": "",
        "ranks": "players",
        "page": f["gulf_season"].get_absolute_url(),
        "url": f"/clubs/gulf/api/v1/competitions/{f['gulf_season'].pk}/",
    }


@pytest.mark.parametrize(
    ("club", "shown"),
    [("home", "gulf_season"), ("home", "gulf_only"), ("gulf", "season")],
)
def test_what_a_club_does_not_show_is_404_there(client, federation, club, shown):
    response = client.get(_url(federation[club], "competition", pk=federation[shown].pk))
    assert response.status_code == 404
    assert response.json() == {"detail": "No competition has this id."}
    nobody = client.get(_url(federation[club], "competition", pk=10**9))
    assert (nobody.status_code, nobody.json()) == (404, response.json())


def test_the_sites_own_address_shows_the_circuits_only(client, federation, monkeypatch):
    # The site's own API (no club's part in the address), as club.clubs.addresses serves
    # the site's own pages.
    monkeypatch.setattr(addresses, "SITE_PARTS", addresses.SITE_PARTS | {"api"})
    assert _ids(get(client, "/api/v1/competitions/")) == [
        federation["gulf_only"].pk,
        federation["both"].pk,
    ]
    assert get(client, f"/api/v1/competitions/{federation['both'].pk}/")["circuit"] is True
    assert client.get(f"/api/v1/competitions/{federation['season'].pk}/").status_code == 404


def test_an_answer_is_kept_until_what_it_shows_changes(client):
    games = play_the_season()
    competition = season()
    url = f"/api/v1/competitions/{competition.pk}/"
    first = client.get(url)
    etag = first["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert client.get(url).content == first.content
    # Night 1's first game corrected: Chitra & Dev, not Anu & Biju, made the contract.
    seating = load_seating(games[0])
    chitra = next(player for player in seating.players if player.name == "Chitra")
    edit_deal(
        game=games[0],
        number=1,
        entry=Deal(
            points={0: 16, 1: 40}, declarer=seating.seat_of(chitra.pk), bid=40, trump="hearts"
        ),
    )
    corrected = client.get(url)
    assert corrected["ETag"] != etag
    lines = {line["name"]: line for line in corrected.json()["table"]}
    assert lines["Chitra & Dev"]["scores"][N[1]] == 10
    # A game started in the season's days: a night waiting for its results.
    started = create_game(
        label="Late table", teams=[TeamEntry("Anu", "Biju"), TeamEntry("Esha", "Farid")]
    )
    day = dt.date(2026, 2, 24)
    zone = zoneinfo.ZoneInfo(known.home().time_zone)
    Game.objects.filter(pk=started.pk).update(
        created_at=dt.datetime.combine(day, dt.time(19), tzinfo=zone)
    )
    waiting = client.get(url).json()
    assert [(n["key"], n["state"], n["counts"]) for n in waiting["nights"]][-1] == (
        f"n{day.isoformat()}",
        "waiting",
        False,
    )
    # The kept answer is the answer made afresh.
    pages.caches[pages.ALIAS].clear()
    assert client.get(url).json() == waiting


@pytest.mark.django_db(transaction=True)
def test_a_season_and_the_list_answer_as_the_schema_says(live_server):
    play_the_season()
    competition = season()
    for path, parameters in (
        ("/api/v1/competitions/{pk}/", {"pk": competition.pk}),
        ("/api/v1/competitions/", {}),
    ):
        case = schema[path]["GET"].Case(path_parameters=parameters)
        response = case.call_and_validate(base_url=live_server.url)
        assert response.status_code == 200
        assert competition.name in response.text


# --- What it costs: the same queries whatever the number of nights ----------------------

# A season: its key (the season's last change, the newest change to a game of the club,
# its tournaments' results; the club's token), the season, then its table: the club's
# games of its days, the rows of the nights whose places are not kept yet (all of them on
# a first reading), the tournaments it counts, and the names of its lines.
COMPETITION = 9
# A circuit at a club's address: its key (no season of the club has the id; a circuit that
# counts the club; its last change, its games' newest change and its tournaments'
# results; every club's token),
# the circuit, the tournaments it counts, their standings, and the names.
CIRCUIT = 10
# The list: its count and its page.
LIST = 2


def test_query_counts_do_not_grow_with_the_nights(client, rendered_queries, federation):
    url = _url(federation["home"], "competition", pk=federation["season"].pk)
    circuit = _url(federation["home"], "competition", pk=federation["both"].pk)
    counts = {
        "season": rendered_queries(url),
        "circuit": rendered_queries(circuit),
        "list": rendered_queries(_url(federation["home"], "competitions")),
    }
    assert counts == {"season": COMPETITION, "circuit": CIRCUIT, "list": LIST}
    # Four more nights, a week apart after the first four, and a third event.
    for number, winner, loser, bid in NIGHTS:
        play(number + 4, winner, loser, bid)
    federation["both"].events.add(_cup("Third cup", federation["gulf"], 5, PAIRS[6:10]))
    assert len(get(client, url)["nights"]) == 8
    assert len(get(client, circuit)["nights"]) == 3
    assert {
        "season": rendered_queries(url),
        "circuit": rendered_queries(circuit),
        "list": rendered_queries(_url(federation["home"], "competitions")),
    } == counts
