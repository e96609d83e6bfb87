"""The rules of 56, as the club scores them (docs/rules.md).

This module and :mod:`club.scoring.house_rules` (the settings, re-exported
here) are the whole rulebook in code. They import nothing from Django, so they
can be read in one sitting and tested on their own. Everything else (models,
forms, views, import and export) goes through :func:`replay`.

Glossary
--------
seat
    A chair at the card table, numbered 0.. in play order. With teams listed
    T1..Tn the seats are ``T1.first, T2.first, ..., Tn.first, T1.second, ...``.
team
    Two, three or four partners (``Rules.team_size``), identified here by its
    index in the game's team order.
deal
    One hand dealt, bid, played and settled. The product calls the stored
    record of a deal a *round*; its number starts at 1.
tables
    The counters each team holds. They move between teams when a deal is
    settled and are never created or destroyed. A team with none is *out*,
    or with kodi on takes a *kodi* and every team starts again.
points
    On a score sheet (``Scoring.POINTS``) nothing moves: each deal scores
    points to a team, and the higher total after the deal limit wins.
thani
    One player undertakes to win every trick alone; it settles like a contract
    of the club's thani figures by that player's team.
declaring team
    The team that won the auction (or, when all pass, the team of the first
    bidder, contracted to the lowest bid with no trumps).
pile
    The card points a team took in a deal. The piles of the teams still
    playing add up to 56.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from club.scoring.house_rules import (
    DEFAULT_BANDS,
    DEFAULT_RULES,
    INTERNATIONAL_DEALS,
    MAX_BAND_TABLES,
    MAX_DEAL_LIMIT,
    MAX_FACTOR,
    MAX_TABLES,
    MAX_TIE_DEALS,
    SMALL_DECK,
    TEAM_SIZES,
    TOTAL_POINTS,
    Band,
    CardSetup,
    Doubling,
    DoublingMode,
    GameOver,
    Preset,
    Rules,
    RulesError,
    Scoring,
    Thani,
    Trump,
    card_setup,
    check_house_rules,
    check_table,
    preset_of,
    preset_rules,
    seat_order,
)
from club.scoring.messages import _

__all__ = [
    "DEFAULT_BANDS",
    "DEFAULT_RULES",
    "INTERNATIONAL_DEALS",
    "MAX_BAND_TABLES",
    "MAX_DEAL_LIMIT",
    "MAX_FACTOR",
    "MAX_TABLES",
    "MAX_TIE_DEALS",
    "SMALL_DECK",
    "TEAM_SIZES",
    "TOTAL_POINTS",
    "Band",
    "CardSetup",
    "Deal",
    "DealError",
    "Doubling",
    "DoublingMode",
    "GameOver",
    "GameState",
    "Preset",
    "Rules",
    "RulesError",
    "Scoring",
    "Settlement",
    "Thani",
    "Trump",
    "card_setup",
    "check_house_rules",
    "check_table",
    "final_places",
    "initial_state",
    "preset_of",
    "preset_rules",
    "replay",
    "seat_order",
    "settle",
]


# --- Deals and their settlement -------------------------------------------


@dataclass(frozen=True)
class Deal:
    """What the scorer reports about one deal.

    ``declarer`` is a seat number, or ``None`` when every player passed.
    ``points`` maps each team still playing (by index) to its pile. A thani
    names its player's seat in ``thani`` and whether it was ``made``, with no
    bid, trump, doubling or piles.
    """

    points: dict[int, int]
    declarer: int | None = None
    bid: int | None = None
    trump: Trump | str | None = None
    doubling: Doubling | str = Doubling.NONE
    thani: int | None = None
    made: bool | None = None

    @property
    def all_pass(self) -> bool:
        return self.declarer is None and self.thani is None


@dataclass(frozen=True)
class Settlement:
    """The outcome of one deal: who dealt, who declared, and what it moved or scored.

    ``transfers`` and ``tables_after`` are every team's change in tables and
    what it holds when the next deal starts (after a kodi's restart); on a
    points sheet nothing moves and ``scored`` / ``score_after`` say what each
    team scored and its total. A thani has no bid, trump or piles.
    """

    number: int
    dealer: int
    first_bidder: int
    declarer: int | None
    declaring_team: int
    all_pass: bool
    bid: int | None
    trump: Trump | None
    doubling: Doubling
    points: dict[int, int]
    made: bool
    transfers: dict[int, int]  # every team of the game: change in tables (0 for teams out)
    tables_after: tuple[int, ...]
    eliminated: tuple[int, ...]
    thani: bool = False
    scored: dict[int, int] = field(default_factory=dict)  # points scoring: every team
    score_after: tuple[int, ...] = ()
    kodi: tuple[int, ...] = ()  # the teams that took a kodi in this deal
    kodis_after: tuple[int, ...] = ()


@dataclass
class GameState:
    """Where a game stands between deals."""

    rules: Rules
    team_count: int
    tables: list[int]
    dealer: int  # seat of whoever deals next
    deals_played: int = 0
    out_order: list[tuple[int, ...]] = field(default_factory=list)  # teams out, deal by deal
    scores: list[int] = field(default_factory=list)  # points scoring: each team's total
    kodis: list[int] = field(default_factory=list)  # kodi: each team's kodis so far

    def __post_init__(self) -> None:
        if not self.scores:
            self.scores = [0] * self.team_count
        if not self.kodis:
            self.kodis = [0] * self.team_count

    @property
    def seats(self) -> list[tuple[int, int]]:
        return seat_order(self.team_count, self.rules.team_size)

    def team_of(self, seat: int) -> int:
        return self.seats[seat][0]

    def in_play(self, team: int) -> bool:
        return self.tables[team] > 0 or not self.rules.eliminates

    @property
    def teams_in_play(self) -> list[int]:
        return [team for team in range(self.team_count) if self.in_play(team)]

    @property
    def seated_players(self) -> int:
        return len(self.teams_in_play) * self.rules.team_size

    @property
    def finished(self) -> bool:
        """One team left: the game is won (only where teams go out)."""
        return len(self.teams_in_play) <= 1

    @property
    def limit_reached(self) -> bool:
        """Whether the deal limit ends the game now.

        Under a tie rule (``Rules.tie_deals``) a game level at the top when its
        limit comes plays the extra deals, then one at a time until it is not.
        """
        limit, extra = self.rules.deal_limit, self.rules.tie_deals
        if limit is None or self.deals_played < limit:
            return False
        if extra is None:
            return True
        if limit < self.deals_played < limit + extra:
            return False  # the extra deals are played out whatever their totals
        return not self.leaders_level

    @property
    def leaders_level(self) -> bool:
        """Whether two or more teams share first place as the game stands."""
        return list(final_places(self).values()).count(1) > 1

    @property
    def winner(self) -> int | None:
        return self.teams_in_play[0] if self.finished else None

    def next_seat(self, seat: int) -> int:
        """The next seat in play order whose team is still at the table."""
        seats = len(self.seats)
        for step in range(1, seats + 1):
            candidate = (seat + step) % seats
            if self.in_play(self.team_of(candidate)):
                return candidate
        raise GameOver(_("The game is over: no team is left at the table."))

    @property
    def first_bidder(self) -> int:
        return self.next_seat(self.dealer)

    def _after_the_table(self, places: dict[int, int]) -> dict[int, int]:
        """Teams already out after every team still playing, in reverse order of going out."""
        taken = len(places)
        for group in reversed(self.out_order):
            for team in group:
                places[team] = taken + 1
            taken += len(group)
        return places

    def places(self) -> dict[int, int]:
        """Place of each team so far: teams still playing share 1st; the rest by going out.

        Teams that went out in the same deal share their place, and the place
        after a shared one is skipped (1, 2, 2, 4).
        """
        return self._after_the_table(dict.fromkeys(self.teams_in_play, 1))

    def places_by_tables(self) -> dict[int, int]:
        """Place of each team when the game is stopped early (after N deals or at a set time).

        Teams still playing are ranked by the tables they hold, most first;
        teams holding the same number share a place and the places they span
        are skipped (1, 2, 2, 4). Teams already out come after every team
        still playing, in reverse order of going out, as in :meth:`places`
        (teams that went out in the same deal share their place).
        """
        return self._after_the_table(_ranked(self.teams_in_play, lambda team: -self.tables[team]))

    def places_by_score(self) -> dict[int, int]:
        """Places on a points sheet: the higher total first, equal totals sharing the place."""
        return _ranked(range(self.team_count), lambda team: -self.scores[team])

    def places_by_kodis(self) -> dict[int, int]:
        """Places of a kodi game: fewest kodis first, then most tables held; equal share."""
        return _ranked(range(self.team_count), lambda team: (self.kodis[team], -self.tables[team]))


def _ranked(teams, key) -> dict[int, int]:
    """Each team's place by ``key`` (lowest first); equal keys share, and skip (1, 2, 2, 4)."""
    teams = list(teams)
    return {team: 1 + sum(1 for other in teams if key(other) < key(team)) for team in teams}


def final_places(state: GameState) -> dict[int, int]:
    """The places a game ends with.

    On a points sheet by total, with kodi by kodis then tables; where teams go
    out, by going out when one team is left, else (a deal limit reached or
    time called) by tables held (:meth:`GameState.places_by_tables`).
    """
    if state.rules.scoring == Scoring.POINTS:
        return state.places_by_score()
    if state.rules.kodi:
        return state.places_by_kodis()
    return state.places() if state.finished else state.places_by_tables()


def initial_state(team_count: int, first_dealer: int, rules: Rules = DEFAULT_RULES) -> GameState:
    check_table(team_count, rules.team_size)
    players = team_count * rules.team_size
    card_setup(players)  # refuses a table of the wrong size
    if not 0 <= first_dealer < players:
        raise RulesError(
            _("The first dealer must be one of the players seated."), field="first_dealer"
        )
    return GameState(
        rules=rules,
        team_count=team_count,
        tables=[rules.tables_per_team] * team_count,
        dealer=first_dealer,
    )


def _parse_enum[E: StrEnum](enum: type[E], value: Any, field_name: str, message: str) -> E:
    """``value`` as a member of ``enum``; any other value is refused at ``field_name``."""
    try:
        return enum(value)
    except ValueError:
        raise RulesError(message, field=field_name, value=str(value)) from None


def _check_points(state: GameState, points: dict[int, int]) -> dict[int, int]:
    in_play = state.teams_in_play
    for team in points:
        if not isinstance(team, int) or not 0 <= team < state.team_count:
            raise RulesError(
                _("A pile was given for a team that is not in this game."), field="points"
            )
        if team not in in_play:
            raise RulesError(
                _("%(team)s is out and reports no pile."),
                team=team,
                field="points",
            )
    for team in in_play:
        if team not in points:
            raise RulesError(
                _("%(team)s is still playing and needs a pile."),
                team=team,
                field="points",
            )
        pile = points[team]
        if isinstance(pile, bool) or not isinstance(pile, int):
            raise RulesError(
                _("The pile of %(team)s must be a whole number, not %(pile)s."),
                team=team,
                pile=repr(pile),
                field="points",
            )
        if not 0 <= pile <= TOTAL_POINTS:
            raise RulesError(
                _("The pile of %(team)s must be from 0 to 56, not %(pile)d."),
                team=team,
                pile=pile,
                field="points",
            )
    total = sum(points.values())
    if total != TOTAL_POINTS:
        raise RulesError(
            _("The piles add up to %(total)d; they must add up to exactly 56."),
            total=total,
            field="points",
        )
    return {team: points[team] for team in in_play}


def _order_after(state: GameState, team: int) -> list[int]:
    """Teams still playing, in play order, starting with the one seated after ``team``."""
    return [
        (team + step) % state.team_count
        for step in range(1, state.team_count)
        if state.in_play((team + step) % state.team_count)
    ]


def _transfers(state: GameState, declaring_team: int, made: bool, owed: int) -> dict[int, int]:
    """Tables each team gains (+) or pays (-), paying only what it holds (docs/rules.md B.2)."""
    others = _order_after(state, declaring_team)
    change = dict.fromkeys(range(state.team_count), 0)
    if made:
        for team in others:
            paid = min(owed, state.tables[team])
            change[team] -= paid
            change[declaring_team] += paid
        return change
    holding = state.tables[declaring_team]
    if holding >= owed * len(others):
        shares = dict.fromkeys(others, owed)
    else:
        share, remainder = divmod(holding, len(others))
        shares = {
            team: share + (1 if index < remainder else 0) for index, team in enumerate(others)
        }
    for team, amount in shares.items():
        change[team] += amount
        change[declaring_team] -= amount
    return change


def _seat(state: GameState, seat: object, field_name: str, message: str) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(state.seats):
        raise RulesError(message, field=field_name)
    return seat


@dataclass(frozen=True)
class _Contract:
    """A deal reduced to what settles it: who declared, for what, and whether it was made."""

    declarer: int | None
    declaring_team: int
    bid: int | None
    trump: Trump | None
    doubling: Doubling
    points: dict[int, int]
    made: bool
    made_figure: int  # what the contract moves or scores when made, before doubling
    failed_figure: int


def _thani(state: GameState, deal: Deal) -> _Contract:
    thani = state.rules.thani
    if thani is None:
        raise RulesError(_("This game is not played with thani."), field="thani")
    seat = _seat(
        state, deal.thani, "thani", _("The thani player must be one of the players seated.")
    )
    team = state.team_of(seat)
    if not state.in_play(team):
        raise RulesError(
            _("The thani player's team, %(team)s, is out and cannot play."),
            team=team,
            field="thani",
        )
    if not isinstance(deal.made, bool):
        raise RulesError(_("A thani needs whether it was made or failed."), field="made")
    if deal.points or deal.bid is not None or deal.trump is not None or deal.declarer is not None:
        raise RulesError(
            _("A thani has no bid, trumps or piles: only its player and whether it was made."),
            field="thani",
        )
    if deal.doubling not in (None, Doubling.NONE):
        raise RulesError(_("A thani cannot be doubled or redoubled."), field="doubling")
    return _Contract(seat, team, None, None, Doubling.NONE, {}, deal.made, thani.made, thani.failed)


def _all_pass(state: GameState, deal: Deal, first_bidder: int) -> _Contract:
    rules = state.rules
    if not rules.all_pass:
        raise RulesError(
            _("Everyone passed, but in this game the first bidder must open at %(bid)d or more."),
            bid=rules.min_bid,
            field="declarer",
        )
    if deal.doubling != Doubling.NONE:
        raise RulesError(
            _("A deal where everyone passed cannot be doubled or redoubled."), field="doubling"
        )
    if deal.bid not in (None, rules.min_bid):
        raise RulesError(
            _("When everyone passes the contract is %(bid)d; no other bid can be given."),
            bid=rules.min_bid,
            field="bid",
        )
    if deal.trump not in (None, Trump.NO_TRUMPS):
        raise RulesError(
            _("When everyone passes the deal is played with no trumps."), field="trump"
        )
    team = state.team_of(first_bidder)
    points = _check_points(state, dict(deal.points))
    band = rules.band_for(rules.min_bid)
    made = points[team] >= rules.min_bid
    return _Contract(
        None,
        team,
        rules.min_bid,
        Trump.NO_TRUMPS,
        Doubling.NONE,
        points,
        made,
        band.made,
        band.failed,
    )


def _bid(state: GameState, deal: Deal) -> _Contract:
    rules = state.rules
    declarer = _seat(
        state, deal.declarer, "declarer", _("The declarer must be one of the players seated.")
    )
    team = state.team_of(declarer)
    if not state.in_play(team):
        raise RulesError(
            _("The declarer's team, %(team)s, is out and cannot bid."), team=team, field="declarer"
        )
    bid = deal.bid
    if isinstance(bid, bool) or not isinstance(bid, int):
        raise RulesError(
            _("The bid must be a whole number from %(low)d to %(high)d."),
            low=rules.min_bid,
            high=rules.max_bid,
            field="bid",
        )
    if not rules.min_bid <= bid <= rules.max_bid:
        raise RulesError(
            _("A bid must be from %(low)d to %(high)d; %(bid)d is not."),
            low=rules.min_bid,
            high=rules.max_bid,
            bid=bid,
            field="bid",
        )
    trump = _parse_enum(
        Trump,
        deal.trump,
        "trump",
        _("%(value)s is not a trump: choose clubs, diamonds, hearts, spades or no-trumps."),
    )
    doubling = _parse_enum(
        Doubling,
        deal.doubling,
        "doubling",
        _("%(value)s is not a doubling: choose none, double or redouble."),
    )
    points = _check_points(state, dict(deal.points))
    band = rules.band_for(bid)
    return _Contract(
        declarer, team, bid, trump, doubling, points, points[team] >= bid, band.made, band.failed
    )


def _check_open(state: GameState) -> None:
    """Refuse a deal once the game is over: won, or its deal limit reached."""
    if state.finished:
        raise GameOver(_("The game is over: no more deals can be recorded."))
    if state.limit_reached:
        raise GameOver(
            _("The game ends after %(limit)d deals: no more deals can be recorded."),
            limit=state.deals_played,
        )


def _contract(state: GameState, deal: Deal, first_bidder: int) -> _Contract:
    """The deal's contract: a thani, everyone passing, or a bid."""
    if deal.thani is not None:
        return _thani(state, deal)
    if deal.declarer is None:
        return _all_pass(state, deal, first_bidder)
    return _bid(state, deal)


@dataclass(frozen=True)
class _Moved:
    """What settling a contract changed: tables moved or points scored, and kodis taken."""

    change: dict[int, int]  # every team's change in tables
    scored: dict[int, int]  # points scoring: what every team scored
    tables: list[int]  # what every team holds for the next deal (after a kodi's restart)
    scores: list[int]  # every team's total on a points sheet
    kodi: tuple[int, ...] = ()  # the teams that took a kodi


def _score_points(state: GameState, team: int, made: bool, due: int) -> _Moved:
    """On a points sheet: the declaring team scores ``due`` if made, else every other team."""
    scored = {other: (due if (other == team) == made else 0) for other in range(state.team_count)}
    scores = [state.scores[other] + scored[other] for other in range(state.team_count)]
    return _Moved(dict.fromkeys(range(state.team_count), 0), scored, list(state.tables), scores)


def _move_tables(state: GameState, team: int, made: bool, due: int) -> _Moved:
    """Tables move by ``due`` (docs/rules.md B.2); with kodi, a team left with none restarts all."""
    change = _transfers(state, team, made, due)
    tables = [state.tables[other] + change[other] for other in range(state.team_count)]
    assert sum(tables) == sum(state.tables), "tables must be conserved"
    assert min(tables) >= 0, "no team can hold fewer than 0 tables"
    kodi: tuple[int, ...] = ()
    if state.rules.kodi:
        kodi = tuple(other for other in range(state.team_count) if tables[other] == 0)
        if kodi:  # every team starts the next deal with its starting tables again
            tables = [state.rules.tables_per_team] * state.team_count
    return _Moved(change, {}, tables, list(state.scores), kodi)


def _state_after(state: GameState, moved: _Moved, eliminated: tuple[int, ...]) -> GameState:
    """Where the game stands after the deal; the next dealer, unless the game is over."""
    after = GameState(
        rules=state.rules,
        team_count=state.team_count,
        tables=moved.tables,
        dealer=state.dealer,
        deals_played=state.deals_played + 1,
        out_order=[*state.out_order, eliminated] if eliminated else list(state.out_order),
        scores=moved.scores,
        kodis=[state.kodis[other] + (other in moved.kodi) for other in range(state.team_count)],
    )
    if not after.finished:
        after.dealer = after.next_seat(state.dealer)
    return after


def settle(state: GameState, deal: Deal) -> tuple[Settlement, GameState]:
    """Settle one deal against the state before it; return the settlement and the state after.

    Raises :class:`RulesError` (naming the field) for a deal that cannot have
    happened, and :class:`GameOver` when the game has already been won or its
    deal limit reached.
    """
    rules = state.rules
    _check_open(state)
    first_bidder = state.first_bidder
    contract = _contract(state, deal, first_bidder)
    team, made = contract.declaring_team, contract.made
    due = rules.due(contract.made_figure if made else contract.failed_figure, contract.doubling)
    if rules.scoring == Scoring.POINTS:
        moved = _score_points(state, team, made, due)
    else:
        moved = _move_tables(state, team, made, due)
    eliminated = (
        tuple(other for other in state.teams_in_play if moved.tables[other] == 0)
        if rules.eliminates
        else ()
    )
    after = _state_after(state, moved, eliminated)
    settlement = Settlement(
        number=state.deals_played + 1,
        dealer=state.dealer,
        first_bidder=first_bidder,
        declarer=contract.declarer,
        declaring_team=team,
        all_pass=deal.all_pass,
        bid=contract.bid,
        trump=contract.trump,
        doubling=contract.doubling,
        points=contract.points,
        made=made,
        transfers=moved.change,
        tables_after=tuple(moved.tables),
        eliminated=eliminated,
        thani=deal.thani is not None,
        scored=moved.scored,
        score_after=tuple(moved.scores) if rules.scoring == Scoring.POINTS else (),
        kodi=moved.kodi,
        kodis_after=tuple(after.kodis) if rules.kodi else (),
    )
    return settlement, after


class DealError(RulesError):
    """A rules error located at one deal of a replay; ``number`` is the deal's."""

    def __init__(self, number: int, error: RulesError):
        super().__init__(error.template, field=error.field, **error.params)
        self.number = number


def replay(
    team_count: int,
    first_dealer: int,
    deals: Iterable[Deal],
    rules: Rules = DEFAULT_RULES,
) -> tuple[list[Settlement], GameState]:
    """Settle every deal of a game in order. Errors carry the deal number they arose at."""
    state = initial_state(team_count, first_dealer, rules)
    settlements: list[Settlement] = []
    for number, deal in enumerate(deals, start=1):
        try:
            settlement, state = settle(state, deal)
        except RulesError as error:
            raise DealError(number, error) from error
        settlements.append(settlement)
    return settlements, state
