"""Bring tournaments' house rules kept from before the bounds inside them, losing nothing.

The same clamp as the games' migration (its docstring says why no deal
changes), for the rules a tournament gives the games it starts.
"""

import importlib

from django.db import migrations

clamp = importlib.import_module(
    "club.games.migrations.0005_clamp_house_rules_beyond_the_bounds"
).clamp


def clamp_tournaments(apps, schema_editor):
    clamp(apps.get_model("tournaments", "Tournament").objects.all())


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_event_sitting_number"),
        ("games", "0005_clamp_house_rules_beyond_the_bounds"),
    ]

    operations = [migrations.RunPython(clamp_tournaments, migrations.RunPython.noop)]
