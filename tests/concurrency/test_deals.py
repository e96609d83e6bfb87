"""Scorers sending deals at the same moment, over real HTTP to the live server.

The game row lock in club.games.services serves two writes to one game one
after the other; these tests prove what a scorer sees and what is stored when
they race: a deal is stored once, every ledger equals its replay, tables are
conserved, and a correction racing a new deal lands in one order or the other.
"""

from __future__ import annotations

import random
from functools import partial

import pytest

from club.games import services
from club.games.models import Change, Game, GameTeam, LedgerEntry, Round
from club.games.services import deals as deal_services
from club.games.services import load_seating, replay, replay_game
from club.scoring import rules as core
from tests.concurrency.conftest import at_once, lock_held_longer
from tests.factories import start_game

SETTLED = "#settlement"  # where a recorded deal redirects to


def form_data(number: int, deal: core.Deal, seating) -> dict:
    """The deal form as a scorer fills it in (declarer by player, piles by team)."""
    data = {"number": number, "doubling": str(deal.doubling)}
    if deal.all_pass:
        data["declarer"] = "pass"
    else:
        data.update(declarer=seating.players[deal.declarer].pk, bid=deal.bid, trump=str(deal.trump))
    data.update({f"points_{team}": points for team, points in deal.points.items()})
    return data


def random_deal(rng: random.Random, state: core.GameState) -> core.Deal:
    """A deal that can happen from ``state``: mostly low bids, piles near the bid."""
    teams = state.teams_in_play
    if rng.random() < 0.1:
        declarer, bid, declaring_team = None, 28, state.team_of(state.first_bidder)
    else:
        seats = [seat for seat in range(len(state.seats)) if state.in_play(state.team_of(seat))]
        declarer = rng.choice(seats)
        bid = rng.choice([*range(28, 36)] * 4 + [*range(36, 57)])
        declaring_team = state.team_of(declarer)
    pile = max(0, min(56, bid + rng.randint(-8, 8)))
    points = {team: pile if team == declaring_team else 56 - pile for team in teams}
    if declarer is None:
        return core.Deal(points=points)
    doubling = rng.choices(list(core.Doubling), weights=[12, 2, 1])[0]
    return core.Deal(points, declarer, bid, rng.choice(list(core.Trump)), doubling)


def stored_deals(game: Game) -> list[core.Deal]:
    _, entries = services.stored_entries(game, load_seating(game))
    return entries


def ledger_rows(game: Game) -> list[tuple[int, int, int, int]]:
    return list(
        LedgerEntry.objects.filter(round__game=game)
        .order_by("round__number", "game_team__position")
        .values_list("round__number", "game_team__position", "change", "balance")
    )


def settled_rows(settlements) -> list[tuple[int, int, int, int]]:
    return [
        (settlement.number, team, settlement.transfers[team], settlement.tables_after[team])
        for settlement in settlements
        for team in sorted(settlement.transfers)
    ]


def test_the_same_deal_sent_twice_at_once_is_stored_once(scorers):
    game = start_game()
    seating = load_seating(game)
    first, second = scorers(2)
    # Deal 1: Chitra (seat 1) bids 30 in hearts and her team takes 34: made.
    deal = core.Deal({0: 22, 1: 34}, declarer=1, bid=30, trump="hearts")
    page = f"/games/{game.pk}/"
    tokens = [first.token(page), second.token(page)]

    # stored_state runs while the game row is locked (looked up in the replay module).
    with lock_held_longer(replay, "stored_state"):
        answers = at_once(
            *(
                lambda scorer=scorer, token=token: scorer.post(
                    f"/games/{game.pk}/deals/", form_data(1, deal, seating), token=token
                )
                for scorer, token in zip((first, second), tokens, strict=True)
            )
        )

    recorded = [a for a in answers if a.status == 302 and a.location.endswith(SETTLED)]
    refused = [a for a in answers if a.status == 200]
    assert len(recorded) == 1 and len(refused) == 1, answers
    assert "Deal 1 is already recorded:" in refused[0].body
    assert "Nothing was saved twice." in refused[0].body
    assert Round.objects.filter(game=game).count() == 1
    assert Change.objects.filter(game=game, action=Change.Action.RECORDED).count() == 1
    assert sorted(GameTeam.objects.filter(game=game).values_list("position", "tables")) == [
        (0, 11),
        (1, 13),
    ]


def test_twenty_scorers_play_twenty_games_at_once(scorers):
    tables, deal_limit = 10, 12
    rules = core.Rules(tables_per_team=tables)
    games = [start_game(rules=rules, deal_limit=deal_limit) for _ in range(20)]
    seatings = [load_seating(game) for game in games]
    people = scorers(20)

    def play(index: int) -> tuple[list[core.Deal], int, list[str]]:
        """One scorer plays a whole game; returns the deals sent, those stored and any fault."""
        game, seating, scorer = games[index], seatings[index], people[index]
        rng = random.Random(5600 + index)
        token = scorer.token(f"/games/{game.pk}/")
        deals: list[core.Deal] = []
        recorded, faults = 0, []
        while True:
            _, state = core.replay(2, game.first_dealer_seat, deals, rules)
            if state.finished or len(deals) == deal_limit:
                return deals, recorded, faults
            deal = random_deal(rng, state)
            data = form_data(len(deals) + 1, deal, seating)
            answer = scorer.post(f"/games/{game.pk}/deals/", data, token=token)
            if answer.status == 302 and answer.location.endswith(SETTLED):
                recorded += 1
            else:
                faults.append(f"deal {len(deals) + 1}: {answer.status}")
            deals.append(deal)
            if rng.random() < 0.15:  # the phone resends the form after a lost answer
                again = scorer.post(f"/games/{game.pk}/deals/", data, token=token)
                if again.status == 302 and not again.location.endswith(SETTLED):
                    again = scorer.get(again.location)  # the game is over: told on its page
                if f"Deal {len(deals)} is already recorded" not in again.body:
                    faults.append(f"resent deal {len(deals)}: {again.status}")

    outcomes = at_once(*(lambda index=index: play(index) for index in range(20)), timeout=120)

    assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
    assert sum(len(deals) for deals, _, _ in outcomes) > 100  # about 8 deals a game
    for game, (deals, recorded, faults) in zip(games, outcomes, strict=True):
        game.refresh_from_db()
        assert faults == [], (game.label, faults)
        assert Round.objects.filter(game=game).count() == recorded == len(deals)
        assert stored_deals(game) == deals  # what each scorer sent, once, in order
        _, settlements, state = replay_game(game)
        assert ledger_rows(game) == settled_rows(settlements)
        assert ledger_rows(game) == settled_rows(
            core.replay(2, game.first_dealer_seat, deals, rules)[0]
        )
        assert (
            sum(GameTeam.objects.filter(game=game).values_list("tables", flat=True)) == 2 * tables
        )
        assert game.is_finished and game.deals_played == len(deals)


# A correction racing a new deal (two teams of three tables, Anu deals first).
# Seats in play order: 0 Anu, 1 Chitra, 2 Biju, 3 Dev.
RACE_RULES = core.Rules(tables_per_team=3)
# Deal 1: Chitra 28 hearts, her team takes 36: made, 1 table from Anu & Biju: 2-4.
DEAL_1 = core.Deal({0: 20, 1: 36}, declarer=1, bid=28, trump="hearts")
# Deal 2 as recorded: Biju 28 spades, his team takes 30: made, back to 3-3.
DEAL_2 = core.Deal({0: 30, 1: 26}, declarer=2, bid=28, trump="spades")
# Deal 2 corrected: the bid was 40; 30 fails it, Anu & Biju owe 3 but hold 2
# and pay both: 0-6, Chitra & Dev have won after deal 2.
DEAL_2_CORRECTED = core.Deal({0: 30, 1: 26}, declarer=2, bid=40, trump="spades")
# Deal 3, sent at the same moment as the correction: Dev 28 clubs, made: 2-4.
DEAL_3 = core.Deal({0: 20, 1: 36}, declarer=3, bid=28, trump="clubs")


def test_a_correction_racing_a_new_deal_lands_in_one_order(scorers):
    correction_first = [DEAL_1, DEAL_2_CORRECTED]  # then deal 3 is refused: the game is over
    deal_first = [DEAL_1, DEAL_2, DEAL_3]  # then the correction is refused: deal 3 could not stand
    ends = {}
    for name, deals in [("correction first", correction_first), ("deal first", deal_first)]:
        settlements, state = core.replay(2, 0, deals, RACE_RULES)
        ends[name] = (deals, settlement_rows := settled_rows(settlements), state.tables)
        assert settlement_rows  # computed by the rules core, checked by hand just below
    assert ends["correction first"][2] == [0, 6]
    assert ends["deal first"][2] == [2, 4]

    corrector, scorer = scorers(2)
    seen = []
    for race in range(10):
        game = start_game(label=f"Race {race}", rules=RACE_RULES)
        seating = load_seating(game)
        for number, deal in enumerate([DEAL_1, DEAL_2], start=1):
            services.record_deal(game=game, number=number, entry=deal)
        edit_page, record_page = f"/games/{game.pk}/deals/2/edit/", f"/games/{game.pk}/deals/"
        tokens = corrector.token(edit_page), scorer.token(f"/games/{game.pk}/")
        correction_form = form_data(2, DEAL_2_CORRECTED, seating)
        deal_form = form_data(3, DEAL_3, seating)

        # Both writes hold the game row a little longer: the correction while it reads
        # the deals, the new deal while it reads the stored state.
        with (
            lock_held_longer(deal_services, "stored_entries", 0.2),
            lock_held_longer(replay, "stored_state", 0.2),
        ):
            correction, new_deal = at_once(
                partial(corrector.post, edit_page, correction_form, token=tokens[0]),
                partial(scorer.post, record_page, deal_form, token=tokens[1]),
            )

        game.refresh_from_db()
        stored = (
            stored_deals(game),
            ledger_rows(game),
            list(
                GameTeam.objects.filter(game=game)
                .order_by("position")
                .values_list("tables", flat=True)
            ),
        )
        assert stored in ends.values(), f"race {race} stored a mix: {stored}"
        if stored == ends["correction first"]:
            seen.append("correction first")
            assert correction.status == 302 and correction.location.endswith("#history")
            assert not new_deal.location.endswith(SETTLED)
            assert game.is_finished and game.winner.position == 1
        else:
            seen.append("deal first")
            assert new_deal.status == 302 and new_deal.location.endswith(SETTLED)
            assert correction.status == 200
            assert "Deal 3 cannot stand: the game was already won after deal 2." in correction.body
            assert not game.is_finished
        assert (
            Change.objects.filter(game=game).count() == 3
        )  # two deals, and the winner of the race
    print("race orders:", seen)


@pytest.mark.django_db
def test_the_deal_that_won_the_game_sent_again_is_told_recorded(organiser_client):
    game = start_game(rules=core.Rules(tables_per_team=1))
    # Chitra 28 hearts, her team takes 36: made; Anu & Biju pay their only table and are out.
    deal = core.Deal({0: 20, 1: 36}, declarer=1, bid=28, trump="hearts")
    data = form_data(1, deal, load_seating(game))
    url = f"/games/{game.pk}/deals/"

    first = organiser_client.post(url, data)
    again = organiser_client.post(url, data, follow=True)  # the phone resends it

    assert first.status_code == 302 and first["Location"].endswith(SETTLED)
    assert "Deal 1 is already recorded." in again.content.decode()
    assert "No more deals can be recorded" not in again.content.decode()
    assert Round.objects.filter(game=game).count() == 1
