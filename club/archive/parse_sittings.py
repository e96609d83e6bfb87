"""Reading a tournament's sittings from a file (which game each table played, who had a
bye, who was absent) and its substitutions (who sat in for whom, from which sitting),
checked against its teams and its games."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.utils.translation import gettext as _

from club.archive.computed import _agrees
from club.archive.format import (
    MAX_PLAYER_NAME,
    MAX_SITTINGS,
    MAX_TABLE_LABEL,
    MAX_TEAMS_IN_GAME,
    SITTING_GAME_KEYS,
    SITTING_KEYS,
    SUBSTITUTION_KEYS,
    GameSpec,
    TeamSpec,
    _Place,
    _quoted,
)
from club.games.whos_who import name_key
from club.scoring import rules as core


@dataclass
class SittingSpec:
    number: int
    game_size: int
    games: list[tuple[str, GameSpec]]  # (table label, game)
    byes: list[str]  # team names
    absent: list[str] = dataclasses.field(default_factory=list)  # left out, not checked in


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
    substitutions: Sequence[SubstitutionSpec] = (),
) -> list[SittingSpec]:
    """The tournament's sittings in order, each game of the file at a table of one of them."""
    sittings_raw = raw.get("sittings")
    if not isinstance(sittings_raw, list):
        raise place.error(
            _("the sittings must be a list, empty if none was played yet, not %(value)s.")
            % {"value": _quoted(sittings_raw)},
            field="sittings",
        )
    draw = _Draw(place, teams, games, rules, substitutions)
    sittings = [
        draw.sitting(sitting_raw, number)
        for number, sitting_raw in enumerate(sittings_raw, start=1)
    ]
    for game in games:
        if game.label.lower() not in draw.sitting_of_game:
            raise place.error(
                _(
                    "the game “%(label)s” is in no sitting; every game of a tournament's file "
                    "belongs to one of its sittings."
                )
                % {"label": game.label},
                field="sittings",
            )
    return sittings


class _Draw:
    """Reads the sittings against the tournament's teams, games, house rules and
    substitutions, noting the sitting each game is in."""

    def __init__(
        self,
        place: _Place,
        teams: Sequence[TeamSpec],
        games: Sequence[GameSpec],
        rules: core.Rules,
        substitutions: Sequence[SubstitutionSpec],
    ):
        self.place = place
        self.team_by_key = {name_key(team.name): team for team in teams}
        self.game_by_key = {game.label.lower(): game for game in games}
        self.rules = rules
        self.substitutions = substitutions
        self.sitting_of_game: dict[str, int] = {}  # by label, lower case

    def sitting(self, sitting_raw: object, number: int) -> SittingSpec:
        """One sitting: its number, the size of its games, its tables, byes and absent teams."""
        place = self.place
        field = f"sittings[{number}]"
        what = _("sitting %(number)d") % {"number": number}
        sitting_raw = place.json_object(sitting_raw, SITTING_KEYS, what=what, field=field)
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
        sitting_games = self._tables(sitting_raw, number, field, game_size, seated)
        outside = (place, sitting_raw, self.team_by_key, seated, number, field)
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
        return SittingSpec(number, game_size, sitting_games, byes, absent)

    def _tables(
        self, sitting_raw: dict, number: int, field: str, game_size: int, seated: dict[str, str]
    ) -> list[tuple[str, GameSpec]]:
        """The sitting's games, each at its table, no table used twice."""
        place = self.place
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
            item = place.json_object(
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
            game = self._game_at(item.get("game"), table, number, game_size, item_field)
            for team in game.teams:
                self._team_at(team, game, number, item_field)
                _seat_once(place, seated, team.name, table, number, f"{item_field}.game")
            sitting_games.append((table, game))
        return sitting_games

    def _game_at(
        self, label: object, table: str, number: int, game_size: int, item_field: str
    ) -> GameSpec:
        """The game a table played: a game of the file, in no other sitting, of the sitting's
        size and played by the tournament's house rules."""
        place = self.place
        game = self.game_by_key.get(label.strip().lower()) if isinstance(label, str) else None
        if game is None:
            raise place.error(
                _(
                    "sitting %(number)d names the game %(label)s at %(table)s, which is not "
                    "one of the games of the file."
                )
                % {"number": number, "label": _quoted(label), "table": table},
                field=f"{item_field}.game",
            )
        if game.label.lower() in self.sitting_of_game:
            raise place.error(
                _(
                    "the game “%(label)s” is named twice (sittings %(first)d and %(second)d); "
                    "a game belongs to one sitting."
                )
                % {
                    "label": game.label,
                    "first": self.sitting_of_game[game.label.lower()],
                    "second": number,
                },
                field=f"{item_field}.game",
            )
        self.sitting_of_game[game.label.lower()] = number
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
        rules = self.rules
        if replace(game.rules, deal_limit=rules.deal_limit, tie_deals=None) != rules:
            raise place.error(
                _(
                    "the game “%(label)s” is not played by the tournament's house rules and "
                    "deals per game."
                )
                % {"label": game.label},
                field=f"{item_field}.game",
            )
        return game

    def _team_at(self, team: TeamSpec, game: GameSpec, number: int, item_field: str) -> None:
        """A team at a game of the sitting: a team of the tournament, its players as it
        registered them or, with a substitution, as that seats them in this sitting."""
        registered = self.team_by_key.get(name_key(team.name))
        seated_players = {name_key(player) for player in team.players}
        if registered is not None and any(
            s.covers(number) and name_key(s.team) == name_key(registered.name)
            for s in self.substitutions
        ):
            sitting_players = line_up(registered, self.substitutions, number)
            if {name_key(player) for player in sitting_players} != seated_players:
                raise self.place.error(
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
            raise self.place.error(
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
    item = place.json_object(raw, SUBSTITUTION_KEYS, what=what, field=field)
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
        _check_against_earlier(place, substitution, index, made, limit)
        made.append(substitution)
    return made


def _check_against_earlier(
    place: _Place,
    substitution: SubstitutionSpec,
    index: int,
    made: Sequence[SubstitutionSpec],
    limit: int,
) -> None:
    """A substitution within its team's limit, its substitute no other team's, and no
    overlap with its team's earlier ones (:func:`_check_overlaps`)."""
    field = f"substitutions[{index}]"
    same_team = [s for s in made if name_key(s.team) == name_key(substitution.team)]
    if len(same_team) >= limit:
        raise place.error(
            _("%(team)s makes more substitutions than the %(limit)d a team this tournament allows.")
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
    _check_overlaps(place, substitution, index, same_team)


def _check_overlaps(
    place: _Place, substitution: SubstitutionSpec, index: int, same_team: list[SubstitutionSpec]
) -> None:
    """In sittings where two of a team's substitutions both hold, neither replaces the same
    player nor seats the same substitute."""
    field = f"substitutions[{index}]"
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
