"""A competition's table over its nights: a club's season, a federation's circuit.

Like :mod:`club.scoring.standings` this module imports nothing from Django: the caller
turns the nights and events a competition counts into :class:`Night` values (each line's
place and match points in it) and shows the :class:`Line` rows :func:`table` returns.
The rules are docs/rules.md section F.

Terms
-----
night
    One unit the competition counts: a club night (the club's games outside tournaments
    on one day, placed as a tournament's standings would place them) or an event (a
    tournament, placed by its standings). Each has a day, for the order of the nights.
line
    A team or a player of the table, by id. A player's result in a night is the caller's
    to make from the seats the player sat in.
score
    What a line earns in a night: under ``places``, the points the rule's table gives its
    place (places it shares split the points of the places they span, as a game's places
    do; a place beyond the table earns 0); under ``match points``, the match points it
    earned that night.
best N of M
    Only the N best scores of a line count (the latest of equal scores kept first); the
    rest are dropped, and both are shown.
minimum
    A line with fewer nights than the minimum is listed below the ranked lines, with no
    place, until it has played enough.

Order of the table
------------------
Ranked lines by, in turn: the total of their counted scores, more first; nights won
(first place alone), more first; head to head among the lines still level (in every
night two of them played, the one placed higher scores 1 and the other -1; more first,
again among any smaller group still level); the latest night (the days from the last
back, a better place first, a day not played after any place; the nights of one day are
equally late, a line's best place of the day counting). Lines level on
everything share a place (1, 2, 2, 4) and keep the caller's order (by name). Never the
order rows came out of the database.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from fractions import Fraction
from math import lcm
from typing import Any

from club.scoring.messages import TranslatableError, _

__all__ = [
    "MATCH_POINTS",
    "METHODS",
    "PLACES",
    "PRESETS",
    "Line",
    "Night",
    "Result",
    "Rule",
    "SeasonError",
    "night_score",
    "table",
]

PLACES, MATCH_POINTS = "places", "match_points"
METHODS = (PLACES, MATCH_POINTS)
MAX_PLACES = 64  # a points table longer than any field a club night has

# What separated a line from the lines level with it on total.
WON, HEAD_TO_HEAD, LATEST, SHARED = "won", "head_to_head", "latest", "shared"
INF = float("inf")  # the place of a day a line did not play

# The points per place clubs use most (the organiser's form offers them by name).
PRESETS: Mapping[str, tuple[int, ...]] = {
    "f1": (25, 18, 15, 12, 10, 8, 6, 4, 2, 1),
    "ten": (10, 8, 6, 5, 4, 3, 2, 1),
    "five": (5, 4, 3, 2, 1),
}


class SeasonError(TranslatableError):
    """A competition's rule the table cannot be computed by."""


@dataclass(frozen=True)
class Result:
    """One line's result in one night."""

    place: int  # 1 = best
    sharing: int = 1  # how many lines share the place (1: alone)
    points: Fraction = Fraction(0)  # match points earned that night


@dataclass(frozen=True)
class Night:
    """One night or event of the competition, with each line's result in it."""

    key: str
    day: date
    results: Mapping[int, Result]
    order: int = 0  # nights of one day in this order (then by key): a number, never text


@dataclass(frozen=True)
class Rule:
    """How a competition turns its nights into a table."""

    method: str = PLACES
    place_points: tuple[int, ...] = PRESETS["ten"]
    best: int | None = None  # count only the best N nights (None: every night)
    minimum: int = 1  # nights a line needs to be ranked

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise SeasonError(_("A competition scores by places or by match points."))
        points = tuple(self.place_points)
        object.__setattr__(self, "place_points", points)
        if self.method == PLACES and not points:
            raise SeasonError(
                _("Give the points for at least the first place."), field="place_points"
            )
        if len(points) > MAX_PLACES:
            raise SeasonError(
                _("Points for at most %(count)d places."), field="place_points", count=MAX_PLACES
            )
        if not all(type(value) is int and value >= 0 for value in points):
            raise SeasonError(
                _("The points for each place are whole numbers, not negative."),
                field="place_points",
            )
        if any(better < worse for better, worse in zip(points, points[1:], strict=False)):
            raise SeasonError(
                _("The points cannot rise from a place to the next."), field="place_points"
            )
        if self.best is not None and not (type(self.best) is int and self.best >= 1):
            raise SeasonError(_("The nights counted start at 1."), field="best")
        if not (type(self.minimum) is int and self.minimum >= 0):
            raise SeasonError(_("The minimum of nights is 0 or more."), field="minimum")


@dataclass(frozen=True)
class Line:
    """One row of the table."""

    line: int
    place: int | None  # None: fewer nights than the minimum
    shared: bool
    total: Fraction
    scores: Mapping[str, Fraction]  # night key -> the line's score in it
    counted: tuple[str, ...]  # night keys, in the order of the nights
    dropped: tuple[str, ...]
    won: int
    decided_by: str = ""  # what set it apart from the lines level on total ("" : none was)
    places: Mapping[str, Result] = field(default_factory=dict)

    @property
    def nights(self) -> int:
        return len(self.scores)


def night_score(rule: Rule, result: Result) -> Fraction:
    """What ``result`` earns under ``rule``."""
    if rule.method == MATCH_POINTS:
        return Fraction(result.points)
    if result.place < 1 or result.sharing < 1:
        raise SeasonError(_("A place and the number sharing it start at 1."))
    spanned = range(result.place - 1, result.place - 1 + result.sharing)
    points = rule.place_points
    return Fraction(sum(points[at] if at < len(points) else 0 for at in spanned), result.sharing)


def _counted(
    scores: Mapping[str, Fraction], rank: Mapping[str, int], best: int | None
) -> tuple[set[str], set[str], Fraction]:
    """The nights that count (the best ``best``, the later first among equal scores), those
    dropped, and the total of those counted. Each score is weighed as a whole number over
    the scores' common denominator: the fractions' own order and sum, at the speed of
    whole numbers (a season's forty scores a line sorted as fractions took most of its
    table's time)."""
    common = lcm(*(score.denominator for score in scores.values()))
    whole = {key: score.numerator * (common // score.denominator) for key, score in scores.items()}
    if best is None or len(scores) <= best:
        counted, dropped = set(scores), set()
    else:
        ordered = sorted(whole, key=lambda key: (-whole[key], -rank[key]))
        counted, dropped = set(ordered[:best]), set(ordered[best:])
    return counted, dropped, Fraction(sum(whole[key] for key in counted), common)


def _scorer(rule: Rule) -> Callable[[Result], Fraction]:
    """:func:`night_score` under ``rule``; under ``places`` each place and sharing is
    worked out once a table (a season's 1,200 results share a few dozen)."""
    if rule.method == MATCH_POINTS:
        return lambda result: night_score(rule, result)
    known: dict[tuple[int, int], Fraction] = {}

    def score(result: Result) -> Fraction:
        at = (result.place, result.sharing)
        if at not in known:
            known[at] = night_score(rule, result)
        return known[at]

    return score


def table(nights: Sequence[Night], rule: Rule, order: Sequence[int]) -> list[Line]:
    """The competition's table: ``order`` lists every line, in the order lines that share
    a place are shown in (by name); a line of a night missing from it is refused."""
    ordered = sorted(nights, key=lambda night: (night.day, night.order, night.key))
    rank = {night.key: at for at, night in enumerate(ordered)}
    if len(rank) != len(ordered):
        raise SeasonError(_("A night is listed twice."))
    known = set(order)
    if len(known) != len(order):
        raise SeasonError(_("A line is listed twice."))
    lines: dict[int, Line] = {}
    score = _scorer(rule)
    for line in order:
        results = {n.key: n.results[line] for n in ordered if line in n.results}
        scores = {key: score(result) for key, result in results.items()}
        counted, dropped, total = _counted(scores, rank, rule.best)
        lines[line] = Line(
            line=line,
            place=None,
            shared=False,
            total=total,
            scores=scores,
            counted=tuple(key for key in scores if key in counted),
            dropped=tuple(key for key in scores if key in dropped),
            won=sum(1 for result in results.values() if result.place == 1 and result.sharing == 1),
            places=results,
        )
    strays = {line for night in ordered for line in night.results} - known
    if strays:
        raise SeasonError(
            _("A night has a line the table does not list: %(line)s."), line=min(strays)
        )
    ranked = [line for line in order if lines[line].nights >= max(rule.minimum, 1)]
    unranked = [line for line in order if line not in set(ranked)]
    rows = _placed([lines[line] for line in ranked], ordered)
    rows.extend(sorted((lines[line] for line in unranked), key=lambda row: -row.total))
    return rows


def _placed(lines: list[Line], nights: Sequence[Night]) -> list[Line]:
    """The ranked lines in order, each with its place and what separated it."""
    out: list[Line] = []
    for group in _split(lines, lambda row: -row.total):
        for part, decided in _broken(group, nights):
            place = len(out) + 1
            shared = len(part) > 1
            for row in part:
                decided_by = decided if len(group) > 1 else ""
                out.append(replace(row, place=place, shared=shared, decided_by=decided_by))
    return out


def _split(rows: list[Line], key: Callable[[Line], Any]) -> list[list[Line]]:
    """``rows`` in groups of equal ``key``, smallest key first, each group in the given
    order (sorted is stable); ``key`` is asked once a row."""
    keyed = sorted(((key(row), at, row) for at, row in enumerate(rows)), key=lambda k: k[:2])
    groups: list[list[Line]] = []
    last: Any = object()
    for value, _at, row in keyed:
        if groups and value == last:
            groups[-1].append(row)
        else:
            groups.append([row])
        last = value
    return groups


def _broken(group: list[Line], nights: Sequence[Night]) -> list[tuple[list[Line], str]]:
    """A group level on total, split by nights won, head to head and the latest night: each
    part with the rule that set it apart from the rest of the group (a part of lines still
    level among themselves shares its place, and says what set it apart all the same);
    ``shared`` for a group no rule splits."""
    if len(group) == 1:
        return [(group, "")]
    parts: list[tuple[list[Line], str]] = []
    by_won = _split(group, lambda row: -row.won)
    for won_part in by_won:
        if len(won_part) == 1:
            parts.append((won_part, WON))
            continue
        by_meeting = _head_to_head(won_part)
        for meeting_part in by_meeting:
            if len(meeting_part) == 1:
                parts.append((meeting_part, HEAD_TO_HEAD))
                continue
            by_latest = _split(meeting_part, _latest_key(nights))
            for latest_part in by_latest:
                if len(by_latest) > 1:
                    parts.append((latest_part, LATEST))
                elif len(by_meeting) > 1:
                    parts.append((latest_part, HEAD_TO_HEAD))
                elif len(by_won) > 1:
                    parts.append((latest_part, WON))
                else:
                    parts.append((latest_part, SHARED))
    return parts


def _meetings(group: list[Line]) -> dict[int, int]:
    """Head to head within ``group``: for each line, +1 for each night and each other line
    of the group it placed above in it, -1 for each it placed below (each night's places
    sorted once, so a large group costs no more than its nights' sorting)."""
    score = {row.line: 0 for row in group}
    keys = {key for row in group for key in row.places}
    for key in keys:
        places = sorted(row.places[key].place for row in group if key in row.places)
        for row in group:
            result = row.places.get(key)
            if result is None:
                continue
            above = bisect_left(places, result.place)
            below = len(places) - bisect_right(places, result.place)
            score[row.line] += below - above
    return score


def _head_to_head(group: list[Line]) -> list[list[Line]]:
    """``group`` split by head to head, again within any smaller group still level."""
    met = _meetings(group)
    parts = _split(group, lambda row: -met[row.line])
    if len(parts) == 1:
        return parts
    out: list[list[Line]] = []
    for part in parts:
        out.extend(_head_to_head(part) if len(part) > 1 else [part])
    return out


def _latest_key(nights: Sequence[Night]) -> Callable[[Line], tuple[float, ...]]:
    """A line's places from the last day back: the nights of one day are equally late (two
    clubs' events of one day, in a circuit), a line's best place of the day counting; a
    day not played after any place."""
    days: dict[date, list[str]] = {}
    for night in nights:
        days.setdefault(night.day, []).append(night.key)
    latest_first = [days[day] for day in sorted(days, reverse=True)]

    def key(row: Line) -> tuple[float, ...]:
        return tuple(
            min((float(row.places[k].place) for k in keys if k in row.places), default=INF)
            for keys in latest_first
        )

    return key
