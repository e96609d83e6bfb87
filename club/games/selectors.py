"""Reads for the game pages: everything one page shows, in a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch

from club.games.models import Change, Game, LedgerEntry, Pile, Round
from club.scoring import rules as core
from club.scoring.services import Seating, load_seating

TEAM_COLOURS = ["#c0392b", "#1f6fb2", "#1e8449", "#8e44ad"]


@dataclass
class TeamRow:
    team: object  # GameTeam
    colour: str
    change: int | None  # tables moved in the last deal


@dataclass
class DealRow:
    round: Round
    cells: list[dict]  # per team of the game: pile, change, balance


def game_rounds(game: Game):
    return (
        game.rounds.order_by("number")
        .select_related("declarer", "dealer", "declaring_team__team")
        .prefetch_related(
            Prefetch("piles", queryset=Pile.objects.only("round_id", "game_team_id", "points")),
            Prefetch(
                "ledger",
                queryset=LedgerEntry.objects.only("round_id", "game_team_id", "change", "balance"),
            ),
        )
    )


def chart(teams, rounds, tables_per_team: int) -> dict:
    """Polylines of each team's tables after every deal, for an inline SVG."""
    total = tables_per_team * len(teams)
    width, height = 600, 220
    deals = len(rounds)
    step = width / max(deals, 1)
    series = []
    for team in teams:
        balances = [tables_per_team] + [
            next(e.balance for e in round_.ledger.all() if e.game_team_id == team.team.pk)
            for round_ in rounds
        ]
        points = " ".join(
            f"{index * step:.1f},{height - balance / total * height:.1f}"
            for index, balance in enumerate(balances)
        )
        series.append({"team": team, "points": points, "last": balances[-1]})
    return {
        "width": width,
        "height": height,
        "series": series,
        "start_y": height - tables_per_team / total * height,
        "deals": deals,
    }


def game_page(game: Game) -> dict:
    """What the game page shows: tables, who deals, the cards, the deals and their history."""
    seating: Seating = load_seating(game)
    teams = seating.teams
    rounds = list(game_rounds(game))
    last = rounds[-1] if rounds else None
    last_change = {e.game_team_id: e.change for e in last.ledger.all()} if last else {}
    team_rows = [
        TeamRow(team=team, colour=TEAM_COLOURS[team.position], change=last_change.get(team.pk))
        for team in teams
    ]
    deal_rows = []
    for round_ in rounds:
        piles = {p.game_team_id: p.points for p in round_.piles.all()}
        ledger = {e.game_team_id: e for e in round_.ledger.all()}
        deal_rows.append(
            DealRow(
                round=round_,
                cells=[
                    {
                        "team": team,
                        "points": piles.get(team.pk),
                        "change": ledger[team.pk].change if team.pk in ledger else None,
                        "balance": ledger[team.pk].balance if team.pk in ledger else None,
                        "declaring": round_.declaring_team_id == team.pk,
                    }
                    for team in teams
                ],
            )
        )
    in_play = [team.position for team in teams if team.tables > 0]
    state = core.GameState(
        rules=game.rules,
        team_count=len(teams),
        tables=[team.tables for team in teams],
        dealer=game.dealer_seat,
        deals_played=game.deals_played,
    )
    finished = game.is_finished
    context = {
        "game": game,
        "seating": seating,
        "team_rows": team_rows,
        "deal_rows": list(reversed(deal_rows)),
        "last_round": last,
        "last_eliminated": [t for t in teams if last and t.out_in_deal == last.number],
        "in_play": in_play,
        "chart": chart(team_rows, rounds, game.tables_per_team),
        "changes": list(
            Change.objects.filter(game=game)
            .select_related("made_by")
            .order_by("-made_at", "-id")[:50]
        ),
        "next_number": game.deals_played + 1,
        "placed": sorted(teams, key=lambda team: (team.place or 99, team.position)),
    }
    if not finished:
        context.update(
            dealer=seating.players[state.dealer],
            first_bidder=seating.players[state.first_bidder],
            cards=core.card_setup(state.seated_players),
        )
    return context


def in_play_before(game: Game, seating: Seating, number: int) -> list[int]:
    """Positions of the teams still playing when deal ``number`` was dealt."""
    if number <= 1:
        return [team.position for team in seating.teams]
    balances = dict(
        LedgerEntry.objects.filter(round__game=game, round__number=number - 1).values_list(
            "game_team_id", "balance"
        )
    )
    return [team.position for team in seating.teams if balances.get(team.pk, 0) > 0]
