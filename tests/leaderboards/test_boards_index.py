"""/leaderboards/, the address a club types for the boards, is the players' board."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_boards_index_is_the_players_board_with_its_filters(client):
    index = client.get("/leaderboards/?start=2026-01-01")
    board = client.get("/leaderboards/players/?start=2026-01-01")
    assert index.status_code == board.status_code == 200
    assert 'aria-current="page">Players</a>' in index.text
    assert 'value="2026-01-01"' in index.text  # the filter, as on the board itself
