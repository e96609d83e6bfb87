import club.clubs.known
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0017_into_home_club")]

    operations = [
        migrations.AlterField(
            model_name="game",
            name="club",
            field=models.ForeignKey(
                default=club.clubs.known.home_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="games",
                to="clubs.club",
                verbose_name="club",
            ),
        ),
    ]
