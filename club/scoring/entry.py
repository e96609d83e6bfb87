"""A deal as a scorer enters it: the deal form's fields, every check at once.

The deal form sends text: ``declarer`` (a player's id, ``pass`` when everyone
passed, or ``thani:<id>`` as older pages sent a thani), ``bid`` (a number, or
``thani``), ``trump``, ``doubling``, ``thani_made`` (``yes`` or ``no``) and a
pile ``points_<team>`` for every team still playing. :func:`read_entry` checks
all of it together and names every mistake at its field, in the words of
:data:`MESSAGES`, or gives the deal as the rules core takes it.

The phone runs the same checks as it is tapped (``static/js/entry.js``, with
these messages translated in the page), so a scorer sees a mistake before
sending and in the very words the server would use;
``tests/scoring/test_phone_entry.py`` holds the two to the same answers on
random entries. Whatever passes here, :func:`club.scoring.rules.settle`
settles (unless the game is already over).

Nothing contradictory is let through: a thani that is doubled, has trumps or
piles; "made" or "failed" on a deal that is not a thani; a thani in a game
that plays none; a bid, trumps or doubling when everyone passed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from club.scoring.house_rules import (
    TOTAL_POINTS,
    Doubling,
    Rules,
    RulesError,
    Trump,
    seat_order,
)
from club.scoring.messages import _

ALL_PASS = "pass"
THANI = "thani"
OLD_THANI = "thani:"  # the declarer "thani:<player id>" of pages before the bid pad
YES, NO = "yes", "no"
WHOLE = re.compile(r"-?[0-9]{1,9}")
# The digits a phone's keyboard may type besides 0-9 (Devanagari, Malayalam, Thai), read as
# 0-9; and the whitespace stripped from what is typed (entry.js strips the same).
DIGITS = {zero + digit: str(digit) for zero in (0x966, 0xD66, 0xE50) for digit in range(10)}
SPACE = " \t\n\r\f\v"

# Every refusal of an entry, by a code the phone knows it by.
MESSAGES = {
    "declarer": _("Choose who won the bidding."),
    "declarer_or_pass": _("Choose who won the bidding, or All passed."),
    "seat": _("The declarer must be one of the players seated."),
    "declarer_out": _("The declarer's team, %(team)s, is out and cannot bid."),
    "thani_out": _("The thani player's team, %(team)s, is out and cannot play."),
    "must_open": _(
        "Everyone passed, but in this game the first bidder must open at %(bid)d or more."
    ),
    "no_thani": _("This game is not played with thani."),
    "thani_pass": _("A thani is played by one player: choose who played it, not All passed."),
    "bid": _("Enter the bid, from %(low)d to %(high)d."),
    "bid_whole": _("The bid must be a whole number from %(low)d to %(high)d."),
    "bid_range": _("A bid must be from %(low)d to %(high)d; %(bid)d is not."),
    "pass_bid": _("When everyone passes the contract is %(bid)d; no other bid can be given."),
    "trump": _("Choose the trumps, or no trumps."),
    "pass_trump": _("When everyone passes the deal is played with no trumps."),
    "doubling": _("Choose not doubled, doubled or redoubled."),
    "pass_doubled": _("A deal where everyone passed cannot be doubled or redoubled."),
    "thani_doubled": _("A thani cannot be doubled or redoubled."),
    "thani_alone": _(
        "A thani has no bid, trumps or piles: only its player and whether it was made."
    ),
    "thani_made": _("Say whether the thani was made or failed."),
    "not_thani": _("Only a thani is marked made or failed; this deal is not a thani."),
    "pile": _("Enter the pile of %(team)s."),
    "pile_whole": _("The pile of %(team)s must be a whole number."),
    "pile_range": _("The pile of %(team)s is from 0 to 56 card points."),
    "total": _("The piles add up to %(total)d; they must add up to exactly 56."),
}


def messages_for(rules: Rules) -> dict[str, str]:
    """The messages an entry of a game under ``rules`` can be refused with: no word of
    everyone passing where the first bidder must open, none of thani where none is played
    (beyond the refusal of one)."""
    dropped = set()
    if not rules.all_pass:
        dropped |= {"declarer_or_pass", "pass_bid", "pass_trump", "pass_doubled", "thani_pass"}
    if rules.thani is None:
        dropped |= {"thani_out", "thani_pass", "thani_doubled", "thani_alone", "thani_made"}
    return {code: text for code, text in MESSAGES.items() if code not in dropped}


class EntryError(RulesError):
    """One mistake of an entry: its ``code`` in :data:`MESSAGES`, at the form's ``field``
    (``None``: the entry as a whole)."""

    def __init__(self, code: str, *, field: str | None, **params: object):
        self.code = code
        super().__init__(MESSAGES[code], field=field, **params)


@dataclass(frozen=True)
class Entry:
    """An entry that passed every check: ``kind`` is ``bid``, ``pass`` or ``thani``;
    ``seat`` the declarer's or the thani player's; ``points`` by team."""

    kind: str
    seat: int | None = None
    bid: int | None = None
    trump: str | None = None
    doubling: str = Doubling.NONE
    made: bool | None = None
    points: dict[int, int] | None = None


def whole(text: str) -> int | None:
    """The whole number typed (digits, a minus before them: "1e1", "+5" and "3.0" are
    not), else None."""
    text = text.translate(DIGITS)
    return int(text) if WHOLE.fullmatch(text) else None


class _Form:
    """The deal form's fields as typed, and every mistake found in them so far."""

    def __init__(self, fields: Mapping[str, object]):
        self.fields = fields
        self.errors: list[EntryError] = []
        self.declarer, self.bid = self.get("declarer"), self.get("bid")
        self.trump, self.made = self.get("trump"), self.get("thani_made")
        self.doubling = self.get("doubling") or Doubling.NONE

    def get(self, name: str) -> str:
        """A field's text without the whitespace around it; empty when missing or not text."""
        value = self.fields.get(name)
        return value.strip(SPACE) if isinstance(value, str) else ""

    def refuse(self, code: str, field: str | None, **params: object) -> None:
        """Note one mistake, at the form's ``field``."""
        self.errors.append(EntryError(code, field=field, **params))


def read_entry(
    rules: Rules,
    seats: Sequence[str],
    in_play: Sequence[int],
    fields: Mapping[str, object],
) -> tuple[Entry | None, list[EntryError]]:
    """Check an entry of the deal form; the deal it is, or every mistake in it.

    ``seats`` are the players' ids in seat order, as the form names them;
    ``in_play`` the teams still playing, whose piles the form asks for.
    """
    form = _Form(fields)
    old_thani = form.declarer.startswith(OLD_THANI)
    asks_thani = old_thani or form.bid == THANI
    thani = asks_thani and rules.thani is not None
    kind = "pass" if form.declarer == ALL_PASS else "thani" if thani else "bid"

    seat = _read_declarer(form, rules, seats, in_play, thani)
    if asks_thani and rules.thani is None:
        form.refuse("no_thani", "declarer" if old_thani else "bid")
    elif thani and kind == "pass" and rules.all_pass:
        form.refuse("thani_pass", "bid")
    if form.doubling not in tuple(Doubling):
        form.refuse("doubling", "doubling")
    bid, piles = None, None
    if kind == "thani":
        _check_thani(form, in_play)
    else:
        if form.made:
            form.refuse("not_thani", "thani_made")
        if kind == "pass":
            _check_all_pass(form, rules)
        else:
            bid = _read_bid(form, rules)
        piles = _piles(form, in_play)

    if form.errors:
        return None, form.errors
    if kind == "thani":
        return Entry("thani", seat=seat, made=form.made == YES), []
    if kind == "pass":
        return Entry("pass", points=piles), []
    entry = Entry("bid", seat=seat, bid=bid, trump=form.trump, doubling=form.doubling, points=piles)
    return entry, []


def _read_declarer(
    form: _Form, rules: Rules, seats: Sequence[str], in_play: Sequence[int], thani: bool
) -> int | None:
    """The seat of the declarer (or thani player): one seated, of a team still playing;
    or everyone passed, where the game allows it."""
    declarer = form.declarer
    if declarer == "":
        form.refuse("declarer_or_pass" if rules.all_pass else "declarer", "declarer")
        return None
    if declarer == ALL_PASS:
        if not rules.all_pass:
            form.refuse("must_open", "declarer", bid=rules.min_bid)
        return None
    player = declarer.removeprefix(OLD_THANI)
    if player not in seats:
        form.refuse("seat", "declarer")
        return None
    team_count = len(seats) // rules.team_size if rules.team_size else 0
    seat = seats.index(player)
    team = seat_order(team_count, rules.team_size)[seat][0]
    if team not in in_play:
        form.refuse("thani_out" if thani else "declarer_out", "declarer", team=team)
    return seat


def _check_thani(form: _Form, in_play: Sequence[int]) -> None:
    """A thani: its player and whether it was made, nothing more."""
    if form.bid not in ("", THANI):
        form.refuse("thani_alone", "bid")
    if form.trump:
        form.refuse("thani_alone", "trump")
    if form.doubling in (Doubling.DOUBLE, Doubling.REDOUBLE):
        form.refuse("thani_doubled", "doubling")
    if form.made not in (YES, NO):
        form.refuse("thani_made", "thani_made")
    for team in in_play:
        if form.get(f"points_{team}"):
            form.refuse("thani_alone", f"points_{team}")


def _check_all_pass(form: _Form, rules: Rules) -> None:
    """Everyone passed: the lowest bid at most, no trumps, not doubled."""
    if not rules.all_pass:  # refused with the declarer: the first bidder must open
        return
    if form.bid not in ("", str(rules.min_bid), THANI):
        form.refuse("pass_bid", "bid", bid=rules.min_bid)
    if form.trump not in ("", Trump.NO_TRUMPS):
        form.refuse("pass_trump", "trump")
    if form.doubling in (Doubling.DOUBLE, Doubling.REDOUBLE):
        form.refuse("pass_doubled", "doubling")


def _read_bid(form: _Form, rules: Rules) -> int | None:
    """The bid, a whole number in the game's range, and the trumps it was played in."""
    bid = whole(form.bid)
    low, high = rules.min_bid, rules.max_bid
    if form.bid == THANI:  # refused with the declarer: the game plays no thani
        pass
    elif form.bid == "":
        form.refuse("bid", "bid", low=low, high=high)
    elif bid is None:
        form.refuse("bid_whole", "bid", low=low, high=high)
    elif not low <= bid <= high:
        form.refuse("bid_range", "bid", low=low, high=high, bid=bid)
    if form.trump not in tuple(Trump):
        form.refuse("trump", "trump")
    return bid


def _piles(form: _Form, in_play: Sequence[int]) -> dict[int, int]:
    """The pile of each team still playing, from 0 to 56, all adding up to 56."""
    piles: dict[int, int] = {}
    for team in in_play:
        name = f"points_{team}"
        text = form.get(name)
        pile = whole(text)
        if text == "":
            form.refuse("pile", name, team=team)
        elif pile is None:
            form.refuse("pile_whole", name, team=team)
        elif not 0 <= pile <= TOTAL_POINTS:
            form.refuse("pile_range", name, team=team)
        else:
            piles[team] = pile
    if len(piles) == len(in_play) and sum(piles.values()) != TOTAL_POINTS:
        form.refuse("total", None, total=sum(piles.values()))
    return piles
