"""Tournaments get the games' check that doubled contracts move at least one table.

The two copies of the house rules had drifted: games refused a doubling
factor of 0 and tournaments did not, though a tournament holding one could
start no game (each game copies its rules and the games' check refused them).
Such a value could only come from the admin. It is raised to 1, the nearest
allowed, so the tournament can start games again (the admin, where it was set,
can change it); values of 1 and more are untouched.
"""

from django.db import migrations, models


def raise_zero_factors(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(double_factor=0).update(double_factor=1)
    Tournament.objects.filter(redouble_factor=0).update(redouble_factor=1)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0003_clamp_house_rules_beyond_the_bounds")]

    operations = [
        migrations.RunPython(raise_zero_factors, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="tournament",
            constraint=models.CheckConstraint(
                condition=models.Q(double_factor__gte=1, redouble_factor__gte=1),
                name="tournament_doubling_factors_positive",
            ),
        ),
    ]
