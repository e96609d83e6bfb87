"""A night's deals counted for one side: contracts by bid band, thani and all-pass deals,
doubled and redoubled deals, and the partner it went best with; no Django.

A player's night in review (``club.leaderboards.night``) reads the deals of the games
they sat at and hands them here, each as the side that declared it (the player's team,
*ours*, or an opponent, *theirs*), its bid, doubling and whether it was made.

*Bands* are the bid bands of docs/rules.md section A (28 to 39, 40 to 47, 48 to 55, 56):
every game's deals are counted in the same bands, whatever payout schedule a game used
(section C lets a club move tables per band, and its bands' edges), so that the nights and
spans of different games add up. A *thani* (section D) has no bid and is a row of its
own; so is an *all-pass* deal (section B.1), whose contracted team is counted as
declaring it, as the boards count a team's contracts.

A contract of ours is *declared* and *made* or failed; one of theirs that failed was
*defeated* by our side. A doubled (or redoubled) deal is *won* by our side when we
declared and made it, or they declared and failed it, as the boards count doubles.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from club.scoring.house_rules import DEFAULT_BANDS, Band, Doubling


class Kind(StrEnum):
    """What a row of the contracts counts: a bid band, a thani or an all-pass deal."""

    BAND = "band"
    THANI = "thani"
    ALL_PASS = "all-pass"


@dataclass(frozen=True)
class DealSeen:
    """One deal (or ``count`` alike) as the review counts it."""

    ours: bool  # declared by the player's team
    bid: int | None  # None for a thani
    made: bool
    doubling: Doubling = Doubling.NONE
    thani: bool = False
    all_pass: bool = False
    count: int = 1


@dataclass
class Tally:
    declared: int = 0
    made: int = 0

    @property
    def failed(self) -> int:
        return self.declared - self.made

    def add(self, made: bool, count: int) -> None:
        self.declared += count
        self.made += count if made else 0


@dataclass
class ContractRow:
    """A row of the contracts: ours declared and made; theirs declared and failed (defeated)."""

    kind: Kind
    band: Band | None = None  # for a bid band
    ours: Tally = field(default_factory=Tally)
    theirs: Tally = field(default_factory=Tally)

    @property
    def defeated(self) -> int:
        return self.theirs.failed


@dataclass
class DoubledRow:
    """The doubled (or redoubled) deals: ours and theirs, each made or failed."""

    doubling: Doubling
    ours: Tally = field(default_factory=Tally)
    theirs: Tally = field(default_factory=Tally)

    @property
    def deals(self) -> int:
        return self.ours.declared + self.theirs.declared

    @property
    def won(self) -> int:
        return self.ours.made + self.theirs.failed

    @property
    def lost(self) -> int:
        return self.deals - self.won


@dataclass
class Contracts:
    rows: list[ContractRow]  # the four bands, then thani, then all pass
    doubled: list[DoubledRow]  # doubled, then redoubled

    @property
    def declared(self) -> int:
        return sum(row.ours.declared for row in self.rows)

    @property
    def made(self) -> int:
        return sum(row.ours.made for row in self.rows)

    @property
    def defeated(self) -> int:
        return sum(row.defeated for row in self.rows)

    @property
    def any_doubled(self) -> bool:
        return any(row.deals for row in self.doubled)


def band_of(bid: int, bands: tuple[Band, ...] = DEFAULT_BANDS) -> Band:
    """The bid band ``bid`` is counted in: the last band whose low end it reaches (a bid
    is 28 to 56; a bid outside is counted in the nearest band)."""
    found = bands[0]
    for band in bands:
        if bid >= band.low:
            found = band
    return found


def count_contracts(deals: Iterable[DealSeen]) -> Contracts:
    """Count ``deals`` into the bands, thani and all-pass rows, and the doubled rows."""
    bands = {band: ContractRow(Kind.BAND, band) for band in DEFAULT_BANDS}
    thani, all_pass = ContractRow(Kind.THANI), ContractRow(Kind.ALL_PASS)
    doubled = {kind: DoubledRow(kind) for kind in (Doubling.DOUBLE, Doubling.REDOUBLE)}
    for deal in deals:
        if deal.thani:
            row = thani
        elif deal.all_pass:
            row = all_pass
        else:
            row = bands[band_of(deal.bid if deal.bid is not None else DEFAULT_BANDS[0].low)]
        (row.ours if deal.ours else row.theirs).add(deal.made, deal.count)
        if deal.doubling in doubled:
            line = doubled[Doubling(deal.doubling)]
            (line.ours if deal.ours else line.theirs).add(deal.made, deal.count)
    return Contracts([*bands.values(), thani, all_pass], list(doubled.values()))


@dataclass
class Partnership:
    """The games a player played beside one partner: how many, won, and the tables net."""

    partner: int  # the partner's id
    name: str
    played: int = 0
    won: int = 0
    tables_net: int = 0

    @property
    def share(self) -> Fraction:
        """The share of their games together won, exactly (2 of 6 is 1 of 3)."""
        return Fraction(self.won, self.played) if self.played else Fraction(0)

    @property
    def percent(self) -> int:
        return round(100 * self.share)


def best_partners(partnerships: Iterable[Partnership]) -> list[Partnership]:
    """The partners it went best with: the highest share of games won together, then the
    most games won, then the most tables net; all of them if level on the three (by name).
    None for a player who had no partner with a game."""
    played = [each for each in partnerships if each.played]
    if not played:
        return []

    def key(each: Partnership) -> tuple[Fraction, int, int]:
        return (each.share, each.won, each.tables_net)

    top = max(key(each) for each in played)
    return sorted((each for each in played if key(each) == top), key=lambda each: each.name)


def ranked_partnerships(partnerships: Iterable[Partnership]) -> list[Partnership]:
    """Every partner, the best first (as :func:`best_partners` ranks them), then by name."""
    return sorted(
        partnerships, key=lambda each: (-each.share, -each.won, -each.tables_net, each.name)
    )
