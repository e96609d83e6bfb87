"""Confirmation that never loses a deal: a rejected deal goes
back to the phone that sent it with the reason and its entry in the form; the same deal
sent by both teams confirms itself; two different ones wait side by side for the
organiser, whose choice is recorded and whose history keeps the other."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from club.games import links
from club.games.models import Change, PendingDeal, RejectedDeal, Round
from club.games.services import Deal, load_seating, record_deal, submit_deal, undo_last_deal
from club.scoring.rules import Rules
from club.tournaments import selectors, services
from tests.factories import start_game
from tests.games.test_scorer_links import deal_post, scorer_url
from tests.tournaments.helpers import make_tournament, rng

pytestmark = pytest.mark.django_db


def chitras_deal(game, **change) -> Deal:
    """What deal_post sends: Chitra (team 2, seat 1) bids 30 hearts, piles 20 and 36."""
    values = {"points": {0: 20, 1: 36}, "declarer": 1, "bid": 30, "trump": "hearts"}
    values.update(change)
    return Deal(**values)


def value_of(page: str, name: str) -> str:
    """A field's value on the page: the key checked in a group of keys, else its value."""
    match = (
        re.search(rf'name="{name}" value="([^"]*)"[^>]*checked', page)
        if f'type="radio" name="{name}"' in page
        else None
    )
    if match:
        return match.group(1)
    if f'type="radio" name="{name}"' in page:
        return ""
    match = re.search(rf'name="{name}"[^>]*value="([^"]*)"', page) or re.search(
        rf'value="([^"]*)"[^>]*name="{name}"', page
    )
    return match.group(1) if match else ""


def test_a_rejected_deal_goes_back_to_its_sender_with_the_reason_and_its_entry(table):
    game, (first, phone_a), (second, phone_b) = table
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    answer = phone_b.post(
        scorer_url(second, "scorer_reject", 1), {"reason": "we took 30, not 36"}, follow=True
    )
    assert "The team that sent it sees why" in answer.text
    assert not PendingDeal.objects.exists() and not Round.objects.exists()
    page = phone_a.get(scorer_url(first)).text
    team_b = second.game_team.team.name
    assert escape(f"{team_b} rejected deal 1.") in page
    assert "Their reason: “we took 30, not 36”." in page
    assert "Your entry is back in the form below" in page
    # The entry as sent, in the form to fix.
    assert value_of(page, "points_0") == "20" and value_of(page, "points_1") == "36"
    assert value_of(page, "bid") == "30"
    chitra = load_seating(game).players[1]
    assert value_of(page, "declarer") == str(chitra.pk)
    # The other phone has no notice and an empty form.
    other = phone_b.get(scorer_url(second)).text
    assert "rejected deal 1" not in other and value_of(other, "points_0") == ""
    # The history keeps the reason.
    assert Change.objects.get(action=Change.Action.REJECTED).note == "we took 30, not 36"
    organiser_view = Client()
    assert "“we took 30, not 36”" in organiser_view.get(game.get_absolute_url()).text
    # Sent again, fixed: the notice has done its work.
    fixed = deal_post(game)
    fixed.update(points_0="26", points_1="30")
    phone_a.post(scorer_url(first, "scorer_send"), fixed)
    assert PendingDeal.objects.get().entry["points"] == {"0": 26, "1": 30}
    assert not RejectedDeal.objects.exists()


def test_the_organiser_rejecting_a_deal_tells_the_phone_that_sent_it(table, organiser_client):
    game, (first, phone_a), _second = table
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    organiser_client.post(reverse("games:waiting_reject", args=[game.pk, 1]))
    page = phone_a.get(scorer_url(first)).text
    assert "The organiser rejected deal 1." in page and value_of(page, "bid") == "30"


def test_a_reason_too_long_is_refused_and_the_deal_still_waits(table):
    game, (first, phone_a), (second, phone_b) = table
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    answer = phone_b.post(
        scorer_url(second, "scorer_reject", 1), {"reason": "x" * 201}, follow=True
    )
    assert "Say what is wrong in at most 200 characters." in answer.text
    assert PendingDeal.objects.count() == 1 and not RejectedDeal.objects.exists()


def test_the_same_deal_from_both_teams_confirms_itself(table):
    game, (first, phone_a), (second, _phone_b) = table
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    recorded = submit_deal(game=game, number=1, entry=chitras_deal(game), link=second).recorded
    assert isinstance(recorded, Round) and recorded.number == 1
    assert not PendingDeal.objects.exists()
    actions = list(Change.objects.order_by("made_at", "id").values_list("action", "scorer_link"))
    assert actions == [(Change.Action.PROPOSED, first.pk), (Change.Action.RECORDED, second.pk)]


def test_two_different_entries_wait_side_by_side_for_the_organiser(table, organiser_client):
    game, (first, phone_a), (second, phone_b) = table
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    theirs = chitras_deal(game, points={0: 26, 1: 30})
    waiting = submit_deal(game=game, number=1, entry=theirs, link=second).waiting
    assert isinstance(waiting, PendingDeal) and waiting.counter_by_id == second.pk
    assert not Round.objects.exists()
    # Neither phone can settle it now; both see the two entries.
    for link, phone in ((first, phone_a), (second, phone_b)):
        page = phone.get(scorer_url(link)).text
        assert "The two teams sent different entries of deal 1" in page
        assert "Confirm deal 1" not in page
    with pytest.raises(links.LinkError, match="the organiser chooses"):
        links.confirm_deal(link=second, number=1)
    with pytest.raises(links.LinkError, match="the organiser chooses"):
        submit_deal(game=game, number=1, entry=chitras_deal(game), link=second)
    # The organiser sees both, and records the second team's.
    page = organiser_client.get(game.get_absolute_url()).text
    team_a, team_b = first.game_team.team.name, second.game_team.team.name
    assert f"Record {escape(team_a)}'s entry" in page
    assert f"Record {escape(team_b)}'s entry" in page
    organiser_client.post(reverse("games:waiting_confirm", args=[game.pk, 1]), {"entry": "other"})
    deal = Round.objects.get(game=game)
    assert deal.bid == 30 and dict(deal.piles.values_list("game_team__position", "points")) == {
        0: 26,
        1: 30,
    }
    replaced = Change.objects.get(action=Change.Action.REPLACED)
    assert list(replaced.before["points"].values()) == [20, 36]  # the entry not chosen, kept
    assert not PendingDeal.objects.exists()


def test_the_organiser_may_reject_both_entries(table, organiser_client):
    game, (first, phone_a), (second, _phone_b) = table
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    submit_deal(game=game, number=1, entry=chitras_deal(game, points={0: 26, 1: 30}), link=second)
    organiser_client.post(reverse("games:waiting_reject", args=[game.pk, 1]))
    assert not PendingDeal.objects.exists() and not Round.objects.exists()
    assert Change.objects.filter(action=Change.Action.REJECTED).count() == 2
    with pytest.raises(links.LinkError, match="not waiting"):
        links.confirm_waiting(game=game, number=1, other=True)


def test_choosing_the_other_entry_when_only_one_was_sent_is_refused(table):
    game, (first, phone_a), _second = table
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    with pytest.raises(links.LinkError, match="Only one team sent deal 1"):
        links.confirm_waiting(game=game, number=1, other=True)
    assert PendingDeal.objects.count() == 1


def test_the_directors_board_shows_two_differing_entries(organiser_client):
    tournament = make_tournament(teams=2, require_confirmation=True)
    sitting = services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    game = sitting.games.get().game
    first, second = links.issue_links(game=game)
    sent = Deal(points={0: 30, 1: 26}, declarer=0, bid=28, trump="hearts")
    submit_deal(game=game, number=1, entry=sent, link=first)
    before = selectors.board_version(tournament, sitting)
    other = Deal(points={0: 26, 1: 30}, declarer=0, bid=28, trump="hearts")
    submit_deal(game=game, number=1, entry=other, link=second)
    assert selectors.board_version(tournament, sitting) != before  # the board refreshes
    page = organiser_client.get(reverse("tournaments:board", args=[tournament.pk])).text
    assert "Deal 1: the two teams sent different entries; choose one" in page


def test_a_rejection_notice_does_not_come_back_after_an_undo(table, organiser):
    game, (first, phone_a), (second, phone_b) = table
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))
    phone_b.post(scorer_url(second, "scorer_reject", 1), {"reason": "wrong piles"})
    assert "rejected deal 1" in phone_a.get(scorer_url(first)).text
    record_deal(game=game, number=1, entry=chitras_deal(game), user=organiser)
    undo_last_deal(game=game, number=1, user=organiser)
    assert "rejected deal 1" not in phone_a.get(scorer_url(first)).text


def test_the_phone_that_sent_the_last_deal_reads_that_it_counted_once_confirmed():
    """It read "This scorer link cannot be used ... Nothing was recorded" before."""
    game = start_game(2, first_dealer=0, require_confirmation=True, rules=Rules(tables_per_team=1))
    first, second = links.issue_links(game=game)
    phone_a, phone_b = Client(), Client()
    phone_a.post(scorer_url(first, "scorer_send"), deal_post(game))  # Chitra's team makes 30
    phone_b.post(scorer_url(second, "scorer_confirm", 1))
    game.refresh_from_db()
    assert game.is_finished and game.winner.team == second.game_team.team

    page = phone_a.get(scorer_url(first))
    assert page.status_code == 200
    text = page.text
    assert "Nothing was recorded" not in text and "cannot be used" not in text
    team_b = escape(second.game_team.team.name)
    assert f"Deal 1 was confirmed by {team_b}, and counts." in text
    assert f"{team_b} won the game" in text
    # Its poll is told to load the page whole, which then reads the same.
    poll = phone_a.get(scorer_url(first), HTTP_HX_REQUEST="true")
    assert poll.headers.get("HX-Refresh") == "true"
    # The confirming phone reads the result, without a word about confirming.
    other = phone_b.get(scorer_url(second)).text
    assert f"{team_b} won the game" in other and "was confirmed by" not in other
    # A withdrawn link still says it cannot be used.
    links.revoke_link(link=first)
    withdrawn = phone_a.get(scorer_url(first))
    assert withdrawn.status_code == 403 and "cannot be used" in withdrawn.text
