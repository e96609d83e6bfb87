"""The hand-made club is what its docstring says, so the hand counts rest on it."""

from club.games.models import LedgerEntry


def test_games_end_as_written(club):
    a, b, c, d = club["A"], club["B"], club["C"], club["D"]
    assert [(t.team.name, t.tables, t.place) for t in a.teams.order_by("position")] == [
        ("Anu & Biju", 8, 1),
        ("Chitra & Dev", 0, 2),
    ]
    assert [(t.tables, t.place) for t in b.teams.order_by("position")] == [(8, 1), (0, 2)]
    assert [(t.tables, t.place) for t in c.teams.order_by("position")] == [(0, 2), (0, 2), (6, 1)]
    assert not d.is_finished
    assert [(t.tables, t.place) for t in d.teams.order_by("position")] == [(20, None), (4, None)]
    assert list(
        LedgerEntry.objects.filter(round__game=b)
        .order_by("round__number", "game_team__position")
        .values_list("change", flat=True)
    ) == [-2, 2, 6, -6]
    first = b.rounds.get(number=1)
    assert first.all_pass and first.declaring_team.team.name == "Anu & Biju" and not first.made
