"""The draws of a tournament's stages (docs/rules.md section E), in plain Python.

A tournament may be played in *stages*, one after another: Swiss or random
sittings (club.scoring.draws), two groups A against B, a round robin, and a
knockout seeded from the standings so far. This module draws the chart of a
group stage or a round robin, all its sittings at once, and the bracket of a
knockout; it imports nothing from Django. Teams are ids (ints).

Two groups, A against B
    The teams are split into two groups, A one larger when their number is
    odd. Seeded by the standings (a later stage), they are dealt out like
    cards in a snake, 1 to A, 2 and 3 to B, 4 and 5 to A ... so the groups are
    of equal strength; otherwise at random. Sitting ``k`` (from 0) of the
    chart seats the ``i``-th team of A against the ``(i + k)``-th team of B,
    counting round the larger group: every A team meets a different B team in
    each sitting until it has met them all (no rematch while one can be
    avoided), and when A is one larger, the A team facing the missing B team
    sits out, each in turn. The order of group B is shuffled, so the chart
    does not simply follow the list.

A round robin
    Every team meets every other once, by the circle method: one team stays
    put and the others turn round it, a sitting a turn. With an odd number of
    teams one sits out in each sitting (each once).

A knockout
    The best ``N`` teams, by the standings, play elimination matches. The
    bracket has a place for every team of the next power of two (``P``); the
    top ``P - N`` seeds get a bye into the second round. Seeds are placed so
    that 1 and 2 can meet only in the final, 1 to 4 only in the semi-finals,
    and so on (seed ``s`` meets seed ``P + 1 - s`` in the first round). The
    winner of each match goes on to the next round by itself: the bracket is
    derived from the seeds and the results, never kept apart from them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from club.scoring.messages import TranslatableError, _

__all__ = [
    "MAX_KNOCKOUT_TEAMS",
    "Bracket",
    "Match",
    "StageError",
    "bracket",
    "bracket_size",
    "group_chart",
    "round_robin",
    "round_title",
    "seed_order",
    "split_groups",
]

MAX_KNOCKOUT_TEAMS = 64


class StageError(TranslatableError):
    """A stage that cannot be drawn as asked; ``field`` names what is at fault."""


@dataclass(frozen=True)
class Sitting:
    """One sitting of a chart: the games (two teams each, in seat order) and who sits out."""

    games: tuple[tuple[int, int], ...]
    byes: tuple[int, ...] = ()


def _distinct(teams: Sequence[int]) -> list[int]:
    teams = list(teams)
    if len(set(teams)) != len(teams):
        raise StageError(_("A team is listed twice."), field="teams")
    return teams


def split_groups(
    teams: Sequence[int], *, seeded: bool = False, rng: random.Random | None = None
) -> tuple[list[int], list[int]]:
    """Groups A and B: by the snake when ``teams`` are in standings order, else at random."""
    teams = _distinct(teams)
    if len(teams) < 2:
        raise StageError(_("Two groups need at least 2 teams."), field="teams")
    if not seeded:
        teams = list(teams)
        (rng or random.SystemRandom()).shuffle(teams)
    group_a: list[int] = []
    group_b: list[int] = []
    for index, team in enumerate(teams):
        # 0 -> A, 1, 2 -> B, 3, 4 -> A, ...: each pair of picks alternates.
        if (index + 1) // 2 % 2 == 0:
            group_a.append(team)
        else:
            group_b.append(team)
    if len(group_a) < len(group_b):
        group_a, group_b = group_b, group_a
    return group_a, group_b


def group_chart(
    group_a: Sequence[int],
    group_b: Sequence[int],
    sittings: int,
    *,
    rng: random.Random | None = None,
) -> list[Sitting]:
    """The chart of a stage of two groups: ``sittings`` sittings of A against B.

    Group A may be one team larger than B (its teams then sit out in turn).
    ``rng`` shuffles group B's order; without it the chart follows the lists.
    """
    group_a, group_b = _distinct(group_a), _distinct(group_b)
    if set(group_a) & set(group_b):
        raise StageError(_("A team cannot be in both groups."), field="groups")
    if not group_b or len(group_a) - len(group_b) not in (0, 1):
        raise StageError(
            _(
                "Groups A and B must be of the same size, or A one larger; they have "
                "%(a)d and %(b)d teams."
            ),
            a=len(group_a),
            b=len(group_b),
            field="groups",
        )
    if sittings < 1:
        raise StageError(_("A stage has at least 1 sitting."), field="sittings")
    if rng is not None:
        group_b = list(group_b)
        rng.shuffle(group_b)
    size = len(group_a)
    chart = []
    for k in range(sittings):
        games, byes = [], []
        for i, team in enumerate(group_a):
            j = (i + k) % size
            if j < len(group_b):
                games.append((team, group_b[j]))
            else:
                byes.append(team)
        chart.append(Sitting(tuple(games), tuple(byes)))
    return chart


def round_robin(teams: Sequence[int]) -> list[Sitting]:
    """Every team against every other once: ``n - 1`` sittings (``n`` when ``n`` is odd)."""
    teams = _distinct(teams)
    if len(teams) < 2:
        raise StageError(_("A round robin needs at least 2 teams."), field="teams")
    ring: list[int | None] = [*teams, None] if len(teams) % 2 else list(teams)
    count = len(ring)
    chart = []
    for _turn in range(count - 1):
        games, byes = [], []
        for i in range(count // 2):
            first, second = ring[i], ring[count - 1 - i]
            if first is None or second is None:
                byes.append(second if first is None else first)
            else:
                games.append((first, second))
        chart.append(Sitting(tuple(games), tuple(team for team in byes if team is not None)))
        ring = [ring[0], ring[-1], *ring[1:-1]]  # the first stays put; the rest turn
    return chart


# --- Knockout ------------------------------------------------------------------


def bracket_size(teams: int) -> int:
    """Places in the first round: the smallest power of two holding ``teams``."""
    if not 2 <= teams <= MAX_KNOCKOUT_TEAMS:
        raise StageError(
            _("A knockout is of 2 to %(most)d teams, not %(teams)d."),
            most=MAX_KNOCKOUT_TEAMS,
            teams=teams,
            field="qualifiers",
        )
    size = 2
    while size < teams:
        size *= 2
    return size


def seed_order(size: int) -> list[int]:
    """The seeds (1 = best) down the bracket's first round: 1, 8, 4, 5, 2, 7, 3, 6 for 8."""
    order = [1]
    while len(order) < size:
        places = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, places - top)]
    return order


@dataclass(frozen=True)
class Match:
    """A match of the bracket: ``round`` from 1, ``slot`` from 0 down the round.

    ``first`` and ``second`` are the teams (``None`` while not known yet, or a
    bye's empty place). ``winner`` is set once the match is decided: a bye's
    team at once, else the winner of the match's game.
    """

    round: int
    slot: int
    first: int | None
    second: int | None
    winner: int | None = None
    bye: bool = False

    @property
    def ready(self) -> bool:
        """Both teams known and the match still to play."""
        return self.first is not None and self.second is not None and self.winner is None


@dataclass(frozen=True)
class Bracket:
    """Every match of a knockout, round by round; the champion once the final is decided."""

    rounds: tuple[tuple[Match, ...], ...]
    seeds: Mapping[int, int]  # team -> seed

    @property
    def champion(self) -> int | None:
        return self.rounds[-1][0].winner

    def round_to_play(self) -> int | None:
        """The first round with a match ready to play and none of it drawn yet, or None."""
        for number, matches in enumerate(self.rounds, start=1):
            if any(match.ready for match in matches):
                return number
        return None


def bracket(seeds: Sequence[int], winners: Mapping[frozenset[int], int] | None = None) -> Bracket:
    """The bracket of ``seeds`` (teams, best first) with the results so far.

    ``winners`` maps the pair of teams of each decided match to its winner; a
    pair that is not a match of the bracket (a game drawn by hand) is ignored.
    """
    seeds = _distinct(seeds)
    size = bracket_size(len(seeds))
    winners = winners or {}
    team_of = {number: team for number, team in enumerate(seeds, start=1)}
    order = seed_order(size)
    entrants: list[int | None] = [team_of.get(seed) for seed in order]
    rounds: list[tuple[Match, ...]] = []
    number = 1
    byes_allowed = True  # only the first round has empty places
    while len(entrants) > 1:
        matches = []
        for slot in range(len(entrants) // 2):
            first, second = entrants[2 * slot], entrants[2 * slot + 1]
            winner, bye = None, False
            if byes_allowed and (first is None) != (second is None):
                winner, bye = (first if second is None else second), True
            elif first is not None and second is not None:
                decided = winners.get(frozenset((first, second)))
                if decided in (first, second):
                    winner = decided
            matches.append(Match(number, slot, first, second, winner, bye))
        rounds.append(tuple(matches))
        entrants = [match.winner for match in matches]
        byes_allowed = False
        number += 1
    return Bracket(tuple(rounds), {team: seed for seed, team in team_of.items()})


def round_title(number: int, rounds: int) -> tuple[str, dict]:
    """What a round is called, as a translatable template and its values."""
    left = rounds - number
    if left == 0:
        return _("Final"), {}
    if left == 1:
        return _("Semi-finals"), {}
    if left == 2:
        return _("Quarter-finals"), {}
    return _("Round of %(teams)d"), {"teams": 2 ** (left + 1)}
