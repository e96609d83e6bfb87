"""Clubs: a tournament is its club's (every tournament from before, the home club's)."""

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("clubs", "0001_initial"),
        ("games", "0017_into_home_club"),
        ("tournaments", "0013_substitutions"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="tournament",
            name="tournament_name_unique_ignoring_case",
        ),
        migrations.AddField(
            model_name="tournament",
            name="club",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="tournaments",
                to="clubs.club",
                verbose_name="club",
            ),
        ),
        migrations.AddConstraint(
            model_name="tournament",
            constraint=models.UniqueConstraint(
                models.F("club"),
                django.db.models.functions.text.Lower("name"),
                name="tournament_name_unique_in_club_ignoring_case",
            ),
        ),
    ]
