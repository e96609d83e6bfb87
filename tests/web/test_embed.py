"""Embeddable standings and game cards (club/web/embed.py): who may frame them.

Only the origins the club lists may frame the two embeddable pages, kept answers
included; with none listed, nobody may; every other page keeps
``frame-ancestors 'none'`` and ``X-Frame-Options: DENY`` whatever is listed.
A poll that already shows the newest version gets 204, the page answers in
the reader's language, and its queries do not grow with the tournament.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from club.games.services import record_deal
from club.web.net import parse_origins
from tests.factories import deal, start_game
from tests.tournaments.helpers import make_tournament, night

pytestmark = pytest.mark.django_db

CLUB = "https://club.example"


def frame_ancestors(response) -> str:
    policy = [part.strip() for part in response["Content-Security-Policy"].split(";")]
    (found,) = [part for part in policy if part.startswith("frame-ancestors")]
    return found


@pytest.fixture
def urls():
    tournament = make_tournament("Monsoon Cup", teams=4)
    game = start_game(2, label="Church hall table 1")
    return {
        "standings": f"/tournaments/{tournament.pk}/embed/",
        "card": f"/games/{game.pk}/embed/",
        "game": game,
        "tournament": tournament,
    }


@pytest.mark.parametrize("which", ["standings", "card"])
def test_only_the_listed_origins_may_frame_an_embeddable_page(client, settings, urls, which):
    settings.CLUB_EMBED_ORIGINS = [CLUB, "http://localhost:8080"]
    for _ in range(2):  # rendered, then kept: the same policy
        response = client.get(urls[which])
        assert response.status_code == 200
        assert frame_ancestors(response) == f"frame-ancestors {CLUB} http://localhost:8080"
        assert "X-Frame-Options" not in response
        # The rest of the policy is the site's own.
        assert "script-src 'self'" in response["Content-Security-Policy"]


@pytest.mark.parametrize("which", ["standings", "card"])
def test_with_no_origin_listed_nobody_may_frame_it(client, settings, urls, which):
    settings.CLUB_EMBED_ORIGINS = []
    response = client.get(urls[which])
    assert response.status_code == 200
    assert frame_ancestors(response) == "frame-ancestors 'none'"
    assert response["X-Frame-Options"] == "DENY"


def test_every_other_page_stays_unframeable_whatever_is_listed(client, settings, urls):
    settings.CLUB_EMBED_ORIGINS = [CLUB]
    game, tournament = urls["game"], urls["tournament"]
    for url in ("/", f"/games/{game.pk}/", f"/tournaments/{tournament.pk}/", "/api/v1/docs/"):
        response = client.get(url)
        assert frame_ancestors(response) == "frame-ancestors 'none'", url
        assert response["X-Frame-Options"] == "DENY", url


def test_the_origins_setting_takes_origins_only():
    assert parse_origins(" https://Club.example/ , http://localhost:8080 ") == [
        "https://club.example",
        "http://localhost:8080",
    ]
    assert parse_origins("") == []
    for wrong in (
        "club.example",
        "ftp://club.example",
        "https://club.example/results",
        "https://club.example?x=1",
        "https://club.example; script-src *",
        "https://user@club.example",
        "*",
    ):
        with pytest.raises(ImproperlyConfigured, match="DJANGO_EMBED_ORIGINS"):
            parse_origins(wrong)


def test_the_card_refreshes_itself_and_answers_in_the_readers_language(client, urls):
    game = urls["game"]
    page = client.get(urls["card"], HTTP_ACCEPT_LANGUAGE="es")
    assert "mesas" in page.text  # the tables, in Spanish
    assert 'data-live-url="' + urls["card"] + '"' in page.text
    version = page.text.split('data-live-version="')[1].split('"')[0]
    assert client.get(urls["card"], {"version": version}).status_code == 204
    record_deal(game=game, number=1, entry=deal(game, {0: 20, 1: 36}, "Chitra", 30))
    fresh = client.get(urls["card"], {"version": version}, HTTP_HX_REQUEST="true")
    assert fresh.status_code == 200
    assert fresh.text.lstrip().startswith('<div id="embed-live"')  # the part that is swapped
    assert 'data-team-tables="1">13<' in fresh.text


def test_the_standings_cost_the_same_however_long_the_tournament(rendered_queries, urls):
    tournament = urls["tournament"]
    night(tournament, 1)
    first = rendered_queries(urls["standings"])
    for seed in (2, 3, 4):
        night(tournament, seed)
    assert rendered_queries(urls["standings"]) == first
