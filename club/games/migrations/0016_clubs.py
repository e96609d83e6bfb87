"""Clubs: every game of a site from before there were clubs is its home club's, and every
player it knows is that club's member (club.clubs.known: the home club is the first)."""

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("clubs", "0001_initial"),
        ("games", "0015_player_identifiers"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Membership",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("since", models.DateTimeField(auto_now_add=True, verbose_name="since")),
            ],
            options={
                "verbose_name": "member",
                "verbose_name_plural": "members",
            },
        ),
        migrations.RemoveConstraint(
            model_name="game",
            name="game_label_unique_ignoring_case",
        ),
        migrations.RemoveIndex(
            model_name="game",
            name="game_status_created",
        ),
        migrations.RemoveIndex(
            model_name="game",
            name="game_status_finished",
        ),
        migrations.RemoveIndex(
            model_name="game",
            name="game_updated",
        ),
        migrations.AddField(
            model_name="game",
            name="club",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="games",
                to="clubs.club",
                verbose_name="club",
            ),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                fields=["club", "status", "-created_at"], name="game_club_status_created"
            ),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                fields=["club", "status", "-finished_at", "-id"], name="game_club_status_finished"
            ),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(fields=["club", "updated_at"], name="game_club_updated"),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                fields=["club", "-created_at", "-id"], name="game_club_created_order"
            ),
        ),
        migrations.AddConstraint(
            model_name="game",
            constraint=models.UniqueConstraint(
                models.F("club"),
                django.db.models.functions.text.Lower("label"),
                name="game_label_unique_in_club_ignoring_case",
            ),
        ),
        migrations.AddField(
            model_name="membership",
            name="club",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="memberships",
                to="clubs.club",
                verbose_name="club",
            ),
        ),
        migrations.AddField(
            model_name="membership",
            name="player",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="memberships",
                to="games.player",
                verbose_name="player",
            ),
        ),
        migrations.AddIndex(
            model_name="membership",
            index=models.Index(fields=["player", "club"], name="membership_player_club"),
        ),
        migrations.AddConstraint(
            model_name="membership",
            constraint=models.UniqueConstraint(
                fields=("club", "player"), name="membership_once_per_club"
            ),
        ),
    ]
