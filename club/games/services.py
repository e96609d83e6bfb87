"""Writes: start a game, record, correct and undo deals, rebuild the ledger.

Every write runs in one transaction with the game row locked. A correction,
an undo or time called replays the game's deals through the rules core and
rewrites what is derived from them (dealers, results, the ledger, tables,
places and the winner); recording the next deal settles it by the same rules
from the state those writes stored (:func:`stored_state`), since a replay
would give the same. A fault raises :class:`ScoringError` with a message a
club organiser understands, and nothing is saved.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from club.games.errors import ScoringError
from club.games.models import (
    PLAYER_FIELDS,
    Change,
    Doubling,
    Game,
    GameTeam,
    LedgerEntry,
    Pile,
    Player,
    Round,
    ScorerLink,
)
from club.games.signals import game_changed
from club.games.starting import (  # the services' own: starting a game lives there
    TeamEntry as TeamEntry,
)
from club.games.starting import check_new_game as check_new_game
from club.games.starting import create_game as create_game
from club.games.starting import find_or_add_player as find_or_add_player
from club.games.starting import find_or_add_team as find_or_add_team
from club.scoring import rules as core

# --- Inputs ---------------------------------------------------------------


@dataclass(frozen=True)
class DealEntry:
    """A deal as the scorer reports it. ``points`` maps team position to pile."""

    points: dict[int, int]
    declarer: int | None = None  # Player id; None when all passed
    bid: int | None = None
    trump: str | None = None
    doubling: str = Doubling.NONE
    thani: int | None = None  # the thani's player id, who played every trick alone
    made: bool | None = None  # a thani's result (no piles to tell it)

    @property
    def all_pass(self) -> bool:
        return self.declarer is None and self.thani is None


@dataclass
class Seating:
    """The game's teams and seats, loaded once per write."""

    teams: list[GameTeam]
    rules: core.Rules = core.DEFAULT_RULES  # the game's settings: what a deal may be
    players: list[Player] = field(init=False)

    def __post_init__(self) -> None:
        size = self.teams[0].size if self.teams else 2
        self.players = [
            self.teams[team_index].players[partner]
            for team_index, partner in core.seat_order(len(self.teams), size)
        ]

    @property
    def names(self) -> list[str]:
        return [team.team.name for team in self.teams]

    def seat_of(self, player_id: int) -> int | None:
        for seat, player in enumerate(self.players):
            if player.pk == player_id:
                return seat
        return None


def load_seating(game: Game) -> Seating:
    # Only the seats the game has: a game of pairs joins no third or fourth player.
    seats = PLAYER_FIELDS[: max(2, game.team_size)]
    teams = list(game.teams.select_related("team", *seats).order_by("position"))
    return Seating(teams, game.rules)


def to_core(entry: DealEntry, seating: Seating) -> core.Deal:
    if entry.thani is not None:
        seat = seating.seat_of(entry.thani)
        if seat is None:
            raise ScoringError(_("The thani's player is not seated at this game."), field="thani")
        return core.Deal(points=dict(entry.points), thani=seat, made=entry.made)
    if entry.all_pass:
        declarer = None
    else:
        declarer = seating.seat_of(entry.declarer)  # type: ignore[arg-type]
        if declarer is None:
            raise ScoringError(_("The declarer is not seated at this game."), field="declarer")
    return core.Deal(
        points=dict(entry.points),
        declarer=declarer,
        bid=entry.bid,
        trump=entry.trump,
        doubling=entry.doubling,
    )


def entry_from_round(round_: Round) -> DealEntry:
    if round_.thani:
        return DealEntry(points={}, thani=round_.declarer_id, made=round_.made)
    return DealEntry(
        points={pile.game_team.position: pile.points for pile in round_.piles.all()},
        declarer=None if round_.all_pass else round_.declarer_id,
        bid=None if round_.all_pass else round_.bid,
        trump=None if round_.all_pass else round_.trump,
        doubling=round_.doubling,
    )


def describe(entry: DealEntry, seating: Seating) -> dict:
    """A deal as plain data for the change history (names, not ids)."""
    names = seating.names
    if entry.thani is not None:
        seat = seating.seat_of(entry.thani)
        return {
            "thani": seating.players[seat].name if seat is not None else None,
            "made": entry.made,
        }
    data: dict = {"points": {names[team]: pile for team, pile in sorted(entry.points.items())}}
    if entry.all_pass:
        data["all_pass"] = True
    else:
        seat = seating.seat_of(entry.declarer)  # type: ignore[arg-type]
        data.update(
            declarer=seating.players[seat].name if seat is not None else None,
            bid=entry.bid,
            trump=entry.trump,
            doubling=entry.doubling,
        )
    return data


# --- Deals ----------------------------------------------------------------


def _lock(game: Game) -> Game:
    # Lock the game row for the whole write: two scorers sending deals to one
    # game are served one after the other, each seeing the other's deal.
    return Game.objects.select_for_update().get(pk=game.pk)


def stored_entries(
    game: Game, seating: Seating | None = None
) -> tuple[list[Round], list[DealEntry]]:
    """The game's rounds in order, and the deals as they were entered.

    With the seating at hand, the piles are read as plain rows and their teams
    found in it, instead of loading every pile's team again.
    """
    if seating is None:
        rounds = list(game.rounds.order_by("number").prefetch_related("piles__game_team"))
        return rounds, [entry_from_round(round_) for round_ in rounds]
    rounds = list(game.rounds.order_by("number"))
    position = {team.pk: team.position for team in seating.teams}
    points: dict[int, dict[int, int]] = {round_.pk: {} for round_ in rounds}
    for round_id, team_id, pile in Pile.objects.filter(round__game=game).values_list(
        "round_id", "game_team_id", "points"
    ):
        points[round_id][position[team_id]] = pile
    return rounds, [
        DealEntry(points={}, thani=round_.declarer_id, made=round_.made)
        if round_.thani
        else DealEntry(
            points=points[round_.pk],
            declarer=None if round_.all_pass else round_.declarer_id,
            bid=None if round_.all_pass else round_.bid,
            trump=None if round_.all_pass else round_.trump,
            doubling=round_.doubling,
        )
        for round_ in rounds
    ]


def _check_deal_limit(game: Game, number: int) -> None:
    """Refuse a deal past the limit; under a tie rule the rules core decides where it is."""
    if game.deal_limit and game.tie_deals is None and number > game.deal_limit:
        raise ScoringError(
            _("This game ends after %(limit)d deals; deal %(number)d cannot be recorded.")
            % {"limit": game.deal_limit, "number": number},
            field="number",
            number=number,
        )


def _refusal(error: core.DealError, seating: Seating) -> ScoringError:
    """A deal the rules refuse, as the organiser reads it, naming the deal."""
    if isinstance(error.__cause__, core.GameOver):
        message = _(
            "Deal %(number)d cannot stand: the game was already won after deal %(last)d."
        ) % {"number": error.number, "last": error.number - 1}
    else:
        message = _("Deal %(number)d: %(problem)s") % {
            "number": error.number,
            "problem": error.translated(_, seating.names),
        }
    return ScoringError(message, field=error.field, number=error.number)


def replay_entries(game: Game, seating: Seating, entries: Sequence[DealEntry]):
    _check_deal_limit(game, len(entries))
    deals = [to_core(entry, seating) for entry in entries]
    try:
        return core.replay(len(seating.teams), game.first_dealer_seat, deals, game.rules)
    except core.DealError as error:
        raise _refusal(error, seating) from error


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
    went_out: dict[int, list[int]] = defaultdict(list)
    for team in teams:
        if team.out_in_deal is not None:
            went_out[team.out_in_deal].append(team.position)
    rules = game.rules
    consistent = sum(team.tables for team in teams) == game.tables_per_team * len(teams) and all(
        (team.tables == 0) == (team.out_in_deal is not None) for team in teams
    )
    if rules.scoring == core.Scoring.POINTS:  # nothing moves: every team holds its start
        consistent = consistent and all(team.tables == game.tables_per_team for team in teams)
    elif rules.kodi:
        consistent = consistent and all(team.score == 0 for team in teams)
    if not consistent:
        _, entries = stored_entries(game, seating)
        return replay_entries(game, seating, entries)[1]
    return core.GameState(
        rules=rules,
        team_count=len(teams),
        tables=[team.tables for team in teams],
        dealer=game.dealer_seat,
        deals_played=game.deals_played,
        out_order=[tuple(sorted(went_out[number])) for number in sorted(went_out)],
        scores=[team.score for team in teams],
        kodis=[team.kodis for team in teams],
    )


def settle_next(
    game: Game, seating: Seating, state: core.GameState, entry: DealEntry
) -> tuple[core.Settlement, core.GameState]:
    """Settle the deal after ``state`` by the rules, refused as a replay would refuse it."""
    number = state.deals_played + 1
    _check_deal_limit(game, number)
    deal = to_core(entry, seating)
    try:
        return core.settle(state, deal)
    except core.RulesError as error:
        refused = core.DealError(number, error)
        refused.__cause__ = error
        raise _refusal(refused, seating) from error


def _outcome(game: Game, state: core.GameState) -> tuple[bool, dict[int, int]]:
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


def _apply_outcome(game: Game, seating: Seating, state: core.GameState) -> None:
    finished, places = _outcome(game, state)
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


def set_replayed_teams(seating: Seating, settlements: Sequence[core.Settlement]) -> None:
    """What each team's row counts over the deals (a replay's): the deal it went out in,
    and the contracts it declared and made."""
    out_in: dict[int, int] = {}
    declared = [0] * len(seating.teams)
    made = [0] * len(seating.teams)
    for settlement in settlements:
        for team in settlement.eliminated:
            out_in[team] = settlement.number
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


def _save_derived(
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

    _apply_outcome(game, seating, state)
    set_replayed_teams(seating, settlements)
    GameTeam.objects.bulk_update(seating.teams, TEAM_OUTCOME_FIELDS)
    game.save(update_fields=GAME_OUTCOME_FIELDS)


def _log(game: Game, number: int, action: str, before, after, user, link=None) -> None:
    Change.objects.create(
        game=game,
        number=number,
        action=action,
        before=before,
        after=after,
        made_by=user if user is not None and user.is_authenticated else None,
        scorer_link=link,
    )


def _changed(game: Game, was_finished: bool) -> None:
    if game.is_finished and not was_finished:
        # The game's links end with it, for good: undoing the final deal opens the
        # game again, not its links (the organiser issues new ones).
        ScorerLink.objects.filter(game=game, expired_at__isnull=True).update(
            expired_at=timezone.now()
        )
    game_changed.send(sender=Game, game=game, was_finished=was_finished)


def held_deal(game: Game, number: int | None) -> Round | None:
    """Deal ``number`` when the game holds it already: a form sent again, or sent first
    by another phone or the organiser."""
    if number is None or not 1 <= number <= game.deals_played:
        return None
    return game.rounds.filter(number=number).first()


def already_recorded(game: Game, number: int, recorded: Round | None = None) -> ScoringError:
    """The refusal of a deal the game holds: it carries the deal, to show what counts."""
    if recorded is None:
        recorded = game.rounds.filter(number=number).first()
    return ScoringError(
        _("Deal %(number)d is already recorded.") % {"number": number},
        field="number",
        number=number,
        recorded=recorded,
    )


def check_unlocked(game: Game) -> None:
    """Refuse changes to a game whose tournament results are final."""
    if game.results_locked:
        raise ScoringError(
            _(
                "The results of this game are final; an organiser must reopen its tournament "
                "before anything can change."
            ),
            field="number",
        )


def check_open(game: Game) -> None:
    """Refuse deals for a game that is over."""
    check_unlocked(game)
    if not game.is_finished:
        return
    if game.winner is None:
        raise ScoringError(
            _("The game is over: the first place is shared. No more deals can be recorded."),
            field="number",
        )
    raise ScoringError(
        _("The game is over: %(team)s won. No more deals can be recorded.")
        % {"team": game.winner.team.name},
        field="number",
    )


def check_new_deal(game: Game, number: int | None) -> None:
    """Refuse, before its form is read, a deal form the game cannot take.

    A deal the game holds already is refused as "already recorded" with the
    deal (``ScoringError.recorded``), so the sender is told what counts rather
    than have their form checked against the game that deal left behind (a
    team out, piles that no longer add up). That comes before "the game is
    over": the deal that ended a game is the one most often sent again. Then a
    game whose results are final, or that is over, takes no deal.
    """
    held = held_deal(game, number)
    if held is not None:
        raise already_recorded(game, held.number, held)
    check_open(game)


def new_round(game: Game, seating: Seating, settlement: core.Settlement, user=None) -> Round:
    """The deal's row, not saved yet, as the rules settled it (record_deal and the bulk
    writer, club.games.bulk, store it)."""
    return Round(
        game=game,
        number=settlement.number,
        all_pass=settlement.all_pass,
        declarer=None if settlement.all_pass else seating.players[settlement.declarer],  # type: ignore[index]
        bid=settlement.bid,
        trump=settlement.trump or "",
        doubling=settlement.doubling,
        thani=settlement.thani,
        dealer=seating.players[settlement.dealer],
        declaring_team=seating.teams[settlement.declaring_team],
        made=settlement.made,
        recorded_by=user if user is not None and user.is_authenticated else None,
    )


@transaction.atomic
def record_deal(*, game: Game, number: int, entry: DealEntry, user=None, link=None) -> Round:
    """Record deal ``number`` of the game; the form says which deal it expects.

    A resent form, a browser retry or a second scorer on the same deal finds
    the number taken and is told what was recorded, so a deal is stored once.
    The deal is settled from the stored state (:func:`stored_state`), not by
    replaying the game. The round comes back with ``game`` (the game as it now
    stands) and ``seating`` (its teams with their tables now), so a caller
    showing the page need not read them again.
    """
    game = _lock(game)
    expected = game.deals_played + 1
    if 1 <= number < expected:  # a number below 1 was never recorded: refused below
        raise already_recorded(game, number)
    check_open(game)
    if number != expected:
        raise ScoringError(
            _("The next deal to record is deal %(expected)d, not deal %(number)d.")
            % {"expected": expected, "number": number},
            field="number",
        )
    seating = load_seating(game)
    settlement, state = settle_next(game, seating, stored_state(game, seating), entry)

    round_ = new_round(game, seating, settlement, user)
    round_.save(force_insert=True)
    Pile.objects.bulk_create(
        Pile(round=round_, game_team=seating.teams[team], points=points)
        for team, points in settlement.points.items()
    )
    LedgerEntry.objects.bulk_create(
        ledger_entry(round_, team, settlement) for team in seating.teams
    )
    _apply_outcome(game, seating, state)
    for team in seating.teams:
        if team.position in settlement.eliminated:
            team.out_in_deal = number
    declaring = seating.teams[settlement.declaring_team]
    declaring.declared += 1
    declaring.made += settlement.made
    GameTeam.objects.bulk_update(seating.teams, TEAM_OUTCOME_FIELDS)
    game.save(
        update_fields=[
            "deals_played",
            "dealer_seat",
            "status",
            "winner",
            "finished_at",
            "updated_at",
        ]
    )
    _log(game, number, Change.Action.RECORDED, None, describe(entry, seating), user, link)
    _changed(game, was_finished=False)
    round_.seating = seating
    return round_


@transaction.atomic
def edit_deal(*, game: Game, number: int, entry: DealEntry, user=None) -> Round:
    """Correct deal ``number`` and replay the rest of the game.

    Refused, naming the deal, when the correction makes a later deal
    impossible (its declarer's team is out by then, say).
    """
    game = _lock(game)
    check_unlocked(game)
    was_finished = game.is_finished
    seating = load_seating(game)
    rounds, entries = stored_entries(game, seating)
    if not 1 <= number <= len(rounds):
        raise ScoringError(
            _("There is no deal %(number)d in this game to correct.") % {"number": number},
            field="number",
        )
    before = entries[number - 1]
    entries[number - 1] = entry
    settlements, state = replay_entries(game, seating, entries)
    settlement = settlements[number - 1]

    round_ = rounds[number - 1]
    round_.all_pass = settlement.all_pass
    round_.declarer = None if entry.all_pass else seating.players[settlement.declarer]
    round_.bid = settlement.bid
    round_.trump = settlement.trump or ""
    round_.doubling = settlement.doubling
    round_.thani = settlement.thani
    round_.save(update_fields=["all_pass", "declarer", "bid", "trump", "doubling", "thani"])
    round_.piles.all().delete()
    Pile.objects.bulk_create(
        Pile(round=round_, game_team=seating.teams[team], points=points)
        for team, points in settlement.points.items()
    )
    _save_derived(game, seating, rounds, settlements, state)
    _log(
        game,
        number,
        Change.Action.EDITED,
        describe(before, seating),
        describe(entry, seating),
        user,
    )
    _changed(game, was_finished)
    return round_


@transaction.atomic
def undo_last_deal(*, game: Game, number: int, user=None) -> None:
    """Remove the last deal. ``number`` is the deal the organiser saw as last."""
    game = _lock(game)
    check_unlocked(game)
    if game.deals_played == 0:
        raise ScoringError(_("There is no deal to undo yet."), field="number")
    if number != game.deals_played:
        raise ScoringError(
            _("Deal %(number)d is no longer the last deal (deal %(last)d is); nothing was undone.")
            % {"number": number, "last": game.deals_played},
            field="number",
        )
    was_finished = game.is_finished
    seating = load_seating(game)
    rounds, entries = stored_entries(game, seating)
    removed = entries.pop()
    rounds.pop().delete()
    settlements, state = replay_entries(game, seating, entries)
    game.ended_early = False  # undoing the last deal takes the game back before time was called
    _save_derived(game, seating, rounds, settlements, state)
    _log(game, number, Change.Action.UNDONE, describe(removed, seating), None, user)
    _changed(game, was_finished)


@transaction.atomic
def end_game(*, game: Game, user=None) -> None:
    """The organiser calls time: the game ends now and is placed by tables held."""
    game = _lock(game)
    check_open(game)
    seating = load_seating(game)
    rounds, entries = stored_entries(game, seating)
    settlements, state = replay_entries(game, seating, entries)
    if game.tie_deals is not None and state.leaders_level:
        raise ScoringError(
            _(
                "This is a knockout game and it is level: it cannot end tied. Play on: the "
                "next deal decides if the totals then differ."
            ),
            field="game",
        )
    game.ended_early = True
    _save_derived(game, seating, rounds, settlements, state)
    _log(game, game.deals_played, Change.Action.ENDED, None, None, user)
    _changed(game, was_finished=False)


@transaction.atomic
def rebuild_ledger(game: Game) -> None:
    """Derive everything again from the recorded deals (it must change nothing)."""
    game = _lock(game)
    seating = load_seating(game)
    rounds, entries = stored_entries(game, seating)
    settlements, state = replay_entries(game, seating, entries)
    _save_derived(game, seating, rounds, settlements, state)


def replay_game(game: Game) -> tuple[Seating, list[core.Settlement], core.GameState]:
    """Read-only: the game's settlements as the rules compute them now."""
    seating = load_seating(game)
    _, entries = stored_entries(game, seating)
    settlements, state = replay_entries(game, seating, entries)
    return seating, settlements, state
