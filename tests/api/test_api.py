"""The read-only API (club/api): what it answers, and what it costs.

A game's and a tournament's ``archive`` is the object the archive's own export
writes for them (``fiftysix-results/1``), word for word; the lists filter and
page as documented, and a page's queries do not grow with the club; a kept
answer is the answer made afresh, with an ETag that answers 304; nothing is
written, whoever asks, however; a client past its rate is answered 429.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from club.api import common
from club.archive.export import export_document
from club.archive.tournament_export import export_tournament_json
from club.games.models import Game, Round
from club.games.services import end_game, record_deal
from club.tournaments import stages
from club.tournaments.models import Tournament
from club.web import pages
from tests.factories import deal, pid, start_game
from tests.tournaments.helpers import make_tournament, night, rng

pytestmark = pytest.mark.django_db


def get(client, url, **headers):
    response = client.get(url, **headers)
    assert response.status_code == 200, (url, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    return response.json()


def played_game(label="Church hall table 1"):
    game = start_game(2, label=label)
    record_deal(game=game, number=1, entry=deal(game, {0: 20, 1: 36}, "Chitra", 30))
    record_deal(
        game=game, number=2, entry=deal(game, {0: 40, 1: 16}, "Anu", 40, "spades", "double")
    )
    return game


def test_the_index_names_every_part(client):
    index = get(client, "/api/v1/")
    assert index == {
        "openapi": "/api/v1/schema/",
        "docs": "/api/v1/docs/",
        "games": "/api/v1/games/",
        "tournaments": "/api/v1/tournaments/",
        "players": "/api/v1/players/",
        "player_board": "/api/v1/leaderboards/players/",
        "team_board": "/api/v1/leaderboards/teams/",
        "competitions": "/api/v1/competitions/",
    }
    for url in index.values():  # each answers
        assert client.get(url).status_code == 200, url
    assert get(client, index["openapi"])["openapi"].startswith("3.")


def test_a_game_is_its_archive_object_with_its_teams_and_links(client):
    game = played_game()
    answer = get(client, f"/api/v1/games/{game.pk}/")
    (archived,) = export_document()["games"]
    assert answer["archive"] == archived  # the archive's own words, deal by deal
    assert [deal["transfers"] for deal in answer["archive"]["rounds"]] == [
        {"Anu & Biju": -1, "Chitra & Dev": 1},
        {"Anu & Biju": 4, "Chitra & Dev": -4},
    ]
    assert answer["id"] == game.pk
    assert answer["status"] == "in_progress"
    assert answer["deals_played"] == 2
    assert answer["page"] == f"/games/{game.pk}/"
    assert answer["url"] == f"/api/v1/games/{game.pk}/"
    assert [(team["name"], team["tables"], team["players"]) for team in answer["teams"]] == [
        ("Anu & Biju", 15, ["Anu", "Biju"]),
        ("Chitra & Dev", 9, ["Chitra", "Dev"]),
    ]


def test_a_game_that_does_not_exist_is_404_in_plain_words(client):
    response = client.get("/api/v1/games/987654/")
    assert response.status_code == 404
    assert response.json() == {"detail": "No game has this id."}
    assert client.get("/api/v1/games/0/").status_code == 422  # ids start at 1
    assert client.get(f"/api/v1/games/{2**63}/").status_code == 422  # no column holds it


def test_the_games_list_filters_by_status_tournament_and_player(client):
    played = played_game()
    ended = played_game("Church hall table 2")
    end_game(game=ended)
    tournament = make_tournament(teams=4)
    night(tournament, 1)
    in_tournament = set(
        Game.objects.filter(sitting_entry__sitting__tournament=tournament).values_list(
            "pk", flat=True
        )
    )

    def ids(query):
        return [game["id"] for game in get(client, f"/api/v1/games/?{query}")["results"]]

    everything = ids("page_size=100")
    assert everything == sorted(everything, reverse=True)  # newest first
    assert set(everything) == set(Game.objects.values_list("pk", flat=True))
    assert set(ids("status=finished&page_size=100")) == set(
        Game.objects.filter(status="finished").values_list("pk", flat=True)
    )
    assert ended.pk in ids("status=finished&page_size=100")
    assert played.pk in ids("status=in_progress&page_size=100")
    assert set(ids(f"tournament={tournament.pk}&page_size=100")) == in_tournament
    anu = pid("Anu")
    assert set(ids(f"player={anu}&page_size=100")) == set(
        Game.objects.filter(teams__team__first_player=anu).values_list("pk", flat=True)
    ) | set(Game.objects.filter(teams__team__second_player=anu).values_list("pk", flat=True))
    summary = get(client, f"/api/v1/games/?tournament={tournament.pk}")["results"][0]
    assert summary["tournament"] == tournament.pk


def test_the_games_list_pages_with_links_and_an_empty_page_past_the_end(client):
    for number in range(5):
        start_game(2, label=f"Table {number}")
    first = get(client, "/api/v1/games/?page_size=2")
    assert (first["count"], first["count_capped"], first["page"]) == (5, False, 1)
    assert first["next"] == "/api/v1/games/?page_size=2&page=2"
    assert first["previous"] is None
    last = get(client, "/api/v1/games/?page_size=2&page=3")
    assert len(last["results"]) == 1 and last["next"] is None
    assert last["previous"] == "/api/v1/games/?page_size=2&page=2"
    past = get(client, "/api/v1/games/?page_size=2&page=9")
    assert past["results"] == [] and past["count"] == 5
    seen = [
        g["id"]
        for page in (1, 2, 3)
        for g in get(client, f"/api/v1/games/?page_size=2&page={page}")["results"]
    ]
    assert sorted(seen) == sorted(Game.objects.values_list("pk", flat=True))
    assert client.get("/api/v1/games/?page_size=101").status_code == 422


def test_a_tournament_is_its_archive_head_with_its_stages(client):
    tournament = make_tournament(teams=4)
    night(tournament, 2)
    answer = get(client, f"/api/v1/tournaments/{tournament.pk}/")
    tournament.refresh_from_db()
    document = json.loads(export_tournament_json([tournament]))
    assert answer["archive"] == document["tournament"]
    assert answer["archive"]["standings"] and answer["archive"]["sittings"]
    assert answer["name"] == tournament.name
    assert answer["stages"] == []
    listed = get(client, "/api/v1/tournaments/")
    assert [t["id"] for t in listed["results"]] == [tournament.pk]
    assert get(client, "/api/v1/tournaments/?status=finished")["results"] == []


def test_every_answer_is_kept_exactly_and_answers_304_to_its_etag(client):
    game = played_game()
    url = f"/api/v1/games/{game.pk}/"
    first = client.get(url)
    etag = first["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    kept = client.get(url)
    assert kept.content == first.content
    # A deal moves the version: a new answer, never the kept one.
    record_deal(game=game, number=3, entry=deal(game, {0: 10, 1: 46}, "Dev", 32))
    fresh = client.get(url)
    assert fresh["ETag"] != etag
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200
    # The kept answer equals one rendered with nothing kept.
    pages.caches[pages.ALIAS].clear()
    assert client.get(url).content == fresh.content
    assert fresh.json()["deals_played"] == 3


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
@pytest.mark.parametrize(
    "url", ["/api/v1/games/", "/api/v1/games/{game}/", "/api/v1/tournaments/", "/api/v1/"]
)
def test_nothing_is_written_through_the_api(client, admin_client, method, url):
    game = played_game()
    before = (Round.objects.count(), Game.objects.count(), Tournament.objects.count())
    for who in (client, admin_client):
        response = getattr(who, method)(url.format(game=game.pk), {"label": "x"})
        assert response.status_code == 405, (method, url)
    assert (Round.objects.count(), Game.objects.count(), Tournament.objects.count()) == before


def test_a_client_past_its_rate_is_answered_429_and_another_is_not(client, settings):
    settings.CLUB_API_RATE = "3/m"
    settings.TRUSTED_PROXIES = []
    for _ in range(3):
        assert client.get("/api/v1/", REMOTE_ADDR="203.0.113.7").status_code == 200
    refused = client.get("/api/v1/", REMOTE_ADDR="203.0.113.7")
    assert refused.status_code == 429
    assert refused.json() == {"detail": "Too many requests: wait a moment."}
    assert int(refused["Retry-After"]) >= 1
    assert client.get("/api/v1/games/", REMOTE_ADDR="203.0.113.7").status_code == 429
    assert client.get("/api/v1/", REMOTE_ADDR="203.0.113.8").status_code == 200


# --- What it costs: the same number of queries however much the club has -------------


# The games list: its key (the newest change, the club's token), the count, the page,
# the teams of the page's games, and their players' names.
GAMES_LIST = 6
# A game: its key (the game's token, the club's), the game with its sitting, its teams,
# their players' names, then the archive's row, teams and deals: its deals are one query on
# SQLite, three on PostgreSQL (club.archive.export reads the rounds, ledger and piles
# apart there, where that is faster).
GAME = {"sqlite": 8, "postgresql": 10}
# A tournament: its key (one query for three tokens, the club's), the tournament, its
# teams' names and its stages (their draws by name), then the archive's head: the teams,
# their substitutions, sittings, their games, byes, standings.
TOURNAMENT = 14
TOURNAMENTS_LIST = 2


def test_query_counts_do_not_grow_with_the_club(rendered_queries):
    small = make_tournament(teams=4)
    night(small, 3)
    game = Game.objects.filter(sitting_entry__sitting__tournament=small).first()
    counts = {
        "list": rendered_queries("/api/v1/games/"),
        "game": rendered_queries(f"/api/v1/games/{game.pk}/"),
        "tournament": rendered_queries(f"/api/v1/tournaments/{small.pk}/"),
        "tournaments": rendered_queries("/api/v1/tournaments/"),
    }
    assert counts == {
        "list": GAMES_LIST,
        "game": GAME[connection.vendor],
        "tournament": TOURNAMENT,
        "tournaments": TOURNAMENTS_LIST,
    }
    big = make_tournament("Onam Cup", teams=8)
    for seed in (4, 5, 6):
        night(big, seed)
    long_game = (
        Game.objects.filter(sitting_entry__sitting__tournament=big)
        .order_by("-deals_played")
        .first()
    )
    assert long_game.deals_played >= game.deals_played
    assert {
        "list": rendered_queries("/api/v1/games/"),
        "game": rendered_queries(f"/api/v1/games/{long_game.pk}/"),
        "tournament": rendered_queries(f"/api/v1/tournaments/{big.pk}/"),
        "tournaments": rendered_queries("/api/v1/tournaments/"),
    } == counts


def test_a_tournaments_stages_carry_their_draw_by_team_name_once_confirmed(client):
    tournament = make_tournament("Onam Cup", teams=8)
    stage = stages.add_stage(tournament=tournament, kind="groups", sittings=3, rng=rng(9))
    (proposed,) = get(client, f"/api/v1/tournaments/{tournament.pk}/")["stages"]
    assert (proposed["status"], proposed["groups"], proposed["chart"]) == ("proposed", {}, [])
    stages.confirm_stage(stage=stage)
    stage.refresh_from_db()
    (shown,) = get(client, f"/api/v1/tournaments/{tournament.pk}/")["stages"]
    name = dict(tournament.entries.values_list("id", "team__name"))
    assert shown["status"] == "confirmed" and shown["kind"] == "groups"
    assert shown["groups"] == {key: [name[i] for i in ids] for key, ids in stage.groups.items()}
    assert sorted(sum(shown["groups"].values(), [])) == sorted(name.values())
    assert len(shown["chart"]) == 3
    assert shown["chart"][0]["games"] == [
        [name[i] for i in game] for game in stage.chart[0]["games"]
    ]
    assert shown["page"] == f"/tournaments/{tournament.pk}/stages/1/"


def test_a_list_is_counted_and_read_no_further_than_its_limit(client, monkeypatch):
    monkeypatch.setattr(common, "COUNT_LIMIT", 3)
    for number in range(5):
        start_game(2, label=f"Table {number}")
    first = get(client, "/api/v1/games/?page_size=2")
    assert (first["count"], first["count_capped"]) == (3, True)
    second = get(client, "/api/v1/games/?page_size=2&page=2")
    assert len(second["results"]) == 2 and second["next"] is None
    pages.caches[pages.ALIAS].clear()
    with CaptureQueriesContext(connection) as captured:
        past = get(client, "/api/v1/games/?page_size=2&page=3")
    assert past["results"] == [] and past["next"] is None
    assert not [q for q in captured.captured_queries if "LIMIT 2 OFFSET" in q["sql"]]
