"""Reading a game's or a tournament's settings from a file: its house rules and form of
play (docs/rules.md section D), each with today's default, and a game's end (its deal
limit, its tie rule and whether time was called)."""

from __future__ import annotations

from dataclasses import replace

from django.utils.translation import gettext as _

from club.archive.format import (
    _SETTING_FIELDS,
    BAND_KEYS,
    FACTOR_KEYS,
    THANI_KEYS,
    _gettext_in_sentence,
    _is_whole,
    _Place,
    _quoted,
    default_factors,
)
from club.scoring import rules as core


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
        thani = place.json_object(raw["thani"], THANI_KEYS, what=_("the thani"), field="thani")
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
    """A game's or a tournament's house rules and form of play, as the rules core takes them."""
    tables = raw.get("tables_per_team", core.DEFAULT_RULES.tables_per_team)
    tables = place.whole(
        tables, field="tables_per_team", low=1, high=core.MAX_TABLES, what=_("tables per team")
    )
    bands = _parse_payout(place, raw)
    form = _parse_form_of_play(place, raw)
    double, redouble = _parse_factors(place, raw, form["doubling_mode"])
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


def _parse_payout(place: _Place, raw: dict) -> tuple[core.Band, ...]:
    """The payout's bands, or the default payout when the file gives none."""
    if "payout" not in raw:
        return core.DEFAULT_BANDS
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
    return tuple(_parse_band(place, band, row) for row, band in enumerate(payout, start=1))


def _parse_band(place: _Place, band: object, row: int) -> core.Band:
    """One band of the payout: the bids it covers, and the tables made and failed move."""
    band = place.json_object(band, BAND_KEYS, what=_("a payout band"), field="payout")
    values = []
    for key in BAND_KEYS:
        value = band.get(key)
        low = 0 if key in ("made", "failed") else core.DEFAULT_RULES.min_bid
        high = core.MAX_BAND_TABLES if key in ("made", "failed") else core.DEFAULT_RULES.max_bid
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
    return core.Band(*values)


def _parse_factors(place: _Place, raw: dict, doubling_mode: core.DoublingMode) -> tuple[int, int]:
    """What a double and a redouble multiply (or add): the file's, else the form's default."""
    double, redouble = default_factors(core.Rules(doubling_mode=doubling_mode))
    if "doubling_factors" not in raw:
        return double, redouble
    factors = place.json_object(
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
    return double, redouble


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
