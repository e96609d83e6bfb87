"""Where a game stands: settled from what is stored, or replayed from its deals.

Recording the next deal settles it from the state the last write stored
(:func:`stored_state`), since a replay would give the same. A correction, an
undo or time called replays the game's deals through the rules core and
rewrites everything derived from them (:func:`save_derived`): dealers, results,
the ledger, tables, places and the winner.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from club.games.models import Game, GameTeam, LedgerEntry, Pile, Round
from club.games.services.refusals import check_deal_limit, check_next, rules_refusal
from club.games.services.seating import Seating, entry_from_round, load_seating
from club.scoring import rules as core
from club.scoring.rules import Deal

# What recording, correcting or ending a game saves on it and its teams (the
# bulk writer, club.games.bulk, saves the same).
GAME_OUTCOME_FIELDS = [
    "deals_played",
    "dealer_seat",
    "status",
    "winner",
    "ended_early",
    "finished_at",
    "updated_at",
]
TEAM_OUTCOME_FIELDS = ["tables", "place", "out_in_deal", "score", "kodis", "declared", "made"]


def stored_entries(game: Game, seating: Seating) -> tuple[list[Round], list[Deal]]:
    """The game's rounds in order, and the deals as they were entered.

    The piles are read as plain rows and their teams found in the seating,
    instead of loading every pile's team again.
    """
    rounds = list(game.rounds.order_by("number"))
    position = {team.pk: team.position for team in seating.teams}
    points: dict[int, dict[int, int]] = {round_.pk: {} for round_ in rounds}
    for round_id, team_id, pile in Pile.objects.filter(round__game=game).values_list(
        "round_id", "game_team_id", "points"
    ):
        points[round_id][position[team_id]] = pile
    return rounds, [entry_from_round(round_, seating, points[round_.pk]) for round_ in rounds]


def replay_entries(game: Game, seating: Seating, entries: Sequence[Deal]):
    """Every deal settled again from the start, refused as the rules refuse one."""
    check_deal_limit(game, len(entries))
    try:
        return core.replay(len(seating.teams), game.first_dealer_seat, list(entries), game.rules)
    except core.DealError as error:
        raise rules_refusal(error, seating.names) from error


def stored_state(game: Game, seating: Seating) -> core.GameState:
    """Where the game stands after its recorded deals, from what the services stored.

    Every write stores what a replay of the deals gives (the game's deals played
    and next dealer, each team's tables and the deal it went out in), and
    ``rebuild_ledger`` proves that replaying changes nothing; so the next deal
    can be settled from here without replaying the game. Should the stored
    figures ever fail to add up (tables created or lost, a team out with
    tables), the state comes from a replay of the deals instead.
    """
    teams = seating.teams
    if not _adds_up(game, teams):
        _, entries = stored_entries(game, seating)
        return replay_entries(game, seating, entries)[1]
    went_out: dict[int, list[int]] = defaultdict(list)
    for team in teams:
        if team.out_in_deal is not None:
            went_out[team.out_in_deal].append(team.position)
    return core.GameState(
        rules=game.rules,
        team_count=len(teams),
        tables=[team.tables for team in teams],
        dealer=game.dealer_seat,
        deals_played=game.deals_played,
        out_order=[tuple(sorted(went_out[number])) for number in sorted(went_out)],
        scores=[team.score for team in teams],
        kodis=[team.kodis for team in teams],
    )


def _adds_up(game: Game, teams: Sequence[GameTeam]) -> bool:
    """Whether the stored tables keep the invariants a replay keeps (docs/rules.md B.2)."""
    rules = game.rules
    consistent = sum(team.tables for team in teams) == game.tables_per_team * len(teams) and all(
        (team.tables == 0) == (team.out_in_deal is not None) for team in teams
    )
    if rules.scoring == core.Scoring.POINTS:  # nothing moves: every team holds its start
        return consistent and all(team.tables == game.tables_per_team for team in teams)
    if rules.kodi:
        return consistent and all(team.score == 0 for team in teams)
    return consistent


def settle_next(
    game: Game, seating: Seating, state: core.GameState, entry: Deal
) -> tuple[core.Settlement, core.GameState]:
    """Settle the deal after ``state`` by the rules, refused as a replay would refuse it."""
    number = state.deals_played + 1
    check_deal_limit(game, number)
    try:
        return core.settle(state, entry)
    except core.RulesError as error:
        refused = core.DealError(number, error)
        refused.__cause__ = error
        raise rules_refusal(refused, seating.names) from error


def settle_sent(
    game: Game, seating: Seating, number: int, entry: Deal
) -> tuple[core.Settlement, core.GameState]:
    """Deal ``number`` sent as the game's next, settled from the stored state: refused when
    it is not the next deal or the rules refuse it, before anything is written."""
    check_next(game, number)
    return settle_next(game, seating, stored_state(game, seating), entry)


def outcome(game: Game, state: core.GameState) -> tuple[bool, dict[int, int]]:
    """Whether the game is over, and the places if so.

    Won when one team is left; also over when the deal limit is reached or the
    organiser called time, and then placed by tables held (on a points sheet by
    total, with kodi by kodis then tables), ties shared.
    """
    if state.finished:
        return True, state.places()
    if game.ended_early and game.tie_deals is not None and state.leaders_level:
        # A knockout game cannot end level (docs/rules.md section E): time was called, then a
        # correction made it level; it plays on until a deal decides it.
        return False, {}
    if game.ended_early or state.limit_reached:
        return True, core.final_places(state)
    return False, {}


def apply_outcome(game: Game, seating: Seating, state: core.GameState) -> None:
    """Set the game and its teams (not saved) to where ``state`` leaves them."""
    finished, places = outcome(game, state)
    for team in seating.teams:
        team.tables = state.tables[team.position]
        team.score = state.scores[team.position]
        team.kodis = state.kodis[team.position]
        team.place = places.get(team.position)
    firsts = [position for position, place in places.items() if place == 1]
    if finished and not game.is_finished:
        game.finished_at = timezone.now()
    elif not finished:
        game.finished_at = None
    game.status = Game.Status.FINISHED if finished else Game.Status.IN_PROGRESS
    game.winner = seating.teams[firsts[0]] if len(firsts) == 1 else None
    game.deals_played = state.deals_played
    game.dealer_seat = state.dealer


def set_replayed_teams(seating: Seating, settlements: Sequence[core.Settlement]) -> None:
    """What each team's row counts over the deals (a replay's): the deal it went out in,
    and the contracts it declared and made."""
    out_in: dict[int, int] = {}
    declared = [0] * len(seating.teams)
    made = [0] * len(seating.teams)
    for settlement in settlements:
        for position in settlement.eliminated:
            out_in[position] = settlement.number
        declared[settlement.declaring_team] += 1
        made[settlement.declaring_team] += settlement.made
    for team in seating.teams:
        team.out_in_deal = out_in.get(team.position)
        team.declared = declared[team.position]
        team.made = made[team.position]


def recount_contracts(games=None) -> None:
    """Count every team's contracts again from the stored deals, in one statement (a
    restore, whose backup leaves the counts out; ``games``: only these)."""
    teams = GameTeam.objects.all() if games is None else GameTeam.objects.filter(game__in=games)
    deals = Round.objects.filter(declaring_team=OuterRef("pk")).order_by().values("declaring_team")
    teams.update(
        declared=Coalesce(Subquery(deals.annotate(n=Count("pk")).values("n")), 0),
        made=Coalesce(Subquery(deals.filter(made=True).annotate(n=Count("pk")).values("n")), 0),
    )


def ledger_entry(round_: Round, team: GameTeam, settlement: core.Settlement) -> LedgerEntry:
    """A deal's ledger row for one team: tables moved and held, or on a points sheet
    what the team scored and its total."""
    if settlement.score_after:
        change, balance = settlement.scored[team.position], settlement.score_after[team.position]
    else:
        change, balance = (
            settlement.transfers[team.position],
            settlement.tables_after[team.position],
        )
    return LedgerEntry(round=round_, game_team=team, change=change, balance=balance)


def save_derived(
    game: Game,
    seating: Seating,
    rounds: Sequence[Round],
    settlements: Sequence[core.Settlement],
    state: core.GameState,
) -> None:
    """Rewrite every derived row (results, ledger, tables, places) from a replay."""
    changed_rounds = []
    for round_, settlement in zip(rounds, settlements, strict=True):
        dealer = seating.players[settlement.dealer]
        declaring_team = seating.teams[settlement.declaring_team]
        if (
            round_.dealer_id != dealer.pk
            or round_.declaring_team_id != declaring_team.pk
            or round_.made != settlement.made
        ):
            round_.dealer = dealer
            round_.declaring_team = declaring_team
            round_.made = settlement.made
            changed_rounds.append(round_)
    if changed_rounds:
        Round.objects.bulk_update(changed_rounds, ["dealer", "declaring_team", "made"])

    LedgerEntry.objects.filter(round__game=game).delete()
    LedgerEntry.objects.bulk_create(
        ledger_entry(round_, team, settlement)
        for round_, settlement in zip(rounds, settlements, strict=True)
        for team in seating.teams
    )

    apply_outcome(game, seating, state)
    set_replayed_teams(seating, settlements)
    GameTeam.objects.bulk_update(seating.teams, TEAM_OUTCOME_FIELDS)
    game.save(update_fields=GAME_OUTCOME_FIELDS)


def replay_game(game: Game) -> tuple[Seating, list[core.Settlement], core.GameState]:
    """Read-only: the game's settlements as the rules compute them now."""
    seating = load_seating(game)
    _, entries = stored_entries(game, seating)
    settlements, state = replay_entries(game, seating, entries)
    return seating, settlements, state
