"""Every player gets an identifier that travels with their results; a team's name is no
longer unique (a team is who plays in it)."""

import uuid

import django.db.models.deletion
import django.db.models.functions.text
from django.db import migrations, models


def give_identifiers(apps, schema_editor):
    Player = apps.get_model("games", "Player")
    players = list(Player.objects.filter(identifier__isnull=True).only("pk"))
    for player in players:
        player.identifier = uuid.uuid4()
    Player.objects.bulk_update(players, ["identifier"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_admin_list_order"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="identifier",
            field=models.UUIDField(editable=False, null=True, verbose_name="identifier"),
        ),
        migrations.RunPython(give_identifiers, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="player",
            name="identifier",
            field=models.UUIDField(
                default=uuid.uuid4, editable=False, unique=True, verbose_name="identifier"
            ),
        ),
        migrations.CreateModel(
            name="PlayerAlias",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("identifier", models.UUIDField(unique=True, verbose_name="identifier")),
                ("added_at", models.DateTimeField(auto_now_add=True, verbose_name="added")),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="aliases",
                        to="games.player",
                        verbose_name="player",
                    ),
                ),
            ],
            options={
                "verbose_name": "earlier identifier",
                "verbose_name_plural": "earlier identifiers",
            },
        ),
        migrations.RemoveConstraint(
            model_name="team",
            name="team_name_unique_ignoring_case",
        ),
        migrations.AddIndex(
            model_name="team",
            index=models.Index(
                django.db.models.functions.text.Lower("name"), name="team_name_ignoring_case"
            ),
        ),
    ]
