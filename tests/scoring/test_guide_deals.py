"""The worked deals of the guide (docs/forms-of-play.md, "Worked deals"), settled by the
rules core: if a rule changes, the guide's figures must change with it."""

from __future__ import annotations

from club.scoring import rules as core
from club.scoring.house_rules import Preset, preset_rules

# Seats in play order: Anu (team 0), Chitra (team 1), Biju (team 0), Dev (team 1).
ANU, BIJU = 0, 2


def settle(rules, *deals):
    state = core.initial_state(2, 0, rules)
    settled = []
    for deal in deals:
        settlement, state = core.settle(state, deal)
        settled.append(settlement)
    return settled


def test_the_tables_deals():
    [made] = settle(
        core.DEFAULT_RULES,
        core.Deal(points={0: 44, 1: 12}, declarer=ANU, bid=40, trump="spades", doubling="double"),
    )
    assert made.made and made.tables_after == (16, 8)
    [failed] = settle(
        core.DEFAULT_RULES, core.Deal(points={0: 26, 1: 30}, declarer=ANU, bid=30, trump="hearts")
    )
    assert not failed.made and failed.tables_after == (10, 14)


def test_the_international_deals():
    rules = preset_rules(Preset.INTERNATIONAL, 6)
    [made] = settle(
        rules,
        core.Deal(points={0: 50, 1: 6}, declarer=ANU, bid=48, trump="spades", doubling="redouble"),
    )
    assert made.score_after == (5, 0) and made.tables_after == (12, 12)
    [failed] = settle(
        rules,
        core.Deal(points={0: 36, 1: 20}, declarer=ANU, bid=40, trump="clubs", doubling="double"),
    )
    assert failed.score_after == (0, 4)


def test_the_kodi_deals():
    first, second = settle(
        preset_rules(Preset.KODI, 4),
        core.Deal(points={0: 56, 1: 0}, declarer=ANU, bid=56, trump="spades"),
        core.Deal(points={0: 44, 1: 12}, declarer=BIJU, bid=40, trump="hearts"),
    )
    assert first.tables_after == (10, 2)
    assert second.transfers == {0: 2, 1: -2}
    assert second.kodi == (1,) and second.kodis_after == (0, 1)
    assert second.tables_after == (6, 6)  # both start the next deal afresh
