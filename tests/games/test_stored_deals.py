"""A deal stored before it counts (waiting for the other team, or rejected and kept for
its phone) names its declarer by player id: it must outlive a merge of that player, and
a refusal that comes after a waiting deal was taken up must leave it waiting."""

from __future__ import annotations

import pytest
from django.urls import reverse

from club.games import links
from club.games.errors import ScoringError
from club.games.models import Game, PendingDeal, Player, RejectedDeal, Round
from club.leaderboards.merge import merge_players
from tests.games.test_scorer_links import deal_post, scorer_url
from tests.games.test_two_sided_confirmation import value_of

pytestmark = pytest.mark.django_db


def test_a_merge_names_the_player_kept_in_a_deal_rejected(table):
    game, (first, phone_a), (second, phone_b) = table
    chitra = Player.objects.get(name="Chitra")
    # Team 1 sends Chitra's deal, team 2 rejects it: it is kept for team 1's phone.
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    phone_b.post(scorer_url(second, "scorer_reject", 1), {"reason": "36 was 35"})
    assert RejectedDeal.objects.get(game=game).entry["declarer"] == chitra.pk

    kept = Player.objects.create(name="Chitra Menon")
    merge_players(keep=kept, fold=chitra)

    assert RejectedDeal.objects.get(game=game).entry["declarer"] == kept.pk
    page = phone_a.get(scorer_url(first)).content.decode()
    assert "36 was 35" in page  # the rejection, with its entry back in the form
    assert value_of(page, "declarer") == str(kept.pk)


def test_a_merge_names_the_player_kept_in_both_entries_waiting(table, organiser_client):
    game, (first, phone_a), (second, phone_b) = table
    chitra = Player.objects.get(name="Chitra")
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    other = deal_post(game) | {"points_0": "21", "points_1": "35"}
    phone_b.post(scorer_url(second, "scorer_send"), other)
    waiting = PendingDeal.objects.get(game=game)
    assert waiting.entry["declarer"] == chitra.pk == waiting.counter_entry["declarer"]
    before = Game.objects.get(pk=game.pk).updated_at

    kept = Player.objects.create(name="Chitra Menon")
    merge_players(keep=kept, fold=chitra)

    waiting.refresh_from_db()
    assert waiting.entry["declarer"] == kept.pk == waiting.counter_entry["declarer"]
    # Who sits at the game changed: its version moves, so no page or form read before
    # the merge is served or written from.
    assert Game.objects.get(pk=game.pk).updated_at > before
    page = organiser_client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert page.count("Chitra Menon") >= 2  # both entries waiting name the player kept


def test_a_stored_deal_naming_a_player_no_longer_seated_still_shows(table, organiser_client):
    """A deal stored before its player left the game's seats (a merge before deals kept
    were renamed) shows that player as nobody: the pages work, and the organiser can
    still record the deal that counts over it."""
    game, (first, phone_a), (_second, _phone_b) = table
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    stranger = Player.objects.create(name="Nobody Seated")
    PendingDeal.objects.filter(game=game).update(
        entry={"points": {"0": 20, "1": 36}, "declarer": stranger.pk, "bid": 30, "trump": "hearts"}
    )

    assert organiser_client.get(reverse("games:detail", args=[game.pk])).status_code == 200
    assert phone_a.get(scorer_url(first)).status_code == 200
    recorded = organiser_client.post(reverse("games:record", args=[game.pk]), deal_post(game))
    assert recorded.status_code == 302
    assert Round.objects.filter(game=game, number=1).exists()
    assert not PendingDeal.objects.filter(game=game).exists()


def test_a_refusal_after_a_waiting_deal_was_taken_up_leaves_it_waiting(table, monkeypatch):
    game, (first, phone_a), (second, phone_b) = table
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))

    def refuse(*args, **kwargs):
        raise ScoringError("Deal 1: refused at the last moment.", field="number")

    monkeypatch.setattr(links, "record_next", refuse)
    answer = phone_b.post(scorer_url(second, "scorer_send"), deal_post(game))

    assert answer.status_code == 200
    assert not Round.objects.filter(game=game).exists()
    assert PendingDeal.objects.filter(game=game, number=1).exists()  # still waiting
