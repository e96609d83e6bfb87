"""Reading a tournament from a file: its settings, teams, sittings and standings,
checked against its games."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from django.utils.translation import gettext as _

from club.archive.computed import _agrees
from club.archive.format import (
    MAX_SUBSTITUTIONS,
    MAX_TOURNAMENT_NAME,
    MAX_VENUE,
    TOURNAMENT_KEYS,
    GameSpec,
    TeamSpec,
    _gettext_in_sentence,
    _is_whole,
    _Place,
    _quoted,
    standing_keys,
)
from club.archive.parse_settings import _parse_flag, _parse_rules, _with_team_size
from club.archive.parse_sittings import (
    SittingSpec,
    SubstitutionSpec,
    _parse_sittings,
    _parse_substitutions,
)
from club.archive.parse_teams import parse_team_list
from club.scoring import rules as core
from club.scoring import standings as ranking
from club.scoring.names import unstorable
from club.tournaments.models import Tournament

# Reading a tournament --------------------------------------------------------------------


@dataclass
class TournamentSpec:
    name: str
    starts_on: date
    ends_on: date | None
    venue: str
    status: str
    final: bool
    rules: core.Rules
    deal_limit: int | None
    points_scheme: dict[int, tuple[int, ...]] | None  # None: the default scheme
    require_confirmation: bool
    teams: list[TeamSpec]
    sittings: list[SittingSpec]
    standings: list | None  # as the file gives them; checked once rebuilt
    check_in: bool = False
    substitution_limit: int = 1
    substitutions: list[SubstitutionSpec] = dataclasses.field(default_factory=list)


def _parse_date(place: _Place, value: object, field: str) -> date:
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise place.error(
        _("%(value)s is not a date; write it as YYYY-MM-DD.") % {"value": _quoted(value)},
        field=field,
    )


def _parse_scheme(place: _Place, raw: dict) -> dict[int, tuple[int, ...]] | None:
    if raw.get("points_by_place") is None:
        return None
    value = place.json_object(
        raw["points_by_place"],
        [str(count) for count in ranking.TEAM_COUNTS],
        what=_("the points by place"),
        field="points_by_place",
    )
    scheme: dict[int, tuple[int, ...]] = {}
    for count, points in value.items():
        if not isinstance(points, list) or not all(_is_whole(p) for p in points):
            raise place.error(
                _("the points for a game of %(count)s teams must be a list of whole numbers.")
                % {"count": count},
                field="points_by_place",
            )
        scheme[int(count)] = tuple(points)
    try:
        parsed = ranking.PointsScheme(scheme)
    except ranking.StandingsError as error:
        raise place.error(error.translated(_gettext_in_sentence), field="points_by_place") from None
    return None if parsed == ranking.DEFAULT_POINTS else scheme


def _parse_tournament_teams(place: _Place, raw: dict) -> list[TeamSpec]:
    teams_raw = raw.get("teams")
    if not isinstance(teams_raw, list):
        raise place.error(
            _("the teams must be a list of {“name”, “players”}, not %(value)s.")
            % {"value": _quoted(teams_raw)},
            field="teams",
        )
    return parse_team_list(place, teams_raw, of_tournament=True)


def parse_tournament(raw: object, games: Sequence[GameSpec]) -> TournamentSpec:
    """Check the "tournament" object of a document whose games are already checked."""
    place = _Place(None, None, tournament="")
    raw = place.json_object(raw, TOURNAMENT_KEYS, what=_("the tournament"), field=None)
    name = place.text(raw.get("name"), field="name", limit=MAX_TOURNAMENT_NAME, what=_("the name"))
    place = _Place(None, None, tournament=name)
    for key in ("starts_on", "status", "teams", "sittings"):
        if key not in raw:
            raise place.error(_("the tournament needs its “%(key)s”.") % {"key": key}, field=key)
    starts_on, ends_on = _parse_days(place, raw)
    venue = _parse_venue(place, raw)
    status, final = _parse_status(place, raw)
    deal_limit = _parse_deals_per_game(place, raw)
    rules = _parse_rules(place, raw, deal_limit)
    scheme = _parse_scheme(place, raw)
    require_confirmation = _parse_flag(place, raw, "require_confirmation", False)
    check_in = _parse_flag(place, raw, "check_in", False)
    teams = _parse_tournament_teams(place, raw)
    if teams and len(teams[0].players) != rules.team_size:
        # The teams' size is the tournament's (docs/rules.md section D): no key of its own.
        rules = _with_team_size(place, rules, len(teams[0].players))
    limit = _parse_substitution_limit(place, raw)
    substitutions = _parse_substitutions(place, raw, teams, limit)
    sittings = _parse_sittings(place, raw, teams, games, rules, substitutions)
    _check_status_against_play(place, status, sittings, games)
    standings = _parse_standings(place, raw)
    return TournamentSpec(
        name=name,
        starts_on=starts_on,
        ends_on=ends_on,
        venue=venue,
        status=status,
        final=final,
        rules=rules,
        deal_limit=deal_limit,
        points_scheme=scheme,
        require_confirmation=require_confirmation,
        teams=teams,
        sittings=sittings,
        standings=standings,
        check_in=check_in,
        substitution_limit=limit,
        substitutions=substitutions,
    )


def _parse_days(place: _Place, raw: dict) -> tuple[date, date | None]:
    """The tournament's first day, and its last when the file gives one (not before it)."""
    starts_on = _parse_date(place, raw["starts_on"], "starts_on")
    ends_on = None
    if raw.get("ends_on") is not None:
        ends_on = _parse_date(place, raw["ends_on"], "ends_on")
        if ends_on < starts_on:
            raise place.error(_("the last day cannot be before the first day."), field="ends_on")
    return starts_on, ends_on


def _parse_venue(place: _Place, raw: dict) -> str:
    """Where it was played, trimmed: text that fits the club's column, or nothing."""
    venue = raw.get("venue", "")
    if not isinstance(venue, str) or unstorable(venue) or len(venue.strip()) > MAX_VENUE:
        raise place.error(
            _("the venue must be text of at most %(limit)d characters, not %(value)s.")
            % {"limit": MAX_VENUE, "value": _quoted(venue)},
            field="venue",
        )
    return venue.strip()


def _parse_status(place: _Place, raw: dict) -> tuple[str, bool]:
    """The tournament's status, and whether its results are final (only once finished)."""
    status = raw["status"]
    if status not in Tournament.Status.values:
        raise place.error(
            _("%(value)s is not a status: choose draft, running or finished.")
            % {"value": _quoted(status)},
            field="status",
        )
    final = _parse_flag(place, raw, "final", False)
    if "provisional" in raw and _parse_flag(place, raw, "provisional", True) == final:
        raise place.error(
            _("results are provisional exactly when they are not final."), field="provisional"
        )
    if final and status != Tournament.Status.FINISHED:
        raise place.error(_("only a finished tournament can have final results."), field="final")
    return status, final


def _parse_deals_per_game(place: _Place, raw: dict) -> int | None:
    """The deal limit of the tournament's games, if it has one."""
    deal_limit = raw.get("deals_per_game")
    if deal_limit is None:
        return None
    return place.whole(
        deal_limit,
        field="deals_per_game",
        low=1,
        high=core.MAX_DEAL_LIMIT,
        what=_("deals per game"),
    )


def _parse_substitution_limit(place: _Place, raw: dict) -> int:
    """The substitutions a team may make: one unless the file says otherwise."""
    if raw.get("substitutions_per_team") is None:
        return 1
    return place.whole(
        raw["substitutions_per_team"],
        field="substitutions_per_team",
        low=0,
        high=MAX_SUBSTITUTIONS,
        what=_("the substitutions a team may make"),
    )


def _check_status_against_play(
    place: _Place, status: str, sittings: Sequence[SittingSpec], games: Sequence[GameSpec]
) -> None:
    """A tournament in draft has played no sitting; a finished one has no game going on."""
    if status == Tournament.Status.DRAFT and sittings:
        raise place.error(_("a tournament still in draft has played no sitting."), field="status")
    if status == Tournament.Status.FINISHED:
        for game in games:
            if not game.finished:
                raise place.error(
                    _("the tournament is finished but the game “%(label)s” is still being played.")
                    % {"label": game.label},
                    field="status",
                )


def _parse_standings(place: _Place, raw: dict) -> list | None:
    """The standings as the file gives them (a list of rows), compared once rebuilt."""
    standings = raw.get("standings")
    if standings is not None and not isinstance(standings, list):
        raise place.error(
            _("the standings must be a list of rows, not %(value)s.")
            % {"value": _quoted(standings)},
            field="standings",
        )
    return standings


def _check_standings(place: _Place, given: list, expected: list[dict], points_sheet: bool) -> None:
    if len(given) != len(expected):
        raise place.error(
            _(
                "the file has %(given)d rows of standings but the tournament has %(expected)d "
                "teams; the file has been changed or is damaged."
            )
            % {"given": len(given), "expected": len(expected)},
            field="standings",
        )
    for row, (row_given, row_expected) in enumerate(zip(given, expected, strict=True), start=1):
        field = f"standings[{row}]"
        keys = standing_keys(points_sheet)
        row_given = place.json_object(row_given, keys, what=_("a row of standings"), field=field)
        for key in keys:
            if key not in row_given or not _agrees(row_given[key], row_expected[key]):
                raise place.error(
                    _(
                        "the file says %(given)s but the games, settled by the rules, give "
                        "%(expected)s; the file has been changed or is damaged."
                    )
                    % {
                        "given": _quoted(row_given.get(key)),
                        "expected": _quoted(row_expected[key]),
                    },
                    field=f"{field}.{key}",
                )
