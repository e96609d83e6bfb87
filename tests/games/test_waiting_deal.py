"""A deal that waits for the other team's confirmation, as the organiser meets it:
shown on the game page with Confirm and Reject, never
lost when the organiser records over it, and the history names who did what."""

from __future__ import annotations

import pytest
from django.urls import reverse

from club.games import links
from club.games.models import Change, Game, PendingDeal, Round
from club.games.services import Deal, TeamEntry, create_game, load_seating, submit_deal
from tests.factories import deal_form

pytestmark = pytest.mark.django_db


def waiting_game():
    """A game whose deals sent through a link wait; Anu & Biju's phone sends deal 1."""
    game = create_game(
        label="Friday",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=0,
        require_confirmation=True,
    )
    anu_link, dev_link = links.issue_links(game=game)
    entry = Deal(points={0: 30, 1: 26}, declarer=0, bid=28, trump="hearts")  # Anu's seat
    before = Game.objects.get(pk=game.pk).updated_at
    submit_deal(game=game, number=1, entry=entry, link=anu_link)
    game.refresh_from_db()
    assert game.updated_at > before  # the live pages see the waiting deal
    return game, anu_link, dev_link


def history(client, game) -> str:
    page = client.get(reverse("games:detail", args=[game.pk])).text
    return page.split('<ul class="changes">', 1)[1].split("</ul>", 1)[0]


def test_the_organiser_sees_the_waiting_deal_and_records_it(organiser_client):
    game, _anu, _dev = waiting_game()
    page = organiser_client.get(reverse("games:detail", args=[game.pk])).text
    assert "Deal 1 waits for confirmation" in page
    assert "Sent through the scorer link of Anu &amp; Biju" in page
    assert (
        '<p class="waiting-entry">Anu bid 28 Hearts, Not doubled; '
        "piles: Anu &amp; Biju 30, Chitra &amp; Dev 26</p>" in page
    )
    assert 'data-confirm="Deal 1 waits for confirmation. Record yours instead?' in page
    response = organiser_client.post(reverse("games:waiting_confirm", args=[game.pk, 1]))
    assert response.status_code == 302
    assert Round.objects.filter(game=game, number=1).exists()
    assert not PendingDeal.objects.exists()
    lines = history(organiser_client, game)
    assert "Sent for confirmation deal 1 (Anu &amp; Biju&#x27;s scorer link)" in lines
    assert "Recorded deal 1 (olive)" in lines


def test_the_organiser_rejects_a_waiting_deal_and_the_history_keeps_it(organiser_client):
    game, _anu, _dev = waiting_game()
    response = organiser_client.post(reverse("games:waiting_reject", args=[game.pk, 1]))
    assert response.status_code == 302
    assert not PendingDeal.objects.exists() and not Round.objects.exists()
    rejected = Change.objects.get(action="rejected")
    assert rejected.made_by.username == "olive" and rejected.before["bid"] == 28
    assert "Rejected deal 1 (olive)" in history(organiser_client, game)


def test_recording_over_a_waiting_deal_keeps_both_in_the_history(organiser_client):
    game, _anu, _dev = waiting_game()
    seating = load_seating(game)
    chitra = seating.players[1]
    post = deal_form(1, declarer=str(chitra.pk), bid="32", trump="spades", p0=20, p1=36)
    response = organiser_client.post(reverse("games:record", args=[game.pk]), post)
    assert response.status_code == 302
    assert Round.objects.get(game=game, number=1).bid == 32
    assert not PendingDeal.objects.exists()
    replaced = Change.objects.get(action="replaced")
    assert replaced.before["bid"] == 28 and replaced.made_by.username == "olive"
    lines = history(organiser_client, game)
    assert "Replaced by the organiser&#x27;s entry deal 1 (olive)" in lines
    assert "Sent for confirmation deal 1 (Anu &amp; Biju&#x27;s scorer link)" in lines


def test_nothing_waits_nothing_is_confirmed(organiser_client):
    game, _anu, _dev = waiting_game()
    links.reject_waiting(game=game, number=1)
    response = organiser_client.post(reverse("games:waiting_confirm", args=[game.pk, 1]))
    assert response.status_code == 302 and not Round.objects.exists()
    page = organiser_client.get(response.url).text
    assert "Deal 1 is not waiting for confirmation." in page
