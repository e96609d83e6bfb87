"""/leaderboards/, the address a club types for the boards, leads to them."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_boards_index_leads_to_the_boards_with_their_filters(client):
    answer = client.get("/leaderboards/?start=2026-01-01")
    assert answer.status_code == 302
    assert answer["Location"] == "/leaderboards/players/?start=2026-01-01"
    assert client.get("/leaderboards/", follow=True).status_code == 200
