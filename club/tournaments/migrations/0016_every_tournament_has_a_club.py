"""Every tournament has a club. The rows were filled by the migration before; the default here
is the first club's key read in SQL, not club.clubs.known's, which reads the Club model as
the code has it (a later column would not exist yet in a database being upgraded)."""

import django.db.models.deletion
from django.db import connection, migrations, models


def first_club_id():
    with connection.cursor() as cursor:
        cursor.execute("SELECT id FROM clubs_club ORDER BY id LIMIT 1")
        row = cursor.fetchone()
    return row[0] if row else None


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0015_into_home_club")]

    operations = [
        migrations.AlterField(
            model_name="tournament",
            name="club",
            field=models.ForeignKey(
                default=first_club_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="tournaments",
                to="clubs.club",
                verbose_name="club",
            ),
        ),
    ]
