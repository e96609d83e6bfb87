"""The rules of 56, as the club scores them (see RULES.md in the project docs).

This module is the whole rulebook in code. It imports nothing from Django, so it
can be read in one sitting and tested on its own. Everything else (models,
forms, views, import and export) goes through :func:`replay`.

Glossary
--------
seat
    A chair at the card table, numbered 0.. in play order. With teams listed
    T1..Tn the seats are ``T1.first, T2.first, ..., Tn.first, T1.second, ...``.
team
    Two partners (``Rules.team_size``), identified here by their index in the
    game's team order.
deal
    One hand dealt, bid, played and settled. The product calls the stored
    record of a deal a *round*; its number starts at 1.
tables
    The counters each team holds. They move between teams when a deal is
    settled and are never created or destroyed. A team with none is *out*.
declaring team
    The team that won the auction (or, when all pass, the team of the first
    bidder, contracted to the lowest bid with no trumps).
pile
    The card points a team took in a deal. The piles of the teams still
    playing add up to 56.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from club.scoring.messages import TranslatableError, _

__all__ = [
    "DEFAULT_RULES",
    "Band",
    "CardSetup",
    "Deal",
    "Doubling",
    "GameOver",
    "GameState",
    "Rules",
    "RulesError",
    "Settlement",
    "Trump",
    "card_setup",
    "check_house_rules",
    "final_places",
    "initial_state",
    "replay",
    "seat_order",
    "settle",
]

TOTAL_POINTS = 56
# The bounds of every house rule that is entered, the same for the forms, the
# importer and the services (one validator: check_house_rules). Tables are
# conserved, so no team ever holds more than the teams' starting tables
# together, at most 4 x MAX_TABLES: a band or a doubling factor beyond that
# could move no more than all of them, which is why it is the bound.
MAX_TABLES = 1000  # tables each team starts with
MAX_BAND_TABLES = 4 * MAX_TABLES  # tables a payout band moves, made or failed
MAX_FACTOR = 4 * MAX_TABLES  # what a double or redouble multiplies by
MAX_DEAL_LIMIT = 1000


class Trump(StrEnum):
    CLUBS = "clubs"
    DIAMONDS = "diamonds"
    HEARTS = "hearts"
    SPADES = "spades"
    NO_TRUMPS = "no-trumps"


class Doubling(StrEnum):
    NONE = "none"
    DOUBLE = "double"
    REDOUBLE = "redouble"


class RulesError(TranslatableError):
    """A deal that cannot have happened under the rules.

    ``field`` names the part of the deal at fault (``bid``, ``points``,
    ``declarer`` ...). A ``team`` value is a team's index: :meth:`translated`
    shows it as the team's name when the names are given, else as "team 2".
    """

    def team_name(self, team, gettext, team_names: Sequence[str] | None = None):
        index = int(team)  # type: ignore[call-overload]
        if team_names is not None and 0 <= index < len(team_names):
            return team_names[index]
        return gettext("team %(number)d") % {"number": index + 1}


class GameOver(RulesError):
    """A deal offered after one team is left."""


@dataclass(frozen=True)
class Band:
    """A row of the payout schedule: bids ``low..high`` move ``made`` or ``failed`` tables."""

    low: int
    high: int
    made: int
    failed: int


DEFAULT_BANDS: tuple[Band, ...] = (
    Band(28, 39, 1, 2),
    Band(40, 47, 2, 3),
    Band(48, 55, 3, 4),
    Band(56, 56, 4, 5),
)


@dataclass(frozen=True)
class Rules:
    """The settings a club may change (RULES.md section C), passed in as data."""

    tables_per_team: int = 12
    bands: tuple[Band, ...] = DEFAULT_BANDS
    double_factor: int = 2
    redouble_factor: int = 4
    team_size: int = 2
    min_bid: int = 28
    max_bid: int = TOTAL_POINTS

    def __post_init__(self) -> None:
        if self.tables_per_team < 1:
            raise RulesError(_("Each team must start with at least 1 table."), field="tables")
        if self.double_factor < 1 or self.redouble_factor < 1:
            raise RulesError(_("Doubling factors must be at least 1."), field="doubling")
        expected = self.min_bid
        for band in self.bands:
            if band.low != expected or band.high < band.low:
                raise RulesError(
                    _("The payout bands must cover every bid from %(low)d to %(high)d in order."),
                    low=self.min_bid,
                    high=self.max_bid,
                    field="bands",
                )
            if band.made < 0 or band.failed < 0:
                raise RulesError(
                    _("A payout band cannot move a negative number of tables."), field="bands"
                )
            expected = band.high + 1
        if expected != self.max_bid + 1:
            raise RulesError(
                _("The payout bands must cover every bid from %(low)d to %(high)d in order."),
                low=self.min_bid,
                high=self.max_bid,
                field="bands",
            )

    def band_for(self, bid: int) -> Band:
        for band in self.bands:
            if band.low <= bid <= band.high:
                return band
        raise RulesError(
            _("A bid must be from %(low)d to %(high)d; %(bid)s is not."),
            low=self.min_bid,
            high=self.max_bid,
            bid=bid,
            field="bid",
        )

    def factor(self, doubling: Doubling) -> int:
        return {
            Doubling.NONE: 1,
            Doubling.DOUBLE: self.double_factor,
            Doubling.REDOUBLE: self.redouble_factor,
        }[doubling]

    def is_default(self) -> bool:
        return self == DEFAULT_RULES


def check_house_rules(rules: Rules) -> None:
    """Refuse house rules beyond the bounds (MAX_TABLES, MAX_BAND_TABLES, MAX_FACTOR).

    For rules being entered: the forms, the importer and the services that
    start a game or a tournament call it, so whatever one accepts the others
    accept. Rules read back from a stored game are not held to it: a game kept
    from before the bounds still shows and replays as it was played.
    """
    if rules.tables_per_team > MAX_TABLES:
        raise RulesError(
            _("Each team can start with at most %(most)d tables, not %(tables)d."),
            most=MAX_TABLES,
            tables=rules.tables_per_team,
            field="tables",
        )
    if max(rules.double_factor, rules.redouble_factor) > MAX_FACTOR:
        raise RulesError(
            _("A doubling factor can be at most %(most)d, not %(factor)d."),
            most=MAX_FACTOR,
            factor=max(rules.double_factor, rules.redouble_factor),
            field="doubling",
        )
    for row, band in enumerate(rules.bands, start=1):
        if max(band.made, band.failed) > MAX_BAND_TABLES:
            raise RulesError(
                _("Payout band %(row)d moves %(tables)d tables; a band moves at most %(most)d."),
                row=row,
                tables=max(band.made, band.failed),
                most=MAX_BAND_TABLES,
                field="bands",
            )


DEFAULT_RULES = Rules()


# --- Seats and cards -------------------------------------------------------


def seat_order(team_count: int, team_size: int = 2) -> list[tuple[int, int]]:
    """Seats in play order as ``(team index, partner index)`` pairs."""
    return [(team, partner) for partner in range(team_size) for team in range(team_count)]


@dataclass(frozen=True)
class CardSetup:
    players: int
    removed: str  # the low ranks taken out of each pack, e.g. "2 to 8"
    cards_used: int
    cards_each: int
    ranks: tuple[str, ...]  # high to low
    points: tuple[tuple[str, int], ...] = (("J", 3), ("9", 2), ("A", 1), ("10", 1))


_CARD_SETUPS = {
    4: CardSetup(4, "2–8", 48, 12, ("J", "9", "A", "10", "K", "Q")),
    6: CardSetup(6, "2–8", 48, 8, ("J", "9", "A", "10", "K", "Q")),
    8: CardSetup(8, "2–6", 64, 8, ("J", "9", "A", "10", "K", "Q", "8", "7")),
}


def card_setup(players: int) -> CardSetup:
    """How the two packs are cut down for the players still seated.

    Two players left means the game is over; they need no cards.
    """
    try:
        return _CARD_SETUPS[players]
    except KeyError:
        raise RulesError(
            _("56 is played by 4, 6 or 8 players, not %(players)d."), players=players
        ) from None


# --- Deals and their settlement -------------------------------------------


@dataclass(frozen=True)
class Deal:
    """What the scorer reports about one deal.

    ``declarer`` is a seat number, or ``None`` when every player passed.
    ``points`` maps each team still playing (by index) to its pile.
    """

    points: dict[int, int]
    declarer: int | None = None
    bid: int | None = None
    trump: Trump | str | None = None
    doubling: Doubling | str = Doubling.NONE

    @property
    def all_pass(self) -> bool:
        return self.declarer is None


@dataclass(frozen=True)
class Settlement:
    """The outcome of one deal: who dealt, who declared, and how the tables moved."""

    number: int
    dealer: int
    first_bidder: int
    declarer: int | None
    declaring_team: int
    all_pass: bool
    bid: int
    trump: Trump
    doubling: Doubling
    points: dict[int, int]
    made: bool
    transfers: dict[int, int]  # every team of the game: change in tables (0 for teams out)
    tables_after: tuple[int, ...]
    eliminated: tuple[int, ...]


@dataclass
class GameState:
    """Where a game stands between deals."""

    rules: Rules
    team_count: int
    tables: list[int]
    dealer: int  # seat of whoever deals next
    deals_played: int = 0
    out_order: list[tuple[int, ...]] = field(default_factory=list)  # teams out, deal by deal

    @property
    def seats(self) -> list[tuple[int, int]]:
        return seat_order(self.team_count, self.rules.team_size)

    def team_of(self, seat: int) -> int:
        return self.seats[seat][0]

    def in_play(self, team: int) -> bool:
        return self.tables[team] > 0

    @property
    def teams_in_play(self) -> list[int]:
        return [team for team in range(self.team_count) if self.in_play(team)]

    @property
    def seated_players(self) -> int:
        return len(self.teams_in_play) * self.rules.team_size

    @property
    def finished(self) -> bool:
        return len(self.teams_in_play) <= 1

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

    def places(self) -> dict[int, int]:
        """Place of each team so far: teams still playing share 1st; the rest by going out.

        Teams that went out in the same deal share their place, and the place
        after a shared one is skipped (1, 2, 2, 4).
        """
        places: dict[int, int] = {}
        still = self.teams_in_play
        for team in still:
            places[team] = 1
        taken = len(still)
        for group in reversed(self.out_order):
            for team in group:
                places[team] = taken + 1
            taken += len(group)
        return places

    def places_by_tables(self) -> dict[int, int]:
        """Place of each team when the game is stopped early (after N deals or at a set time).

        Teams still playing are ranked by the tables they hold, most first;
        teams holding the same number share a place and the places they span
        are skipped (1, 2, 2, 4). Teams already out come after every team
        still playing, in reverse order of going out, as in :meth:`places`
        (teams that went out in the same deal share their place).
        """
        places: dict[int, int] = {}
        still = sorted(self.teams_in_play, key=lambda team: -self.tables[team])
        for team in still:
            places[team] = 1 + sum(1 for other in still if self.tables[other] > self.tables[team])
        taken = len(still)
        for group in reversed(self.out_order):
            for team in group:
                places[team] = taken + 1
            taken += len(group)
        return places


def final_places(state: GameState) -> dict[int, int]:
    """The places a game ends with: by going out when it was won, else by tables held.

    A game is won when one team is left (:meth:`GameState.places`); a game
    stopped before that (a tournament's deal limit or time call) is placed by
    :meth:`GameState.places_by_tables`.
    """
    return state.places() if state.finished else state.places_by_tables()


def initial_state(team_count: int, first_dealer: int, rules: Rules = DEFAULT_RULES) -> GameState:
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


def _parse_enum[E: StrEnum](enum: type[E], value: object, field_name: str, message: str) -> E:
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
    """Tables each team gains (+) or pays (-), paying only what it holds (RULES.md B.2)."""
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


def settle(state: GameState, deal: Deal) -> tuple[Settlement, GameState]:
    """Settle one deal against the state before it; return the settlement and the state after.

    Raises :class:`RulesError` (naming the field) for a deal that cannot have
    happened, and :class:`GameOver` when the game has already been won.
    """
    if state.finished:
        raise GameOver(_("The game is over: no more deals can be recorded."))
    rules = state.rules
    first_bidder = state.first_bidder

    if deal.all_pass:
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
        declaring_team = state.team_of(first_bidder)
        bid = rules.min_bid
        trump = Trump.NO_TRUMPS
        doubling = Doubling.NONE
        declarer = None
    else:
        declarer = deal.declarer
        if (
            isinstance(declarer, bool)
            or not isinstance(declarer, int)
            or not 0 <= declarer < len(state.seats)
        ):
            raise RulesError(_("The declarer must be one of the players seated."), field="declarer")
        declaring_team = state.team_of(declarer)
        if not state.in_play(declaring_team):
            raise RulesError(
                _("The declarer's team, %(team)s, is out and cannot bid."),
                team=declaring_team,
                field="declarer",
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
    made = points[declaring_team] >= bid
    band = rules.band_for(bid)
    owed = (band.made if made else band.failed) * rules.factor(Doubling(doubling))
    change = _transfers(state, declaring_team, made, owed)

    tables = [state.tables[team] + change[team] for team in range(state.team_count)]
    assert sum(tables) == sum(state.tables), "tables must be conserved"
    assert min(tables) >= 0, "no team can hold fewer than 0 tables"
    eliminated = tuple(team for team in state.teams_in_play if tables[team] == 0)

    after = GameState(
        rules=rules,
        team_count=state.team_count,
        tables=tables,
        dealer=state.dealer,
        deals_played=state.deals_played + 1,
        out_order=[*state.out_order, eliminated] if eliminated else list(state.out_order),
    )
    if not after.finished:
        after.dealer = after.next_seat(state.dealer)

    settlement = Settlement(
        number=state.deals_played + 1,
        dealer=state.dealer,
        first_bidder=first_bidder,
        declarer=declarer,
        declaring_team=declaring_team,
        all_pass=deal.all_pass,
        bid=bid,
        trump=Trump(trump),
        doubling=Doubling(doubling),
        points=points,
        made=made,
        transfers=change,
        tables_after=tuple(tables),
        eliminated=eliminated,
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
