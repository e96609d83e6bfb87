"""Publishing a night whose players clash with the site's, on a phone: the preview says who
is who, asks about the one clash, and imports exactly what the organiser chose."""

from __future__ import annotations

import pytest
from django.db import transaction
from playwright.sync_api import expect

from club.archive.export import export_json
from club.games.models import Player, Team
from club.games.services import TeamEntry, create_game, record_deal
from club.scoring.house_rules import Preset, preset_rules
from tests.archive.test_whos_who import _night, _wipe
from tests.factories import deal

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def _laptops_night() -> str:
    """The venue's International night, the laptop knowing nobody: its own Anu."""
    with transaction.atomic():
        _wipe()
        game = create_game(
            label="International 1",
            teams=[
                TeamEntry("Anu", "Rahul", "Kottayam Kings", "Vinod"),
                TeamEntry("Meera", "Sara", "Chennai Chargers", "Tina"),
            ],
            first_dealer=0,
            rules=preset_rules(Preset.INTERNATIONAL),
        )
        record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 26}, "Anu", 28))
        night = export_json()
        transaction.set_rollback(True)
    return night


def test_a_clash_is_decided_on_the_phone_and_imported_as_chosen(
    organiser_page, live_server, tmp_path, screenshot
):
    _night(
        "Site 1",
        pairs=(("Jose Kurian", "Thomas Chacko"), ("Anu", "Biju")),
        names=("Kottayam Kings", ""),
    )
    path = tmp_path / "club-games.json"
    path.write_text(_laptops_night(), encoding="utf-8")
    page = organiser_page
    taps = 0
    page.goto(f"{live_server.url}/import/")
    page.locator("input[type=file]").set_input_files(path)
    taps += 1
    page.get_by_role("button", name="Check and preview").click()
    taps += 1
    clash = page.locator("fieldset.clash")
    expect(clash).to_contain_text("Anu: a clash to decide")
    expect(page.locator(".whos-who")).to_contain_text("1 clash to decide")
    expect(page.get_by_role("button", name="Import 1 game")).to_have_count(0)
    screenshot(page, "clash")
    expect(clash.locator("input[type=text]")).to_have_value("Anu (2)")
    clash.get_by_label("Another person, called").check()
    taps += 1
    page.get_by_role("button", name="Check with these choices").click()
    taps += 1
    expect(page.locator(".whos-who-players")).to_contain_text("another person: new, as Anu (2)")
    expect(page.locator(".whos-who")).to_contain_text("1 clash decided")
    expect(page.locator(".whos-who-teams")).to_contain_text("Kottayam Kings")
    screenshot(page, "decided")
    page.get_by_role("button", name="Import 1 game with 1 deals").click()
    taps += 1
    expect(page.locator(".messages")).to_contain_text("Imported 1 game with 1 deal")
    assert taps == 5  # the file, the check, the one choice, the check again, the import
    assert Player.objects.filter(name__in=["Anu", "Anu (2)"]).count() == 2
    assert sorted(team.size for team in Team.objects.filter(name="Kottayam Kings")) == [2, 3]
