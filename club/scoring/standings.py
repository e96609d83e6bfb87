"""Tournament standings: who leads after the games played so far.

Like :mod:`club.scoring.rules` this module imports nothing from Django; the
caller turns stored games into :class:`GameResult` values and shows the
:class:`Standing` rows this returns.

Terms
-----
team
    A tournament team, identified by its id (any int). A team plays many
    games, usually against different teams.
game
    One game of 56 between 2, 3 or 4 teams, identified by its id. Its
    :class:`GameResult` gives each team's *place* in it (1 = best). Places
    follow competition ranking: teams sharing a place skip the places after
    it (1, 2, 2, 4). A game may end with one team left (placed by going out)
    or be stopped early (placed by tables held); see
    :func:`club.scoring.rules.final_places`.
points scheme
    For each number of teams in a game (2, 3, 4), the tournament points for
    1st, 2nd, ... place: whole numbers, never negative, never rising.
    :data:`DEFAULT_POINTS` gives 3/1, 4/2/0 and 5/3/1/0.
tournament points
    What a team earns by its place in a game. Teams that share a place split
    the points of the places they span equally: two teams sharing 2nd of
    three get (2 + 0) / 2 = 1 each under the default scheme, three teams
    sharing 2nd of four get (3 + 1 + 0) / 3 = 4/3 each. Points are therefore
    kept as :class:`~fractions.Fraction`; the points awarded in a game always
    add up to the scheme's row for that many teams.
games won
    Games a team placed 1st in alone: the games whose export names it the
    winner. A first place shared (time called on equal tables, equal totals
    on a points sheet) is no team's win; its points are shared as below.
    Files written before this rule counted a shared first as a win for each
    team sharing it (``shared_first_wins=True`` gives those standings).
net tables
    Over all of a team's games, the tables it held at the end less the tables
    it started with.
score difference
    On a points sheet (docs/rules.md section D) nothing moves, so net tables are 0
    and the score difference takes their place: over all of a team's games,
    for each other team of a game, its own total less that team's total. In a
    game of two teams that is "for" less "against"; the differences of a game
    always add up to 0, as net tables do.
contracts declared, made, share
    The contracts a team was contracted to (all-pass contracts count for the
    contracted team) and how many of them it made. The *share* is made /
    declared, or ``None`` when it declared none, which ranks as a share of 0.
bye
    A sitting in which a team had no game. A bye scores nothing unless the
    tournament awards points for it: ``standings(..., byes={team: count},
    bye_points=...)`` adds ``count * bye_points`` to a team's tournament
    points; a bye is not a game and changes nothing else.

Order of the standings
----------------------
Teams are ranked by, in turn:

1. tournament points, more first;
2. games won, more first;
3. net tables, more first; on a points sheet the score difference (a
   tournament's games are all scored one way, so one of the two is 0);
4. contract share, higher first (no contracts declared counts as 0);
5. head-to-head (:func:`head_to_head_points`): within a group of teams
   equal on 1-4, a mini-league over the games that had at least two teams of
   the group. In each such game only the teams of the group that played in it
   are ranked, by their places in that game (competition ranking among
   themselves, so teams equal in the game share a sub-place), and each gets
   the points of that sub-place from the scheme's row for that many teams
   (``points_for(scheme, k, sub_place, sharing)`` with ``k`` the number of
   group teams in the game), sharing split as above. More head-to-head points
   first. If this splits the group but leaves a smaller group of teams still
   level, the mini-league is played again among that smaller group alone,
   until no group gets smaller.

Teams equal on everything share a place (1, 2, 2, 4) and are listed in the
order the caller gave them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from club.scoring.messages import TranslatableError, _

__all__ = [
    "DEFAULT_POINTS",
    "GameResult",
    "PointsScheme",
    "Standing",
    "StandingsError",
    "head_to_head_points",
    "points_for",
    "standings",
]

TEAM_COUNTS = (2, 3, 4)


class StandingsError(TranslatableError):
    """A points scheme or game results the standings cannot be computed from."""


@dataclass(frozen=True)
class GameResult:
    """One game's outcome, as far as the standings need it."""

    game: int  # game id
    teams: tuple[int, ...]  # tournament-team ids in the game
    places: Mapping[int, int]  # team id -> place in that game (1 = best; shared places allowed)
    tables_start: int  # tables each team started with
    tables_end: Mapping[int, int]  # team id -> tables held at the end
    declared: Mapping[int, int]  # team id -> contracts it declared (all-pass ones included)
    made: Mapping[int, int]  # team id -> of those, contracts made
    # team id -> total on the score sheet; None when tables are scored
    scores: Mapping[int, int] | None = None


@dataclass(frozen=True)
class PointsScheme:
    """Tournament points for each place, by the number of teams in the game."""

    by_team_count: Mapping[int, tuple[int, ...]]  # teams in the game -> points for 1st, 2nd, ...

    def __post_init__(self) -> None:
        _check_scheme(self.by_team_count)
        frozen = {count: tuple(self.by_team_count[count]) for count in TEAM_COUNTS}
        object.__setattr__(self, "by_team_count", MappingProxyType(frozen))


def _is_int(value: object) -> bool:
    # A plain int first: the standings test every number of every game.
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def _check_scheme(by_team_count: Mapping[int, Sequence[int]]) -> None:
    for count in by_team_count:
        if count not in TEAM_COUNTS:
            raise StandingsError(
                _("A game has 2, 3 or 4 teams; the points scheme cannot have a row for %(count)s."),
                count=repr(count),
            )
    for count in TEAM_COUNTS:
        if count not in by_team_count:
            raise StandingsError(
                _("The points scheme needs the points for a game of %(count)d teams."), count=count
            )
        row = tuple(by_team_count[count])
        if len(row) != count:
            raise StandingsError(
                _("A game of %(count)d teams needs points for exactly %(count)d places."),
                count=count,
            )
        if not all(_is_int(points) and points >= 0 for points in row):
            raise StandingsError(
                _("The points for a game of %(count)d teams must be whole numbers, not negative."),
                count=count,
            )
        if any(better < worse for better, worse in zip(row, row[1:], strict=False)):
            raise StandingsError(
                _("The points for a game of %(count)d teams cannot rise from a place to the next."),
                count=count,
            )


DEFAULT_POINTS = PointsScheme({2: (3, 1), 3: (4, 2, 0), 4: (5, 3, 1, 0)})


@dataclass(frozen=True)
class Standing:
    """One row of the standings."""

    team: int
    place: int  # 1-based, shared only when everything ties
    points: Fraction  # tournament points (halves and thirds come from shared places)
    games: int
    won: int  # games placed 1st (alone or shared)
    net_tables: int  # sum over games of tables_end - tables_start
    declared: int
    made: int
    made_share: Fraction | None  # made / declared, None when nothing declared (sorts as 0)
    shared: bool  # True when the place is shared
    score_difference: int = 0  # points sheets: sum over games and opponents of own - theirs


def points_for(scheme: PointsScheme, team_count: int, place: int, sharing: int) -> Fraction:
    """Points for ``place`` in a game of ``team_count`` teams, shared by ``sharing`` teams.

    The average of the points of places ``place .. place + sharing - 1``:
    with 4/2/0, two teams sharing 2nd of three get (2 + 0) / 2 = 1 each.
    """
    row = scheme.by_team_count.get(team_count)
    if row is None:
        raise StandingsError(
            _("The points scheme has no points for a game of %(count)s teams."),
            count=repr(team_count),
        )
    if not (_is_int(place) and _is_int(sharing) and place >= 1 and sharing >= 1):
        raise StandingsError(_("A place and the number of teams sharing it start at 1."))
    if place + sharing - 1 > team_count:
        raise StandingsError(
            _("%(sharing)d teams cannot share place %(place)d of a game of %(count)d teams."),
            sharing=sharing,
            place=place,
            count=team_count,
        )
    span = row[place - 1 : place - 1 + sharing]
    return Fraction(sum(span), sharing)


def _place_points(scheme: PointsScheme, shape: tuple[int, ...]) -> dict[int, Fraction]:
    """Tournament points of each place of a game whose places, sorted, are ``shape``."""
    sharing = Counter(shape)
    return {place: points_for(scheme, len(shape), place, sharing[place]) for place in sharing}


def _game_points(scheme: PointsScheme, places: Mapping[int, int]) -> dict[int, Fraction]:
    """Tournament points of each team of ``places`` (a valid competition ranking)."""
    by_place = _place_points(scheme, tuple(sorted(places.values())))
    return {team: by_place[place] for team, place in places.items()}


def _ranked(values: Mapping[int, int]) -> dict[int, int]:
    """Competition ranking (1 = smallest value): place = 1 + how many are strictly smaller."""
    return {
        team: 1 + sum(1 for other in values.values() if other < value)
        for team, value in values.items()
    }


def _check_result(result: GameResult, registered: set[int], scheme: PointsScheme) -> None:
    """A game's result that can be right, checked part by part."""
    members = _check_game_teams(result, registered)
    _check_places(result, members)
    _check_tables(result, members)
    _check_scores(result, members)
    _check_contracts(result, members)


def _check_game_teams(result: GameResult, registered: set[int]) -> set[int]:
    """The game's teams: each listed once, 2, 3 or 4 of them, all entered."""
    game = result.game
    teams = tuple(result.teams)
    members = set(teams)
    if len(members) != len(teams):
        raise StandingsError(_("Game %(game)s lists a team twice."), game=game)
    if len(teams) not in TEAM_COUNTS:
        raise StandingsError(
            _("Game %(game)s has %(count)d teams; a game has 2, 3 or 4."),
            game=game,
            count=len(teams),
        )
    if not members <= registered:
        raise StandingsError(
            _("Game %(game)s has a team (%(team)s) not entered in the tournament."),
            game=game,
            team=next(team for team in teams if team not in registered),
        )
    return members


def _check_places(result: GameResult, members: set[int]) -> None:
    """A place for each team of the game, as a competition ranking."""
    game = result.game
    if result.places.keys() != members:
        raise StandingsError(_("Game %(game)s must give a place for each of its teams."), game=game)
    places = dict(result.places)
    if not all(_is_int(place) for place in places.values()) or _ranked(places) != places:
        raise StandingsError(
            _("The places in game %(game)s must run 1, 2, ..., a shared place skipping the next."),
            game=game,
        )


def _check_tables(result: GameResult, members: set[int]) -> None:
    """Tables held at the start and the end, never created or destroyed."""
    game = result.game
    if result.tables_end.keys() != members:
        raise StandingsError(
            _("Game %(game)s must give the tables each of its teams ended with."), game=game
        )
    if not _is_int(result.tables_start) or result.tables_start < 1:
        raise StandingsError(
            _("Game %(game)s must start each team with at least 1 table."), game=game
        )
    ends = result.tables_end.values()
    if not all(_is_int(tables) and tables >= 0 for tables in ends):
        raise StandingsError(
            _("The tables held at the end of game %(game)s must be whole numbers, not negative."),
            game=game,
        )
    if sum(ends) != result.tables_start * len(members):
        raise StandingsError(
            _("The tables of game %(game)s do not add up: tables are never created or destroyed."),
            game=game,
        )


def _check_scores(result: GameResult, members: set[int]) -> None:
    """On a points sheet, a score for each team of the game, never negative."""
    if result.scores is None:
        return
    if result.scores.keys() != members:
        raise StandingsError(
            _("Game %(game)s must give the score of each of its teams."), game=result.game
        )
    if not all(_is_int(score) and score >= 0 for score in result.scores.values()):
        raise StandingsError(
            _("The scores of game %(game)s must be whole numbers, not negative."),
            game=result.game,
        )


def _check_contracts(result: GameResult, members: set[int]) -> None:
    """Contracts declared and made by teams of the game, never more made than declared."""
    game = result.game
    for counts in (result.declared, result.made):
        if not counts.keys() <= members:
            raise StandingsError(
                _("Game %(game)s counts contracts for a team not in the game."), game=game
            )
        if not all(_is_int(count) and count >= 0 for count in counts.values()):
            raise StandingsError(
                _("The contracts counted in game %(game)s must be whole numbers, not negative."),
                game=game,
            )
    for team in result.teams:
        if result.made.get(team, 0) > result.declared.get(team, 0):
            raise StandingsError(
                _("In game %(game)s a team made more contracts than it declared."), game=game
            )


def head_to_head_points(
    group: Iterable[int], results: Iterable[GameResult], scheme: PointsScheme = DEFAULT_POINTS
) -> dict[int, Fraction]:
    """Each team's points in a mini-league of ``group`` (see the module docstring, step 5).

    Only games with at least two teams of the group count. In such a game the
    ``k`` group teams present are ranked among themselves by their places
    there (competition ranking, so equal places share a sub-place) and score
    ``points_for(scheme, k, sub_place, sharing)``; teams outside the group are
    ignored as if they had not played.
    """
    members = set(group)
    totals = dict.fromkeys(members, Fraction(0))
    for result in results:
        present = {team: result.places[team] for team in result.teams if team in members}
        if len(present) < 2:
            continue
        for team, points in _game_points(scheme, _ranked(present)).items():
            totals[team] += points
    return totals


def _order_group(
    group: list[int], results: Sequence[GameResult], scheme: PointsScheme
) -> list[list[int]]:
    """Split a group equal on criteria 1-4 by head-to-head, again within smaller ties."""
    if len(group) < 2:
        return [group]
    h2h = head_to_head_points(group, results, scheme)
    levels = sorted({h2h[team] for team in group}, reverse=True)
    tiers = [[team for team in group if h2h[team] == level] for level in levels]
    if len(tiers) == 1:
        return tiers
    ordered: list[list[int]] = []
    for tier in tiers:
        ordered.extend(_order_group(tier, results, scheme))
    return ordered


def sole_winner(result: GameResult) -> bool:
    """Whether one team alone is placed first in the game (it has a winner)."""
    return sum(1 for place in result.places.values() if place == 1) == 1


def _check_teams(order: list[int]) -> set[int]:
    """The teams entered, each once."""
    registered = set(order)
    if len(registered) != len(order):
        raise StandingsError(_("A team is entered in the tournament twice."))
    return registered


def _check_results(results: list[GameResult], registered: set[int], scheme: PointsScheme) -> None:
    """Every game given once, and each one a result that can be right."""
    seen: set[int] = set()
    for result in results:
        if result.game in seen:
            raise StandingsError(_("Game %(game)s is given twice."), game=result.game)
        seen.add(result.game)
        _check_result(result, registered, scheme)


def _checked_byes(
    byes: Mapping[int, int] | None, bye_points: Fraction, registered: set[int]
) -> dict[int, int]:
    """The byes of each team: only teams entered, whole numbers, worth no negative points."""
    if bye_points < 0:
        raise StandingsError(_("Points for a bye cannot be negative."))
    byes = dict(byes or {})
    for team, count in byes.items():
        if team not in registered:
            raise StandingsError(_("A bye was given to a team not entered in the tournament."))
        if not _is_int(count) or count < 0:
            raise StandingsError(_("The number of byes must be a whole number, not negative."))
    return byes


@dataclass
class _Tally:
    """Each team's totals over its games, by the criteria the standings rank on."""

    points: dict[int, Fraction]
    games: dict[int, int]
    won: dict[int, int]
    net: dict[int, int]
    declared: dict[int, int]
    made: dict[int, int]
    difference: dict[int, int]

    def add(
        self, result: GameResult, by_place: Mapping[int, Fraction], shared_first_wins: bool
    ) -> None:
        """Count one game, whose places earn the points ``by_place``."""
        if result.scores is not None:
            total = sum(result.scores.values())
            count = len(result.teams)
            for team in result.teams:
                # own - each other team's score = count * own - the game's total
                self.difference[team] += count * result.scores[team] - total
        alone = sole_winner(result)
        for team, place in result.places.items():
            self.points[team] += by_place[place]
            self.games[team] += 1
            self.won[team] += place == 1 and (shared_first_wins or alone)
            self.net[team] += result.tables_end[team] - result.tables_start
            self.declared[team] += result.declared.get(team, 0)
            self.made[team] += result.made.get(team, 0)

    def share(self, team: int) -> Fraction | None:
        """Contracts made of contracts declared; None when the team declared none."""
        declared = self.declared[team]
        return Fraction(self.made[team], declared) if declared else None


def _tally(
    order: list[int],
    results: list[GameResult],
    scheme: PointsScheme,
    bye_points: Mapping[int, Fraction],
    shared_first_wins: bool,
) -> _Tally:
    """Every team's totals: what its byes earned, then each game it played."""
    zeros = dict.fromkeys(order, 0)
    tally = _Tally(
        dict(bye_points),
        zeros,
        zeros.copy(),
        zeros.copy(),
        zeros.copy(),
        zeros.copy(),
        zeros.copy(),
    )
    points_by_place: dict[tuple[int, ...], dict[int, Fraction]] = {}  # by the game's places
    for result in results:
        shape = tuple(sorted(result.places.values()))
        if shape not in points_by_place:  # most games share a few shapes: (1, 2), (1, 1) ...
            points_by_place[shape] = _place_points(scheme, shape)
        tally.add(result, points_by_place[shape], shared_first_wins)
    return tally


def _tiers(order: list[int], key: Mapping[int, tuple]) -> list[list[int]]:
    """The teams sorted by ``key``, best first, in groups of teams with equal keys."""
    tiers: list[list[int]] = []
    for team in sorted(order, key=key.__getitem__):  # stable: full ties keep the caller's order
        if tiers and key[tiers[-1][0]] == key[team]:
            tiers[-1].append(team)
        else:
            tiers.append([team])
    return tiers


def _rows(
    final: list[list[int]], tally: _Tally, share: Mapping[int, Fraction | None]
) -> list[Standing]:
    """The standings rows of the teams in their final groups, a group sharing its place."""
    rows: list[Standing] = []
    place = 1
    for tier in final:
        for team in tier:
            rows.append(
                Standing(
                    team=team,
                    place=place,
                    points=tally.points[team],
                    games=tally.games[team],
                    won=tally.won[team],
                    net_tables=tally.net[team],
                    declared=tally.declared[team],
                    made=tally.made[team],
                    made_share=share[team],
                    shared=len(tier) > 1,
                    score_difference=tally.difference[team],
                )
            )
        place += len(tier)
    return rows


def standings(
    teams: Sequence[int],
    results: Iterable[GameResult],
    scheme: PointsScheme = DEFAULT_POINTS,
    *,
    byes: Mapping[int, int] | None = None,
    bye_points: Fraction = Fraction(0),
    shared_first_wins: bool = False,
) -> list[Standing]:
    """The standings of ``teams`` after ``results``, best first (order: module docstring).

    Every team entered appears, with zeros if it has not played. Byes score
    nothing unless the tournament awards points for them: each team's
    ``byes`` count times ``bye_points`` is added to its tournament points
    (byes are not games and count for nothing else).

    Raises :class:`StandingsError` for results that cannot be right: a team
    not entered, places that are not a competition ranking, tables that are
    not conserved, more contracts made than declared, a game listed twice.
    """
    order = list(teams)
    registered = _check_teams(order)
    results = list(results)
    _check_results(results, registered, scheme)
    bye_points = Fraction(bye_points)
    byes = _checked_byes(byes, bye_points, registered)

    earned = {team: bye_points * byes.get(team, 0) for team in order}
    tally = _tally(order, results, scheme, earned, shared_first_wins)
    share = {team: tally.share(team) for team in order}
    key = {
        team: (
            -tally.points[team],
            -tally.won[team],
            -tally.net[team],
            -tally.difference[team],
            -(share[team] or Fraction(0)),
        )
        for team in order
    }
    final: list[list[int]] = []
    for tier in _tiers(order, key):
        final.extend(_order_group(tier, results, scheme))
    return _rows(final, tally, share)
