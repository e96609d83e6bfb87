"""An imported tournament's games are dated on its days, not on the day of the import.

The file gives a tournament's first and last days, not a game's: each sitting's games
are dated a day apart from the first day, up to the last (noon, the club's time). So the
demo's 2025 cup reads 2025 on the players' profiles, its games sit in a board filtered
to those days, and the ratings (in the order games finished) equal a rebuild.
"""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone
from django.utils.formats import date_format

from club.archive.load import import_results
from club.games.models import Game
from club.leaderboards.models import PlayerRating
from club.tournaments.models import Tournament

pytestmark = pytest.mark.django_db

DEMO = settings.BASE_DIR / "fixtures"


def ratings() -> dict[int, tuple[float, float]]:
    return {
        row.player_id: (round(row.mu, 9), round(row.sigma, 9)) for row in PlayerRating.objects.all()
    }


def test_the_demo_cups_games_are_dated_on_its_two_days_and_rated_in_that_order(client):
    import_results((DEMO / "demo.json").read_text(encoding="utf-8"))  # club nights: today
    import_results((DEMO / "demo_tournaments.json").read_text(encoding="utf-8"))

    cup = Tournament.objects.get(name="Kerala Piravi Cup 2025")
    days = {
        number: {timezone.localdate(at) for at in dates}
        for number in (1, 2, 3)
        for dates in [
            Game.objects.filter(
                sitting_entry__sitting__tournament=cup, sitting_entry__sitting__number=number
            ).values_list("created_at", flat=True)
        ]
    }
    first, last = datetime.date(2025, 11, 1), datetime.date(2025, 11, 2)
    assert days == {1: {first}, 2: {last}, 3: {last}}  # a sitting a day, up to the last day
    finished = Game.objects.filter(sitting_entry__sitting__tournament=cup).values_list(
        "finished_at", flat=True
    )
    assert all(at is not None and timezone.localdate(at) in (first, last) for at in finished)

    # A player of the cup reads the cup's days beside its games, not today's.
    game = Game.objects.filter(sitting_entry__sitting__tournament=cup).order_by("pk").first()
    player = game.teams.order_by("position").first().team.first_player
    profile = client.get(player.get_absolute_url()).text
    shown = {day: date_format(day, "SHORT_DATE_FORMAT") in profile for day in (first, last)}
    assert any(shown.values()), shown

    # Rated in the order they finished: the same as a rebuild.
    before = ratings()
    call_command("rebuild_ratings", stdout=open("/dev/null", "w"))
    assert ratings() == before
