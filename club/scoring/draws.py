"""Proposing the games of a tournament sitting (the draw).

A tournament is played in *sittings*: sets of games played at the same time,
one game per physical table. (The word "round" is kept for a deal.) Before
each sitting the app proposes a draw; the organiser may adjust it by hand and
the app checks the adjusted draw with :func:`check_draw` before confirming.
This module imports nothing from Django.

Games
    A game seats ``game_size`` teams: 2 by default, 3 or 4 when the organiser
    chooses. Every game is full, so when the teams do not divide evenly the
    remainder (``len(teams) % game_size`` teams) sit this sitting out: they
    have a *bye*.

The first sitting: at random
    With no standings yet (no ranking given, or no game played so far) the
    teams are shuffled and cut into games in that shuffled order. Seeded with
    a ``random.Random``, the shuffle is repeatable. (Given a history but no
    ranking, the shuffled order is searched like a ranking below, so earlier
    opponents are still kept apart.)

Later sittings: Swiss
    The teams are taken in order of the current standings, best first. The
    best team not yet placed leads the next game and takes the nearest-ranked
    teams still free that it has not met before (two teams have *met* when any
    earlier game of the tournament held both). When a choice leads to a dead
    end further down (some teams left over who have all met each other), the
    search steps back and tries the next-nearest choice: a depth-first search
    that always tries the closest-ranked teams first. So the top teams meet
    each other, the bottom teams meet each other, and nobody meets the same
    team twice while that can be avoided. Game 1 goes to table 1, so the top
    of the standings plays at table 1.

    The search is bounded (a fixed amount of work per draw, enough for 64 teams
    many times over). If no draw without rematches exists, it looks for one
    with the fewest rematches, one allowed rematch at a time; if even that
    runs out of work, it falls back to a greedy draw (each game, from the top,
    takes the nearest teams that add the fewest rematches). The number of
    rematches in the draw is always reported, so the organiser can see it.

Byes
    Byes go to the teams that have had the fewest byes so far. Among those,
    in a Swiss sitting, the lowest-ranked team sits out; in the first sitting
    the choice is random. So no team gets a second bye while some team has
    not had one yet (and in general no team gets one more bye while another
    has fewer). The one exception to "lowest-ranked" is rematch avoidance: if
    giving the bye to the lowest-ranked eligible team forces a rematch and
    giving it to another team with equally few byes does not, that other team
    sits out instead (taking the lowest-ranked such team).

Seats
    The order of the teams within a game (who is T1) does not matter to the
    tournament, so it is random.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, islice

from club.scoring.messages import TranslatableError, _

__all__ = [
    "GAME_SIZES",
    "Draw",
    "DrawError",
    "check_draw",
    "drawn_in_order",
    "preferred_byes",
    "propose_draw",
    "table_labels",
]

GAME_SIZES = (2, 3, 4)

# Work allowed for the search of one draw, counted in candidate games examined.
# Rematch-free draws for 64 teams are found in a few hundred; this bound only
# matters when no rematch-free draw exists, and keeps such a draw well under a
# second before the greedy fallback takes over.
SEARCH_BUDGET = 40_000

# How many choices of bye teams (all with equally few byes) to try when the
# preferred choice forces a rematch.
BYE_CHOICES = 50


class DrawError(TranslatableError):
    """A draw that cannot be proposed or accepted.

    ``field`` names what is at fault (``teams``, ``ranking``, ``game_size``,
    ``games``). A ``team`` value is a team id: :meth:`translated` shows it as
    the team's name when the names are given.
    """

    def team_name(self, team, gettext, team_names: Mapping[int, str] | None = None):
        if team_names is not None and team in team_names:
            return team_names[team]
        return team


@dataclass(frozen=True)
class Draw:
    """The games of one sitting.

    ``games`` holds the team ids of each game in seat order, the games in table
    order (table 1 first; in a Swiss sitting, the top of the standings).
    ``byes`` are the teams sitting out. ``rematches`` counts the pairs of teams
    placed in the same game that have met before (0 whenever avoidable).
    """

    games: list[tuple[int, ...]]
    byes: list[int]
    rematches: int


def table_labels(count: int, *, prefix: str = "Table") -> list[str]:
    """Physical table labels for ``count`` games: "Table 1", "Table 2", ..."""
    if count < 0:
        raise DrawError(_("The number of tables cannot be negative."), field="games")
    return [f"{prefix} {number}" for number in range(1, count + 1)]


def check_draw(draw: Draw, teams: Sequence[int], game_size: int) -> None:
    """Check a (possibly hand-adjusted) draw for the teams of a sitting.

    Every team must appear exactly once across the games and the byes, no
    other team may appear, and every game must seat ``game_size`` teams.
    Raises :class:`DrawError` naming the first problem found. More byes than
    strictly needed are allowed: the organiser may sit a team out.
    """
    _check_game_size(game_size)
    expected = _check_teams(teams)
    seen: set[int] = set()
    for number, game in enumerate(draw.games, start=1):
        if len(game) != game_size:
            raise DrawError(
                _("Table %(table)d has %(size)d teams; each game must have %(expected)d."),
                field="games",
                table=number,
                size=len(game),
                expected=game_size,
            )
    for team in [team for game in draw.games for team in game] + list(draw.byes):
        if team not in expected:
            raise DrawError(
                _("Team %(team)s is not taking part in this sitting."), field="games", team=team
            )
        if team in seen:
            raise DrawError(
                _("Team %(team)s is in the draw more than once."), field="games", team=team
            )
        seen.add(team)
    for team in teams:
        if team not in seen:
            raise DrawError(
                _("Team %(team)s is missing from the draw: give it a game or a bye."),
                field="games",
                team=team,
            )


def propose_draw(
    teams: Sequence[int],
    *,
    ranking: Sequence[int] | None = None,
    history: Sequence[Sequence[int]] = (),
    byes_so_far: Mapping[int, int] | None = None,
    game_size: int = 2,
    rng: random.Random | None = None,
) -> Draw:
    """Propose the games of a sitting (see the module docstring for the method).

    ``teams`` are the ids of the teams taking part; ``ranking`` the same ids,
    best first (the current standings); ``history`` every earlier game of the
    tournament as the ids of the teams that met; ``byes_so_far`` maps a team
    id to the byes it has had. Without a ranking or without any history the
    sitting is drawn at random. ``rng`` drives the random draw and the seat
    order, so a seeded ``random.Random`` gives a repeatable draw.
    """
    _check_game_size(game_size)
    _check_teams(teams)
    if len(teams) < game_size:
        raise DrawError(
            _("A game needs %(size)d teams but only %(count)d are taking part."),
            field="teams",
            size=game_size,
            count=len(teams),
        )
    if ranking is not None:
        _check_ranking(teams, ranking)
    rng = rng if rng is not None else random.Random()
    byes_so_far = byes_so_far or {}
    order = _order(teams, ranking, history, rng)
    met = _met(order, history)
    bye_choices = list(
        islice(_bye_choices(order, byes_so_far, len(order) % game_size), BYE_CHOICES)
    )
    search = _Search(game_size, met)
    groups, bye_positions = search.best(len(order), bye_choices)

    rematches = sum(search.cost(group) for group in groups)
    games = []
    for group in groups:
        seats = [order[index] for index in group]
        rng.shuffle(seats)
        games.append(tuple(seats))
    byes = [order[index] for index in sorted(bye_positions)]
    return Draw(games=games, byes=byes, rematches=rematches)


def drawn_in_order(ranking: Sequence[int] | None, history: Sequence[Sequence[int]]) -> bool:
    """Whether a sitting is drawn in standings order (Swiss) rather than at random: it is
    once a ranking is given and some game has been played."""
    return ranking is not None and any(len(game) > 0 for game in history)


def preferred_byes(
    order: Sequence[int], byes_so_far: Mapping[int, int], count: int
) -> tuple[int, ...]:
    """The ``count`` teams of ``order`` a bye goes to first: the fewest byes so far, then
    the lowest placed. The draw gives it to others only to avoid a rematch."""
    return tuple(order[index] for index in next(_bye_choices(order, byes_so_far, count)))


def _order(
    teams: Sequence[int],
    ranking: Sequence[int] | None,
    history: Sequence[Sequence[int]],
    rng: random.Random,
) -> list[int]:
    """The teams in the order the games are made in: the ranking once games have been
    played (a Swiss sitting), else shuffled."""
    if ranking is not None and drawn_in_order(ranking, history):
        return list(ranking)
    order = list(teams)
    rng.shuffle(order)
    return order


def _met(order: list[int], history: Sequence[Sequence[int]]) -> list[int]:
    """For each position in ``order``, a bitmask of the positions its team has met."""
    position = {team: index for index, team in enumerate(order)}
    met = [0] * len(order)
    for game in history:
        present = [position[team] for team in set(game) if team in position]
        for a, b in combinations(present, 2):
            met[a] |= 1 << b
            met[b] |= 1 << a
    return met


def _check_game_size(game_size: int) -> None:
    if game_size not in GAME_SIZES:
        raise DrawError(
            _("A game must have 2, 3 or 4 teams, not %(size)s."), field="game_size", size=game_size
        )


def _check_teams(teams: Sequence[int]) -> set[int]:
    unique = set(teams)
    if len(unique) != len(teams):
        seen: set[int] = set()
        for team in teams:
            if team in seen:
                raise DrawError(
                    _("Team %(team)s is listed more than once."), field="teams", team=team
                )
            seen.add(team)
    return unique


def _check_ranking(teams: Sequence[int], ranking: Sequence[int]) -> None:
    if len(ranking) != len(teams) or set(ranking) != set(teams):
        raise DrawError(
            _("The standings must list each team taking part exactly once."), field="ranking"
        )


def _bye_choices(
    order: Sequence[int], byes_so_far: Mapping[int, int], count: int
) -> Iterator[tuple[int, ...]]:
    """Positions (in ``order``) of the teams to sit out, preferred choice first.

    Every choice gives the byes to the teams with the fewest byes so far;
    within the last tier needed, the lowest-placed teams in ``order`` come first.
    """
    if count == 0:
        yield ()
        return
    by_preference = sorted(
        range(len(order)), key=lambda index: (byes_so_far.get(order[index], 0), -index)
    )
    threshold = byes_so_far.get(order[by_preference[count - 1]], 0)
    forced = tuple(i for i in by_preference if byes_so_far.get(order[i], 0) < threshold)
    tier = [i for i in by_preference if byes_so_far.get(order[i], 0) == threshold]
    for chosen in combinations(tier, count - len(forced)):
        yield forced + chosen


class _OutOfBudget(Exception):
    pass


class _Search:
    """Depth-first search for a draw, teams known by position (0 = top)."""

    def __init__(self, size: int, met: list[int]):
        self.size = size
        self.met = met
        everyone = (1 << len(met)) - 1
        self.free = [everyone & ~m & ~(1 << i) for i, m in enumerate(met)]
        self.work = 0
        # unplaced mask -> the largest rematch allowance known to be too small
        self.failed: dict[int, int] = {}

    def cost(self, group: Sequence[int]) -> int:
        return sum((self.met[a] >> b) & 1 for a, b in combinations(group, 2))

    def best(
        self, count: int, bye_choices: list[tuple[int, ...]]
    ) -> tuple[list[tuple[int, ...]], tuple[int, ...]]:
        everyone = (1 << count) - 1
        masks = [everyone & ~sum(1 << i for i in byes) for byes in bye_choices]
        most = (count // self.size) * (self.size * (self.size - 1) // 2)
        try:
            for allowance in range(most + 1):
                for byes, unplaced in zip(bye_choices, masks, strict=True):
                    groups = self.solve(unplaced, allowance)
                    if groups is not None:
                        return groups, byes
        except _OutOfBudget:
            pass
        return self.greedy(masks[0]), bye_choices[0]

    def tick(self) -> None:
        self.work += 1
        if self.work > SEARCH_BUDGET:
            raise _OutOfBudget

    def lower_bound(self, unplaced: int) -> int:
        """Fewest rematches any draw of the ``unplaced`` teams must contain."""
        need = self.size - 1
        short = 0
        rest = unplaced
        while rest:
            low = rest & -rest
            index = low.bit_length() - 1
            rest ^= low
            partners = (self.free[index] & unplaced).bit_count()
            if partners < need:
                short += need - partners
        return (short + 1) // 2

    def solve(self, unplaced: int, allowance: int) -> list[tuple[int, ...]] | None:
        if not unplaced:
            return []
        if self.failed.get(unplaced, -1) >= allowance:
            return None
        self.tick()
        if self.lower_bound(unplaced) <= allowance:
            for group, cost in self.candidates(unplaced, allowance):
                mask = 0
                for index in group:
                    mask |= 1 << index
                rest = self.solve(unplaced & ~mask, allowance - cost)
                if rest is not None:
                    return [group, *rest]
        self.failed[unplaced] = max(allowance, self.failed.get(unplaced, -1))
        return None

    def candidates(self, unplaced: int, allowance: int) -> Iterator[tuple[tuple[int, ...], int]]:
        """Games for the top unplaced team, nearest-ranked first.

        "Nearest" means the farthest-ranked member is as near as possible; ties
        go to the nearer other members.
        """
        low = unplaced & -unplaced
        leader = low.bit_length() - 1
        pool_mask = (self.free[leader] if allowance == 0 else unplaced) & unplaced & ~low
        pool = _positions(pool_mask)
        for at, last in enumerate(pool):
            first_cost = (self.met[leader] >> last) & 1
            if first_cost > allowance:
                continue
            before = (
                pool[:at] if allowance else [i for i in pool[:at] if (self.free[last] >> i) & 1]
            )
            for middle in combinations(before, self.size - 2):
                self.tick()
                group = (leader, *middle, last)
                cost = self.cost(group)
                if cost <= allowance:
                    yield group, cost

    def greedy(self, unplaced: int) -> list[tuple[int, ...]]:
        """Each game from the top takes the nearest teams adding the fewest rematches."""
        groups = []
        while unplaced:
            low = unplaced & -unplaced
            group = [low.bit_length() - 1]
            unplaced ^= low
            while len(group) < self.size:
                choice = min(
                    _positions(unplaced),
                    key=lambda i: (sum((self.met[i] >> g) & 1 for g in group), i),
                )
                group.append(choice)
                unplaced &= ~(1 << choice)
            groups.append(tuple(group))
        return groups


def _positions(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found
