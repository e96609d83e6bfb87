"""The token of kept pages becomes each club's own (club.games.versions): the site's one row
becomes the home club's, so its kept pages stay valid; any other row (a site without a
club yet has none) is dropped, and a club's row is made on first use. The column is
required in the next migration: PostgreSQL alters no table with this update's checks
pending."""

import django.db.models.deletion
from django.db import migrations, models


def to_home_club(apps, schema_editor):
    ClubVersion = apps.get_model("games", "ClubVersion")
    home = apps.get_model("clubs", "Club").objects.order_by("pk").first()
    kept = ClubVersion.objects.order_by("pk").first() if home is not None else None
    ClubVersion.objects.exclude(pk=kept.pk if kept is not None else None).delete()
    if kept is not None:
        kept.club = home
        kept.save(update_fields=["club"])


class Migration(migrations.Migration):
    dependencies = [
        ("clubs", "0001_initial"),
        ("games", "0019_club_default"),
    ]

    operations = [
        migrations.AddField(
            model_name="clubversion",
            name="club",
            field=models.OneToOneField(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="clubs.club",
                verbose_name="club",
            ),
        ),
        migrations.RunPython(to_home_club, migrations.RunPython.noop),
    ]
