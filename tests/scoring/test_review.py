"""The night's count of deals (club.scoring.review): bands, thani, all pass, doubling, partners."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from club.scoring.house_rules import DEFAULT_BANDS, Doubling
from club.scoring.review import (
    DealSeen,
    Kind,
    Partnership,
    band_of,
    best_partners,
    count_contracts,
    ranked_partnerships,
)


def test_each_bid_is_counted_in_its_band_of_the_rules():
    assert [(band_of(bid).low, band_of(bid).high) for bid in (28, 39, 40, 47, 48, 55, 56)] == [
        (28, 39),
        (28, 39),
        (40, 47),
        (40, 47),
        (48, 55),
        (48, 55),
        (56, 56),
    ]


def test_a_small_night_by_hand():
    contracts = count_contracts(
        [
            DealSeen(ours=True, bid=30, made=True, doubling=Doubling.DOUBLE),
            DealSeen(ours=False, bid=40, made=False),
            DealSeen(ours=True, bid=None, made=True, thani=True),
            DealSeen(ours=True, bid=28, made=False, all_pass=True, count=2),
            DealSeen(ours=False, bid=56, made=True, doubling=Doubling.REDOUBLE),
        ]
    )
    rows = {(row.kind, row.band.low if row.band else None): row for row in contracts.rows}
    assert [key for key in rows] == [
        (Kind.BAND, 28),
        (Kind.BAND, 40),
        (Kind.BAND, 48),
        (Kind.BAND, 56),
        (Kind.THANI, None),
        (Kind.ALL_PASS, None),
    ]
    assert (rows[Kind.BAND, 28].ours.declared, rows[Kind.BAND, 28].ours.made) == (1, 1)
    assert (rows[Kind.BAND, 40].theirs.declared, rows[Kind.BAND, 40].defeated) == (1, 1)
    assert (rows[Kind.BAND, 56].theirs.declared, rows[Kind.BAND, 56].defeated) == (1, 0)
    assert (rows[Kind.THANI, None].ours.declared, rows[Kind.THANI, None].ours.made) == (1, 1)
    assert (rows[Kind.ALL_PASS, None].ours.declared, rows[Kind.ALL_PASS, None].ours.failed) == (
        2,
        2,
    )
    assert (contracts.declared, contracts.made, contracts.defeated) == (4, 2, 1)
    doubled, redoubled = contracts.doubled
    assert (doubled.deals, doubled.won, doubled.lost) == (1, 1, 0)
    assert (redoubled.deals, redoubled.won, redoubled.lost) == (1, 0, 1)
    assert contracts.any_doubled


deals = st.builds(
    DealSeen,
    ours=st.booleans(),
    bid=st.integers(28, 56),
    made=st.booleans(),
    doubling=st.sampled_from(list(Doubling)),
    count=st.integers(1, 5),
)


@given(st.lists(deals, max_size=40))
def test_every_deal_is_counted_once_and_the_doubled_ones_again(seen):
    contracts = count_contracts(seen)
    ours = [deal for deal in seen if deal.ours]
    theirs = [deal for deal in seen if not deal.ours]
    assert contracts.declared == sum(deal.count for deal in ours)
    assert contracts.made == sum(deal.count for deal in ours if deal.made)
    assert contracts.defeated == sum(deal.count for deal in theirs if not deal.made)
    for band in DEFAULT_BANDS:
        [row] = [row for row in contracts.rows if row.band == band]
        inside = [deal for deal in seen if band.low <= (deal.bid or 0) <= band.high]
        assert row.ours.declared + row.theirs.declared == sum(deal.count for deal in inside)
    for row in contracts.doubled:
        doubled = [deal for deal in seen if deal.doubling == row.doubling]
        assert row.deals == sum(deal.count for deal in doubled)
        # Ahead: declared and made, or defended and the declarer failed.
        assert row.won == sum(deal.count for deal in doubled if deal.made == deal.ours)
        assert row.won + row.lost == row.deals


def test_the_best_partner_is_the_best_share_then_wins_then_tables():
    esha = Partnership(3, "Esha", played=1, won=1, tables_net=4)
    biju = Partnership(2, "Biju", played=2, won=1, tables_net=9)
    dev = Partnership(4, "Dev", played=3, won=3, tables_net=-1)
    assert best_partners([esha, biju, dev]) == [dev]  # 3 of 3 beats 1 of 1 on games won
    assert best_partners([esha, biju]) == [esha]  # a share of 1 beats 1 of 2
    twin = Partnership(5, "Anil", played=1, won=1, tables_net=4)
    assert best_partners([esha, twin]) == [twin, esha]  # level on all three: both, by name
    assert [p.name for p in ranked_partnerships([biju, esha, dev])] == ["Dev", "Esha", "Biju"]
    assert best_partners([Partnership(6, "Nobody")]) == []
    two_of_six = Partnership(7, "Gita", played=6, won=2, tables_net=0)
    one_of_three = Partnership(8, "Hari", played=3, won=1, tables_net=0)
    assert two_of_six.share == one_of_three.share  # exactly: a fraction, not a float
    assert best_partners([one_of_three, two_of_six]) == [two_of_six]  # more games won
