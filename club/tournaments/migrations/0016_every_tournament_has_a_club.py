import club.clubs.known
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0015_into_home_club")]

    operations = [
        migrations.AlterField(
            model_name="tournament",
            name="club",
            field=models.ForeignKey(
                default=club.clubs.known.home_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="tournaments",
                to="clubs.club",
                verbose_name="club",
            ),
        ),
    ]
