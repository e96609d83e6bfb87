"""Reading a game from a file: label, house rules (``parse_settings``), teams
(``parse_teams``), rounds, its end; every round settled by the rules core and the file's
computed fields compared with it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from django.db import connection
from django.db.models.functions import Lower
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from club.archive.computed import _agrees, _check_computed
from club.archive.export import game_object
from club.archive.format import (
    GAME_COMPUTED_KEYS,
    GAME_INPUT_KEYS,
    MAX_LABEL,
    QUOTE_LIMIT,
    ROUND_COMPUTED_KEYS,
    ROUND_INPUT_KEYS,
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
)
from club.archive.parse_settings import _parse_game_end, _parse_rules, _with_team_size
from club.archive.parse_teams import _parse_teams
from club.clubs import known as clubs
from club.games.models import (
    Game,
)
from club.games.whos_who import name_key
from club.scoring import rules as core
from club.scoring.names import unstorable

if TYPE_CHECKING:  # django-stubs' own helper, for the type checker only
    from django_stubs_ext import StrOrPromise


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


def _label_here(label: str, club_id: int) -> bool:
    """Whether the club has a game of this label (in any capitals), asked once a game of
    every reading: the ORM's statement, made once for the database and run again."""
    found = _LABEL_HERE.get(connection.vendor)
    if found is None:
        query = (
            Game.objects.annotate(lower=Lower("label"))
            .filter(club_id=_CLUB_MARK, lower=_LABEL_MARK)
            .order_by()
            .values("pk")[:1]
        )
        sql, marks = query.query.sql_with_params()
        found = _LABEL_HERE[connection.vendor] = (sql, tuple(marks))
    sql, marks = found
    given: dict[Any, Any] = {_CLUB_MARK: club_id, _LABEL_MARK: label.lower()}
    with connection.cursor() as cursor:
        cursor.execute(sql, [given.get(mark, mark) for mark in marks])
        return cursor.fetchone() is not None


# The statement and, in its order, the marks standing for its values, by kind of database.
_LABEL_HERE: dict[str, tuple[str, tuple[Any, ...]]] = {}
_CLUB_MARK, _LABEL_MARK = -1, "?"


def _already_here(label: str, index: int) -> ArchiveError:
    return _Place(label, index).error(
        _("the club already has a game with this label."), field="label"
    )


def same_game_here(
    spec: GameSpec, names: Mapping[str, str] | None = None, *, club_id: int | None = None
) -> bool:
    """Whether the club ``club_id`` (the home club when None) has ``spec``'s game as it is
    (labels are unique in a club): the same people in the same seats, first dealer, form
    of play and deals. ``names``: the file's listed players (by
    :func:`~club.games.whos_who.name_key`) as this site names them; a name not listed is
    this site's player of that name. A team is who plays in it: its name is not compared."""
    club_id = club_id or clubs.home_id()
    game_id = (
        Game.objects.annotate(lower=Lower("label"))
        .filter(
            club_id=club_id,
            lower=spec.label.lower(),
            deals_played=len(spec.deals),
        )
        .values_list("id", flat=True)
        .first()
    )
    if game_id is None:
        return False
    try:
        here = parse_game(game_object(game_id), spec.index, {}, site_copy=True, club_id=club_id)
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


def _seat_of(
    place: _Place,
    value: object,
    seat_names: Sequence[str],
    *,
    field: str,
    number: int | None = None,
    role: StrOrPromise,
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
    """One round of the file: a thani, or a contract (or everyone passed) and the piles."""
    raw = place.json_object(raw, ROUND_INPUT_KEYS + ROUND_COMPUTED_KEYS, what=A_DEAL, number=number)
    if "thani" in raw:
        return _parse_thani(place, raw, number, seat_names)
    all_pass = raw.get("all_pass", False)
    if not isinstance(all_pass, bool):
        raise place.error(
            _("all_pass must be true or false, not %(value)s.") % {"value": _quoted(all_pass)},
            number=number,
            field="all_pass",
        )
    if all_pass:
        declarer, bid = None, _parse_passed_bid(place, raw, number)
    else:
        declarer, bid = _parse_contract(place, raw, number, seat_names)
    trump, doubling = _parse_trump_and_doubling(place, raw, number)
    return core.Deal(
        points=_parse_points(place, raw, number, teams),  # type: ignore[arg-type]  # the rules check every pile
        declarer=declarer,
        bid=bid,
        trump=trump,
        doubling=doubling,
    )


def _parse_passed_bid(place: _Place, raw: dict, number: int) -> int | None:
    """A deal everyone passed: no declarer, and a bid only as a whole number."""
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
    return bid


def _parse_contract(
    place: _Place, raw: dict, number: int, seat_names: Sequence[str]
) -> tuple[int, int]:
    """A bid deal's declarer (their seat) and bid; its trump must be given too."""
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
    return declarer, bid


def _parse_trump_and_doubling(place: _Place, raw: dict, number: int) -> tuple[str | None, str]:
    """The trump (None when everyone passed and the file names none) and the doubling."""
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
    return trump, doubling


def _parse_points(
    place: _Place, raw: dict, number: int, teams: Sequence[TeamSpec]
) -> dict[int, object]:
    """The piles, by team: each team of the game at most once (the rules check each pile)."""
    if "points" not in raw:
        raise place.error(
            _("a deal needs the points: the pile of every team still playing."),
            number=number,
            field="points",
        )
    points_raw = place.json_object(
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
    return points


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
    club_id: int | None = None,
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
    ``club_id``: the club whose games are "here" (the home club when None).
    """
    label = _parse_label(raw, index, seen_labels)
    club_id = club_id or clubs.home_id()
    here = _label_here(label, club_id) if labels_here is None else label.lower() in labels_here
    if here and not (may_be_here or site_copy):
        raise _already_here(label, index)
    place = _Place(label, index)
    raw = place.json_object(raw, GAME_INPUT_KEYS + GAME_COMPUTED_KEYS, what=_("a game"))
    spec = _parse_played(place, raw, index, label, here)
    if computed:
        _check_against_replay(place, raw, raw["rounds"], spec)
    if here and not site_copy and not same_game_here(spec, names, club_id=club_id):
        raise _already_here(label, index)
    return spec


def _parse_played(place: _Place, raw: dict, index: int, label: str, here: bool) -> GameSpec:
    """What a game's settings, teams and rounds say, its deals settled by the rules."""
    rounds_count = len(raw["rounds"]) if isinstance(raw.get("rounds"), list) else 0
    deal_limit, tie_deals, ended_early = _parse_game_end(place, raw, rounds_count)
    rules = _parse_rules(place, raw, deal_limit, tie_deals)
    teams = _parse_teams(place, raw)
    if len(teams[0].players) != rules.team_size:
        rules = _with_team_size(place, rules, len(teams[0].players))
    seat_names = _seat_names(teams)
    first_dealer = _parse_first_dealer(place, raw, seat_names)
    deals = _parse_rounds(place, raw, teams, seat_names)
    settlements, state = _replay(place, teams, first_dealer, deals, rules)
    if ended_early and _outcome(state, deal_limit, False)[0]:
        raise place.error(
            _(
                "the game was over by its deals (won, or at its deal limit), so time cannot "
                "also have been called on it."
            ),
            field="ended_early",
        )
    return GameSpec(
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


def _parse_first_dealer(place: _Place, raw: dict, seat_names: Sequence[str]) -> int:
    """The seat of the game's first dealer, a player at the game."""
    if "first_dealer" not in raw:
        raise place.error(_("every game needs its first dealer."), field="first_dealer")
    return _seat_of(
        place, raw["first_dealer"], seat_names, field="first_dealer", role=_("the first dealer")
    )


def _parse_rounds(
    place: _Place, raw: dict, teams: Sequence[TeamSpec], seat_names: Sequence[str]
) -> list[core.Deal]:
    """The game's deals, in the order they were played (a list, empty if none was yet)."""
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
    return [
        _parse_round(place, round_raw, number, teams, seat_names)
        for number, round_raw in enumerate(rounds_raw, start=1)
    ]


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
