"""The club of a game or tournament made without one is the home club (club.clubs.known),
from here on: the state only, no change to the tables."""

import club.clubs.known
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('clubs', '0001_initial'),
        ('tournaments', '0016_every_tournament_has_a_club'),
    ]

    operations = [
        migrations.AlterField(
            model_name='tournament',
            name='club',
            field=models.ForeignKey(default=club.clubs.known.home_id, on_delete=django.db.models.deletion.PROTECT, related_name='tournaments', to='clubs.club', verbose_name='club'),
        ),
    ]
