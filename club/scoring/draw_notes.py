"""How a sitting was drawn, told as data (docs/rules.md section E).

A Swiss draw that cannot be explained is not trusted. This module takes what a
draw was given (the teams, the standings and their points, the earlier games,
the byes so far, who is not checked in) and the draw it made
(:func:`club.scoring.draws.propose_draw`, or a stage's chart or bracket), and
says what the draw did: team ids, points as text, table numbers (1 = table 1)
and codes, never sentences. The pages turn them into the reader's language. It
imports nothing from Django.

Terms
-----
score group
    The teams of a Swiss draw (at a table or with a bye) on the same points.
    The standings list the teams by points, most first, so each group is a run
    of them; the groups go from the most points down.
a table's group
    A table whose teams are all of one score group is that group's. A table of
    several groups is the group's with most teams at it; on a tie, the lowest
    of those groups'. So at a table of two, the team with more points was moved
    down to play the other.
moved
    A team at a table of another group than its own: ``down`` when its group is
    above the table's, ``up`` when below. Every team at a table of several
    groups is moved or of the table's group.
why a team was moved
    The seated teams (byes set aside) cut into tables in standings order cross
    from one group into the next only where the teams above cannot fill whole
    tables. So a move is ``count`` when, between its group and the table's,
    lies such a line (``above`` is the points of the group just over it: the
    teams on those points or more cannot fill whole tables), and ``rematch``
    otherwise: the draw left the standings order to keep apart teams that had
    met.
rematch avoided
    Two teams that met before, would have shared a table had the tables been
    cut in standings order, and do not.
rematch
    Two teams at one table that met before: the draw found no way to keep
    every pair that had met apart.
sitting out
    ``absent``: not checked in, left out of the draw. ``bye``, with ``how``:
    ``lowest`` (the lowest placed of the teams with the fewest byes so far,
    ``byes`` of them), ``rematch`` (given ``instead`` of those, to avoid a
    rematch), ``random`` (a random draw), ``chart`` (a stage's chart gives it),
    ``withdrawn`` or ``absent_opponent`` (its ``opponent`` in the chart has
    withdrawn, or is not checked in), ``hand`` (the director gave it).
changed by hand
    A draw the director adjusts keeps what was said of the draw as made
    (``drawn``) and says what changed (``adjusted``): the tables whose teams
    differ, the teams whose table or bye differs, the byes given by hand and
    the rematches seated by hand. :func:`still_true` leaves out what the
    changes made untrue.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from itertools import combinations
from typing import Any

from club.scoring.draws import Draw, drawn_in_order, preferred_byes

__all__ = ["adjusted", "explain_draw", "explain_stage", "points_text", "still_true"]

VERSION = 1

Notes = dict[str, Any]


def points_text(value: int | Decimal | Fraction) -> str:
    """Points as text, the same text for equal points: 3 -> "3", 1.50 -> "1.5", 4/3 -> "1.33"."""
    if isinstance(value, Fraction):
        value = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.01"))
    return format(Decimal(value).normalize(), "f")


def _met(history: Sequence[Sequence[int]]) -> set[frozenset[int]]:
    return {frozenset(pair) for game in history for pair in combinations(set(game), 2)}


def _drawn(games: Sequence[Sequence[int]], byes: Sequence[int]) -> Notes:
    return {"games": [list(game) for game in games], "byes": list(byes)}


def _absent(absent: Sequence[int]) -> list[Notes]:
    return [{"team": team, "why": "absent"} for team in sorted(absent)]


def _rematches(games: Sequence[Sequence[int]], met: set[frozenset[int]], order) -> list[Notes]:
    """Pairs at one table that met before, each pair in ``order`` (a team's place)."""
    found = []
    for table, game in enumerate(games, start=1):
        for pair in combinations(sorted(game, key=order), 2):
            if frozenset(pair) in met:
                found.append({"table": table, "teams": list(pair)})
    return found


def explain_draw(
    draw: Draw,
    *,
    ranking: Sequence[int] | None = None,
    history: Sequence[Sequence[int]] = (),
    byes_so_far: Mapping[int, int] | None = None,
    scores: Mapping[int, int | Decimal | Fraction] | None = None,
    game_size: int = 2,
    absent: Sequence[int] = (),
) -> Notes:
    """What :func:`~club.scoring.draws.propose_draw` did, given what it was given.

    ``scores`` are the teams' points (needed for a Swiss draw); ``absent`` the
    teams left out for not checking in.
    """
    byes_so_far = byes_so_far or {}
    met = _met(history)
    notes: Notes = {"version": VERSION, "drawn": _drawn(draw.games, draw.byes)}
    if ranking is None or not drawn_in_order(ranking, history):
        notes["method"] = "random"
        notes["rematches"] = _rematches(draw.games, met, lambda team: team)
        out = [
            {"team": team, "why": "bye", "how": "random", "byes": byes_so_far.get(team, 0)}
            for team in draw.byes
        ]
    else:
        if scores is None:
            raise ValueError("A Swiss draw is explained by the teams' points.")
        notes["method"] = "swiss"
        notes |= _swiss(draw, list(ranking), met, scores, game_size)
        out = _swiss_byes(draw, list(ranking), byes_so_far)
    notes["out"] = out + _absent(absent)
    return notes


def _groups(ranking: list[int], scores: Mapping[int, Any]) -> list[Notes]:
    groups: list[Notes] = []
    previous = None
    for team in ranking:
        value = Decimal(points_text(scores[team]))
        if previous is not None and value > previous:
            raise ValueError("The standings must list the teams by points, most first.")
        if previous is None or value < previous:
            groups.append({"score": points_text(value), "teams": []})
        groups[-1]["teams"].append(team)
        previous = value
    return groups


def _swiss(
    draw: Draw,
    ranking: list[int],
    met: set[frozenset[int]],
    scores: Mapping[int, Any],
    game_size: int,
) -> Notes:
    groups = _groups(ranking, scores)
    byes = set(draw.byes)
    seated = [team for team in ranking if team not in byes]
    return {
        "groups": groups,
        "moved": _moved(draw, ranking, groups, seated, game_size),
        "avoided": _avoided(draw, seated, met, game_size),
        "rematches": _rematches(draw.games, met, ranking.index),
    }


def _moved(
    draw: Draw, ranking: list[int], groups: list[Notes], seated: list[int], game_size: int
) -> list[Notes]:
    """Each team at a table of another group than its own, and why (module docstring)."""
    group_of = {team: at for at, group in enumerate(groups) for team in group["teams"]}
    # The groups with a team at a table; after each, whether the seated teams down to it
    # can fill whole tables (if not, the line under it is crossed by the numbers).
    playing = sorted({group_of[team] for team in seated})
    rank = {group: at for at, group in enumerate(playing)}
    counts = Counter(group_of[team] for team in seated)
    uneven = []
    down_to = 0
    for group in playing:
        down_to += counts[group]
        uneven.append(down_to % game_size != 0)
    moved = []
    for table, game in enumerate(draw.games, start=1):
        tally = Counter(group_of[team] for team in game)
        most = max(tally.values())
        home = max(group for group, count in tally.items() if count == most)
        for team in sorted(game, key=ranking.index):
            own = group_of[team]
            if own == home:
                continue
            line = {
                "team": team,
                "table": table,
                "from": groups[own]["score"],
                "to": groups[home]["score"],
                "way": "down" if own < home else "up",
                "why": "rematch",
            }
            # The lines between its group and the table's, nearest its own first.
            if own < home:
                lines = range(rank[own], rank[home])
            else:
                lines = range(rank[own] - 1, rank[home] - 1, -1)
            forced = next((at for at in lines if uneven[at]), None)
            if forced is not None:
                line |= {"why": "count", "above": groups[playing[forced]]["score"]}
            moved.append(line)
    return moved


def _avoided(
    draw: Draw, seated: list[int], met: set[frozenset[int]], game_size: int
) -> list[list[int]]:
    """Pairs that met, at one table had the seated teams been cut in standings order,
    and not at one table now."""
    together = {frozenset(pair) for game in draw.games for pair in combinations(game, 2)}
    avoided = []
    for start in range(0, len(seated), game_size):
        for pair in combinations(seated[start : start + game_size], 2):
            if frozenset(pair) in met and frozenset(pair) not in together:
                avoided.append(list(pair))
    return avoided


def _swiss_byes(draw: Draw, ranking: list[int], byes_so_far: Mapping[int, int]) -> list[Notes]:
    """Each bye: ``lowest`` when no team placed lower with as few byes plays, else
    ``rematch``, in place of the teams the bye would have gone to that are placed lower,
    had as few byes, and play."""
    first_choice = preferred_byes(ranking, byes_so_far, len(draw.byes))
    place = {team: at for at, team in enumerate(ranking)}
    out = []
    for team in draw.byes:
        byes = byes_so_far.get(team, 0)
        line = {"team": team, "why": "bye", "how": "lowest", "byes": byes}
        instead = [
            other
            for other in first_choice
            if other not in draw.byes
            and place[other] > place[team]
            and byes_so_far.get(other, 0) == byes
        ]
        if instead:
            line |= {"how": "rematch", "instead": instead}
        out.append(line)
    return out


def explain_stage(
    draw: Draw,
    *,
    bracket: bool,
    chart_games: Sequence[Sequence[int]] = (),
    chart_byes: Sequence[int] = (),
    absent: Sequence[int] = (),
) -> Notes:
    """A sitting of a stage: its chart's row (``chart_games``, ``chart_byes``) or its
    bracket's next round. A team of the chart with no game but no bye in it has lost
    its opponent: withdrawn, or ``absent`` (not checked in)."""
    opponent = {}
    for game in chart_games:
        for team in game:
            opponent[team] = next(other for other in game if other != team)
    out = []
    for team in draw.byes:
        line: Notes = {"team": team, "why": "bye", "how": "chart"}
        if team not in chart_byes and team in opponent:
            other = opponent[team]
            how = "absent_opponent" if other in absent else "withdrawn"
            line |= {"how": how, "opponent": other}
        out.append(line)
    return {
        "version": VERSION,
        "method": "bracket" if bracket else "chart",
        "drawn": _drawn(draw.games, draw.byes),
        "out": out + _absent(absent),
    }


def adjusted(
    notes: Notes,
    games: Sequence[Sequence[int]],
    byes: Sequence[int],
    *,
    history: Sequence[Sequence[int]] = (),
) -> Notes:
    """The notes of a draw the director changed into ``games`` and ``byes``: what was
    said of the draw as made, and what changed (nothing, if it is as made again)."""
    if not notes:
        return notes  # drawn before draws were explained: nothing to keep
    drawn = notes["drawn"]
    before, after = drawn["games"], [list(game) for game in games]
    tables = [
        number
        for number in range(1, max(len(before), len(after)) + 1)
        if _at(before, number) != _at(after, number)
    ]
    place_before, place_after = _places(before, drawn["byes"]), _places(after, byes)
    teams = sorted(
        team
        for team in place_before.keys() | place_after.keys()
        if place_before.get(team) != place_after.get(team)
    )
    notes = {key: value for key, value in notes.items() if key != "adjusted"}
    if tables or teams:
        met = _met(history)
        notes["adjusted"] = {
            "tables": tables,
            "teams": teams,
            "byes": [team for team in byes if team not in drawn["byes"]],
            "rematches": [
                line
                for line in _rematches(after, met, lambda team: team)
                if line["table"] in tables
            ],
        }
    return notes


def _at(games: Sequence[Sequence[int]], number: int) -> frozenset[int]:
    return frozenset(games[number - 1]) if number <= len(games) else frozenset()


def _places(games: Sequence[Sequence[int]], byes: Sequence[int]) -> dict[int, int]:
    """Each team's table number, 0 for a bye."""
    places = {team: number for number, game in enumerate(games, 1) for team in game}
    places.update(dict.fromkeys(byes, 0))
    return places


def still_true(notes: Notes) -> Notes:
    """The notes less what the director's changes made untrue, with what they did:
    nothing said of a table or a team the changes touched, the byes given and the
    rematches seated by hand added."""
    change = notes.get("adjusted")
    if not change:
        return notes
    tables, teams = set(change["tables"]), set(change["teams"])
    true = dict(notes)
    true["moved"] = [
        line
        for line in notes.get("moved", [])
        if line["table"] not in tables and line["team"] not in teams
    ]
    true["avoided"] = [pair for pair in notes.get("avoided", []) if not teams & set(pair)]
    true["rematches"] = [
        line for line in notes.get("rematches", []) if line["table"] not in tables
    ] + [dict(line, hand=True) for line in change["rematches"]]
    kept = [line for line in notes.get("out", []) if line["team"] not in teams]
    true["out"] = kept + [{"team": team, "why": "bye", "how": "hand"} for team in change["byes"]]
    return true
