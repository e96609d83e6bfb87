"""A game's rules and state as plain JSON, for the phone's rules (``static/js/rules.js``).

A deal kept on the phone with no network is shown with the settlement the phone
works out from these; the server's settlement is the one that counts,
and ``tests/scoring/test_phone_rules.py`` holds the two to the same answer on
random games of every form of play.
"""

from __future__ import annotations

from club.scoring.rules import GameState, Rules


def rules_to_wire(rules: Rules) -> dict:
    """Every setting :func:`club.scoring.rules.settle` reads, under its own name."""
    return {
        "team_size": rules.team_size,
        "tables_per_team": rules.tables_per_team,
        "bands": [[band.low, band.high, band.made, band.failed] for band in rules.bands],
        "double_factor": rules.double_factor,
        "redouble_factor": rules.redouble_factor,
        "doubling_mode": str(rules.doubling_mode),
        "min_bid": rules.min_bid,
        "max_bid": rules.max_bid,
        "scoring": str(rules.scoring),
        "all_pass": rules.all_pass,
        "kodi": rules.kodi,
        "thani": None if rules.thani is None else [rules.thani.made, rules.thani.failed],
        "deal_limit": rules.deal_limit,
        "tie_deals": rules.tie_deals,
    }


def state_to_wire(state: GameState) -> dict:
    """Where the game stands between deals: what the next deal is settled against.

    The order teams went out in is left out: it places the teams at the end, and
    no settlement reads it.
    """
    return {
        "team_count": state.team_count,
        "tables": list(state.tables),
        "dealer": state.dealer,
        "deals_played": state.deals_played,
        "scores": list(state.scores),
        "kodis": list(state.kodis),
    }
