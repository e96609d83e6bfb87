"""The settings a club plays 56 by (docs/rules.md sections C and D), as data; no Django.

:class:`Rules` holds every setting a game is played by: the tables each team
starts with and the payout bands (section C), and the forms clubs play
(section D): teams of 2, 3 or 4, scoring in tables or on a points sheet,
doubling that multiplies or adds, whether the first bidder must open, kodi,
thani and the deal limit. :func:`preset_rules` gives the named bundles a club
picks (*Tables*, *56 International*, *Kodi night*); anything else is *Custom*.

The deals and their settlement are in :mod:`club.scoring.rules`, which
re-exports everything here: the rest of the code reads ``rules.Rules``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from club.scoring.messages import TranslatableError, _

TOTAL_POINTS = 56
# The bounds of every house rule that is entered, the same for the forms, the
# importer and the services (one validator: check_house_rules). Tables are
# conserved, so no team ever holds more than the teams' starting tables
# together, at most 4 x MAX_TABLES: a band or a doubling factor beyond that
# could move no more than all of them, which is why it is the bound.
MAX_TABLES = 1000  # tables each team starts with
MAX_BAND_TABLES = 4 * MAX_TABLES  # tables (or points) a payout band or a thani moves
MAX_FACTOR = 4 * MAX_TABLES  # what a double or redouble multiplies by, or adds
MAX_DEAL_LIMIT = 1000
MAX_TIE_DEALS = 24  # extra deals a knockout's tie rule plays before one deal at a time
TEAM_SIZES = (2, 3, 4)


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


class Scoring(StrEnum):
    """How a deal is counted: tables move between teams, or points go on a score sheet."""

    TABLES = "tables"
    POINTS = "points"


class DoublingMode(StrEnum):
    """What doubling does to what the band gives: multiply it (x2, x4) or add to it (+1, +2)."""

    MULTIPLY = "multiply"
    ADD = "add"


class Preset(StrEnum):
    """The named bundles of settings a club picks a game by (docs/rules.md section D)."""

    TABLES = "tables"
    INTERNATIONAL = "international"
    KODI = "kodi"
    CUSTOM = "custom"


class RulesError(TranslatableError):
    """A deal or a setting that cannot be under the rules.

    ``field`` names the part at fault (``bid``, ``points``, ``declarer`` ...).
    A ``team`` value is a team's index: :meth:`translated` shows it as the
    team's name when the names are given, else as "team 2".
    """

    def team_name(self, team, gettext, team_names: Sequence[str] | None = None):
        index = int(team)
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
class Thani:
    """What a thani moves (tables) or scores (points) when it is made, and when it fails."""

    made: int
    failed: int


def _enum[E: StrEnum](enum: type[E], value: Any, field: str, message: str) -> E:
    """``value`` as a member of ``enum``; any other value is refused at ``field``."""
    try:
        return enum(value)
    except ValueError:
        raise RulesError(message, field=field, value=str(value)) from None


@dataclass(frozen=True)
class Rules:
    """Every setting a game is played by (docs/rules.md sections C and D), passed in as data.

    ``double_factor`` and ``redouble_factor`` multiply what the band gives, or
    with ``doubling_mode`` "add" are added to it. ``deal_limit`` ends the game
    after that many deals (required on a points sheet). ``small_deck`` deals
    four players J 9 A 10 only (32 cards); the piles still total 56.
    ``tie_deals`` is a knockout's tie rule (docs/rules.md section E): a game whose
    leaders are level when its deal limit is reached plays that many more
    deals, then one deal at a time until they differ; ``None`` lets a tie stand
    (shared). Without a deal limit it still means the game cannot end level:
    time called on a level game is played on, one deal at a time.
    """

    tables_per_team: int = 12
    bands: tuple[Band, ...] = DEFAULT_BANDS
    double_factor: int = 2
    redouble_factor: int = 4
    team_size: int = 2
    min_bid: int = 28
    max_bid: int = TOTAL_POINTS
    scoring: Scoring = Scoring.TABLES
    doubling_mode: DoublingMode = DoublingMode.MULTIPLY
    all_pass: bool = True
    kodi: bool = False
    thani: Thani | None = None
    deal_limit: int | None = None
    small_deck: bool = False
    tie_deals: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "scoring",
            _enum(Scoring, self.scoring, "scoring", _("%(value)s is not a way to score.")),
        )
        object.__setattr__(
            self,
            "doubling_mode",
            _enum(
                DoublingMode,
                self.doubling_mode,
                "doubling",
                _("%(value)s is not a way to double: choose multiply or add."),
            ),
        )
        if self.team_size not in TEAM_SIZES:
            raise RulesError(
                _("A team is 2, 3 or 4 players, not %(size)s."),
                size=self.team_size,
                field="team_size",
            )
        if self.tables_per_team < 1:
            raise RulesError(_("Each team must start with at least 1 table."), field="tables")
        if self.double_factor < 1 or self.redouble_factor < 1:
            raise RulesError(_("Doubling factors must be at least 1."), field="doubling")
        self._check_bands()
        if self.thani is not None and (self.thani.made < 0 or self.thani.failed < 0):
            raise RulesError(_("A thani cannot move or score a negative number."), field="thani")
        if self.deal_limit is not None and self.deal_limit < 1:
            raise RulesError(_("A deal limit must be at least 1 deal."), field="deal_limit")
        if self.tie_deals is not None:
            if not 0 <= self.tie_deals <= MAX_TIE_DEALS:
                raise RulesError(
                    _("A tie is played on for 0 to %(most)d extra deals, not %(deals)s."),
                    most=MAX_TIE_DEALS,
                    deals=self.tie_deals,
                    field="tie_deals",
                )
        if self.scoring == Scoring.POINTS:
            if self.kodi:
                raise RulesError(
                    _("Kodi is counted in tables; a game scored in points has none."),
                    field="kodi",
                )
            if self.deal_limit is None:
                raise RulesError(
                    _(
                        "A game scored in points needs a deal limit: its session is a set "
                        "number of deals."
                    ),
                    field="deal_limit",
                )

    def _check_bands(self) -> None:
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

    @property
    def eliminates(self) -> bool:
        """Whether a team with no tables left is out (tables scoring without kodi)."""
        return self.scoring == Scoring.TABLES and not self.kodi

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
        """What a contract's band figure is multiplied by (``doubling_mode`` multiply)."""
        return {
            Doubling.NONE: 1,
            Doubling.DOUBLE: self.double_factor,
            Doubling.REDOUBLE: self.redouble_factor,
        }[doubling]

    def due(self, figure: int, doubling: Doubling) -> int:
        """What a band's figure comes to once doubled: multiplied, or with something added."""
        doubling = Doubling(doubling)
        if doubling == Doubling.NONE:
            return figure
        if self.doubling_mode == DoublingMode.MULTIPLY:
            return figure * self.factor(doubling)
        added = self.double_factor if doubling == Doubling.DOUBLE else self.redouble_factor
        return figure + added

    def is_default(self) -> bool:
        return self == DEFAULT_RULES


DEFAULT_RULES = Rules()


def check_house_rules(rules: Rules) -> None:
    """Refuse house rules beyond the bounds (MAX_TABLES, MAX_BAND_TABLES, MAX_FACTOR ...).

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
    if rules.thani is not None and max(rules.thani.made, rules.thani.failed) > MAX_BAND_TABLES:
        raise RulesError(
            _("A thani moves at most %(most)d, not %(tables)d."),
            most=MAX_BAND_TABLES,
            tables=max(rules.thani.made, rules.thani.failed),
            field="thani",
        )
    if rules.scoring == Scoring.POINTS:
        _check_sheet_bound(rules)
    if rules.deal_limit is not None and rules.deal_limit > MAX_DEAL_LIMIT:
        raise RulesError(
            _("A game can be at most %(most)d deals, not %(limit)d."),
            most=MAX_DEAL_LIMIT,
            limit=rules.deal_limit,
            field="deal_limit",
        )


def _check_sheet_bound(rules: Rules) -> None:
    """Refuse settings under which one deal on a points sheet could score past the bound."""
    # Nothing is conserved on a sheet: bound what one deal can score, so that a
    # whole session (MAX_DEAL_LIMIT deals) stays a number the database keeps.
    figures = [figure for band in rules.bands for figure in (band.made, band.failed)]
    if rules.thani is not None:
        figures += [rules.thani.made, rules.thani.failed]
    most = max(rules.due(figure, Doubling.REDOUBLE) for figure in figures)
    if most > MAX_BAND_TABLES:
        raise RulesError(
            _(
                "On a points sheet a deal scores at most %(most)d points; with these "
                "settings one could score %(points)d."
            ),
            most=MAX_BAND_TABLES,
            points=most,
            field="doubling",
        )


# --- Presets -----------------------------------------------------------------

INTERNATIONAL_DEALS = 18  # a session; 24 in the later stages of an event


def preset_rules(preset: Preset | str, players: int = 4) -> Rules:
    """The settings of a named preset for a table of ``players`` (docs/rules.md section D).

    *Tables* is the game of sections A to C, in teams of two. *56 International*
    is two teams of three on a points sheet with added doubling, the first
    bidder opening, for 18 deals. *Kodi night* is two teams of half the table
    each, 6 tables a team (7 with eight players), kodi on.
    """
    preset = _enum(Preset, preset, "preset", _("%(value)s is not a preset."))
    if preset == Preset.TABLES:
        return DEFAULT_RULES
    if preset == Preset.INTERNATIONAL:
        return Rules(
            team_size=3,
            scoring=Scoring.POINTS,
            doubling_mode=DoublingMode.ADD,
            double_factor=1,
            redouble_factor=2,
            all_pass=False,
            deal_limit=INTERNATIONAL_DEALS,
        )
    if preset == Preset.KODI:
        card_setup(players)
        return Rules(team_size=players // 2, tables_per_team=7 if players == 8 else 6, kodi=True)
    raise RulesError(_("A custom game is given its settings one by one."), field="preset")


def preset_of(rules: Rules, players: int) -> Preset:
    """The preset these settings are, else Custom.

    The deal limit is the club's to set in any preset: a Tables game may stop
    after 16 deals, an International session is 18 deals (24 in later stages);
    so is a knockout's tie rule.
    """

    def same_but_deals(preset: Rules) -> bool:
        # (compared on the preset's own limit: a points sheet cannot be without one)
        return rules.scoring == preset.scoring and (
            replace(rules, deal_limit=preset.deal_limit, tie_deals=None) == preset
        )

    if same_but_deals(DEFAULT_RULES):
        return Preset.TABLES
    if same_but_deals(preset_rules(Preset.INTERNATIONAL)):
        return Preset.INTERNATIONAL
    if players in (4, 6, 8) and same_but_deals(preset_rules(Preset.KODI, players)):
        return Preset.KODI
    return Preset.CUSTOM


# --- Seats and cards -------------------------------------------------------


def seat_order(team_count: int, team_size: int = 2) -> list[tuple[int, int]]:
    """Seats in play order as ``(team index, partner index)`` pairs.

    The first players of every team in team order, then the second players,
    and so on: T1.p1, T2.p1, T1.p2, T2.p2, T1.p3, T2.p3 for two teams of three.
    """
    return [(team, partner) for partner in range(team_size) for team in range(team_count)]


def check_table(team_count: int, team_size: int) -> None:
    """Refuse a table that cannot be seated: 2 to 4 teams of two, or two teams of three or four."""
    if team_size not in TEAM_SIZES:
        raise RulesError(
            _("A team is 2, 3 or 4 players, not %(size)s."), size=team_size, field="team_size"
        )
    if team_size == 2 and team_count not in (2, 3, 4):
        raise RulesError(
            _("Teams of two play two, three or four at a table, not %(count)d."),
            count=team_count,
            field="teams",
        )
    if team_size > 2 and team_count != 2:
        raise RulesError(
            _("Teams of %(size)d play two against each other, not %(count)d teams."),
            size=team_size,
            count=team_count,
            field="teams",
        )


@dataclass(frozen=True)
class CardSetup:
    players: int
    removed: str  # the ranks taken out of each pack, e.g. "2 to 8"
    cards_used: int
    cards_each: int
    ranks: tuple[str, ...]  # high to low
    points: tuple[tuple[str, int], ...] = (("J", 3), ("9", 2), ("A", 1), ("10", 1))


_CARD_SETUPS = {
    4: CardSetup(4, "2–8", 48, 12, ("J", "9", "A", "10", "K", "Q")),
    6: CardSetup(6, "2–8", 48, 8, ("J", "9", "A", "10", "K", "Q")),
    8: CardSetup(8, "2–6", 64, 8, ("J", "9", "A", "10", "K", "Q", "8", "7")),
}
# Some clubs deal four players J 9 A 10 only: 32 cards, 8 each, the piles still 56.
SMALL_DECK = CardSetup(4, "2–8, K, Q", 32, 8, ("J", "9", "A", "10"))


def card_setup(players: int, small_deck: bool = False) -> CardSetup:
    """How the two packs are cut down for the players still seated, whatever the team sizes.

    Two players left means the game is over; they need no cards.
    """
    if small_deck and players == 4:
        return SMALL_DECK
    try:
        return _CARD_SETUPS[players]
    except KeyError:
        raise RulesError(
            _("56 is played by 4, 6 or 8 players, not %(players)d."), players=players
        ) from None
