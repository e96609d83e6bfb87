"""Every club's token row names its club (the previous migration gave the site's row to
the home club)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0020_club_version_per_club"),
    ]

    operations = [
        migrations.AlterField(
            model_name="clubversion",
            name="club",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="clubs.club",
                verbose_name="club",
            ),
        ),
    ]
