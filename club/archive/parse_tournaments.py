"""Reading a tournament from a file: its settings, teams, sittings and standings,
checked against its games."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

from django.utils.translation import gettext as _

from club.archive.computed import _agrees
from club.archive.format import (
    MAX_PLAYER_NAME,
    MAX_SITTINGS,
    MAX_SUBSTITUTIONS,
    MAX_TABLE_LABEL,
    MAX_TEAMS_IN_GAME,
    MAX_TOURNAMENT_NAME,
    MAX_VENUE,
    SITTING_GAME_KEYS,
    SITTING_KEYS,
    SUBSTITUTION_KEYS,
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
from club.archive.parse_teams import parse_team_list
from club.games.whos_who import name_key
from club.scoring import rules as core
from club.scoring import standings as ranking
from club.scoring.names import unstorable
from club.tournaments.models import Tournament

# Reading a tournament --------------------------------------------------------------------


@dataclass
class SittingSpec:
    number: int
    game_size: int
    games: list[tuple[str, GameSpec]]  # (table label, game)
    byes: list[str]  # team names
    absent: list[str] = dataclasses.field(default_factory=list)  # left out, not checked in


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


@dataclass(frozen=True)
class SubstitutionSpec:
    """A substitute sat for a registered team's player from sitting ``first`` (to ``last``,
    inclusive, when the starter came back)."""

    team: str
    out: str
    player_in: str
    first: int
    last: int | None = None

    def covers(self, number: int) -> bool:
        return self.first <= number and (self.last is None or number <= self.last)


def line_up(team: TeamSpec, substitutions: Sequence[SubstitutionSpec], number: int) -> list[str]:
    """Who sits for ``team`` in sitting ``number``: its players, a substitute in the seat of
    the player replaced."""
    players = list(team.players)
    for substitution in substitutions:
        if name_key(substitution.team) == name_key(team.name) and substitution.covers(number):
            players = [
                substitution.player_in if name_key(player) == name_key(substitution.out) else player
                for player in players
            ]
    return players


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
    value = place.object(
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


def _seat_once(
    place: _Place, seated: dict[str, str], name: str, where: str, number: int, field: str
) -> None:
    """Note where a team is in a sitting; refuse a team placed twice in one sitting."""
    if name_key(name) in seated:
        raise place.error(
            _(
                "%(team)s is both in %(first)s and in %(second)s of sitting %(number)d; "
                "a team plays once per sitting."
            )
            % {"team": name, "first": seated[name_key(name)], "second": where, "number": number},
            field=field,
        )
    seated[name_key(name)] = where


def _parse_sittings(
    place: _Place,
    raw: dict,
    teams: Sequence[TeamSpec],
    games: Sequence[GameSpec],
    rules: core.Rules,
    deal_limit: int | None,
    substitutions: Sequence[SubstitutionSpec] = (),
) -> list[SittingSpec]:
    sittings_raw = raw.get("sittings")
    if not isinstance(sittings_raw, list):
        raise place.error(
            _("the sittings must be a list, empty if none was played yet, not %(value)s.")
            % {"value": _quoted(sittings_raw)},
            field="sittings",
        )
    team_by_key = {name_key(team.name): team for team in teams}
    game_by_key = {game.label.lower(): game for game in games}
    sitting_of_game: dict[str, int] = {}
    sittings = []
    for number, sitting_raw in enumerate(sittings_raw, start=1):
        field = f"sittings[{number}]"
        what = _("sitting %(number)d") % {"number": number}
        sitting_raw = place.object(sitting_raw, SITTING_KEYS, what=what, field=field)
        if not _agrees(sitting_raw.get("number"), number):
            raise place.error(
                _(
                    "the sittings must be numbered 1, 2, 3 ... in order; this is sitting "
                    "%(number)d, not %(given)s."
                )
                % {"number": number, "given": _quoted(sitting_raw.get("number"))},
                field=f"{field}.number",
            )
        game_size = place.whole(
            sitting_raw.get("game_size"),
            field=f"{field}.game_size",
            low=2,
            high=MAX_TEAMS_IN_GAME,
            what=_("the number of teams per game"),
        )
        seated: dict[str, str] = {}  # team key -> where it is in this sitting

        games_raw = sitting_raw.get("games")
        if not isinstance(games_raw, list):
            raise place.error(
                _("the games of sitting %(number)d must be a list, not %(value)s.")
                % {"number": number, "value": _quoted(games_raw)},
                field=f"{field}.games",
            )
        tables: dict[str, int] = {}
        sitting_games: list[tuple[str, GameSpec]] = []
        for position, item in enumerate(games_raw, start=1):
            item_field = f"{field}.games[{position}]"
            item = place.object(
                item, SITTING_GAME_KEYS, what=_("a game of a sitting"), field=item_field
            )
            table = place.text(
                item.get("table"),
                field=f"{item_field}.table",
                limit=MAX_TABLE_LABEL,
                what=_("the table"),
            )
            if table.lower() in tables:
                raise place.error(
                    _("sitting %(number)d uses the table “%(table)s” twice.")
                    % {"number": number, "table": table},
                    field=f"{item_field}.table",
                )
            tables[table.lower()] = position
            label = item.get("game")
            game = game_by_key.get(label.strip().lower()) if isinstance(label, str) else None
            if game is None:
                raise place.error(
                    _(
                        "sitting %(number)d names the game %(label)s at %(table)s, which is not "
                        "one of the games of the file."
                    )
                    % {"number": number, "label": _quoted(label), "table": table},
                    field=f"{item_field}.game",
                )
            if game.label.lower() in sitting_of_game:
                raise place.error(
                    _(
                        "the game “%(label)s” is named twice (sittings %(first)d and %(second)d); "
                        "a game belongs to one sitting."
                    )
                    % {
                        "label": game.label,
                        "first": sitting_of_game[game.label.lower()],
                        "second": number,
                    },
                    field=f"{item_field}.game",
                )
            sitting_of_game[game.label.lower()] = number
            if len(game.teams) != game_size:
                raise place.error(
                    _(
                        "the game “%(label)s” has %(teams)d teams but sitting %(number)d plays "
                        "games of %(size)d."
                    )
                    % {
                        "label": game.label,
                        "teams": len(game.teams),
                        "number": number,
                        "size": game_size,
                    },
                    field=f"{item_field}.game",
                )
            # A game plays the tournament's house rules; its deal limit and tie rule may be
            # its stage's (18-deal groups, a 24-deal knockout).
            if replace(game.rules, deal_limit=rules.deal_limit, tie_deals=None) != rules:
                raise place.error(
                    _(
                        "the game “%(label)s” is not played by the tournament's house rules and "
                        "deals per game."
                    )
                    % {"label": game.label},
                    field=f"{item_field}.game",
                )
            for team in game.teams:
                registered = team_by_key.get(name_key(team.name))
                seated_players = {name_key(player) for player in team.players}
                if registered is not None and any(
                    s.covers(number) and name_key(s.team) == name_key(registered.name)
                    for s in substitutions
                ):
                    sitting_players = line_up(registered, substitutions, number)
                    if {name_key(player) for player in sitting_players} != seated_players:
                        raise place.error(
                            _(
                                "%(team)s seats %(players)s in the game “%(label)s”, but with "
                                "its substitution its players in sitting %(number)d are "
                                "%(expected)s."
                            )
                            % {
                                "team": team.name,
                                "players": ", ".join(team.players),
                                "label": game.label,
                                "number": number,
                                "expected": ", ".join(sitting_players),
                            },
                            field=f"{item_field}.game",
                        )
                elif (
                    registered is None
                    or {name_key(player) for player in registered.players} != seated_players
                ):
                    if len(team.players) == 2:
                        message = _(
                            "%(team)s (%(first)s and %(second)s) plays in the game “%(label)s” "
                            "but is not a team of the tournament."
                        )
                    else:
                        message = _(
                            "%(team)s (%(players)s) plays in the game “%(label)s” but is not a "
                            "team of the tournament."
                        )
                    raise place.error(
                        message
                        % {
                            "team": team.name,
                            "first": team.first,
                            "second": team.second,
                            "players": ", ".join(team.players),
                            "label": game.label,
                        },
                        field=f"{item_field}.game",
                    )
                _seat_once(place, seated, team.name, table, number, f"{item_field}.game")
            sitting_games.append((table, game))
        outside = (place, sitting_raw, team_by_key, seated, number, field)
        byes = _teams_outside(
            *outside,
            "byes",
            _("the byes of sitting %(number)d must be a list of team names, not %(value)s."),
            _("%(name)s has a bye in sitting %(number)d but is not a team of the tournament."),
            _("the byes"),
        )
        absent = _teams_outside(
            *outside,
            "absent",
            _("the teams absent from sitting %(number)d must be a list of names, not %(value)s."),
            _("%(name)s is absent from sitting %(number)d but is not a team of the tournament."),
            _("the absent"),
        )
        sittings.append(SittingSpec(number, game_size, sitting_games, byes, absent))
    for game in games:
        if game.label.lower() not in sitting_of_game:
            raise place.error(
                _(
                    "the game “%(label)s” is in no sitting; every game of a tournament's file "
                    "belongs to one of its sittings."
                )
                % {"label": game.label},
                field="sittings",
            )
    return sittings


def _teams_outside(
    place: _Place,
    sitting_raw: dict,
    team_by_key,
    seated,
    number: int,
    field: str,
    key: str,
    not_a_list: str,
    not_a_team: str,
    where: str,
) -> list[str]:
    """The teams of a sitting at no table, by name: its byes, or the teams it left out for
    not checking in ("absent"); each a team of the tournament, once in the sitting."""
    raw = sitting_raw.get(key, [])
    if not isinstance(raw, list):
        raise place.error(
            not_a_list % {"number": number, "value": _quoted(raw)}, field=f"{field}.{key}"
        )
    names = []
    for name in raw:
        registered = team_by_key.get(name_key(name)) if isinstance(name, str) else None
        if registered is None:
            raise place.error(
                not_a_team % {"name": _quoted(name), "number": number}, field=f"{field}.{key}"
            )
        _seat_once(place, seated, registered.name, where, number, f"{field}.{key}")
        names.append(registered.name)
    return names


def _parse_substitution(
    place: _Place, raw: object, index: int, team_by_key: dict, players_of: dict
) -> SubstitutionSpec:
    field = f"substitutions[{index}]"
    what = _("substitution %(number)d") % {"number": index}
    item = place.object(raw, SUBSTITUTION_KEYS, what=what, field=field)
    for key in ("team", "out", "in", "from"):
        if key not in item:
            raise place.error(
                _("substitution %(number)d needs its “%(key)s”.") % {"number": index, "key": key},
                field=f"{field}.{key}",
            )
    team_name = item["team"]
    team = team_by_key.get(name_key(team_name)) if isinstance(team_name, str) else None
    if team is None:
        raise place.error(
            _("substitution %(number)d is for %(team)s, which is not a team of the tournament.")
            % {"number": index, "team": _quoted(team_name)},
            field=f"{field}.team",
        )
    out = item["out"]
    if not isinstance(out, str) or name_key(out) not in {name_key(p) for p in team.players}:
        raise place.error(
            _("substitution %(number)d replaces %(player)s, who is not a player of %(team)s.")
            % {"number": index, "player": _quoted(out), "team": team.name},
            field=f"{field}.out",
        )
    player_in = place.text(
        item["in"], field=f"{field}.in", limit=MAX_PLAYER_NAME, what=_("the substitute")
    )
    registered = players_of.get(name_key(player_in))
    if registered is not None:
        raise place.error(
            _(
                "%(player)s, the substitute of substitution %(number)d, is registered with "
                "%(team)s; a substitute may not belong to a team of the tournament."
            )
            % {"player": player_in, "number": index, "team": registered},
            field=f"{field}.in",
        )
    first = place.whole(
        item["from"], field=f"{field}.from", low=1, high=MAX_SITTINGS, what=_("the first sitting")
    )
    last = None
    if item.get("until") is not None:
        last = place.whole(
            item["until"],
            field=f"{field}.until",
            low=first,
            high=MAX_SITTINGS,
            what=_("the last sitting"),
        )
    return SubstitutionSpec(team.name, out, player_in, first, last)


def _parse_substitutions(
    place: _Place, raw: dict, teams: Sequence[TeamSpec], limit: int
) -> list[SubstitutionSpec]:
    """The substitutions the tournament's teams made: each a team's player replaced by
    someone registered in no team, from a sitting (until one, when the starter came back);
    within the tournament's limit a team, a substitute for one team only."""
    items = raw.get("substitutions", [])
    if not isinstance(items, list):
        raise place.error(
            _("the substitutions must be a list, not %(value)s.") % {"value": _quoted(items)},
            field="substitutions",
        )
    team_by_key = {name_key(team.name): team for team in teams}
    players_of = {name_key(player): team.name for team in teams for player in team.players}
    made: list[SubstitutionSpec] = []
    for index, item in enumerate(items, start=1):
        substitution = _parse_substitution(place, item, index, team_by_key, players_of)
        field = f"substitutions[{index}]"
        same_team = [s for s in made if name_key(s.team) == name_key(substitution.team)]
        if len(same_team) >= limit:
            raise place.error(
                _(
                    "%(team)s makes more substitutions than the %(limit)d a team this "
                    "tournament allows."
                )
                % {"team": substitution.team, "limit": limit},
                field=field,
            )
        for other in made:
            if name_key(other.player_in) == name_key(substitution.player_in) and name_key(
                other.team
            ) != name_key(substitution.team):
                raise place.error(
                    _(
                        "%(player)s sits in for %(first)s and for %(second)s; a substitute "
                        "plays for one team."
                    )
                    % {
                        "player": substitution.player_in,
                        "first": other.team,
                        "second": substitution.team,
                    },
                    field=f"{field}.in",
                )
        for other in same_team:
            overlap = substitution.first <= (other.last or MAX_SITTINGS) and other.first <= (
                substitution.last or MAX_SITTINGS
            )
            if overlap and name_key(other.out) == name_key(substitution.out):
                raise place.error(
                    _(
                        "substitution %(number)d replaces %(player)s, who is already replaced "
                        "in those sittings."
                    )
                    % {"number": index, "player": substitution.out},
                    field=field,
                )
            if overlap and name_key(other.player_in) == name_key(substitution.player_in):
                raise place.error(
                    _(
                        "substitution %(number)d seats %(player)s, who already sits in for "
                        "%(team)s in those sittings."
                    )
                    % {"number": index, "player": substitution.player_in, "team": other.team},
                    field=field,
                )
        made.append(substitution)
    return made


def parse_tournament(raw: object, games: Sequence[GameSpec]) -> TournamentSpec:
    """Check the "tournament" object of a document whose games are already checked."""
    place = _Place(None, None, tournament="")
    raw = place.object(raw, TOURNAMENT_KEYS, what=_("the tournament"), field=None)
    name = place.text(raw.get("name"), field="name", limit=MAX_TOURNAMENT_NAME, what=_("the name"))
    place = _Place(None, None, tournament=name)
    for key in ("starts_on", "status", "teams", "sittings"):
        if key not in raw:
            raise place.error(_("the tournament needs its “%(key)s”.") % {"key": key}, field=key)
    starts_on = _parse_date(place, raw["starts_on"], "starts_on")
    ends_on = None
    if raw.get("ends_on") is not None:
        ends_on = _parse_date(place, raw["ends_on"], "ends_on")
        if ends_on < starts_on:
            raise place.error(_("the last day cannot be before the first day."), field="ends_on")
    venue = raw.get("venue", "")
    if not isinstance(venue, str) or unstorable(venue) or len(venue.strip()) > MAX_VENUE:
        raise place.error(
            _("the venue must be text of at most %(limit)d characters, not %(value)s.")
            % {"limit": MAX_VENUE, "value": _quoted(venue)},
            field="venue",
        )
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
    deal_limit = raw.get("deals_per_game")
    if deal_limit is not None:
        deal_limit = place.whole(
            deal_limit,
            field="deals_per_game",
            low=1,
            high=core.MAX_DEAL_LIMIT,
            what=_("deals per game"),
        )
    rules = _parse_rules(place, raw, deal_limit)
    scheme = _parse_scheme(place, raw)
    require_confirmation = _parse_flag(place, raw, "require_confirmation", False)
    check_in = _parse_flag(place, raw, "check_in", False)
    teams = _parse_tournament_teams(place, raw)
    if teams and len(teams[0].players) != rules.team_size:
        # The teams' size is the tournament's (docs/rules.md section D): no key of its own.
        rules = _with_team_size(place, rules, len(teams[0].players))
    limit = 1
    if raw.get("substitutions_per_team") is not None:
        limit = place.whole(
            raw["substitutions_per_team"],
            field="substitutions_per_team",
            low=0,
            high=MAX_SUBSTITUTIONS,
            what=_("the substitutions a team may make"),
        )
    substitutions = _parse_substitutions(place, raw, teams, limit)
    sittings = _parse_sittings(place, raw, teams, games, rules, deal_limit, substitutions)
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
    standings = raw.get("standings")
    if standings is not None and not isinstance(standings, list):
        raise place.error(
            _("the standings must be a list of rows, not %(value)s.")
            % {"value": _quoted(standings)},
            field="standings",
        )
    return TournamentSpec(
        name=name,
        starts_on=starts_on,
        ends_on=ends_on,
        venue=venue.strip(),
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
        row_given = place.object(row_given, keys, what=_("a row of standings"), field=field)
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
