"""The archive format ``fiftysix-results/1``: its keys and limits, errors, small helpers,
what a game and a tournament in a file say, and the document both ways (a game's
settlement as the export writes it and the import checks it)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeGuard

from django.db.models import CharField, Model
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.games.models import (
    Game,
    Player,
    Team,
)
from club.scoring import rules as core
from club.scoring.names import unstorable
from club.tournaments.models import SittingGame, Tournament

if TYPE_CHECKING:  # django-stubs' own helper, for the type checker only
    from django_stubs_ext import StrOrPromise

FORMAT = "fiftysix-results/1"


def max_length(model: type[Model], name: str) -> int:
    """The most characters the text field ``name`` of ``model`` holds: its column's
    max_length, which each field the file names sets (one without it has no limit to check)."""
    field = model._meta.get_field(name)
    assert isinstance(field, CharField) and field.max_length is not None, name
    return field.max_length


MAX_LABEL = max_length(Game, "label")
MAX_PLAYER_NAME = max_length(Player, "name")
MAX_TEAM_NAME = max_length(Team, "name")
# House rules are bounded by the rules core (core.MAX_TABLES, MAX_BAND_TABLES,
# MAX_FACTOR, MAX_DEAL_LIMIT), the same bounds as the forms'.

# "club": whose results these are (club.archive.parse_club), written by every export;
# "competitions": the club's seasons, their rules and what they count
# (club.archive.parse_competitions), written only by a club's export of a club that has some.
DOCUMENT_KEYS = ("format", "club", "players", "competitions", "tournament", "games")
GAME_INPUT_KEYS = (
    "label",
    "tables_per_team",
    "payout",
    "doubling_factors",
    # The forms clubs play (docs/rules.md section D), written only when not the default.
    "scoring",
    "doubling_mode",
    "all_pass",
    "kodi",
    "thani",
    "deal_limit",
    # A knockout game's tie rule (docs/rules.md section E), written only when set.
    "tie_deals",
    "teams",
    "first_dealer",
    "ended_early",
    "rounds",
)
GAME_COMPUTED_KEYS = ("status", "winner", "tables", "score", "kodis")
TEAM_KEYS = ("name", "players")
# A tournament's team may name its captain, one of its players; a file without it names
# none, and the first player is the captain.
TOURNAMENT_TEAM_KEYS = (*TEAM_KEYS, "captain")
BAND_KEYS = ("from", "to", "made", "failed")
FACTOR_KEYS = ("double", "redouble")
THANI_KEYS = ("made", "failed")
# A thani round names its player and whether it was made ("made" is then input).
ROUND_INPUT_KEYS = ("all_pass", "declarer", "bid", "trump", "doubling", "points", "thani")
ROUND_COMPUTED_KEYS = (
    "number",
    "dealer",
    "declaring_team",
    "made",
    "transfers",
    "tables_after",
    "eliminated",
    "scored",
    "score_after",
    "kodi",
    "kodis_after",
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
        tournament: str | None = None,
        document: int | None = None,
        competition: str | None = None,
    ):
        self.problem = problem
        self.tournament = tournament
        self.document = document
        self.competition = competition  # the name of the competition at fault
        self.label = label
        self.index = index
        self.number = number
        self.field = field
        super().__init__(self.message)

    @property
    def message(self) -> str:
        parts = []
        if self.document is not None:
            parts.append(_("Document %(number)d of the list") % {"number": self.document})
        if self.competition is not None:
            parts.append(_("Competition “%(name)s”") % {"name": _cut(self.competition)})
        if self.tournament:
            parts.append(_('Tournament "%(name)s"') % {"name": self.tournament})
        elif self.tournament is not None:
            parts.append(_("The tournament"))
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
    """A name as the club stores it: inner runs of spaces collapsed, ends trimmed.

    Names are kept exactly as the file writes them otherwise (no NFKC, no refusal of
    hidden characters, which the forms apply to what is typed): every file this app
    ever exported must stay valid and export again identically.
    """
    return " ".join(name.split())


def _decap(text: str) -> str:
    """Lower the first letter of a sentence that follows "…, field: "."""
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text


def _gettext_in_sentence(message: str) -> str:
    return _decap(_(message))


# A value from the file longer than this is cut in a message, to its first
# QUOTE_KEEP characters and its length: a hostile file cannot fill a page with it.
QUOTE_LIMIT = 40
QUOTE_KEEP = 30


def _cut(text: str) -> str:
    """Text for a message: whole up to ``QUOTE_LIMIT`` characters, else its start and length."""
    if len(text) <= QUOTE_LIMIT:
        return text
    return ngettext(
        "%(start)s… (%(length)s character)", "%(start)s… (%(length)s characters)", len(text)
    ) % {"start": text[:QUOTE_KEEP], "length": number_format(len(text), force_grouping=True)}


def _quoted(value: object) -> str:
    """A value from the file as it reads in JSON, cut short (:func:`_cut`) for a message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = "..."
    return _cut(text)


def _is_whole(value: object) -> TypeGuard[int]:
    """A whole number of the file: an int, and not true or false."""
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
    index: int | None
    tournament: str | None = None

    def error(self, problem: str, *, number: int | None = None, field: str | None = None):
        return ArchiveError(
            problem,
            label=self.label,
            index=None if self.label is not None else self.index,
            number=number,
            field=field,
            tournament=self.tournament,
        )

    def json_object(
        self,
        value: object,
        allowed: Sequence[str] | None,
        *,
        what: StrOrPromise,
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
        self,
        value: object,
        *,
        field: str,
        limit: int,
        what: StrOrPromise,
        number: int | None = None,
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
        if unstorable(cleaned):
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

    def whole(self, value: object, *, field: str, low: int, high: int, what: StrOrPromise) -> int:
        if not _is_whole(value) or not low <= value <= high:
            raise self.error(
                _("%(what)s must be a whole number from %(low)d to %(high)d, not %(value)s.")
                % {"what": what, "low": low, "high": high, "value": _quoted(value)},
                field=field,
            )
        return value


# --- What a game in the file says ------------------------------------------------


@dataclass
class TeamSpec:
    name: str
    first: str
    second: str
    more: tuple[str, ...] = ()  # a third and a fourth player
    captain: str = ""  # a tournament's team: its captain, if not the first player

    @property
    def players(self) -> list[str]:
        return [self.first, self.second, *self.more]


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
    deal_limit: int | None = None
    ended_early: bool = False
    here: bool = False  # this club has the game already, as it is: an import leaves it so

    @property
    def finished(self) -> bool:
        return _outcome(self.state, self.deal_limit, self.ended_early)[0]

    @property
    def seat_names(self) -> list[str]:
        return _seat_names(self.teams)


def _seat_names(teams: Sequence[TeamSpec]) -> list[str]:
    size = len(teams[0].players) if teams else 2
    return [teams[team].players[partner] for team, partner in core.seat_order(len(teams), size)]


def default_factors(rules: core.Rules) -> tuple[int, int]:
    """The doubling figures a file leaves out: x2 and x4, or +1 and +2 when doubling adds."""
    if rules.doubling_mode == core.DoublingMode.ADD:
        return 1, 2
    return core.DEFAULT_RULES.double_factor, core.DEFAULT_RULES.redouble_factor


# --- The document both ways ------------------------------------------------------


def _settings_fields(rules: core.Rules) -> dict:
    data: dict = {"tables_per_team": rules.tables_per_team}
    if rules.bands != core.DEFAULT_BANDS:
        data["payout"] = [
            {"from": band.low, "to": band.high, "made": band.made, "failed": band.failed}
            for band in rules.bands
        ]
    if (rules.double_factor, rules.redouble_factor) != default_factors(rules):
        data["doubling_factors"] = {
            "double": rules.double_factor,
            "redouble": rules.redouble_factor,
        }
    # The forms of docs/rules.md section D, each only when it is not today's game.
    if rules.scoring != core.Scoring.TABLES:
        data["scoring"] = str(rules.scoring)
    if rules.doubling_mode != core.DoublingMode.MULTIPLY:
        data["doubling_mode"] = str(rules.doubling_mode)
    if not rules.all_pass:
        data["all_pass"] = False
    if rules.kodi:
        data["kodi"] = True
    if rules.thani is not None:
        data["thani"] = {"made": rules.thani.made, "failed": rules.thani.failed}
    return data


def _round_document(
    settlement: core.Settlement, team_names: Sequence[str], seat_names: Sequence[str]
) -> dict:
    data: dict = {"number": settlement.number, "dealer": seat_names[settlement.dealer]}
    if settlement.thani:
        data["thani"] = seat_names[settlement.declarer]  # type: ignore[index]  # a thani has its player
    elif settlement.all_pass:
        data["all_pass"] = True
    else:
        data["declarer"] = seat_names[settlement.declarer]  # type: ignore[index]  # a bid has its declarer
        data["bid"] = settlement.bid
        data["trump"] = str(settlement.trump)
        data["doubling"] = str(settlement.doubling)
    if not settlement.thani:
        data["points"] = {
            team_names[team]: pile for team, pile in sorted(settlement.points.items())
        }
    data["declaring_team"] = team_names[settlement.declaring_team]
    data["made"] = settlement.made
    teams = range(len(team_names))
    if settlement.score_after:  # a points sheet: nothing moves
        data["scored"] = {team_names[team]: settlement.scored[team] for team in teams}
        data["score_after"] = {team_names[team]: settlement.score_after[team] for team in teams}
        return data
    data["transfers"] = {team_names[team]: settlement.transfers[team] for team in teams}
    data["tables_after"] = {team_names[team]: settlement.tables_after[team] for team in teams}
    if settlement.kodis_after:  # kodi: no one is out
        data["kodi"] = [team_names[team] for team in settlement.kodi]
        data["kodis_after"] = {team_names[team]: settlement.kodis_after[team] for team in teams}
        return data
    data["eliminated"] = [team_names[team] for team in settlement.eliminated]
    return data


def _outcome(
    state: core.GameState, deal_limit: int | None, ended_early: bool
) -> tuple[bool, dict[int, int]]:
    """Whether the game is over and its places, as ``club.games.services`` decides it.

    Won when one team is left; also over after the deal limit or when the
    organiser called time, and then placed by tables held, ties shared.
    """
    if state.finished:
        return True, state.places()
    if ended_early and state.rules.tie_deals is not None and state.leaders_level:
        return False, {}  # a knockout game cannot end level: it plays on
    past_limit = deal_limit and state.deals_played >= deal_limit and state.rules.tie_deals is None
    if ended_early or state.limit_reached or past_limit:
        return True, core.final_places(state)
    return False, {}


def _game_document(
    *,
    label: str,
    rules: core.Rules,
    teams: Sequence[TeamSpec],
    first_dealer: int,
    settlements: Sequence[core.Settlement],
    state: core.GameState,
    deal_limit: int | None = None,
    ended_early: bool = False,
) -> dict:
    names = [team.name for team in teams]
    seat_names = _seat_names(teams)
    finished, places = _outcome(state, deal_limit, ended_early)
    firsts = [team for team, place in places.items() if place == 1]
    data: dict = {"label": label}
    data.update(_settings_fields(rules))
    # Written only when set, so games without them read exactly as before.
    if deal_limit is not None:
        data["deal_limit"] = deal_limit
    if rules.tie_deals is not None:
        data["tie_deals"] = rules.tie_deals
    data["teams"] = [{"name": team.name, "players": team.players} for team in teams]
    data["first_dealer"] = seat_names[first_dealer]
    if ended_early:
        data["ended_early"] = True
    data["status"] = Game.Status.FINISHED.value if finished else Game.Status.IN_PROGRESS.value
    data["winner"] = names[firsts[0]] if len(firsts) == 1 else None
    if rules.scoring == core.Scoring.POINTS:
        data["score"] = {names[team]: state.scores[team] for team in range(len(teams))}
    else:
        data["tables"] = {names[team]: state.tables[team] for team in range(len(teams))}
    if rules.kodi:
        data["kodis"] = {names[team]: state.kodis[team] for team in range(len(teams))}
    data["rounds"] = [_round_document(s, names, seat_names) for s in settlements]
    return data


def replay_stored(game) -> tuple[list[core.Settlement], core.GameState]:
    """The settlements and state of a stored game, replayed from its deals as entered.

    ``game`` is the export's reading of a stored game (label, rules, teams,
    players by id, first dealer, deals, deal limit, time called).
    """
    seat_of = {name: seat for seat, name in enumerate(_seat_names(game.teams))}

    def seat(player: int) -> int:
        return seat_of[game.players[player]]

    deals = []
    for deal in game.deals:
        points = {team: pile for team, pile in enumerate(deal.points) if pile is not None}
        if deal.thani:
            deals.append(core.Deal({}, thani=seat(deal.declarer), made=deal.made))
        elif deal.all_pass:
            deals.append(core.Deal(points))
        else:
            deals.append(
                core.Deal(
                    points,
                    declarer=seat(deal.declarer),
                    bid=deal.bid,
                    trump=deal.trump,
                    doubling=deal.doubling,
                )
            )
    return core.replay(len(game.teams), game.first_dealer, deals, game.rules)


def replayed_document(game) -> dict:
    """A stored game's document from a replay of its deals as they were entered.

    The export writes the forms of docs/rules.md section D this way; the rules give
    what the services stored, and an import checks the two agree.
    """
    settlements, state = game.replayed or replay_stored(game)
    return _game_document(
        label=game.label,
        rules=game.rules,
        teams=game.teams,
        first_dealer=game.first_dealer,
        settlements=settlements,
        state=state,
        deal_limit=game.deal_limit,
        ended_early=game.ended_early,
    )


# --- Tournaments ------------------------------------------------------------------------
#
# A tournament's archive is a ``fiftysix-results/1`` document with a top-level
# "tournament" object beside its "games": the tournament's settings, its teams,
# its confirmed sittings (which game each table played, who had a bye) and the
# standings. Standings are computed, like a game's tables: an import rebuilds
# them from the games and refuses the file when they disagree.

TOURNAMENT_KEYS = (
    "name",
    "starts_on",
    "ends_on",
    "venue",
    "status",
    "final",
    "provisional",
    "tables_per_team",
    "payout",
    "doubling_factors",
    # The forms clubs play, with the games' keys, written only when not the default.
    "scoring",
    "doubling_mode",
    "all_pass",
    "kodi",
    "thani",
    "deals_per_game",
    "points_by_place",
    "require_confirmation",
    "check_in",
    "substitutions_per_team",
    "teams",
    "substitutions",
    "sittings",
    "standings",
)
# "absent": the teams left out of a sitting's draw for not checking in (only if any).
SITTING_KEYS = ("number", "game_size", "games", "byes", "absent")
SITTING_GAME_KEYS = ("table", "game")
# A substitution: the team, the player out, the substitute ("in"), the first sitting the
# substitute played ("from") and, when the starter came back, the last ("until").
SUBSTITUTION_KEYS = ("team", "out", "in", "from", "until")
STANDING_KEYS = (
    "place",
    "shared",
    "team",
    "points",
    "games",
    "won",
    "net_tables",
    "declared",
    "made",
    "byes",
)
# On a points sheet nothing moves: the score difference is where net tables are.
POINTS_STANDING_KEYS = tuple(
    "score_difference" if key == "net_tables" else key for key in STANDING_KEYS
)
MAX_TOURNAMENT_NAME = max_length(Tournament, "name")
MAX_VENUE = max_length(Tournament, "venue")
MAX_TABLE_LABEL = max_length(SittingGame, "table_label")
MAX_TEAMS_IN_GAME = 4
MAX_SITTINGS = 999
MAX_SUBSTITUTIONS = 9

STANDINGS_CSV_COLUMNS = ("results",) + STANDING_KEYS
POINTS_STANDINGS_CSV_COLUMNS = ("results",) + POINTS_STANDING_KEYS


def _games_csv_columns(figure: str) -> tuple[str, ...]:
    return ("results", "sitting", "table", "game", "status", "deals") + tuple(
        f"{column}_{number}"
        for number in range(1, MAX_TEAMS_IN_GAME + 1)
        for column in ("team", "place", figure)
    )


GAMES_CSV_COLUMNS = _games_csv_columns("tables")
POINTS_GAMES_CSV_COLUMNS = _games_csv_columns("score")  # a points sheet's totals


def standing_keys(points_sheet: bool) -> tuple[str, ...]:
    """The keys of a row of standings: a points sheet's name the score difference."""
    return POINTS_STANDING_KEYS if points_sheet else STANDING_KEYS


TOURNAMENT_DEALS_CSV_COLUMNS = ("results", "sitting", "table") + CSV_COLUMNS
CSV_TABLES = ("standings", "games", "deals")


def points_text(points: Fraction) -> str:
    """Tournament points written exactly: "4", "2.5", or "4/3" when no decimal is exact."""
    if points.denominator == 1:
        return str(points.numerator)
    rest = points.denominator
    for factor in (2, 5):
        while rest % factor == 0:
            rest //= factor
    if rest != 1:
        return f"{points.numerator}/{points.denominator}"
    exact = Decimal(points.numerator) / Decimal(points.denominator)
    return format(exact.normalize(), "f")
