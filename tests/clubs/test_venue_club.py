"""The venue laptop becomes the club whose players it loads before the night, so the
night it publishes back goes into that club on the federation's site."""

from __future__ import annotations

import json

import pytest

from club import venue
from club.clubs import known
from club.clubs.models import Club
from tests.factories import start_game

GULF = {"format": "fiftysix-results/1", "club": {"name": "Gulf 56", "slug": "gulf"}}


def _roster(tmp_path, document: dict) -> str:
    path = tmp_path / "club-players.json"
    path.write_text(json.dumps({**document, "players": [], "games": []}), encoding="utf-8")
    return str(path)


def test_a_laptop_that_has_played_nothing_becomes_the_rosters_club(db, tmp_path, capsys):
    venue.load_roster(_roster(tmp_path, GULF))
    home = known.home()
    assert (home.name, home.slug) == ("Gulf 56", "gulf")
    assert Club.objects.count() == 1
    assert "now Gulf 56's" in capsys.readouterr().out


def test_a_laptop_that_has_played_keeps_its_club_and_the_roster_is_refused(db, tmp_path, capsys):
    start_game(2, label="Table one")
    with pytest.raises(venue.VenueError):
        venue.load_roster(_roster(tmp_path, GULF))
    assert "This file is the results of Gulf 56 (gulf)" in capsys.readouterr().err
    assert known.home().slug == "club"


def test_a_roster_that_names_no_club_changes_no_club(db, tmp_path):
    venue.load_roster(_roster(tmp_path, {"format": "fiftysix-results/1"}))
    assert known.home().slug == "club"
