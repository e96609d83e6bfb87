"""Reading a game from a file: label, house rules, teams, rounds, its end; every round
settled by the rules core and the file's computed fields compared with it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from django.db import connection
from django.db.models.functions import Lower
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from club.archive.computed import _agrees, _check_computed
from club.archive.export import game_object
from club.archive.format import (
    _SETTING_FIELDS,
    BAND_KEYS,
    FACTOR_KEYS,
    GAME_COMPUTED_KEYS,
    GAME_INPUT_KEYS,
    MAX_LABEL,
    MAX_PLAYER_NAME,
    MAX_TEAM_NAME,
    QUOTE_LIMIT,
    ROUND_COMPUTED_KEYS,
    ROUND_INPUT_KEYS,
    TEAM_KEYS,
    THANI_KEYS,
    TOURNAMENT_TEAM_KEYS,
    ArchiveError,
    GameSpec,
    TeamSpec,
    _and_list,
    _cut,
    _game_document,
    _gettext_in_sentence,
    _is_whole,
    _outcome,
    _Place,
    _quoted,
    _seat_names,
    default_factors,
)
from club.games.models import (
    Game,
)
from club.games.whos_who import name_key
from club.scoring import rules as core
from club.scoring.names import default_team_name, unstorable


def _parse_label(raw: object, index: int, seen: dict[str, int]) -> str:
    place = _Place(None, index)
    if not isinstance(raw, dict):
        raise place.error(
            _("a game must be a JSON object, not %(value)s.") % {"value": _quoted(raw)}
        )
    if "label" not in raw:
        raise place.error(_("every game needs a label."), field="label")
    label = raw["label"]
    if not isinstance(label, str) or not label.strip():
        raise place.error(
            _("the label must be text that is not empty, not %(value)s.")
            % {"value": _quoted(label)},
            field="label",
        )
    label = label.strip()
    if len(label) > MAX_LABEL:
        raise place.error(
            _("the label is %(length)d characters long; at most %(limit)d are allowed.")
            % {"length": len(label), "limit": MAX_LABEL},
            field="label",
        )
    if unstorable(label):
        raise place.error(
            _("the label contains a control character or an invalid one."), field="label"
        )
    here = _Place(label, index)
    key = label.lower()
    if key in seen:
        raise here.error(
            _("the file has two games with this label (games %(first)d and %(second)d).")
            % {"first": seen[key], "second": index},
            field="label",
        )
    seen[key] = index
    return label


def _label_here(label: str) -> bool:
    """Whether the club has a game of this label (in any capitals), asked once a game of
    every reading: the ORM's statement, made once for the database and run again."""
    sql = _LABEL_HERE.get(connection.vendor)
    if sql is None:
        query = (
            Game.objects.annotate(lower=Lower("label"))
            .filter(lower="?")
            .order_by()
            .values("pk")[:1]
        )
        sql = _LABEL_HERE[connection.vendor] = query.query.sql_with_params()[0]
    with connection.cursor() as cursor:
        cursor.execute(sql, [label.lower()])
        return cursor.fetchone() is not None


_LABEL_HERE: dict[str, str] = {}  # the statement, by the kind of database


def _already_here(label: str, index: int) -> ArchiveError:
    return _Place(label, index).error(
        _("the club already has a game with this label."), field="label"
    )


def same_game_here(spec: GameSpec, names: Mapping[str, str] | None = None) -> bool:
    """Whether this site has ``spec``'s game as it is (labels are unique here): the same
    people in the same seats, first dealer, form of play and deals. ``names``: the file's
    listed players (by :func:`~club.games.whos_who.name_key`) as this site names them; a
    name not listed is this site's player of that name. A team is who plays in it: its
    name is not compared."""
    game_id = (
        Game.objects.annotate(lower=Lower("label"))
        .filter(lower=spec.label.lower(), deals_played=len(spec.deals))
        .values_list("id", flat=True)
        .first()
    )
    if game_id is None:
        return False
    try:
        here = parse_game(game_object(game_id), spec.index, {}, site_copy=True)
    except ArchiveError:  # a game this site cannot export as valid: not the same
        return False
    names = names or {}

    def seats(teams: Sequence[TeamSpec], renamed: Mapping[str, str]) -> list[list[str]]:
        return [
            [name_key(renamed.get(name_key(name), name)) for name in team.players] for team in teams
        ]

    if seats(here.teams, {}) != seats(spec.teams, names):
        return False
    return replace(here, index=spec.index, teams=spec.teams) == replace(spec, here=True)


def _parse_flag(place: _Place, raw: dict, key: str, default: bool) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise place.error(
            _("%(key)s must be true or false, not %(value)s.")
            % {"key": key, "value": _quoted(value)},
            field=key,
        )
    return value


def _parse_form_of_play(place: _Place, raw: dict) -> dict:
    """The settings of docs/rules.md section D a game's file may give (each has today's default)."""
    form: dict = {}
    for key, kind, words in (
        ("scoring", core.Scoring, _("tables or points")),
        ("doubling_mode", core.DoublingMode, _("multiply or add")),
    ):
        value = raw.get(key, kind(list(kind)[0]).value)
        if not isinstance(value, str) or value not in set(kind):
            raise place.error(
                _("%(key)s must be %(choices)s, not %(value)s.")
                % {"key": key, "choices": words, "value": _quoted(value)},
                field=key,
            )
        form[key] = kind(value)
    form["all_pass"] = _parse_flag(place, raw, "all_pass", True)
    form["kodi"] = _parse_flag(place, raw, "kodi", False)
    form["thani"] = None
    if "thani" in raw:
        thani = place.object(raw["thani"], THANI_KEYS, what=_("the thani"), field="thani")
        figures = [
            place.whole(
                thani.get(key),
                field="thani",
                low=0,
                high=core.MAX_BAND_TABLES,
                what=_("what a thani made moves")
                if key == "made"
                else _("what a thani failed moves"),
            )
            for key in THANI_KEYS
        ]
        form["thani"] = core.Thani(*figures)
    return form


def _parse_rules(
    place: _Place, raw: dict, deal_limit: int | None = None, tie_deals: int | None = None
) -> core.Rules:
    tables = raw.get("tables_per_team", core.DEFAULT_RULES.tables_per_team)
    tables = place.whole(
        tables, field="tables_per_team", low=1, high=core.MAX_TABLES, what=_("tables per team")
    )
    bands = core.DEFAULT_BANDS
    if "payout" in raw:
        payout = raw["payout"]
        if not isinstance(payout, list) or not payout:
            raise place.error(
                _(
                    "the payout must be a list of bands such as "
                    '{"from": 28, "to": 39, "made": 1, "failed": 2}, not %(value)s.'
                )
                % {"value": _quoted(payout)},
                field="payout",
            )
        parsed = []
        for row, band in enumerate(payout, start=1):
            band = place.object(band, BAND_KEYS, what=_("a payout band"), field="payout")
            values = []
            for key in BAND_KEYS:
                value = band.get(key)
                low = 0 if key in ("made", "failed") else core.DEFAULT_RULES.min_bid
                high = (
                    core.MAX_BAND_TABLES
                    if key in ("made", "failed")
                    else core.DEFAULT_RULES.max_bid
                )
                if not _is_whole(value) or not low <= value <= high:
                    raise place.error(
                        _(
                            "band %(row)d needs “%(key)s” as a whole number from %(low)d to "
                            "%(high)d, not %(value)s."
                        )
                        % {
                            "row": row,
                            "key": key,
                            "low": low,
                            "high": high,
                            "value": _quoted(value),
                        },
                        field="payout",
                    )
                values.append(value)
            parsed.append(core.Band(*values))
        bands = tuple(parsed)
    form = _parse_form_of_play(place, raw)
    double, redouble = default_factors(core.Rules(doubling_mode=form["doubling_mode"]))
    if "doubling_factors" in raw:
        factors = place.object(
            raw["doubling_factors"],
            FACTOR_KEYS,
            what=_("the doubling factors"),
            field="doubling_factors",
        )
        double = place.whole(
            factors.get("double", double),
            field="doubling_factors",
            low=1,
            high=core.MAX_FACTOR,
            what=_("the doubling factor"),
        )
        redouble = place.whole(
            factors.get("redouble", redouble),
            field="doubling_factors",
            low=1,
            high=core.MAX_FACTOR,
            what=_("the redoubling factor"),
        )
    try:
        rules = core.Rules(
            tables_per_team=tables,
            bands=bands,
            double_factor=double,
            redouble_factor=redouble,
            deal_limit=deal_limit,
            tie_deals=tie_deals,
            **form,
        )
        core.check_house_rules(rules)
        return rules
    except core.RulesError as error:
        raise place.error(
            error.translated(_gettext_in_sentence),
            field=_SETTING_FIELDS.get(error.field or "", error.field),
        ) from None


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
    names: dict[str, int] = {}
    for number, team_raw in enumerate(teams_raw, start=1):
        what = _("team %(number)d") % {"number": number}
        keys = TOURNAMENT_TEAM_KEYS if of_tournament else TEAM_KEYS
        team_raw = place.object(team_raw, keys, what=what, field="teams")
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
        if teams and len(players) != len(teams[0].players):
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
                message % {"number": number, "count": len(players), "size": len(teams[0].players)},
                field="teams",
            )
        names_given = [
            place.text(
                player,
                field="teams",
                limit=MAX_PLAYER_NAME,
                what=_("a player's name in team %(number)d") % {"number": number},
            )
            for player in players
        ]
        first, second = names_given[:2]
        for at, player in enumerate(names_given):
            if any(name_key(player) == name_key(other) for other in names_given[:at]):
                message = (
                    _("%(player)s is named twice in team %(number)d; a team is two players.")
                    if len(names_given) == 2
                    else _("%(player)s is named twice in team %(number)d; each seat is one player.")
                )
                raise place.error(message % {"player": player, "number": number}, field="teams")
        for player in names_given:
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
        if "name" in team_raw:
            name = place.text(
                team_raw["name"],
                field="teams",
                limit=MAX_TEAM_NAME,
                what=_("the name of team %(number)d") % {"number": number},
            )
        else:
            name = default_team_name(names_given, MAX_TEAM_NAME)
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
        captain = _captain(place, team_raw, names_given, number)
        teams.append(TeamSpec(name, first, second, tuple(names_given[2:]), captain))
    return teams


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


def _seat_of(
    place: _Place,
    value: object,
    seat_names: Sequence[str],
    *,
    field: str,
    number: int | None = None,
    role: str,
) -> int:
    if not isinstance(value, str):
        raise place.error(
            _("%(role)s must be the name of a player at this game, not %(value)s.")
            % {"role": role, "value": _quoted(value)},
            number=number,
            field=field,
        )
    for seat, name in enumerate(seat_names):
        if name_key(name) == name_key(value):
            return seat
    raise place.error(
        _("%(name)s is not seated at this game; %(role)s must be one of %(players)s.")
        % {"name": _quoted(value), "role": role, "players": _and_list(seat_names)},
        number=number,
        field=field,
    )


# Read for every deal, said only of a fault: translated when a refusal is written.
A_DEAL = gettext_lazy("a deal")
THE_DECLARER = gettext_lazy("the declarer")
THE_POINTS = gettext_lazy("the points")


def _parse_round(
    place: _Place, raw: object, number: int, teams: Sequence[TeamSpec], seat_names: Sequence[str]
) -> core.Deal:
    raw = place.object(raw, ROUND_INPUT_KEYS + ROUND_COMPUTED_KEYS, what=A_DEAL, number=number)
    if "thani" in raw:
        return _parse_thani(place, raw, number, seat_names)
    all_pass = raw.get("all_pass", False)
    if not isinstance(all_pass, bool):
        raise place.error(
            _("all_pass must be true or false, not %(value)s.") % {"value": _quoted(all_pass)},
            number=number,
            field="all_pass",
        )

    declarer: int | None = None
    if all_pass:
        if raw.get("declarer") is not None:
            raise place.error(
                _("everyone passed in this deal, so it has no declarer."),
                number=number,
                field="declarer",
            )
        bid = raw.get("bid")
        if bid is not None and not _is_whole(bid):
            raise place.error(
                _("the bid must be a whole number, not %(value)s.") % {"value": _quoted(bid)},
                number=number,
                field="bid",
            )
    else:
        for key in ("declarer", "bid", "trump"):
            if raw.get(key) is None:
                raise place.error(
                    _("a deal needs its %(key)s (or “all_pass”: true when everyone passed).")
                    % {"key": key},
                    number=number,
                    field=key,
                )
        declarer = _seat_of(
            place,
            raw["declarer"],
            seat_names,
            field="declarer",
            number=number,
            role=THE_DECLARER,
        )
        bid = raw["bid"]
        if not _is_whole(bid):
            raise place.error(
                _("the bid must be a whole number from %(low)d to %(high)d, not %(value)s.")
                % {
                    "low": core.DEFAULT_RULES.min_bid,
                    "high": core.DEFAULT_RULES.max_bid,
                    "value": _quoted(bid),
                },
                number=number,
                field="bid",
            )

    trump = raw.get("trump")
    if trump is not None and (not isinstance(trump, str) or trump not in set(core.Trump)):
        raise place.error(
            _("%(value)s is not a trump: choose clubs, diamonds, hearts, spades or no-trumps.")
            % {"value": _quoted(trump)},
            number=number,
            field="trump",
        )
    doubling = raw.get("doubling", core.Doubling.NONE.value)
    if not isinstance(doubling, str) or doubling not in set(core.Doubling):
        raise place.error(
            _("%(value)s is not a doubling: choose none, double or redouble.")
            % {"value": _quoted(doubling)},
            number=number,
            field="doubling",
        )

    if "points" not in raw:
        raise place.error(
            _("a deal needs the points: the pile of every team still playing."),
            number=number,
            field="points",
        )
    points_raw = place.object(
        raw["points"],
        None,
        what=THE_POINTS,
        number=number,
        field="points",
    )
    team_index = {name_key(team.name): index for index, team in enumerate(teams)}
    points: dict[int, object] = {}
    for name, pile in points_raw.items():
        index = team_index.get(name_key(name))
        if index is None:
            raise place.error(
                _("%(name)s is not a team of this game; the teams are %(teams)s.")
                % {"name": _quoted(name), "teams": _and_list([team.name for team in teams])},
                number=number,
                field="points",
            )
        if index in points:
            raise place.error(
                _("the pile of %(team)s is given twice.") % {"team": teams[index].name},
                number=number,
                field="points",
            )
        points[index] = pile
    return core.Deal(
        points=points,  # type: ignore[arg-type]  # the rules check every pile
        declarer=declarer,
        bid=bid,
        trump=trump,
        doubling=doubling,
    )


def _parse_thani(place: _Place, raw: dict, number: int, seat_names: Sequence[str]) -> core.Deal:
    """A thani round: its player and whether it was made; no bid, trumps, doubling or piles."""
    for key in ("all_pass", "declarer", "bid", "trump", "doubling", "points"):
        if key in raw:
            raise place.error(
                _("a thani has no “%(key)s”: only its player and whether it was made.")
                % {"key": key},
                number=number,
                field=key,
            )
    player = _seat_of(
        place, raw["thani"], seat_names, field="thani", number=number, role=_("the thani's player")
    )
    made = raw.get("made")
    if not isinstance(made, bool):
        raise place.error(
            _("a thani needs “made”: true or false, not %(value)s.") % {"value": _quoted(made)},
            number=number,
            field="made",
        )
    return core.Deal(points={}, thani=player, made=made)


def _replay(
    place: _Place,
    teams: Sequence[TeamSpec],
    first_dealer: int,
    deals: Sequence[core.Deal],
    rules: core.Rules,
) -> tuple[list[core.Settlement], core.GameState]:
    names = [team.name for team in teams]
    try:
        return core.replay(len(teams), first_dealer, deals, rules)
    except core.DealError as error:
        if isinstance(error.__cause__, core.GameOver):
            before = core.replay(len(teams), first_dealer, deals[: error.number - 1], rules)[1]
            winner = names[before.winner] if before.winner is not None else "?"
            raise place.error(
                _(
                    "the game was already over after deal %(last)d (%(team)s had won), so no "
                    "deal can follow it."
                )
                % {"last": error.number - 1, "team": winner},
                number=error.number,
            ) from None
        raise place.error(
            _rules_problem(error, names),
            number=error.number,
            field=error.field,
        ) from None
    except core.RulesError as error:
        raise place.error(_rules_problem(error, names), field=error.field) from None


def _rules_problem(error: core.RulesError, names: Sequence[str]) -> str:
    """The rules' message as part of a sentence, a long value from the file in it cut short.

    The rules quote what they refuse (a bid, a pile, their sum); a value longer
    than ``QUOTE_LIMIT`` characters is cut as :func:`_quoted` cuts it, its
    placeholder then written as text (``%(bid)d`` reads ``%(bid)s``).
    """
    long = {
        key: _cut(str(value))
        for key, value in error.params.items()
        if key != "team" and len(str(value)) > QUOTE_LIMIT
    }
    if not long:
        return error.translated(_gettext_in_sentence, names)
    placeholder = re.compile(
        r"%\((" + "|".join(map(re.escape, long)) + r")\)[#0 +-]*\d*(\.\d+)?[a-z]"
    )

    def gettext(text: str) -> str:
        return placeholder.sub(r"%(\1)s", _gettext_in_sentence(text))

    # Not constructed: its English message would format the cut text with "%d".
    shortened = core.RulesError.__new__(core.RulesError)
    shortened.template, shortened.field = error.template, error.field
    shortened.params = {**error.params, **long}
    return shortened.translated(gettext, names)


def _with_team_size(place: _Place, rules: core.Rules, size: int) -> core.Rules:
    """The rules for the game's teams: their size is what the file's teams are."""
    try:
        return replace(rules, team_size=size)
    except core.RulesError as error:
        raise place.error(error.translated(_gettext_in_sentence), field="teams") from None


def _parse_game_end(place: _Place, raw: dict, deals: int) -> tuple[int | None, int | None, bool]:
    """The optional deal limit and tie rule (a knockout game's), and whether the organiser
    called time."""
    deal_limit = raw.get("deal_limit")
    tie_deals = raw.get("tie_deals")
    if tie_deals is not None:
        tie_deals = place.whole(
            tie_deals,
            field="tie_deals",
            low=0,
            high=core.MAX_TIE_DEALS,
            what=_("the extra deals of a tie"),
        )
    if deal_limit is not None:
        deal_limit = place.whole(
            deal_limit,
            field="deal_limit",
            low=1,
            high=core.MAX_DEAL_LIMIT,
            what=_("the deal limit"),
        )
        # Under a tie rule the rules decide where the game ends (a level game plays on).
        if deals > deal_limit and tie_deals is None:
            raise place.error(
                _("the game ends after %(limit)d deals but the file has %(deals)d.")
                % {"limit": deal_limit, "deals": deals},
                field="rounds",
            )
    ended_early = raw.get("ended_early", False)
    if not isinstance(ended_early, bool):
        raise place.error(
            _("ended_early must be true or false, not %(value)s.")
            % {"value": _quoted(ended_early)},
            field="ended_early",
        )
    return deal_limit, tie_deals, ended_early


def parse_game(
    raw: object,
    index: int,
    seen_labels: dict[str, int],
    *,
    may_be_here: bool = False,
    site_copy: bool = False,
    computed: bool = True,
    labels_here: frozenset[str] | None = None,
    names: Mapping[str, str] | None = None,
) -> GameSpec:
    """Check one game of the file: its shape first, then its deals against the rules.

    A label this club has already is refused, unless ``may_be_here`` and the game here is
    the same game (:func:`same_game_here`): the spec then says it is ``here``. A
    ``site_copy`` is this club's own export of a game here, read to compare it.
    ``computed=False`` leaves out comparing the fields the rules compute (the deals'
    numbers, tables, places ...) with the replay: a reading of a game checked so already,
    which stores the replay, never those fields. ``labels_here``: the labels (lower case) of the
    games a check of the file found here already, so that a reading again need not ask.
    ``names``: the file's listed players as this site names them (:func:`same_game_here`).
    """
    label = _parse_label(raw, index, seen_labels)
    here = _label_here(label) if labels_here is None else label.lower() in labels_here
    if here and not (may_be_here or site_copy):
        raise _already_here(label, index)
    place = _Place(label, index)
    raw = place.object(raw, GAME_INPUT_KEYS + GAME_COMPUTED_KEYS, what=_("a game"))
    rounds_count = len(raw["rounds"]) if isinstance(raw.get("rounds"), list) else 0
    deal_limit, tie_deals, ended_early = _parse_game_end(place, raw, rounds_count)
    rules = _parse_rules(place, raw, deal_limit, tie_deals)
    teams = _parse_teams(place, raw)
    if len(teams[0].players) != rules.team_size:
        rules = _with_team_size(place, rules, len(teams[0].players))
    seat_names = _seat_names(teams)
    if "first_dealer" not in raw:
        raise place.error(_("every game needs its first dealer."), field="first_dealer")
    first_dealer = _seat_of(
        place, raw["first_dealer"], seat_names, field="first_dealer", role=_("the first dealer")
    )
    if "rounds" not in raw:
        raise place.error(
            _("every game needs its rounds: a list of deals, empty if none was played yet."),
            field="rounds",
        )
    rounds_raw = raw["rounds"]
    if not isinstance(rounds_raw, list):
        raise place.error(
            _("the rounds must be a list of deals, not %(value)s.")
            % {"value": _quoted(rounds_raw)},
            field="rounds",
        )
    deals = [
        _parse_round(place, round_raw, number, teams, seat_names)
        for number, round_raw in enumerate(rounds_raw, start=1)
    ]
    settlements, state = _replay(place, teams, first_dealer, deals, rules)
    if ended_early and _outcome(state, deal_limit, False)[0]:
        raise place.error(
            _(
                "the game was over by its deals (won, or at its deal limit), so time cannot "
                "also have been called on it."
            ),
            field="ended_early",
        )

    spec = GameSpec(
        index=index,
        label=label,
        rules=rules,
        teams=teams,
        first_dealer=first_dealer,
        deals=deals,
        settlements=settlements,
        state=state,
        deal_limit=deal_limit,
        ended_early=ended_early,
        here=here,
    )
    if computed:
        _check_against_replay(place, raw, rounds_raw, spec)
    if here and not site_copy and not same_game_here(spec, names):
        raise _already_here(label, index)
    return spec


def _check_against_replay(place: _Place, raw: dict, rounds_raw: list, spec: GameSpec) -> None:
    """The file's computed fields, and its deals' numbers, as the replay gives them."""
    expected = _game_document(
        label=spec.label,
        rules=spec.rules,
        teams=spec.teams,
        first_dealer=spec.first_dealer,
        settlements=spec.settlements,
        state=spec.state,
        deal_limit=spec.deal_limit,
        ended_early=spec.ended_early,
    )
    for number, (round_raw, round_expected) in enumerate(
        zip(rounds_raw, expected["rounds"], strict=True), start=1
    ):
        if "number" in round_raw and not _agrees(round_raw["number"], number):
            raise place.error(
                _(
                    "the deals must be numbered 1, 2, 3 ... in the order they were played; "
                    "this is deal %(number)d, not %(given)s."
                )
                % {"number": number, "given": _quoted(round_raw["number"])},
                number=number,
                field="number",
            )
        _check_computed(place, round_raw, round_expected, ROUND_COMPUTED_KEYS, number)
    _check_computed(place, raw, expected, GAME_COMPUTED_KEYS)
