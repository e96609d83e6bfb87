"""Calling time on a sitting names the tables with no deal and ends nothing until the
director agrees that they end level (docs/rules.md, "A table with no deal").

Six pairs, 12 tables each: three tables. Table 1 plays a deal; Tables 2 and 3 never start.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from club.games import services as scoring
from club.games.models import Game, SubmittedForm
from club.tournaments import calling_time, services
from club.tournaments.models import Sitting, TournamentEvent
from tests.games.page_forms import form_posting_to
from tests.tournaments.helpers import make_tournament, rng, win_game

pytestmark = pytest.mark.django_db


def tables_of(sitting: Sitting) -> dict[str, Game]:
    return {entry.table_label: entry.game for entry in sitting.games.select_related("game")}


def teams_of(game: Game) -> str:
    return " vs ".join(game.teams.order_by("position").values_list("team__name", flat=True))


@pytest.fixture
def sitting():
    tournament = make_tournament(teams=6, tables_per_team=12)
    drawn = services.propose_sitting(tournament=tournament, rng=rng())
    services.confirm_sitting(sitting=drawn, rng=rng())
    games = tables_of(drawn)
    first = games["Table 1"]
    win_game(first, first.teams.order_by("position").first().team.name)  # 1 table moves
    return drawn


def statuses(sitting: Sitting) -> dict[str, str]:
    return {
        label: Game.objects.get(pk=game.pk).status for label, game in tables_of(sitting).items()
    }


def press_call_time(client, sitting: Sitting):
    url = reverse("tournaments:call_time", args=[sitting.tournament_id, sitting.number])
    page = client.get(reverse("tournaments:sitting", args=[sitting.tournament_id, sitting.number]))
    return url, client.post(url, form_posting_to(page.text, url), follow=True)


def test_calling_time_names_the_tables_with_no_deal_and_ends_nothing_until_confirmed(
    organiser_client, sitting
):
    url, asked = press_call_time(organiser_client, sitting)
    assert asked.status_code == 200 and asked.redirect_chain == []
    assert set(statuses(sitting).values()) == {"in_progress"}
    assert not TournamentEvent.objects.filter(action=TournamentEvent.Action.TIME_CALLED).exists()
    games = tables_of(sitting)
    for label in ("Table 2", "Table 3"):
        line = f"{label} ({teams_of(games[label])}) has no deal: it will end level."
        assert line.replace("&", "&amp;") in asked.text
    assert "Table 1 (" not in asked.text  # it has a deal: it ends as a game called early
    assert "The other game still being played ends now too" in asked.text

    confirm = form_posting_to(asked.text, url)
    assert sorted(confirm["level"]) == sorted(
        str(games[label].pk) for label in ("Table 2", "Table 3")
    )
    done = organiser_client.post(url, confirm, follow=True)
    assert set(statuses(sitting).values()) == {"finished"}
    assert [str(message) for message in done.context["messages"]] == [
        "Time called: 3 games ended; teams still playing are placed by the tables they hold. "
        "2 tables had no deal and ended level."
    ]
    for label in ("Table 2", "Table 3"):
        game = Game.objects.get(pk=games[label].pk)
        assert game.winner is None
        assert list(game.teams.values_list("place", flat=True)) == [1, 1]
    assert Game.objects.get(pk=games["Table 1"].pk).winner is not None
    assert TournamentEvent.objects.filter(action=TournamentEvent.Action.TIME_CALLED).count() == 1
    # Through the one-time key: the same confirmation sent again is answered, not done again.
    assert SubmittedForm.objects.filter(key=confirm["idempotency_key"][0], path=url).exists()
    again = organiser_client.post(url, confirm)
    assert again["X-Idempotent-Replay"] == "true"
    assert TournamentEvent.objects.filter(action=TournamentEvent.Action.TIME_CALLED).count() == 1


def test_a_table_that_lost_its_deal_after_the_question_is_asked_about_again(
    organiser_client, sitting
):
    url, asked = press_call_time(organiser_client, sitting)
    confirm = form_posting_to(asked.text, url)
    first = tables_of(sitting)["Table 1"]
    scoring.undo_last_deal(game=first, number=1)  # Table 1 has no deal now either
    again = organiser_client.post(url, confirm, follow=True)
    assert set(statuses(sitting).values()) == {"in_progress"}
    assert f"Table 1 ({teams_of(first)}) has no deal".replace("&", "&amp;") in again.text
    # Asked about every table with no deal as they are now, to agree to at once.
    assert sorted(form_posting_to(again.text, url)["level"]) == sorted(
        str(game.pk) for game in tables_of(sitting).values()
    )


def test_with_a_deal_at_every_table_time_is_called_at_once(organiser_client, sitting):
    for label, game in tables_of(sitting).items():
        if label != "Table 1":
            win_game(game, game.teams.order_by("position").first().team.name)
    _url, done = press_call_time(organiser_client, sitting)
    assert set(statuses(sitting).values()) == {"finished"}
    assert [str(message) for message in done.context["messages"]] == [
        "Time called: 3 games ended; teams still playing are placed by the tables they hold."
    ]


def test_the_service_asked_with_what_the_director_agreed_refuses_the_rest(sitting):
    games = tables_of(sitting)
    with pytest.raises(calling_time.NoDealYet) as refused:
        calling_time.call_time(sitting=sitting, agreed={games["Table 2"].pk})
    assert [table.label for table in refused.value.tables] == ["Table 2", "Table 3"]
    assert set(statuses(sitting).values()) == {"in_progress"}
    called = calling_time.call_time(sitting=sitting, agreed={g.pk for g in games.values()})
    assert (called.ended, called.level) == (3, 2)


def stars(page: str) -> list[str]:
    """The teams a page marks as a game's winner (the ★ of ``.game-team.winner``)."""
    return re.findall(r'class="game-team(?: own)? winner">([^<]+?) <b>', page)


def test_a_table_ended_level_shows_no_winner_on_the_tournament_sitting_and_player_pages(
    client, sitting
):
    games = tables_of(sitting)
    level = {games["Table 2"].pk, games["Table 3"].pk}
    calling_time.call_time(sitting=sitting, agreed=level)
    won = Game.objects.get(pk=games["Table 1"].pk)
    winner = won.winner.team.name.replace("&", "&amp;")
    tournament = sitting.tournament
    pages = {
        "tournament": reverse("tournaments:detail", args=[tournament.pk]),
        "sitting": reverse("tournaments:sitting", args=[tournament.pk, sitting.number]),
    }
    for name, url in pages.items():
        assert stars(client.get(url).text) == [winner], name
    # A player of a level table: their table, finished, marks no one.
    player = games["Table 2"].teams.order_by("position").first().team.first_player
    page = client.get(reverse("tournaments:player", args=[tournament.pk, player.pk])).text
    assert stars(page) == []
