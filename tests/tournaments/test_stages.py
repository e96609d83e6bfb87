"""A tournament in stages: groups A and B by a chart, a round
robin, and a knockout seeded from the standings, its winners going on by themselves and
its level games decided by extra deals recorded like any other."""

from __future__ import annotations

import datetime
import random
import re
from collections import Counter
from itertools import combinations

import pytest
from django.urls import reverse

from club.games import services as scoring
from club.games.models import Game, Player
from club.games.services import Deal, load_seating, record_deal
from club.scoring import rules as core
from club.tournaments import seats, selectors, services, stages
from club.tournaments.models import Sitting, Stage, Standing, TournamentEvent
from club.tournaments.services import TournamentError
from club.tournaments.stages import (
    ALL_DRAWN,
    CHART_TO_PLAY,
    CONFIRM_BEFORE_DRAWING,
    CONFIRMED_ALREADY,
    GAMES_BEING_PLAYED,
    KNOCKOUT_PLAYS_ON,
    NOT_PLACED,
    ONLY_PROPOSED,
    SEEDS_DIFFER,
    STAGE_OVER,
    TOO_MANY_QUALIFIERS,
    TWO_TEAMS_FIRST,
)
from tests.tournaments.helpers import play_sitting, rng, win_game

pytestmark = pytest.mark.django_db

FIRST = ["Anu", "Biju", "Chitra", "Dev", "Esha", "Farid", "Gita", "Hari"]
SECOND = ["Indu", "Jacob", "Kavya", "Latif", "Mini", "Nabeel", "Omana", "Prakash"]


def event(teams=16, tables_per_team=1, **kwargs):
    """A tournament of ``teams`` pairs named Anu Indu & Biju Jacob ... one table a team."""
    tournament = services.create_tournament(
        name="Thrissur Open",
        starts_on=datetime.date(2026, 12, 5),
        rules=core.Rules(tables_per_team=tables_per_team),
        **kwargs,
    )
    for number in range(teams):
        services.register_team(
            tournament=tournament,
            first=f"{FIRST[number % 8]} {SECOND[number // 8]}",
            second=f"{SECOND[number % 8]} {FIRST[number // 8]}",
            name=f"Team {number + 1:02d}",
        )
    return tournament


def next_sitting(tournament):
    return services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )


def pairs(sitting) -> set[frozenset[int]]:
    return {frozenset(game) for game in sitting.proposal}


def entry_ids(tournament, names):
    ids = dict(tournament.entries.values_list("team__name", "id"))
    return [ids[name] for name in names]


def lower_number_wins(sitting):
    """Team 01 beats Team 02 ...: the lower team number wins every game."""
    play_sitting(sitting)


# --- Groups A and B ----------------------------------------------------------------


def test_groups_a_and_b_play_their_chart_sitting_by_sitting_without_a_rematch():
    tournament = event()
    stage = stages.add_stage(tournament=tournament, kind="groups", sittings=6, rng=rng())
    assert stage.status == Stage.Status.PROPOSED and stage.number == 1
    assert len(stage.groups["a"]) == len(stage.groups["b"]) == 8
    assert len(stage.chart) == 6
    refusal = CONFIRM_BEFORE_DRAWING % {"stage": stage.title}
    with pytest.raises(TournamentError, match=re.escape(refusal)):
        services.propose_sitting(tournament=tournament)
    stages.confirm_stage(stage=stage)
    met: Counter = Counter()
    for row in stage.chart:
        sitting = next_sitting(tournament)
        assert sitting.stage_id == stage.pk
        assert pairs(sitting) == {frozenset(game) for game in row["games"]}
        for game in sitting.proposal:
            a, b = game
            assert (a in stage.groups["a"]) != (b in stage.groups["a"])  # always A against B
            met[frozenset(game)] += 1
        lower_number_wins(sitting)
    assert set(met.values()) == {1}  # 6 sittings, 8 teams a group: nobody met twice
    assert Standing.objects.filter(tournament=tournament, games=6).count() == 16
    refusal = ALL_DRAWN % {"stage": "Stage 1: Groups A and B"}
    with pytest.raises(TournamentError, match=re.escape(refusal)):
        services.propose_sitting(tournament=tournament)


def test_an_odd_number_of_teams_gives_group_a_one_more_and_a_bye_in_turn():
    tournament = event(teams=7)
    stage = stages.add_stage(tournament=tournament, kind="groups", sittings=4, rng=rng())
    stages.confirm_stage(stage=stage)
    assert (len(stage.groups["a"]), len(stage.groups["b"])) == (4, 3)
    out = []
    for _ in range(4):
        sitting = next_sitting(tournament)
        out += [bye.entry_id for bye in sitting.byes.all()]
        play_sitting(sitting)
    assert sorted(out) == sorted(stage.groups["a"])  # each A team sits out once


def test_a_stage_is_seeded_by_the_standings_once_games_have_been_played():
    tournament = event(teams=8)
    play_sitting(next_sitting(tournament))  # a Swiss sitting first
    order = list(
        Standing.objects.filter(tournament=tournament)
        .order_by("place", "entry__team__name")
        .values_list("entry_id", flat=True)
    )
    stage = stages.add_stage(tournament=tournament, kind="groups", sittings=2, rng=rng())
    # The snake: 1 to A, 2 and 3 to B, 4 and 5 to A, ...
    assert stage.groups["a"] == [order[0], order[3], order[4], order[7]]
    assert stage.groups["b"] == [order[1], order[2], order[5], order[6]]


def test_the_organiser_moves_teams_between_the_groups_and_the_chart_follows():
    tournament = event(teams=8)
    stage = stages.add_stage(tournament=tournament, kind="groups", sittings=3, rng=rng())
    a, b = stage.groups["a"], stage.groups["b"]
    swapped_a, swapped_b = [b[0], *a[1:]], [a[0], *b[1:]]
    stage = stages.adjust_groups(stage=stage, group_a=swapped_a, group_b=swapped_b)
    assert stage.groups == {"a": swapped_a, "b": swapped_b}
    first = {frozenset(game) for game in stage.chart[0]["games"]}
    assert first == {frozenset(pair) for pair in zip(swapped_a, swapped_b, strict=True)}
    with pytest.raises(TournamentError, match="they have 6 and 2 teams"):
        stages.adjust_groups(stage=stage, group_a=[*swapped_a, *swapped_b[:2]], group_b=b[2:])
    refusal = NOT_PLACED % {"teams": names_of(tournament, swapped_a[:1])[0]}
    with pytest.raises(TournamentError, match=re.escape(refusal)):
        stages.adjust_groups(stage=stage, group_a=swapped_a[1:], group_b=swapped_b)
    stage.refresh_from_db()
    assert stage.groups == {"a": swapped_a, "b": swapped_b}  # refused: nothing changed
    actions = list(
        TournamentEvent.objects.filter(tournament=tournament, stage_number=1).values_list(
            "action", flat=True
        )
    )
    assert actions == ["stage_adj", "stage"]


def test_a_withdrawn_teams_chart_opponent_sits_out():
    tournament = event(teams=8)
    stage = stages.add_stage(tournament=tournament, kind="groups", sittings=2, rng=rng())
    stages.confirm_stage(stage=stage)
    gone = stage.groups["a"][0]
    opponent = next(b for a, b in stage.chart[0]["games"] if a == gone)
    services.withdraw_team(entry=tournament.entries.get(pk=gone))
    sitting = next_sitting(tournament)
    assert len(sitting.proposal) == 3
    assert [bye.entry_id for bye in sitting.byes.all()] == [opponent]


# --- Round robin ---------------------------------------------------------------------


def test_a_round_robin_meets_every_pair_once():
    tournament = event(teams=5)
    stage = stages.add_stage(tournament=tournament, kind="round_robin", rng=rng())
    stages.confirm_stage(stage=stage)
    assert len(stage.chart) == 5
    met = Counter()
    for _ in range(5):
        sitting = next_sitting(tournament)
        met.update(pairs(sitting))
        play_sitting(sitting)
    ids = list(tournament.entries.values_list("id", flat=True))
    assert set(met) == {frozenset(p) for p in combinations(ids, 2)} and set(met.values()) == {1}
    assert set(Standing.objects.filter(tournament=tournament).values_list("byes", flat=True)) == {1}


# --- Knockout --------------------------------------------------------------------------


def test_a_knockout_seeded_from_the_groups_plays_to_a_champion():
    tournament = event()
    groups = stages.add_stage(tournament=tournament, kind="groups", sittings=3, rng=rng())
    stages.confirm_stage(stage=groups)
    for _ in range(3):
        play_sitting(next_sitting(tournament))
    refusal = TOO_MANY_QUALIFIERS % {"qualifiers": 17, "teams": 16}
    with pytest.raises(TournamentError, match=re.escape(refusal)):
        stages.add_stage(tournament=tournament, kind="knockout", qualifiers=17)
    order = list(
        Standing.objects.filter(tournament=tournament)
        .order_by("place", "entry__team__name")
        .values_list("entry_id", flat=True)
    )
    knockout = stages.add_stage(tournament=tournament, kind="knockout", qualifiers=8)
    assert knockout.seeds == order[:8]
    stages.confirm_stage(stage=knockout)
    seed = {team: number for number, team in enumerate(knockout.seeds, start=1)}

    quarter = next_sitting(tournament)
    assert quarter.stage_id == knockout.pk
    assert [sorted(seed[t] for t in game) for game in quarter.proposal] == [
        [1, 8],
        [4, 5],
        [2, 7],
        [3, 6],
    ]
    play_sitting(quarter, winners=names_of(tournament, [order[7], order[4], order[1], order[2]]))
    bracket = selectors.bracket_of(knockout)
    assert [(m.first, m.second) for m in bracket.rounds[1]] == [
        (order[7], order[4]),
        (order[1], order[2]),
    ]
    semi = next_sitting(tournament)
    assert len(semi.proposal) == 2
    play_sitting(semi, winners=names_of(tournament, [order[4], order[1]]))
    final = next_sitting(tournament)
    assert pairs(final) == {frozenset((order[4], order[1]))}
    play_sitting(final, winners=names_of(tournament, [order[4]]))
    assert selectors.bracket_of(knockout).champion == order[4]
    with pytest.raises(TournamentError, match=re.escape(STAGE_OVER % {"stage": knockout.title})):
        services.propose_sitting(tournament=tournament)


def names_of(tournament, entries):
    names = dict(tournament.entries.values_list("id", "team__name"))
    return [names[entry] for entry in entries]


def test_a_knockout_of_six_gives_the_top_two_seeds_a_bye():
    tournament = event(teams=6)
    stage = stages.add_stage(tournament=tournament, kind="knockout", qualifiers=6, rng=rng())
    stages.confirm_stage(stage=stage)
    first = next_sitting(tournament)
    s = stage.seeds
    assert pairs(first) == {frozenset((s[3], s[4])), frozenset((s[2], s[5]))}
    assert not first.byes.exists()  # a bracket's bye is no sitting's bye
    play_sitting(first, winners=names_of(tournament, [s[4], s[2]]))
    semi = next_sitting(tournament)
    assert pairs(semi) == {frozenset((s[0], s[4])), frozenset((s[1], s[2]))}


def test_a_withdrawn_team_in_the_knockout_lets_its_opponent_through():
    tournament = event(teams=4)
    stage = stages.add_stage(tournament=tournament, kind="knockout", qualifiers=4, rng=rng())
    stages.confirm_stage(stage=stage)
    s = stage.seeds
    services.withdraw_team(entry=tournament.entries.get(pk=s[3]))  # seed 4, who meets seed 1
    semi = next_sitting(tournament)
    assert pairs(semi) == {frozenset((s[1], s[2]))}
    play_sitting(semi, winners=names_of(tournament, [s[2]]))
    final = next_sitting(tournament)
    assert pairs(final) == {frozenset((s[0], s[2]))}


def test_the_organiser_reorders_the_seeds_before_confirming():
    tournament = event(teams=4)
    stage = stages.add_stage(tournament=tournament, kind="knockout", qualifiers=4, rng=rng())
    reordered = list(reversed(stage.seeds))
    assert stages.adjust_seeds(stage=stage, seeds=reordered).seeds == reordered
    with pytest.raises(TournamentError, match=re.escape(SEEDS_DIFFER % {"count": 4})):
        stages.adjust_seeds(stage=stage, seeds=[reordered[0]] * 4)
    stages.confirm_stage(stage=stage)
    refusal = CONFIRMED_ALREADY % {"stage": stage.title}
    with pytest.raises(TournamentError, match=re.escape(refusal)):
        stages.adjust_seeds(stage=stage, seeds=stage.seeds)


def level_then(game, *winners):
    """Record deals one by one, each won (28 made) by the team at ``winners[i]``."""
    teams = list(game.teams.order_by("position"))
    seating = load_seating(game)
    for position in winners:
        game.refresh_from_db()
        record_deal(
            game=game,
            number=game.deals_played + 1,
            entry=Deal(
                points={p: 30 if p == position else 26 for p in range(2)},
                declarer=seating.seat_of(teams[position].first_player_id),
                bid=28,
                trump="hearts",
            ),
        )


def test_a_level_knockout_game_plays_its_tie_deals_then_one_at_a_time():
    tournament = event(teams=2, tables_per_team=6)
    stage = stages.add_stage(
        tournament=tournament, kind="knockout", qualifiers=2, deal_limit=2, tie_deals=1
    )
    assert (stage.deal_limit, stage.tie_deals) == (2, 1)
    stages.confirm_stage(stage=stage)
    final = next_sitting(tournament)
    game = final.games.get().game
    assert (game.deal_limit, game.tie_deals) == (2, 1)
    level_then(game, 0, 1)  # level after the 2 deals of the limit
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS
    with pytest.raises(scoring.ScoringError, match="cannot end tied"):
        scoring.end_game(game=game)
    assert services.call_time(sitting=final).ended == 0  # time cannot end it either
    level_then(game, 1)  # the extra deal: team 2 ahead, so it is over
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.deals_played == 3
    winner = game.teams.get(position=1)
    assert winner.place == 1
    assert selectors.bracket_of(stage).champion == tournament.entries.get(team=winner.team).pk
    # The deals past the limit replay like any other.
    scoring.rebuild_ledger(game)
    game.refresh_from_db()
    assert game.deals_played == 3 and game.status == Game.Status.FINISHED


def test_a_points_knockout_plays_24_deals_unless_told_otherwise():
    tournament = services.create_tournament(
        name="Onam International",
        starts_on=datetime.date(2026, 8, 29),
        rules=core.preset_rules(core.Preset.INTERNATIONAL),
    )
    stage = stages.add_stage(tournament=tournament, kind="sittings")
    assert stage.status == Stage.Status.CONFIRMED  # nothing drawn ahead to look at
    with pytest.raises(TournamentError, match=re.escape(str(TWO_TEAMS_FIRST))):
        stages.add_stage(tournament=tournament, kind="knockout", qualifiers=2)
    assert stages._deal_limit(tournament, "knockout", None, None) == (24, 2)


def test_a_stage_waits_for_the_one_before_it():
    tournament = event(teams=4)
    stage = stages.add_stage(tournament=tournament, kind="round_robin", rng=rng())
    with pytest.raises(TournamentError, match=re.escape(ONLY_PROPOSED % {"stage": stage.title})):
        stages.add_stage(tournament=tournament, kind="knockout", qualifiers=4)
    stages.confirm_stage(stage=stage)
    sitting = next_sitting(tournament)
    with pytest.raises(TournamentError, match=re.escape(GAMES_BEING_PLAYED % {"count": 2})):
        stages.add_stage(tournament=tournament, kind="knockout", qualifiers=4)
    play_sitting(sitting)
    refusal = CHART_TO_PLAY % {"stage": stage.title, "left": 2}
    with pytest.raises(TournamentError, match=re.escape(refusal)):
        stages.add_stage(tournament=tournament, kind="knockout", qualifiers=4)
    assert Stage.objects.filter(tournament=tournament).count() == 1


def test_a_stage_sitting_adjusted_by_hand_seats_only_its_teams():
    tournament = event(teams=6)
    stage = stages.add_stage(tournament=tournament, kind="knockout", qualifiers=6, rng=rng())
    stages.confirm_stage(stage=stage)
    sitting = services.propose_sitting(tournament=tournament)
    top = stage.seeds[0]  # has a bye into the semi-finals
    games = [list(game) for game in sitting.proposal]
    with pytest.raises(TournamentError, match="not taking part"):
        services.adjust_sitting(sitting=sitting, games=[*games, [top, top]], byes=[])
    swapped = [[games[0][0], games[1][1]], [games[1][0], games[0][1]]]
    services.adjust_sitting(sitting=sitting, games=swapped, byes=[])
    assert Sitting.objects.get(pk=sitting.pk).proposal == swapped


def test_a_discarded_stage_leaves_nothing_and_is_in_the_history():
    tournament = event(teams=4)
    stage = stages.add_stage(tournament=tournament, kind="groups", sittings=2, rng=random.Random(1))
    stages.discard_stage(stage=stage)
    assert not Stage.objects.filter(tournament=tournament).exists()
    assert TournamentEvent.objects.filter(
        tournament=tournament, action="stage_del", stage_number=1
    ).exists()
    # Without stages, sittings are Swiss as they always were.
    assert services.propose_sitting(tournament=tournament).stage_id is None


def test_win_game_helper_still_ends_one_table_games():
    tournament = event(teams=2)
    sitting = next_sitting(tournament)
    game = sitting.games.get().game
    win_game(game, "Team 01")
    game.refresh_from_db()
    assert game.is_finished


# --- What the review found (each a scenario that once went wrong) ----------------------


def test_a_correction_that_levels_a_knockout_game_ended_by_time_plays_it_on():
    tournament = event(teams=2, tables_per_team=6)
    stage = stages.add_stage(
        tournament=tournament, kind="knockout", qualifiers=2, deal_limit=6, tie_deals=1
    )
    stages.confirm_stage(stage=stage)
    final = next_sitting(tournament)
    game = final.games.get().game
    level_then(game, 0, 0, 0, 1)  # team 1 three deals up, one down: 8 tables to 4
    scoring.end_game(game=game)  # time: team 1 wins
    game.refresh_from_db()
    assert game.is_finished
    # Deal 1 corrected: team 2 made it, so 6 tables each. A knockout cannot end level.
    seating = scoring.load_seating(game)
    entry = scoring.stored_entries(game, seating)[1][0]
    teams = list(game.teams.order_by("position"))
    scoring.edit_deal(
        game=game,
        number=1,
        entry=Deal(
            points={0: 26, 1: 30},
            declarer=seating.seat_of(teams[1].first_player_id),
            bid=entry.bid,
            trump=entry.trump,
        ),
    )
    game.refresh_from_db()
    assert game.status == Game.Status.IN_PROGRESS
    assert selectors.bracket_of(stage).champion is None
    level_then(game, 1)  # the next deal decides it
    game.refresh_from_db()
    assert game.is_finished and game.teams.get(position=1).place == 1


def test_a_knockout_without_a_deal_limit_still_cannot_end_level():
    tournament = event(teams=2, tables_per_team=6)
    stage = stages.add_stage(tournament=tournament, kind="knockout", qualifiers=2)
    assert (stage.deal_limit, stage.tie_deals) == (None, 2)
    stages.confirm_stage(stage=stage)
    game = next_sitting(tournament).games.get().game
    level_then(game, 0, 1)
    with pytest.raises(scoring.ScoringError, match="cannot end tied"):
        scoring.end_game(game=game)


def test_the_tie_rule_is_the_clubs_but_a_knockout_cannot_share():
    tournament = event(teams=4)
    with pytest.raises(TournamentError, match=re.escape(str(KNOCKOUT_PLAYS_ON))):
        stages.add_stage(tournament=tournament, kind="knockout", qualifiers=4, tie_rule="shared")
    groups = stages.add_stage(
        tournament=tournament, kind="groups", sittings=1, tie_rule="play_on", tie_deals=3, rng=rng()
    )
    assert groups.tie_deals == 3
    stages.confirm_stage(stage=groups)
    assert {g.game.tie_deals for g in next_sitting(tournament).games.select_related("game")} == {3}


def test_a_player_page_moves_when_the_next_sitting_is_drawn(client):
    tournament = event(teams=4)
    play_sitting(next_sitting(tournament))
    anu = Player.objects.get(name="Anu Indu")
    url = reverse("tournaments:player", args=[tournament.pk, anu.pk])
    tournament.refresh_from_db()
    version = seats.page_version(tournament.pk)
    assert client.get(url, {"version": version}).status_code == 204
    services.propose_sitting(tournament=tournament, rng=rng())
    fresh = client.get(url, {"version": version})
    assert fresh.status_code == 200 and "is drawn, not confirmed yet" in fresh.text


def test_adjusting_a_confirmed_stage_says_why_nothing_changed(organiser_client):
    tournament = event(teams=4)
    stage = stages.add_stage(tournament=tournament, kind="knockout", qualifiers=4, rng=rng())
    stages.confirm_stage(stage=stage)
    url = reverse("tournaments:stage_seeds", args=[tournament.pk, 1])
    answer = organiser_client.post(url, {f"seed{t}": "1" for t in stage.seeds}, follow=True)
    assert "is confirmed already" in answer.text
    answer = organiser_client.post(
        reverse("tournaments:stage_groups", args=[tournament.pk, 1]), {}, follow=True
    )
    assert "is confirmed already" in answer.text
