"""Scorer links for a whole sitting: issued in one action,
printed on one sheet, on each table's score sheet as QR codes for an organiser, and built
on the club's public address so that phones can open them."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from club.games.models import ScorerLink
from club.tournaments import services
from club.tournaments.models import TournamentEvent
from club.tournaments.services.sittings import CONFIRM_FIRST, EVERY_GAME_OVER
from tests.tournaments.helpers import make_tournament, rng, win_game
from tests.web.test_club_words import _settings_with

pytestmark = pytest.mark.django_db


def sitting_of(teams=6, **kwargs):
    tournament = make_tournament(teams=teams, **kwargs)
    sitting = services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    games = [entry.game for entry in sitting.games.select_related("game").order_by("position")]
    return tournament, sitting, games


def working(game) -> list[ScorerLink]:
    return list(game.scorer_links.filter(revoked_at=None, expired_at=None))


def test_one_action_issues_links_for_every_table_still_playing():
    tournament, sitting, games = sitting_of(teams=6, require_confirmation=True)
    win_game(games[0], games[0].teams.first().team.name)  # one table is over already
    earlier = services.issue_sitting_links  # the same action twice: the first links die
    assert earlier(sitting=sitting) == 2
    first = {game.pk: {link.pk for link in working(game)} for game in games}
    assert services.issue_sitting_links(sitting=sitting) == 2
    assert first[games[0].pk] == set()  # a finished game gets none
    for game in games[1:]:
        now = working(game)
        assert len(now) == 2  # a link per team: deals wait for the other team's confirmation
        assert not ({link.pk for link in now} & first[game.pk])
    assert TournamentEvent.objects.filter(action="links", sitting_number=1).count() == 2


def test_links_are_refused_before_the_draw_is_confirmed_and_when_every_game_is_over():
    tournament = make_tournament(teams=2)
    proposed = services.propose_sitting(tournament=tournament, rng=rng())
    with pytest.raises(services.TournamentError, match=re.escape(str(CONFIRM_FIRST))):
        services.issue_sitting_links(sitting=proposed)
    sitting = services.confirm_sitting(sitting=proposed, rng=rng())
    game = sitting.games.get().game
    win_game(game, game.teams.first().team.name)
    with pytest.raises(services.TournamentError, match=re.escape(str(EVERY_GAME_OVER))):
        services.issue_sitting_links(sitting=sitting)
    assert not ScorerLink.objects.exists()


def test_the_organiser_issues_and_prints_every_tables_links(organiser_client, settings):
    settings.PUBLIC_URL = "https://club.example"
    tournament, sitting, games = sitting_of(teams=6)
    response = organiser_client.post(
        reverse("tournaments:sitting_links", args=[tournament.pk, sitting.number])
    )
    assert response.url == reverse(
        "tournaments:sitting_links_print", args=[tournament.pk, sitting.number]
    )
    page = organiser_client.get(response.url)
    assert page["Cache-Control"].startswith("max-age=0") or "no-cache" in page["Cache-Control"]
    text = page.text
    tokens = [link.token for game in games for link in working(game)]
    assert len(tokens) == 3
    for token in tokens:
        assert f"https://club.example/s/{token}/" in text
    assert text.count('class="print-link"') == 3 and text.count("<svg") >= 3
    assert "this computer only" not in text
    assert "Table 1" in text and "Table 3" in text


def test_links_built_on_a_loopback_address_are_warned_about(organiser_client):
    tournament, sitting, games = sitting_of(teams=4)
    services.issue_sitting_links(sitting=sitting)
    url = reverse("tournaments:sitting_links_print", args=[tournament.pk, sitting.number])
    local = organiser_client.get(url, HTTP_HOST="127.0.0.1:8000").text
    assert "These links point at 127.0.0.1:8000, this computer only" in local
    assert "http://127.0.0.1:8000/s/" in local
    lan = organiser_client.get(url, HTTP_HOST="testserver").text
    assert "this computer only" not in lan
    game_page = organiser_client.get(
        reverse("games:links", args=[games[0].pk]), HTTP_HOST="localhost:8000"
    ).text
    assert "this computer only" in game_page


def test_the_score_sheets_carry_the_links_for_an_organiser_only(organiser_client):
    from django.test import Client

    tournament, sitting, games = sitting_of(teams=4, require_confirmation=True)
    services.issue_sitting_links(sitting=sitting)
    url = reverse("tournaments:sitting_sheets", args=[tournament.pk, sitting.number])
    printed = organiser_client.get(url).text
    tokens = [link.token for game in games for link in working(game)]
    assert len(tokens) == 4
    assert printed.count('class="sheet-qr"') == 4
    public = Client().get(url).text  # anyone else: the same sheets, no codes
    assert 'class="sheet-qr"' not in public
    assert not any(token in public for token in tokens)


def test_a_public_address_that_is_not_one_is_refused_at_start():
    assert _settings_with(DJANGO_PUBLIC_URL="http://192.168.1.10:8000/").returncode == 0
    for wrong in ("club.example", "ftp://club.example", "https://club.example/club"):
        result = _settings_with(DJANGO_PUBLIC_URL=wrong)
        assert result.returncode != 0 and "DJANGO_PUBLIC_URL is" in result.stderr
