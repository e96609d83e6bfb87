"""The house rules as games and tournaments store them in their columns, and back.

The four numbers of docs/rules.md section C and the form of play's settings are kept on
each game and tournament (``club.games.models.HouseRules``) so its results can always be
recomputed; these turn the rules core's ``Rules`` into those columns and back.
"""

from __future__ import annotations

from typing import cast

from club.scoring import rules as core

# The columns of the house rules beyond the four of docs/rules.md section C, as
# stored on games and tournaments (HouseRules); the deal limit is each model's own.
FORM_OF_PLAY_FIELDS = (
    "team_size",
    "scoring",
    "doubling_mode",
    "all_pass",
    "kodi",
    "thani_made",
    "thani_failed",
    "small_deck",
)


def rules_fields(rules: core.Rules) -> dict:
    """The house rules as the model fields games and tournaments keep them in.

    Default payout bands are stored as an empty list, so a club that never
    changed them follows the rules as written. The deal limit is not among
    them: games and tournaments keep it in a column of their own.
    """
    return {
        "tables_per_team": rules.tables_per_team,
        "payout_bands": []
        if rules.bands == core.DEFAULT_BANDS
        else [[b.low, b.high, b.made, b.failed] for b in rules.bands],
        "double_factor": rules.double_factor,
        "redouble_factor": rules.redouble_factor,
        "team_size": rules.team_size,
        "scoring": str(rules.scoring),
        "doubling_mode": str(rules.doubling_mode),
        "all_pass": rules.all_pass,
        "kodi": rules.kodi,
        "thani_made": None if rules.thani is None else rules.thani.made,
        "thani_failed": None if rules.thani is None else rules.thani.failed,
        "small_deck": rules.small_deck,
    }


def rules_from_fields(holder) -> core.Rules:
    """The house rules kept on a game or a tournament, with its deal limit, for the rules core."""
    return rules_from_values(
        holder.tables_per_team,
        holder.payout_bands,
        holder.double_factor,
        holder.redouble_factor,
        deal_limit=holder.deal_limit,
        # A knockout game's tie rule; tournaments keep it on their stages.
        tie_deals=getattr(holder, "tie_deals", None),
        **{name: getattr(holder, name) for name in FORM_OF_PLAY_FIELDS},
    )


def rules_from_values(
    tables: int,
    bands: list,
    double: int,
    redouble: int,
    *,
    deal_limit: int | None = None,
    tie_deals: int | None = None,
    team_size: int = 2,
    scoring: str = core.Scoring.TABLES,
    doubling_mode: str = core.DoublingMode.MULTIPLY,
    all_pass: bool = True,
    kodi: bool = False,
    thani_made: int | None = None,
    thani_failed: int | None = None,
    small_deck: bool = False,
) -> core.Rules:
    """The house rules from their stored columns (an empty payout is the default bands)."""
    return core.Rules(
        tables_per_team=tables,
        bands=tuple(core.Band(*band) for band in bands) if bands else core.DEFAULT_BANDS,
        double_factor=double,
        redouble_factor=redouble,
        team_size=team_size,
        # The stored text, as Rules takes it: its __post_init__ turns it into the enum and
        # refuses any other value as a RulesError, which a dataclass field cannot declare.
        scoring=cast(core.Scoring, scoring),
        doubling_mode=cast(core.DoublingMode, doubling_mode),
        all_pass=all_pass,
        kodi=kodi,
        thani=None if thani_made is None else core.Thani(thani_made, thani_failed or 0),
        deal_limit=deal_limit,
        tie_deals=tie_deals,
        small_deck=small_deck,
    )
