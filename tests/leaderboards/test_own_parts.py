"""A player's own parts of their page, kept by the process (club.leaderboards.own_parts):
read again when another game moves the page's key, never when a change of theirs did.

The suite runs with every kept part compared with a fresh reading, and kept at once
(tests/conftest.py), so each test here that reads a page after a change fails if the
change left the key where it was: a deal, a correction that changes the places and one
that keeps them, a game finished, played on and ended again, a merge, a rename, games
deleted, and a deal posted from a page, its boards' work done by the next reader.
"""

from __future__ import annotations

import datetime

import pytest
from django.core.cache import caches
from django.urls import reverse
from django.utils import timezone

from club.games.models import Game, Player
from club.games.services import (
    TeamEntry,
    create_game,
    edit_deal,
    end_game,
    record_deal,
    undo_last_deal,
)
from club.leaderboards import own_parts
from club.leaderboards.merge import merge_players
from club.leaderboards.services.register import update_player
from club.scoring import rules as core
from club.scoring.rules import Deal
from tests.factories import deal_form, seat

from .conftest import play
from .test_maintained import _win, turn_game_b

pytestmark = pytest.mark.django_db


def read(client, player: Player) -> str:
    """The player's page rendered (the kept page dropped, as a new key would)."""
    caches["pages"].clear()
    answer = client.get(player.get_absolute_url())
    assert answer.status_code == 200
    return answer.content.decode()


def read_every_page(client) -> dict[str, str]:
    return {player.name: read(client, player) for player in Player.objects.order_by("pk")}


def test_a_page_read_again_after_anothers_game_reads_its_own_parts_kept_and_equal(client, club):
    anu, esha = Player.objects.get(name="Anu"), Player.objects.get(name="Esha")
    first = read(client, anu)
    # A game without Anu finishes: every page's key moves (the ratings' token), not hers.
    game = create_game(
        label="Game G",
        teams=[TeamEntry("Esha", "Farid"), TeamEntry("Gita", "Hari")],
        rules=core.Rules(tables_per_team=1),
    )
    _win(game, 1, 0, "Esha")
    assert Game.objects.get(pk=game.pk).is_finished
    kept_before = own_parts.read_kept
    again = read(client, anu)
    assert own_parts.read_kept == kept_before + 1
    assert again != first  # the page's version, in its picture's address, moved
    own_parts.forget()
    assert read(client, anu) == again  # the same page read afresh
    assert "Game G" in read(client, esha)  # hers moved: read again, with the game


def test_every_kind_of_change_to_a_players_history_moves_their_key(client, club):
    read_every_page(client)
    _win(club["D"], 2, 0, "Biju")  # a game finishes
    read_every_page(client)
    turn_game_b(club)  # a correction of an older game changes its winner, and ratings
    read_every_page(client)
    undo_last_deal(game=club["A"], number=2)  # a finished game played on again
    read_every_page(client)
    end_game(game=club["A"])  # and time called on it
    read_every_page(client)
    game = create_game(
        label="Game F", teams=[TeamEntry("Anu Menon", "Gita"), TeamEntry("Hari", "Indu")]
    )
    play(game, Deal(points={0: 56, 1: 0}, declarer=seat(game, "Gita"), bid=56, trump="hearts"))
    read_every_page(client)
    record_deal(  # a deal of a game being played
        game=game,
        number=2,
        entry=Deal(points={0: 30, 1: 26}, declarer=seat(game, "Hari"), bid=28, trump="spades"),
    )
    read_every_page(client)
    merge_players(keep=Player.objects.get(name="Anu"), fold=Player.objects.get(name="Anu Menon"))
    read_every_page(client)
    update_player(player=Player.objects.get(name="Dev"), name="Devan")  # a partner renamed
    pages = read_every_page(client)
    assert "Devan" in pages["Chitra"] and "Dev<" not in pages["Chitra"]
    Game.objects.get(pk=club["B"].pk).delete()  # a rated game deleted
    read_every_page(client)
    Game.objects.filter(pk=game.pk).delete()  # a game being played deleted
    pages = read_every_page(client)
    assert "Game F" not in pages["Anu"]
    assert own_parts.read_kept > 0


def test_a_correction_that_keeps_the_places_moves_the_key_by_its_game_alone(client, club):
    """No rating moves (services.ratings: the same places rewrite nothing): the game's
    change is the only part of the key that says so."""
    pages = read_every_page(client)
    edit_deal(  # game C's only deal: Esha's 48 no-trumps made with 3 more points to spare
        game=club["C"],
        number=1,
        entry=Deal(
            points={0: 0, 1: 3, 2: 53}, declarer=seat(club["C"], "Esha"), bid=48, trump="no-trumps"
        ),
    )
    after = read_every_page(client)
    assert after["Esha"] != pages["Esha"]


def test_a_deal_posted_from_a_page_is_on_every_page_read_after_it(organiser_client, club):
    """The boards' work a finished game owes is left until after the answer; whoever reads
    next does it first (club.leaderboards.owed), before the kept parts are looked up."""
    game = create_game(
        label="Game H",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Gita", "Hari")],
        rules=core.Rules(tables_per_team=1),
    )
    read_every_page(organiser_client)
    form = deal_form(1, Player.objects.get(name="Anu").pk, 56, "spades", p0=56, p1=0)
    answer = organiser_client.post(reverse("games:record", args=[game.pk]), form)
    assert answer.status_code == 302
    assert Game.objects.get(pk=game.pk).is_finished
    pages = read_every_page(organiser_client)
    assert "Game H" in pages["Anu"] and "Game H" in pages["Hari"]


def test_a_player_whose_latest_change_is_a_moment_old_is_read_afresh(client, club, monkeypatch):
    """Two changes at once may commit in the other order than their games' stamps: parts are
    kept only once the latest is settled (own_parts.SETTLED)."""
    monkeypatch.setattr(own_parts, "SETTLED", datetime.timedelta(minutes=5))
    anu = Player.objects.get(name="Anu")
    read(client, anu)
    assert not own_parts._kept  # her games changed a moment ago
    Game.objects.update(updated_at=timezone.now() - datetime.timedelta(minutes=6))
    read(client, anu)
    assert len(own_parts._kept) == 1


def test_a_page_asked_for_another_page_or_night_reads_afresh(client, club):
    anu = Player.objects.get(name="Anu")
    read(client, anu)
    kept_before = own_parts.read_kept
    for query in ("?page=2", "?night=2026-01-01", "?from=2026-01-01&to=2026-01-31"):
        caches["pages"].clear()
        assert client.get(anu.get_absolute_url() + query).status_code == 200
    assert own_parts.read_kept == kept_before


def test_parts_kept_under_a_key_a_change_left_in_place_are_found_out(client, club):
    """The check has teeth: parts changed behind the key's back raise."""
    anu = Player.objects.get(name="Anu")
    read(client, anu)
    ((key, kept),) = own_parts._kept.items()
    own_parts._kept[key] = {**kept, "games_count": kept["games_count"] + 1}
    with pytest.raises(own_parts.StaleParts, match="games_count"):
        read(client, anu)


def test_a_page_whose_own_parts_are_kept_costs_its_key_and_what_is_not_its_own(
    client, club, settings, django_assert_num_queries
):
    """Read unchecked, as a server reads it: the key (the player with their versions, the
    ratings' state, the club's token), then only the tournaments being played now and the
    club's seasons (the harness's "player profile, rendered, their history unchanged")."""
    settings.PROFILE_PARTS_CHECK = False
    anu = Player.objects.get(name="Anu")
    first = read(client, anu)
    caches["pages"].clear()
    with django_assert_num_queries(5):
        again = client.get(anu.get_absolute_url())
    assert again.content.decode() == first
