"""A game's day on the boards is the day it started in its club's time zone.

The figures of a game counted where another zone was active (the site's, after a page's
answer or in a command) were filed under that zone's day: each row's day is worked out
again from its game's start, in its club's zone. One statement a zone and a table."""

import zoneinfo

from django.db import migrations
from django.db.models import OuterRef, Subquery
from django.db.models.functions import TruncDate


def file_each_game_under_its_clubs_day(apps, schema_editor):
    Club = apps.get_model("clubs", "Club")
    Game = apps.get_model("games", "Game")
    zones: dict[str, list[int]] = {}
    for pk, zone in Club.objects.values_list("pk", "time_zone"):
        zones.setdefault(zone, []).append(pk)
    for zone, clubs in zones.items():
        day = Subquery(
            Game.objects.filter(pk=OuterRef("game_id"))
            .annotate(day=TruncDate("created_at", tzinfo=zoneinfo.ZoneInfo(zone)))
            .values("day")[:1]
        )
        for name in ("PlayerGameFigures", "TeamGameFigures"):
            apps.get_model("leaderboards", name).objects.filter(club_id__in=clubs).update(
                played_on=day
            )


class Migration(migrations.Migration):
    dependencies = [
        ("clubs", "0001_initial"),
        ("games", "0021_club_version_required"),
        ("leaderboards", "0008_playerrating_ranking"),
    ]

    operations = [
        migrations.RunPython(file_each_game_under_its_clubs_day, migrations.RunPython.noop),
    ]
