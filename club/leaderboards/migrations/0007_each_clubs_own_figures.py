"""Each club's own figures: every game row says its game's club, and each side has totals
at each club it played in. An existing site's rows take their game's club, and its
totals at each club are summed from them, so its boards are right at once."""

import django.db.models.deletion
from django.db import migrations, models

FIGURES = (
    "played, won, declared, made, doubles_won, doubles_lost, redoubles_won, redoubles_lost, "
    "tables_net, points_for, points_against, sessions_won, kodis_taken, kodis_given"
)
SUMS = ", ".join(f"SUM({name})" for name in FIGURES.split(", "))


def fill(apps, schema_editor):
    """The club of every game row, from its game; each side's totals at each club, summed."""
    quote = schema_editor.connection.ops.quote_name
    game = quote(apps.get_model("games", "Game")._meta.db_table)
    with schema_editor.connection.cursor() as cursor:
        for row_model, totals_model, side in (
            ("PlayerGameFigures", "PlayerClubTotals", "player_id"),
            ("TeamGameFigures", "TeamClubTotals", "team_id"),
        ):
            rows = quote(apps.get_model("leaderboards", row_model)._meta.db_table)
            totals = quote(apps.get_model("leaderboards", totals_model)._meta.db_table)
            cursor.execute(
                f"UPDATE {rows} SET club_id = (SELECT g.club_id FROM {game} g "
                f"WHERE g.id = {rows}.game_id)"
            )
            cursor.execute(
                f"INSERT INTO {totals} ({FIGURES}, biggest_bid, {side}, club_id) "
                f"SELECT {SUMS}, MAX(biggest_bid), {side}, club_id FROM {rows} "
                f"GROUP BY {side}, club_id"
            )
        if schema_editor.connection.vendor == "postgresql":
            # The rows' new references checked now, so their tables may be altered below
            # in this transaction (PostgreSQL refuses while checks are pending).
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):

    dependencies = [
        ('clubs', '0001_initial'),
        ('games', '0019_club_default'),
        ('leaderboards', '0006_ratings_by_form_of_play'),
    ]

    operations = [
        migrations.CreateModel(
            name='PlayerClubTotals',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('played', models.PositiveIntegerField(default=0, verbose_name='played')),
                ('won', models.PositiveIntegerField(default=0, verbose_name='won')),
                ('declared', models.PositiveIntegerField(default=0, verbose_name='declared')),
                ('made', models.PositiveIntegerField(default=0, verbose_name='made')),
                ('doubles_won', models.PositiveIntegerField(default=0)),
                ('doubles_lost', models.PositiveIntegerField(default=0)),
                ('redoubles_won', models.PositiveIntegerField(default=0)),
                ('redoubles_lost', models.PositiveIntegerField(default=0)),
                ('tables_net', models.IntegerField(default=0, verbose_name='tables net')),
                ('points_for', models.PositiveIntegerField(db_default=0, default=0, verbose_name='points for')),
                ('points_against', models.PositiveIntegerField(db_default=0, default=0, verbose_name='points against')),
                ('sessions_won', models.PositiveIntegerField(db_default=0, default=0, verbose_name='sessions won')),
                ('kodis_taken', models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis taken')),
                ('kodis_given', models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis given')),
                ('biggest_bid', models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='biggest bid made')),
            ],
            options={
                'verbose_name': "player's totals at a club",
                'verbose_name_plural': "players' totals at clubs",
            },
        ),
        migrations.CreateModel(
            name='TeamClubTotals',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('played', models.PositiveIntegerField(default=0, verbose_name='played')),
                ('won', models.PositiveIntegerField(default=0, verbose_name='won')),
                ('declared', models.PositiveIntegerField(default=0, verbose_name='declared')),
                ('made', models.PositiveIntegerField(default=0, verbose_name='made')),
                ('doubles_won', models.PositiveIntegerField(default=0)),
                ('doubles_lost', models.PositiveIntegerField(default=0)),
                ('redoubles_won', models.PositiveIntegerField(default=0)),
                ('redoubles_lost', models.PositiveIntegerField(default=0)),
                ('tables_net', models.IntegerField(default=0, verbose_name='tables net')),
                ('points_for', models.PositiveIntegerField(db_default=0, default=0, verbose_name='points for')),
                ('points_against', models.PositiveIntegerField(db_default=0, default=0, verbose_name='points against')),
                ('sessions_won', models.PositiveIntegerField(db_default=0, default=0, verbose_name='sessions won')),
                ('kodis_taken', models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis taken')),
                ('kodis_given', models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis given')),
                ('biggest_bid', models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='biggest bid made')),
            ],
            options={
                'verbose_name': "team's totals at a club",
                'verbose_name_plural': "teams' totals at clubs",
            },
        ),
        migrations.RemoveIndex(
            model_name='playergamefigures',
            name='playergamefigures_played_on',
        ),
        migrations.RemoveIndex(
            model_name='playergamefigures',
            name='playergamefigures_form',
        ),
        migrations.RemoveIndex(
            model_name='teamgamefigures',
            name='teamgamefigures_played_on',
        ),
        migrations.RemoveIndex(
            model_name='teamgamefigures',
            name='teamgamefigures_form',
        ),
        migrations.AddField(
            model_name='playergamefigures',
            name='club',
            field=models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='clubs.club'),
        ),
        migrations.AddField(
            model_name='teamgamefigures',
            name='club',
            field=models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='clubs.club'),
        ),
        migrations.AddIndex(
            model_name='playergamefigures',
            index=models.Index(fields=['club', 'played_on', 'player'], name='playergamefigures_club_day'),
        ),
        migrations.AddIndex(
            model_name='playergamefigures',
            index=models.Index(fields=['club', 'form', 'player'], name='playergamefigures_club_form'),
        ),
        migrations.AddIndex(
            model_name='teamgamefigures',
            index=models.Index(fields=['club', 'played_on', 'team'], name='teamgamefigures_club_day'),
        ),
        migrations.AddIndex(
            model_name='teamgamefigures',
            index=models.Index(fields=['club', 'form', 'team'], name='teamgamefigures_club_form'),
        ),
        migrations.AddField(
            model_name='playerclubtotals',
            name='club',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='player_totals', to='clubs.club'),
        ),
        migrations.AddField(
            model_name='playerclubtotals',
            name='player',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='club_totals', to='games.player'),
        ),
        migrations.AddField(
            model_name='teamclubtotals',
            name='club',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='team_totals', to='clubs.club'),
        ),
        migrations.AddField(
            model_name='teamclubtotals',
            name='team',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='club_totals', to='games.team'),
        ),
        migrations.AddConstraint(
            model_name='playerclubtotals',
            constraint=models.UniqueConstraint(fields=('club', 'player'), name='playerclubtotals_once'),
        ),
        migrations.AddConstraint(
            model_name='teamclubtotals',
            constraint=models.UniqueConstraint(fields=('club', 'team'), name='teamclubtotals_once'),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(
            model_name='playergamefigures',
            name='club',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='clubs.club'),
        ),
        migrations.AlterField(
            model_name='teamgamefigures',
            name='club',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='clubs.club'),
        ),
    ]
