"""A level game is played, not won: the figures of the games already finished level.

Until now the figures counted a first place shared (time called on equal tables, equal
totals on a points sheet, equal kodis and tables) as a game won, and a session won, by
every team sharing it. A game is won by the team it names its winner, placed first
alone; a level game names none. Its rows lose their win, and the totals of the sides
that played it are summed again from their rows.
"""

from django.db import migrations
from django.db.models import Count, Sum

CHUNK = 500  # ids a statement, well under any database's limit of parameters
CORRECTED = ("won", "sessions_won")


def _chunks(ids):
    ids = sorted(ids)
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


def put_level_games_right(apps, schema_editor):
    GameTeam = apps.get_model("games", "GameTeam")
    level = set(
        GameTeam.objects.filter(game__status="finished", place=1)
        .values("game_id")
        .annotate(firsts=Count("id"))
        .filter(firsts__gt=1)
        .order_by()
        .values_list("game_id", flat=True)
    )
    for side, rows, totals in (
        ("player", "PlayerGameFigures", "PlayerTotals"),
        ("team", "TeamGameFigures", "TeamTotals"),
    ):
        rows = apps.get_model("leaderboards", rows)
        totals = apps.get_model("leaderboards", totals)
        key = f"{side}_id"
        sides = set()
        for games in _chunks(level):
            counted = rows.objects.filter(game_id__in=games, won__gt=0)
            sides |= set(counted.values_list(key, flat=True))
            counted.update(won=0, sessions_won=0)
        for chunk in _chunks(sides):
            summed = {
                found[key]: found
                for found in rows.objects.filter(**{f"{key}__in": chunk})
                .values(key)
                .annotate(**{name: Sum(name) for name in CORRECTED})
                .order_by()
            }
            kept = list(totals.objects.filter(**{f"{key}__in": chunk}))
            for total in kept:
                for name in CORRECTED:
                    setattr(total, name, summed.get(getattr(total, key), {}).get(name) or 0)
            totals.objects.bulk_update(kept, list(CORRECTED), batch_size=CHUNK)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_admin_list_order"),
        ("leaderboards", "0004_figures_of_each_form_and_team_ratings"),
    ]

    operations = [
        migrations.RunPython(put_level_games_right, migrations.RunPython.noop, elidable=True),
    ]
