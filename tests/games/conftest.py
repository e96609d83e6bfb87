"""Fixtures the games' tests share."""

from __future__ import annotations

import pytest
from django.test import Client

from club.games import links
from tests.factories import start_game


@pytest.fixture
def table():
    """A game whose deals need confirming, and a phone per team, each its own browser."""
    game = start_game(2, first_dealer=0, require_confirmation=True)
    first, second = links.issue_links(game=game)
    return game, (first, Client()), (second, Client())
