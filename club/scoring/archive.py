"""Import and export of results in the club's archive format, ``fiftysix-results/1``.

An archive is one JSON document::

    {"format": "fiftysix-results/1",
     "games": [{"label": ..., "tables_per_team": 12, "teams": [...],
                "first_dealer": ..., "rounds": [...]}]}

Each round holds what the scorer reported (declarer, bid, trump, doubling and
the piles, or ``"all_pass": true`` and the piles). An export adds what the rules
compute from that (dealer, declaring team, made, transfers, tables after each
deal, teams out, and per game the status, winner and tables); an import accepts
those fields and refuses the file when they disagree with the rules, so a
changed or damaged archive is caught.

Importing checks the whole file first (its shape, then the rules, by replaying
every game through :func:`club.scoring.rules.replay`) and then writes it with
the deal services, in one transaction: all of it is stored or nothing.
Every refusal is an :class:`ArchiveError` whose message names the game and,
where it applies, the deal number and the field at fault.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, transaction
from django.db.models.functions import Lower
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.games.models import Game, Player, Team
from club.scoring import rules as core
from club.scoring import services

FORMAT = "fiftysix-results/1"

MAX_LABEL = Game._meta.get_field("label").max_length
MAX_PLAYER_NAME = Player._meta.get_field("name").max_length
MAX_TEAM_NAME = Team._meta.get_field("name").max_length
# Settings are small numbers in practice; the cap keeps them inside the columns
# that store them (and the tables moved inside the ledger's).
MAX_SETTING = 1000

DOCUMENT_KEYS = ("format", "games")
GAME_INPUT_KEYS = (
    "label",
    "tables_per_team",
    "payout",
    "doubling_factors",
    "teams",
    "first_dealer",
    "rounds",
)
GAME_COMPUTED_KEYS = ("status", "winner", "tables")
TEAM_KEYS = ("name", "players")
BAND_KEYS = ("from", "to", "made", "failed")
FACTOR_KEYS = ("double", "redouble")
ROUND_INPUT_KEYS = ("all_pass", "declarer", "bid", "trump", "doubling", "points")
ROUND_COMPUTED_KEYS = (
    "number",
    "dealer",
    "declaring_team",
    "made",
    "transfers",
    "tables_after",
    "eliminated",
)

CSV_COLUMNS = (
    "game",
    "deal",
    "dealer",
    "declarer",
    "declaring_team",
    "all_pass",
    "bid",
    "trump",
    "doubling",
    "made",
    "team",
    "points",
    "change",
    "tables_after",
    "eliminated",
)

# The rules core names its fields after the deal and the settings; the file's keys.
_SETTING_FIELDS = {"tables": "tables_per_team", "bands": "payout", "doubling": "doubling_factors"}


class ArchiveError(Exception):
    """An archive refused, with a message naming the game, deal and field at fault."""

    def __init__(
        self,
        problem: str,
        *,
        label: str | None = None,
        index: int | None = None,
        number: int | None = None,
        field: str | None = None,
    ):
        self.problem = problem
        self.label = label
        self.index = index
        self.number = number
        self.field = field
        super().__init__(self.message)

    @property
    def message(self) -> str:
        parts = []
        if self.label is not None:
            parts.append(_('Game "%(label)s"') % {"label": self.label})
        elif self.index is not None:
            parts.append(_("Game %(index)d in the file") % {"index": self.index})
        if self.number is not None:
            parts.append(_("deal %(number)d") % {"number": self.number})
        if self.field:
            parts.append(self.field)
        if not parts:
            return self.problem
        return _("%(where)s: %(problem)s") % {"where": ", ".join(parts), "problem": self.problem}


# --- Small helpers ------------------------------------------------------------


def _clean(name: str) -> str:
    """A name as the club stores it: inner runs of spaces collapsed, ends trimmed."""
    return " ".join(name.split())


def _key(name: str) -> str:
    """How names are matched: spacing and capitals do not matter."""
    return _clean(name).lower()


def _decap(text: str) -> str:
    """Lower the first letter of a sentence that follows "…, field: "."""
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


def _gettext_in_sentence(message: str) -> str:
    return _decap(_(message))


def _quoted(value: object) -> str:
    """A value from the file as it reads in JSON, shortened for a message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = "..."
    return text if len(text) <= 80 else text[:77] + "..."


def _unstorable(text: str) -> bool:
    """Control characters and lone surrogates (which no database can store)."""
    return any(unicodedata.category(char) in ("Cc", "Cs") for char in text)


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _and_list(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return _("%(items)s and %(last)s") % {"items": ", ".join(items[:-1]), "last": items[-1]}


class _Object(dict):
    """A JSON object that remembers the first key it saw twice."""

    duplicate: str | None = None


def _object_pairs(pairs: list[tuple[str, Any]]) -> _Object:
    result = _Object()
    for key, value in pairs:
        if key in result and result.duplicate is None:
            result.duplicate = key
        result[key] = value
    return result


@dataclass
class _Place:
    """Where in the file a check is looking; makes errors that say so."""

    label: str | None
    index: int

    def error(self, problem: str, *, number: int | None = None, field: str | None = None):
        return ArchiveError(
            problem,
            label=self.label,
            index=None if self.label is not None else self.index,
            number=number,
            field=field,
        )

    def object(
        self,
        value: object,
        allowed: Sequence[str] | None,
        *,
        what: str,
        number: int | None = None,
        field: str | None = None,
    ) -> dict:
        """Check ``value`` is a JSON object with no repeated key and only ``allowed`` keys."""
        if not isinstance(value, dict):
            raise self.error(
                _("%(what)s must be a JSON object, not %(value)s.")
                % {"what": what, "value": _quoted(value)},
                number=number,
                field=field,
            )
        duplicate = getattr(value, "duplicate", None)
        if duplicate is not None:
            raise self.error(
                _("the key “%(key)s” is given twice in %(what)s.")
                % {"key": duplicate, "what": what},
                number=number,
                field=field,
            )
        for key in value:
            if allowed is not None and key not in allowed:
                raise self.error(
                    _("this is not a field of %(what)s (the fields are %(fields)s).")
                    % {"what": what, "fields": ", ".join(allowed)},
                    number=number,
                    field=f"{field}.{key}" if field else key,
                )
        return value

    def text(
        self, value: object, *, field: str, limit: int, what: str, number: int | None = None
    ) -> str:
        """A name or label: a non-empty string without control characters."""
        if not isinstance(value, str):
            raise self.error(
                _("%(what)s must be text, not %(value)s.")
                % {"what": what, "value": _quoted(value)},
                number=number,
                field=field,
            )
        cleaned = _clean(value)
        if not cleaned:
            raise self.error(
                _("%(what)s cannot be empty.") % {"what": what}, number=number, field=field
            )
        if _unstorable(cleaned):
            raise self.error(
                _("%(what)s contains a control character or an invalid one.") % {"what": what},
                number=number,
                field=field,
            )
        if len(cleaned) > limit:
            raise self.error(
                _("%(what)s is %(length)d characters long; at most %(limit)d are allowed.")
                % {"what": what, "length": len(cleaned), "limit": limit},
                number=number,
                field=field,
            )
        return cleaned

    def whole(self, value: object, *, field: str, low: int, high: int, what: str) -> int:
        if not _is_whole(value) or not low <= value <= high:  # type: ignore[operator]
            raise self.error(
                _("%(what)s must be a whole number from %(low)d to %(high)d, not %(value)s.")
                % {"what": what, "low": low, "high": high, "value": _quoted(value)},
                field=field,
            )
        return value  # type: ignore[return-value]


# --- What a game in the file says ------------------------------------------------


@dataclass
class TeamSpec:
    name: str
    first: str
    second: str


@dataclass
class GameSpec:
    """One game of the file, checked: what to write and what the rules made of it."""

    index: int
    label: str
    rules: core.Rules
    teams: list[TeamSpec]
    first_dealer: int  # seat
    deals: list[core.Deal]
    settlements: list[core.Settlement]
    state: core.GameState

    @property
    def seat_names(self) -> list[str]:
        return _seat_names(self.teams)


def _seat_names(teams: Sequence[TeamSpec]) -> list[str]:
    return [
        (teams[team].first, teams[team].second)[partner]
        for team, partner in core.seat_order(len(teams))
    ]


# --- The document both ways ------------------------------------------------------


def _settings_fields(rules: core.Rules) -> dict:
    data: dict = {"tables_per_team": rules.tables_per_team}
    if rules.bands != core.DEFAULT_BANDS:
        data["payout"] = [
            {"from": band.low, "to": band.high, "made": band.made, "failed": band.failed}
            for band in rules.bands
        ]
    if (rules.double_factor, rules.redouble_factor) != (
        core.DEFAULT_RULES.double_factor,
        core.DEFAULT_RULES.redouble_factor,
    ):
        data["doubling_factors"] = {
            "double": rules.double_factor,
            "redouble": rules.redouble_factor,
        }
    return data


def _round_document(
    settlement: core.Settlement, team_names: Sequence[str], seat_names: Sequence[str]
) -> dict:
    data: dict = {"number": settlement.number, "dealer": seat_names[settlement.dealer]}
    if settlement.all_pass:
        data["all_pass"] = True
    else:
        data["declarer"] = seat_names[settlement.declarer]  # type: ignore[index]
        data["bid"] = settlement.bid
        data["trump"] = str(settlement.trump)
        data["doubling"] = str(settlement.doubling)
    data["points"] = {team_names[team]: pile for team, pile in sorted(settlement.points.items())}
    data["declaring_team"] = team_names[settlement.declaring_team]
    data["made"] = settlement.made
    teams = range(len(team_names))
    data["transfers"] = {team_names[team]: settlement.transfers[team] for team in teams}
    data["tables_after"] = {team_names[team]: settlement.tables_after[team] for team in teams}
    data["eliminated"] = [team_names[team] for team in settlement.eliminated]
    return data


def _game_document(
    *,
    label: str,
    rules: core.Rules,
    teams: Sequence[TeamSpec],
    first_dealer: int,
    settlements: Sequence[core.Settlement],
    state: core.GameState,
) -> dict:
    names = [team.name for team in teams]
    seat_names = _seat_names(teams)
    data: dict = {"label": label}
    data.update(_settings_fields(rules))
    data["teams"] = [{"name": team.name, "players": [team.first, team.second]} for team in teams]
    data["first_dealer"] = seat_names[first_dealer]
    data["status"] = Game.Status.FINISHED.value if state.finished else Game.Status.IN_PROGRESS.value
    data["winner"] = names[state.winner] if state.winner is not None else None
    data["tables"] = {names[team]: state.tables[team] for team in range(len(teams))}
    data["rounds"] = [_round_document(s, names, seat_names) for s in settlements]
    return data


# --- Export -----------------------------------------------------------------------


@dataclass
class _StoredGame:
    game: Game
    teams: list[TeamSpec]
    settlements: list[core.Settlement]
    state: core.GameState


def _stored_games() -> list[_StoredGame]:
    """Every game, oldest first, with its deals settled by the rules as they stand."""
    stored = []
    for game in Game.objects.order_by("id"):
        try:
            seating, settlements, state = services.replay_game(game)
        except services.ScoringError as error:
            raise ArchiveError(_decap(error.message), label=game.label) from error
        teams = [
            TeamSpec(entry.team.name, entry.first_player.name, entry.second_player.name)
            for entry in seating.teams
        ]
        stored.append(_StoredGame(game, teams, settlements, state))
    return stored


def export_document() -> dict:
    """Every game of the club as a ``fiftysix-results/1`` document (plain data)."""
    return {
        "format": FORMAT,
        "games": [
            _game_document(
                label=item.game.label,
                rules=item.game.rules,
                teams=item.teams,
                first_dealer=item.game.first_dealer_seat,
                settlements=item.settlements,
                state=item.state,
            )
            for item in _stored_games()
        ],
    }


def export_json() -> str:
    return json.dumps(export_document(), ensure_ascii=False, indent=2) + "\n"


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _safe_cell(value: object) -> object:
    """Text a spreadsheet could run as a formula gets a leading quote; numbers stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def _flag(value: bool) -> str:
    return "true" if value else "false"


def export_csv() -> str:
    """One row per team per deal, every team of the game (long format)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for item in _stored_games():
        names = [team.name for team in item.teams]
        seat_names = _seat_names(item.teams)
        for settlement in item.settlements:
            for team, name in enumerate(names):
                row = (
                    item.game.label,
                    settlement.number,
                    seat_names[settlement.dealer],
                    "" if settlement.declarer is None else seat_names[settlement.declarer],
                    names[settlement.declaring_team],
                    _flag(settlement.all_pass),
                    settlement.bid,
                    str(settlement.trump),
                    str(settlement.doubling),
                    _flag(settlement.made),
                    name,
                    settlement.points.get(team, ""),
                    settlement.transfers[team],
                    settlement.tables_after[team],
                    _flag(team in settlement.eliminated),
                )
                writer.writerow([_safe_cell(cell) for cell in row])
    return buffer.getvalue()


# --- Reading a file -----------------------------------------------------------------


def load_document(text: str) -> dict:
    """Parse the JSON text and check it is a ``fiftysix-results/1`` document."""
    try:
        data = json.loads(text, object_pairs_hook=_object_pairs)
    except RecursionError:
        raise ArchiveError(_("The file is not valid JSON: it is nested too deeply.")) from None
    except ValueError as error:
        raise ArchiveError(
            _("The file is not valid JSON: %(reason)s.") % {"reason": error}
        ) from None
    if not isinstance(data, dict):
        raise ArchiveError(
            _("The file must hold one JSON object with “format” and “games”; it holds %(value)s.")
            % {"value": _quoted(data)}
        )
    if "format" not in data:
        raise ArchiveError(
            _("The file does not say its format: “format” must be “%(format)s”.")
            % {"format": FORMAT}
        )
    if data["format"] != FORMAT:
        raise ArchiveError(
            _("The file's format is %(found)s; this club reads “%(format)s” files.")
            % {"found": _quoted(data["format"]), "format": FORMAT}
        )
    if getattr(data, "duplicate", None) is not None:
        raise ArchiveError(
            _("The key “%(key)s” is given twice at the top of the file.") % {"key": data.duplicate}  # type: ignore[attr-defined]
        )
    for key in data:
        if key not in DOCUMENT_KEYS:
            raise ArchiveError(
                _("“%(key)s” is not a field of a results file (the fields are format and games).")
                % {"key": key}
            )
    if "games" not in data:
        raise ArchiveError(_("The file has no “games” list."))
    if not isinstance(data["games"], list):
        raise ArchiveError(
            _("“games” must be a list of games, not %(value)s.") % {"value": _quoted(data["games"])}
        )
    return data


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
    if _unstorable(label):
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
    if Game.objects.annotate(lower=Lower("label")).filter(lower=key).exists():
        raise here.error(
            _("the club already has a game with this label."),
            field="label",
        )
    return label


def _parse_rules(place: _Place, raw: dict) -> core.Rules:
    tables = raw.get("tables_per_team", core.DEFAULT_RULES.tables_per_team)
    tables = place.whole(
        tables, field="tables_per_team", low=1, high=MAX_SETTING, what=_("tables per team")
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
                high = MAX_SETTING if key in ("made", "failed") else core.DEFAULT_RULES.max_bid
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
    double, redouble = core.DEFAULT_RULES.double_factor, core.DEFAULT_RULES.redouble_factor
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
            high=MAX_SETTING,
            what=_("the doubling factor"),
        )
        redouble = place.whole(
            factors.get("redouble", redouble),
            field="doubling_factors",
            low=1,
            high=MAX_SETTING,
            what=_("the redoubling factor"),
        )
    try:
        return core.Rules(
            tables_per_team=tables, bands=bands, double_factor=double, redouble_factor=redouble
        )
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
    teams: list[TeamSpec] = []
    team_of_player: dict[str, tuple[int, str]] = {}  # by name key: team number, spelling
    names: dict[str, int] = {}
    for number, team_raw in enumerate(teams_raw, start=1):
        what = _("team %(number)d") % {"number": number}
        team_raw = place.object(team_raw, TEAM_KEYS, what=what, field="teams")
        players = team_raw.get("players")
        if not isinstance(players, list):
            raise place.error(
                _("team %(number)d needs “players”: a list of its two players.")
                % {"number": number},
                field="teams",
            )
        if len(players) != 2:
            raise place.error(
                _("team %(number)d must be two players, not %(count)d.")
                % {"number": number, "count": len(players)},
                field="teams",
            )
        first, second = (
            place.text(
                player,
                field="teams",
                limit=MAX_PLAYER_NAME,
                what=_("a player's name in team %(number)d") % {"number": number},
            )
            for player in players
        )
        if _key(first) == _key(second):
            raise place.error(
                _("%(player)s is named twice in team %(number)d; a team is two players.")
                % {"player": first, "number": number},
                field="teams",
            )
        for player in (first, second):
            if _key(player) in team_of_player:
                other, spelling = team_of_player[_key(player)]
                raise place.error(
                    _(
                        "%(player)s plays in two teams (team %(first)d and team %(second)d); "
                        "a player sits in one team only."
                    )
                    % {"player": spelling, "first": other, "second": number},
                    field="teams",
                )
            team_of_player[_key(player)] = (number, player)
        if "name" in team_raw:
            name = place.text(
                team_raw["name"],
                field="teams",
                limit=MAX_TEAM_NAME,
                what=_("the name of team %(number)d") % {"number": number},
            )
        else:
            name = f"{first} & {second}"
        if _key(name) in names:
            raise place.error(
                _("teams %(first)d and %(second)d are both called “%(name)s”.")
                % {"first": names[_key(name)], "second": number, "name": name},
                field="teams",
            )
        names[_key(name)] = number
        teams.append(TeamSpec(name, first, second))
    return teams


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
        if _key(name) == _key(value):
            return seat
    raise place.error(
        _("%(name)s is not seated at this game; %(role)s must be one of %(players)s.")
        % {"name": _quoted(value), "role": role, "players": _and_list(seat_names)},
        number=number,
        field=field,
    )


def _parse_round(
    place: _Place, raw: object, number: int, teams: Sequence[TeamSpec], seat_names: Sequence[str]
) -> core.Deal:
    what = _("a deal")
    raw = place.object(raw, ROUND_INPUT_KEYS + ROUND_COMPUTED_KEYS, what=what, number=number)
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
            role=_("the declarer"),
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
        what=_("the points"),
        number=number,
        field="points",
    )
    team_index = {_key(team.name): index for index, team in enumerate(teams)}
    points: dict[int, object] = {}
    for name, pile in points_raw.items():
        index = team_index.get(_key(name))
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
            error.translated(_gettext_in_sentence, names),
            number=error.number,
            field=error.field,
        ) from None
    except core.RulesError as error:
        raise place.error(
            error.translated(_gettext_in_sentence, names), field=error.field
        ) from None


def _comparable(value: object) -> object:
    """A value reduced so that spelling of names does not matter but types do."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, str):
        return ("str", _key(value))
    if isinstance(value, list):
        return ("list", [_comparable(item) for item in value])
    if isinstance(value, dict):
        items = {_key(key): _comparable(item) for key, item in value.items()}
        if len(items) != len(value) or getattr(value, "duplicate", None) is not None:
            return ("dict", "ambiguous", id(value))
        return ("dict", items)
    return (type(value).__name__, value)


def _agrees(given: object, expected: object, *, unordered: bool = False) -> bool:
    try:
        return _agrees_exactly(given, expected, unordered=unordered)
    except RecursionError:  # a value nested deeper than any the rules give
        return False


def _agrees_exactly(given: object, expected: object, *, unordered: bool) -> bool:
    if unordered and isinstance(given, list) and isinstance(expected, list):
        return sorted(map(repr, map(_comparable, given))) == sorted(
            map(repr, map(_comparable, expected))
        )
    return _comparable(given) == _comparable(expected)


def _check_computed(
    place: _Place, raw: dict, expected: dict, keys: Sequence[str], number: int | None = None
) -> None:
    for key in keys:
        if key not in raw:
            continue
        if not _agrees(raw[key], expected[key], unordered=key == "eliminated"):
            raise place.error(
                _(
                    "the file says %(given)s but the deals, settled by the rules, give "
                    "%(expected)s; the file has been changed or is damaged."
                )
                % {"given": _quoted(raw[key]), "expected": _quoted(expected[key])},
                number=number,
                field=key,
            )


def parse_game(raw: object, index: int, seen_labels: dict[str, int]) -> GameSpec:
    """Check one game of the file: its shape first, then its deals against the rules."""
    label = _parse_label(raw, index, seen_labels)
    place = _Place(label, index)
    raw = place.object(raw, GAME_INPUT_KEYS + GAME_COMPUTED_KEYS, what=_("a game"))
    rules = _parse_rules(place, raw)
    teams = _parse_teams(place, raw)
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

    expected = _game_document(
        label=label,
        rules=rules,
        teams=teams,
        first_dealer=first_dealer,
        settlements=settlements,
        state=state,
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
    return GameSpec(
        index=index,
        label=label,
        rules=rules,
        teams=teams,
        first_dealer=first_dealer,
        deals=deals,
        settlements=settlements,
        state=state,
    )


def parse_document(text: str) -> list[GameSpec]:
    """Check a whole file; raise :class:`ArchiveError` at the first fault."""
    data = load_document(text)
    seen: dict[str, int] = {}
    return [parse_game(raw, index, seen) for index, raw in enumerate(data["games"], start=1)]


# --- Import -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportSummary:
    games: int
    deals: int


def _write_game(spec: GameSpec, user=None) -> Game:
    try:
        game = services.create_game(
            label=spec.label,
            teams=[services.TeamEntry(team.first, team.second, team.name) for team in spec.teams],
            first_dealer=spec.first_dealer,
            rules=spec.rules,
            user=user,
        )
        seating = services.load_seating(game)
        for number, settlement in enumerate(spec.settlements, start=1):
            entry = services.DealEntry(
                points=dict(settlement.points),
                declarer=None if settlement.all_pass else seating.players[settlement.declarer].pk,  # type: ignore[index]
                bid=None if settlement.all_pass else settlement.bid,
                trump=None if settlement.all_pass else str(settlement.trump),
                doubling=str(settlement.doubling),
            )
            services.record_deal(game=game, number=number, entry=entry, user=user)
    except services.ScoringError as error:
        raise ArchiveError(
            _decap(error.message), label=spec.label, number=error.number, field=error.field
        ) from error
    except DatabaseError as error:
        raise ArchiveError(
            _("the database refused it (%(reason)s).") % {"reason": error}, label=spec.label
        ) from error
    return game


def import_results(text: str, *, user=None) -> ImportSummary:
    """Check the whole file, then store all of it, or nothing when anything is wrong."""
    with transaction.atomic():
        specs = parse_document(text)
        for spec in specs:
            _write_game(spec, user)
    return ImportSummary(games=len(specs), deals=sum(len(spec.deals) for spec in specs))


def read_text(read: Callable[[], bytes]) -> str:
    """Decode a file's bytes as UTF-8 (with or without a byte-order mark)."""
    try:
        return read().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ArchiveError(
            _("The file is not UTF-8 text (%(reason)s).") % {"reason": error}
        ) from None
