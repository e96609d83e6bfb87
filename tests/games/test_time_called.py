"""Calling time on a game: the news says how its form of play places the teams, and a
game with no deal is ended level only once the organiser has been asked and agreed."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from club.games import services
from club.games.models import Change, Game, SubmittedForm
from club.scoring import rules as core
from tests.factories import deal, start_game
from tests.games.page_forms import form_posting_to
from tests.games.test_words_of_each_form import points_game

pytestmark = pytest.mark.django_db


def press_call_time(client, game: Game):
    """The organiser presses "Call time" on the game's page."""
    url = reverse("games:end", args=[game.pk])
    page = client.get(game.get_absolute_url()).text
    return url, client.post(url, form_posting_to(page, url), follow=True)


def played_once(rules: core.Rules) -> Game:
    game = start_game(2, rules=rules)
    services.record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 26}, "Anu", 28))
    return game


@pytest.mark.parametrize(
    "make, news",
    [
        (
            lambda: played_once(core.Rules(tables_per_team=4)),
            "Time called: teams still playing are placed by the tables they hold.",
        ),
        (
            lambda: played_once(core.preset_rules(core.Preset.KODI, 4)),
            "Time called: fewest kodis first, then most tables held.",
        ),
        (points_game, "Time called: the higher total wins, equal totals share a place."),
    ],
    ids=["tables", "kodi", "points"],
)
def test_the_news_of_time_called_says_how_the_form_of_play_places_the_teams(
    organiser_client, make, news
):
    game = make()
    _url, answer = press_call_time(organiser_client, game)
    game.refresh_from_db()
    assert game.is_finished and game.ended_early
    messages = [str(message) for message in answer.context["messages"]]
    assert messages == [news]


def test_a_game_with_no_deal_is_ended_only_once_the_organiser_agrees_it_ends_level(
    organiser_client,
):
    game = start_game(2, label="Friday table 3")
    url, asked = press_call_time(organiser_client, game)
    # Asked, not ended: the game is as it was, and its history has no end.
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS and not game.ended_early
    assert not Change.objects.filter(game=game, action=Change.Action.ENDED).exists()
    assert asked.status_code == 200 and asked.redirect_chain == []
    assert (
        "Friday table 3 (Anu &amp; Biju vs Chitra &amp; Dev) has no deal: it will end level."
        in asked.text
    )
    # The page's own confirmation: a form of its own, with a fresh one-time key.
    confirm = form_posting_to(asked.text, url)
    assert confirm["level"] == [str(game.pk)]
    done = organiser_client.post(url, confirm, follow=True)
    game.refresh_from_db()
    assert game.is_finished and game.winner is None
    assert [team.place for team in game.teams.order_by("position")] == [1, 1]
    assert [team.tables for team in game.teams.order_by("position")] == [12, 12]
    assert [str(message) for message in done.context["messages"]] == [
        "Time called before any deal: the game ended level; its teams share the first place "
        "and none of them won it."
    ]
    assert "No deal was played: the game ended level" in done.text
    # The confirmation went through the one-time key: sent again, it is the first answer.
    key = confirm["idempotency_key"][0]
    assert SubmittedForm.objects.filter(key=key, path=url).exists()
    again = organiser_client.post(url, confirm)
    assert again["X-Idempotent-Replay"] == "true"
    assert Change.objects.filter(game=game, action=Change.Action.ENDED).count() == 1


def test_a_game_with_no_deal_is_not_ended_by_a_post_that_never_saw_the_question(
    organiser_client,
):
    """Agreeing to end another game level does not end this one."""
    game = start_game(2)
    other = start_game(2)
    url = reverse("games:end", args=[game.pk])
    answer = organiser_client.post(url, {"level": [str(other.pk)]})
    assert answer.status_code == 200
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS


def test_the_game_page_asks_no_second_question_before_the_one_that_names_the_game(
    organiser_client,
):
    """With no deal, the page that names the game asks; the button's dialog would only
    ask the same thing twice."""
    game = start_game(2)
    page = organiser_client.get(game.get_absolute_url()).text
    assert "End the game now?" not in page
    services.record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 26}, "Anu", 28))
    page = organiser_client.get(game.get_absolute_url()).text
    assert "End the game now?" in page


def history_lines(client, game: Game) -> list[str]:
    page = client.get(game.get_absolute_url()).text
    return [
        " ".join(line.split())
        for line in re.findall(r'<li><span class="muted">[^<]*</span> ([^<]*)', page)
    ]


def test_the_history_says_after_which_deal_time_was_called(organiser_client, organiser):
    played = played_once(core.Rules(tables_per_team=4))
    services.end_game(game=played, user=organiser)
    assert history_lines(organiser_client, played)[0] == (
        f"Time called after deal 1 ({organiser.username})"
    )
    fresh = start_game(2, rules=core.Rules(tables_per_team=4))
    services.end_game(game=fresh, user=organiser)
    assert history_lines(organiser_client, fresh) == [
        f"Time called before any deal ({organiser.username})"
    ]
