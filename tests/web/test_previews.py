"""A public page's link preview and its picture (club/web/preview.py, club/web/cards.py).

Each kind of public page (a game, a tournament's standings, a sitting, a player, a
season) names itself in Open Graph tags: its title, its result in a line, its own
address, and a picture whose address carries the page's version and language. The
picture is a 1200x630 PNG, kept under that version: the kept copy is the one drawn
afresh, a result that changes names a new one, another club's object has none, and
its queries do not grow with the club's history.
"""

from __future__ import annotations

import html
import io
import re

import pytest
from django.core.cache import caches
from django.db import connection
from django.template.defaultfilters import floatformat
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from PIL import Image

from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from club.games.models import Game, Player, Team
from club.games.services import end_game
from club.leaderboards.models import PlayerTotals
from club.tournaments import services as tournaments
from club.tournaments.models import Standing
from club.tournaments.selectors.live import format_points
from club.web import preview
from club.web.preview import tag
from tests.competitions.test_season_by_hand import play_the_season, season
from tests.factories import start_game
from tests.tournaments.helpers import make_tournament, night, rng, win_game

pytestmark = pytest.mark.django_db

META = re.compile(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">')


def meta(response) -> dict[str, str]:
    assert response.status_code == 200
    return {name: html.unescape(value) for name, value in META.findall(response.text)}


def picture_of(tags: dict[str, str]) -> str:
    """The picture's address as the test client asks for it (no scheme and host)."""
    return tags["og:image"].removeprefix("http://testserver")


@pytest.fixture
def cup():
    """A tournament of four teams after one sitting, each game won by one contract."""
    tournament = make_tournament(name="Monsoon Cup", teams=4, venue="Church hall")
    night(tournament, seed=3)
    tournament.refresh_from_db()
    return tournament


def test_a_finished_games_page_says_who_won_where_and_when(client, cup):
    game = Game.objects.filter(sitting_entry__sitting__tournament=cup).order_by("pk").first()
    winner = game.winner.team.name
    day = date_format(timezone.localtime(game.finished_at), "MONTH_DAY_FORMAT")
    tags = meta(client.get(game.get_absolute_url()))
    said = f"{winner} won 2–0 at Monsoon Cup, Table 1, {day}"
    assert tags["og:description"] == said
    assert tags["description"] == said  # the page's own description too
    assert tags["og:title"] == "Monsoon Cup · sitting 1 · Table 1"
    assert tags["og:url"] == f"http://testserver{game.get_absolute_url()}"
    assert tags["og:type"] == "website"
    assert tags["og:site_name"] == cup.club.name
    assert tags["twitter:card"] == "summary_large_image"
    assert tags["og:image:width"] == "1200" and tags["og:image:height"] == "630"
    assert tags["og:image:alt"] == f"Monsoon Cup · sitting 1 · Table 1: {said}"
    assert tags["og:image"].startswith(
        f"http://testserver{reverse('games:preview', args=[game.pk])}?v="
    )
    assert tags["og:image"].endswith("&lang=en")


def test_a_game_being_played_says_the_counts_after_its_deals(client):
    game = start_game(2, label='The "<b>" table')
    tags = meta(client.get(game.get_absolute_url()))
    assert tags["og:description"] == "Anu & Biju vs Chitra & Dev: no deal yet"
    assert tags["og:title"] == 'The "<b>" table'  # escaped in the page, whole in the tag
    win_game(game, "Anu & Biju")  # 12 tables a team: the winner of a deal takes one
    game.refresh_from_db()
    tags = meta(client.get(game.get_absolute_url()))
    assert tags["og:description"] == "Anu & Biju 13, Chitra & Dev 11 after 1 deal"


def test_the_deal_form_has_no_share_button_beside_it(client, organiser):
    """A visitor shares a game being played from its top; its organiser, entering its
    deals, has every field of the form in sight on a phone instead (no row above it)."""
    game = start_game(2)
    assert "data-share-button" in client.get(game.get_absolute_url()).text
    client.force_login(organiser)
    page = client.get(game.get_absolute_url()).text
    assert "deal-form" in page and "data-share-button" not in page


def test_the_standings_page_says_how_far_they_are_and_who_leads(client, cup):
    tags = meta(client.get(cup.get_absolute_url()))
    first = Standing.objects.filter(tournament=cup).order_by("place", "entry__team__name")
    lines = []
    for row in first:
        place = f"{row.place}{'=' if row.shared else ''}"
        lines.append(f"{place} {row.entry.team.name} {format_points(row.points)} pts")
    assert tags["og:description"] == f"After sitting 1: {', '.join(lines[:3])}…"
    assert tags["og:title"] == "Monsoon Cup"
    assert picture_of(tags).startswith(reverse("tournaments:preview", args=[cup.pk]) + "?v=")


def test_a_tournament_with_no_game_finished_says_so(client):
    tournament = make_tournament(teams=4)
    tags = meta(client.get(tournament.get_absolute_url()))
    assert tags["og:description"] == "No game finished yet; 4 teams registered."


def test_a_sittings_page_says_its_games(client, cup):
    url = reverse("tournaments:sitting", args=[cup.pk, 1])
    tags = meta(client.get(url))
    assert tags["og:title"] == "Sitting 1 · Monsoon Cup"
    assert tags["og:description"].startswith("2 games, all finished: Table 1: ")
    assert picture_of(tags).startswith(
        reverse("tournaments:sitting_preview", args=[cup.pk, 1]) + "?v="
    )
    proposed = tournaments.propose_sitting(tournament=cup, rng=rng(4))
    tags = meta(client.get(reverse("tournaments:sitting", args=[cup.pk, proposed.number])))
    assert tags["og:description"] == "Drawn, not confirmed yet: 2 games."


def test_a_players_page_says_their_rating_games_and_form(client, cup):
    totals = PlayerTotals.objects.filter(won=1).select_related("player").first()
    player = totals.player
    tags = meta(client.get(player.get_absolute_url()))
    rating = floatformat(player.rating.rating, 0)
    assert tags["og:description"] == (f"Rating {rating} after 1 rated game; 1 game, 1 won; form W")
    assert tags["og:title"] == player.name
    assert picture_of(tags).startswith(
        reverse("leaderboards:player_preview", args=[player.pk]) + "?v="
    )


def test_a_seasons_page_says_its_nights_and_its_leaders(client):
    play_the_season()
    competition = season()
    tags = meta(client.get(competition.get_absolute_url()))
    assert re.fullmatch(
        r"After \d+ nights: 1 Esha & Farid [\d.]+ pts, 2 Anu & Biju [\d.]+ pts, .+",
        tags["og:description"],
    ), tags["og:description"]
    assert picture_of(tags).startswith(
        reverse("competitions:preview", args=[competition.pk]) + "?v="
    )


def test_the_picture_is_a_png_of_1200_by_630_kept_for_a_year_under_its_version(client, cup):
    tags = meta(client.get(cup.get_absolute_url()))
    answer = client.get(picture_of(tags))
    assert answer.status_code == 200 and answer["Content-Type"] == "image/png"
    drawn = Image.open(io.BytesIO(answer.content))
    assert drawn.format == "PNG" and drawn.size == (1200, 630)
    assert answer["Cache-Control"] == "public, max-age=31536000, immutable"
    # Not asked for by its version: the current picture, asked again every time.
    bare = client.get(reverse("tournaments:preview", args=[cup.pk]))
    assert bare.content == answer.content and bare["Cache-Control"] == "public, no-cache"
    assert "Accept-Language" in bare["Vary"]  # the reader's language chose it
    again = client.get(bare.request["PATH_INFO"], HTTP_IF_NONE_MATCH=bare["ETag"])
    assert again.status_code == 304
    assert client.head(picture_of(tags)).status_code == 200


def test_a_kept_picture_is_the_picture_drawn_afresh(client, cup):
    url = picture_of(meta(client.get(cup.get_absolute_url())))
    drawn = client.get(url).content
    with CaptureQueriesContext(connection) as kept_reads:
        kept = client.get(url).content
    assert kept == drawn
    caches["pages"].clear()
    with CaptureQueriesContext(connection) as fresh_reads:
        fresh = client.get(url).content
    assert fresh == kept
    assert len(kept_reads) < len(fresh_reads)  # kept: its version read, nothing drawn


def test_one_picture_is_drawn_whatever_its_address_adds(client, cup, monkeypatch):
    """``/tournaments/05/preview.png`` is the picture of tournament 5: kept once, drawn
    once, however its address is written; a language the site has not is the reader's."""
    drawn = []
    real = preview.draw
    monkeypatch.setattr(preview, "draw", lambda card: drawn.append(card) or real(card))
    caches["pages"].clear()
    plain = reverse("tournaments:preview", args=[cup.pk])
    padded = plain.replace(f"/{cup.pk}/", f"/00{cup.pk}/")
    assert padded != plain
    answers = [client.get(url) for url in (plain, padded, f"{padded}?lang=xx")]
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert len({answer.content for answer in answers}) == 1 and len(drawn) == 1
    assert "Accept-Language" in answers[-1]["Vary"]  # "xx": the reader's language chose it


def test_a_result_that_changes_names_a_new_picture(client):
    tournament = make_tournament(teams=4)
    sitting = tournaments.propose_sitting(tournament=tournament, rng=rng(5))
    tournaments.confirm_sitting(sitting=sitting, rng=rng(5))
    before = meta(client.get(tournament.get_absolute_url()))
    old_picture = client.get(picture_of(before)).content
    game = sitting.games.select_related("game").first().game
    win_game(game, sorted(game.teams.values_list("team__name", flat=True))[0])
    after = meta(client.get(tournament.get_absolute_url()))
    assert picture_of(after) != picture_of(before)
    new_picture = client.get(picture_of(after))
    assert new_picture.content != old_picture
    # An app that kept the old address asks again: it is told the current picture, not kept.
    stale = client.get(picture_of(before))
    assert stale.content == new_picture.content
    assert stale["Cache-Control"] == "public, no-cache"


def test_the_picture_speaks_the_pages_language(client, cup):
    reader = Client()
    reader.cookies["django_language"] = "ml"
    tags = meta(reader.get(cup.get_absolute_url()))
    assert tags["og:image"].endswith("&lang=ml")
    malayalam = client.get(picture_of(tags)).content  # whoever fetches it
    english = client.get(reverse("tournaments:preview", args=[cup.pk]), {"lang": "en"}).content
    assert malayalam != english
    unknown = client.get(reverse("tournaments:preview", args=[cup.pk]), {"lang": "xx"})
    assert unknown.status_code == 200 and unknown.content == english


def test_another_clubs_object_has_no_picture_at_this_clubs_address(client, cup):
    gulf = Club.objects.create(name="Gulf 56", slug="gulf", time_zone="Asia/Dubai")
    game = Game.objects.filter(sitting_entry__sitting__tournament=cup).first()
    player = Player.objects.get(name="Anu")
    for name, args in (
        ("tournaments:preview", [cup.pk]),
        ("tournaments:sitting_preview", [cup.pk, 1]),
        ("games:preview", [game.pk]),
        ("leaderboards:player_preview", [player.pk]),
    ):
        assert client.get(reverse_in(gulf, name, args=args)).status_code == 404, name
        assert client.get(reverse_in(cup.club, name, args=args)).status_code == 200, name
    no_sitting = reverse_in(cup.club, "tournaments:sitting_preview", args=[cup.pk, 9])
    assert client.get(no_sitting).status_code == 404


def _reads(client, url: str) -> tuple[int, int]:
    """The queries of the picture drawn (nothing kept), then of the kept one."""
    caches["pages"].clear()
    with CaptureQueriesContext(connection) as drawn:
        assert client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as kept:
        assert client.get(url).status_code == 200
    return len(drawn), len(kept)


# Drawn: the page's version (its token and the club's), then what the picture shows:
# the tournament, its standings, how many sittings are finished.
STANDINGS_PICTURE = 5
SITTING_PICTURE = 5  # the version's two, the sitting with its tournament, its games, their teams
GAME_PICTURE = 4  # the version's two, the game, its teams
KEPT_PICTURE = 2  # the version's two: nothing drawn


def test_a_pictures_queries_do_not_grow_with_the_tournament(client):
    small = make_tournament(name="Small", teams=4)
    bigger = make_tournament(name="Bigger", teams=12)
    for tournament in (small, bigger):
        for seed in range(1 if tournament is small else 4):
            night(tournament, seed=seed)
    for tournament in (small, bigger):
        standings = reverse("tournaments:preview", args=[tournament.pk])
        assert _reads(client, standings) == (STANDINGS_PICTURE, KEPT_PICTURE)
        sitting = reverse("tournaments:sitting_preview", args=[tournament.pk, 1])
        assert _reads(client, sitting) == (SITTING_PICTURE, KEPT_PICTURE)


def test_a_games_picture_costs_the_same_for_a_short_and_a_long_game(client):
    for deals in (1, 20):
        game = start_game(2)
        for number in range(deals):
            game.refresh_from_db()
            win_game(game, "Anu & Biju" if number % 2 else "Chitra & Dev")
        assert _reads(client, reverse("games:preview", args=[game.pk])) == (
            GAME_PICTURE,
            KEPT_PICTURE,
        )


def test_a_players_picture_costs_the_same_after_more_games(client):
    counts = []
    for games in (1, 6):
        for _ in range(games):
            game = start_game(2)
            win_game(game, "Anu & Biju")
            end_game(game=game)  # time called: Anu & Biju won, by the tables they hold
        anu = Player.objects.get(name="Anu")
        counts.append(_reads(client, reverse("leaderboards:player_preview", args=[anu.pk])))
    assert counts[0] == counts[1]
    assert counts[0][0] <= 10


def test_a_seasons_picture_is_drawn_and_kept(client):
    play_the_season()
    competition = season()
    url = reverse("competitions:preview", args=[competition.pk])
    drawn, kept = _reads(client, url)
    assert kept < drawn
    picture = Image.open(io.BytesIO(client.get(url).content))
    assert picture.size == (1200, 630)


def test_the_version_of_a_picture_is_the_pages_and_the_release(client, cup):
    """``v`` names the page's kept version (club.web.pages) with this release's."""
    from club.tournaments.views import tournament_version

    class Asked:
        club = cup.club

    own, rest = tournament_version(Asked(), cup.pk)
    tags = meta(client.get(cup.get_absolute_url()))
    assert f"v={tag(f'{own}|{rest()}')}" in tags["og:image"]


def test_a_team_renamed_names_a_new_picture(client, cup):
    before = picture_of(meta(client.get(cup.get_absolute_url())))
    team = Team.objects.get(name="Anu & Biju")
    team.name = "The Monsoon Pair"
    team.save()
    after = picture_of(meta(client.get(cup.get_absolute_url())))
    assert after != before


def test_a_signed_in_readers_page_names_its_picture_without_reading_its_version(
    organiser_client, cup
):
    """No app reads an organiser's own page (an app fetches a shared address with no
    session): its head names the current picture, and spends no query on its version."""
    tags = meta(organiser_client.get(cup.get_absolute_url()))
    address = reverse("tournaments:preview", args=[cup.pk])
    assert tags["og:image"] == f"http://testserver{address}?lang=en"
    assert organiser_client.get(picture_of(tags))["Content-Type"] == "image/png"
