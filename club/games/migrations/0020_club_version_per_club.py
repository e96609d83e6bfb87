"""The token of kept pages becomes each club's own (club.games.versions): the site's one row
becomes the home club's, so its kept pages stay valid; any other row (a site without a
club yet has none) is dropped, and every other club has a row made (as a club made
from now on has, with it). The column is required in the next migration: PostgreSQL
alters no table with this update's checks pending."""

import uuid

import django.db.models.deletion
from django.core.management.color import no_style
from django.db import migrations, models


def to_home_club(apps, schema_editor):
    ClubVersion = apps.get_model("games", "ClubVersion")
    clubs = list(apps.get_model("clubs", "Club").objects.order_by("pk"))
    kept = ClubVersion.objects.order_by("pk").first() if clubs else None
    ClubVersion.objects.exclude(pk=kept.pk if kept is not None else None).delete()
    if kept is not None:
        kept.club = clubs[0]
        kept.save(update_fields=["club"])
    generation = uuid.uuid4().hex
    # Ids past the kept row's: it was written with its id given (pk=1), which moves no
    # sequence on PostgreSQL, so the sequence's next id could be that row's. The sequence
    # is then set past them all.
    first = (kept.pk if kept is not None else 0) + 1
    ClubVersion.objects.bulk_create(
        [
            ClubVersion(pk=first + index, club=club, generation=generation)
            for index, club in enumerate(clubs[kept is not None :])
        ]
    )
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [ClubVersion]):
            cursor.execute(statement)


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
