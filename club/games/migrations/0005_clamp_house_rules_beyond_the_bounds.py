"""Bring house rules kept from before the bounds (club.scoring.rules) inside them, losing nothing.

A game started on the web before house rules had bounds could have a payout
band of 5,000 tables (or 10**30), which the importer refuses: the club's export
could not be imported again. A team never holds more than 4 x MAX_TABLES tables
(tables are conserved), and a band or doubling factor above MAX_BAND_TABLES =
MAX_FACTOR = 4 x MAX_TABLES could only ever ask for more than that, so every
team would pay what it holds either way: clamping to that bound changes no
settlement of any deal. Games with more than MAX_TABLES tables a team (only the
admin could set that) are left as they are.
"""

from django.db import migrations

MAX_TABLES = 1000  # club.scoring.rules, as of this migration
BOUND = 4 * MAX_TABLES


def clamp(holders) -> None:
    for holder in holders.filter(tables_per_team__lte=MAX_TABLES):
        bands = [
            [low, high, min(made, BOUND), min(failed, BOUND)]
            for low, high, made, failed in holder.payout_bands
        ]
        double, redouble = min(holder.double_factor, BOUND), min(holder.redouble_factor, BOUND)
        if (bands, double, redouble) != (
            holder.payout_bands,
            holder.double_factor,
            holder.redouble_factor,
        ):
            holder.payout_bands, holder.double_factor, holder.redouble_factor = (
                bands,
                double,
                redouble,
            )
            holder.save(update_fields=["payout_bands", "double_factor", "redouble_factor"])


def clamp_games(apps, schema_editor):
    clamp(apps.get_model("games", "Game").objects.all())


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_one_time_keys_with_the_write_and_links_that_stay_expired"),
    ]

    operations = [migrations.RunPython(clamp_games, migrations.RunPython.noop)]
