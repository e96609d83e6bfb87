"""Reading the teams of a game or of a tournament from a file: 2, 3 or 4 players each,
all the same size, each player in one team, and a tournament team's captain."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.archive.format import (
    MAX_PLAYER_NAME,
    MAX_TEAM_NAME,
    TEAM_KEYS,
    TOURNAMENT_TEAM_KEYS,
    TeamSpec,
    _Place,
    _quoted,
)
from club.games.whos_who import name_key
from club.scoring import rules as core
from club.scoring.names import default_team_name


def _parse_teams(place: _Place, raw: dict) -> list[TeamSpec]:
    if "teams" not in raw:
        raise place.error(_("every game needs its teams."), field="teams")
    teams_raw = raw["teams"]
    if not isinstance(teams_raw, list):
        raise place.error(
            _("the teams must be a list, not %(value)s.") % {"value": _quoted(teams_raw)},
            field="teams",
        )
    if len(teams_raw) not in (2, 3, 4):
        raise place.error(
            ngettext(
                "56 is played by 4, 6 or 8 players in teams of two; this game has %(teams)d team.",
                "56 is played by 4, 6 or 8 players in teams of two; this game has %(teams)d teams.",
                len(teams_raw),
            )
            % {"teams": len(teams_raw)},
            field="teams",
        )
    return parse_team_list(place, teams_raw, of_tournament=False)


def parse_team_list(place: _Place, teams_raw: list, *, of_tournament: bool) -> list[TeamSpec]:
    """The teams of a game or of a tournament: 2, 3 or 4 players each, all the same size,
    each player in one team.

    The two differ only in how four refusals are worded: a tournament's team
    is registered once and its players play for it through every sitting.
    """
    teams: list[TeamSpec] = []
    team_of_player: dict[str, tuple[int, str]] = {}  # by name key: team number, spelling
    names: dict[str, int] = {}  # by name key: team number
    for number, team_raw in enumerate(teams_raw, start=1):
        what = _("team %(number)d") % {"number": number}
        keys = TOURNAMENT_TEAM_KEYS if of_tournament else TEAM_KEYS
        team_raw = place.json_object(team_raw, keys, what=what, field="teams")
        size = len(teams[0].players) if teams else None
        players = _parse_players(place, team_raw, number, size, of_tournament=of_tournament)
        _each_seat_once(place, players, number)
        _in_one_team(place, players, number, team_of_player, of_tournament=of_tournament)
        name = _team_name(place, team_raw, players, number, names, of_tournament=of_tournament)
        captain = _captain(place, team_raw, players, number)
        teams.append(TeamSpec(name, players[0], players[1], tuple(players[2:]), captain))
    return teams


def _parse_players(
    place: _Place, team_raw: dict, number: int, size: int | None, *, of_tournament: bool
) -> list[str]:
    """A team's players, by name: 2, 3 or 4 of them, as many as team 1's (``size``)."""
    players = team_raw.get("players")
    if not isinstance(players, list):
        raise place.error(
            _("team %(number)d needs “players”: a list of its 2, 3 or 4 players.")
            % {"number": number},
            field="teams",
        )
    if len(players) not in core.TEAM_SIZES:
        raise place.error(
            _("team %(number)d must be 2, 3 or 4 players, not %(count)d.")
            % {"number": number, "count": len(players)},
            field="teams",
        )
    if size is not None and len(players) != size:
        message = (
            _(
                "team %(number)d is %(count)d players but team 1 is %(size)d; every team of "
                "a tournament is the same size."
            )
            if of_tournament
            else _(
                "team %(number)d is %(count)d players but team 1 is %(size)d; every team of "
                "a game is the same size."
            )
        )
        raise place.error(
            message % {"number": number, "count": len(players), "size": size},
            field="teams",
        )
    return [
        place.text(
            player,
            field="teams",
            limit=MAX_PLAYER_NAME,
            what=_("a player's name in team %(number)d") % {"number": number},
        )
        for player in players
    ]


def _each_seat_once(place: _Place, players: list[str], number: int) -> None:
    """Refuse a team that names one player twice."""
    for at, player in enumerate(players):
        if any(name_key(player) == name_key(other) for other in players[:at]):
            message = (
                _("%(player)s is named twice in team %(number)d; a team is two players.")
                if len(players) == 2
                else _("%(player)s is named twice in team %(number)d; each seat is one player.")
            )
            raise place.error(message % {"player": player, "number": number}, field="teams")


def _in_one_team(
    place: _Place,
    players: list[str],
    number: int,
    team_of_player: dict[str, tuple[int, str]],
    *,
    of_tournament: bool,
) -> None:
    """Refuse a player already in an earlier team; note this team's players."""
    for player in players:
        if name_key(player) in team_of_player:
            other, spelling = team_of_player[name_key(player)]
            message = (
                _(
                    "%(player)s plays in two teams (team %(first)d and team %(second)d); "
                    "a player plays for one team of a tournament."
                )
                if of_tournament
                else _(
                    "%(player)s plays in two teams (team %(first)d and team %(second)d); "
                    "a player sits in one team only."
                )
            )
            raise place.error(
                message % {"player": spelling, "first": other, "second": number},
                field="teams",
            )
        team_of_player[name_key(player)] = (number, player)


def _team_name(
    place: _Place,
    team_raw: dict,
    players: list[str],
    number: int,
    names: dict[str, int],
    *,
    of_tournament: bool,
) -> str:
    """The team's name (its players', when the file gives none), no other team's; noted."""
    if "name" in team_raw:
        name = place.text(
            team_raw["name"],
            field="teams",
            limit=MAX_TEAM_NAME,
            what=_("the name of team %(number)d") % {"number": number},
        )
    else:
        name = default_team_name(players, MAX_TEAM_NAME)
    if name_key(name) in names:
        message = (
            _(
                "teams %(first)d and %(second)d are both called “%(name)s”; a team is "
                "registered once."
            )
            if of_tournament
            else _("teams %(first)d and %(second)d are both called “%(name)s”.")
        )
        raise place.error(
            message % {"first": names[name_key(name)], "second": number, "name": name},
            field="teams",
        )
    names[name_key(name)] = number
    return name


def _captain(place: _Place, team_raw: dict, players: list[str], number: int) -> str:
    """A tournament team's captain, as the file names it: one of its players, spelled as
    the team's list spells it; "" when the file names none (the first player)."""
    if "captain" not in team_raw:
        return ""
    name = place.text(
        team_raw["captain"],
        field="teams",
        limit=MAX_PLAYER_NAME,
        what=_("the captain of team %(number)d") % {"number": number},
    )
    for player in players:
        if name_key(player) == name_key(name):
            return "" if player == players[0] else player
    raise place.error(
        _("the captain of team %(number)d, %(player)s, is not one of its players.")
        % {"number": number, "player": name},
        field="teams",
    )
