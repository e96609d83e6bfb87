"""A preset's settings follow the number of players whichever is chosen first.

The new-game page asks the server again when the form of play or the number of players
changes (htmx, with what was typed): each order of the two choices, as the page sends
them, must end with the preset's own settings for the table chosen; and a post whose
settings are the preset's as filled for another table (the page filled them before the
players changed) starts the game with the preset's settings for its own table.
"""

from __future__ import annotations

import itertools
import re

import pytest
from django.urls import reverse

from club.games.models import Game
from club.scoring.house_rules import preset_rules
from tests.games.test_forms_of_play_pages import selected

pytestmark = pytest.mark.django_db

TABLES = {"4": (2, 2), "6": (3, 2), "6x3": (2, 3), "8": (4, 2), "8x4": (2, 4)}
NAMES = ["Anu", "Biju", "Chitra", "Dev", "Esha", "Farid", "Gita", "Hari"]


def choose(client, form: dict, changed: str) -> dict:
    """What the page holds after ``changed`` (preset or players) is chosen: the server's
    answer to htmx, read back as the form's values."""
    html = client.get(
        reverse("games:new"), form, HTTP_HX_REQUEST="true", HTTP_HX_TRIGGER_NAME=changed
    ).text
    values = dict(
        re.findall(r'<input type="(?:text|number)" name="(\w+)"[^>]*value="([^"]*)"', html)
    )
    values.update(
        (name, selected(html, name))
        for name in ("preset", "players", "scoring", "doubling_mode", "all_pass")
    )
    values["payout"] = re.search(
        r'<textarea name="payout"[^>]*>\s*(.*?)</textarea>', html, re.S
    ).group(1)
    if re.search(r'name="kodi"[^>]*checked', html):
        values["kodi"] = "on"
    return values


def seat_players(values: dict) -> dict:
    teams, size = TABLES[values["players"]]
    names = iter(NAMES)
    for team in range(1, teams + 1):
        for partner in range(1, size + 1):
            values[f"team{team}_player{partner}"] = next(names)
    return values


@pytest.mark.parametrize(
    ("preset", "players", "preset_first"),
    list(itertools.product(["tables", "international", "kodi"], list(TABLES), [True, False])),
)
def test_every_order_of_choices_ends_with_the_presets_settings_for_the_table(
    organiser_client, preset, players, preset_first
):
    form = {"label": f"{preset} {players} {preset_first}", "players": "4", "preset": "tables"}
    steps = [("preset", {"preset": preset}), ("players", {"players": players})]
    for changed, choice in steps if preset_first else reversed(steps):
        form = choose(organiser_client, {**form, **choice}, changed)
    answer = organiser_client.post(
        reverse("games:new"), {**seat_players(form), "first_dealer": "0"}
    )
    assert answer.status_code == 302, answer.text
    game = Game.objects.get(label=form["label"])
    teams, size = TABLES[form["players"]]
    assert game.rules.tables_per_team == preset_rules(preset, teams * size).tables_per_team


def test_a_kodi_night_of_eight_posted_with_the_tables_of_four_plays_seven(organiser_client):
    form = choose(organiser_client, {"label": "Kodi", "players": "4", "preset": "kodi"}, "preset")
    assert form["tables_per_team"] == "6"
    form["players"] = "8x4"  # the players changed, the settings not asked again
    answer = organiser_client.post(
        reverse("games:new"), {**seat_players(form), "first_dealer": "0"}
    )
    assert answer.status_code == 302, answer.text
    assert Game.objects.get(label="Kodi").rules.tables_per_team == 7


def test_tables_set_by_hand_stand(organiser_client):
    form = choose(organiser_client, {"label": "Kodi", "players": "8x4", "preset": "kodi"}, "preset")
    form["tables_per_team"] = "9"
    answer = organiser_client.post(
        reverse("games:new"), {**seat_players(form), "first_dealer": "0"}
    )
    assert answer.status_code == 302, answer.text
    assert Game.objects.get(label="Kodi").rules.tables_per_team == 9
