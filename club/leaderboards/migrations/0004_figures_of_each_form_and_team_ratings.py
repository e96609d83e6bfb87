"""Each form of play's figures (points for and against, sessions won, kodis taken and
given) and the teams' own ratings, filled in for the games already finished."""

from collections import defaultdict

from django.db import migrations, models
from django.db.models import Sum

from club.scoring import ratings

NEW = ("points_for", "points_against", "sessions_won", "kodis_taken", "kodis_given")
CHUNK = 2000


def _form(scoring, kodi):
    if scoring == "points":
        return "points"
    return "kodi" if kodi else "tables"


def fill(apps, schema_editor):
    GameTeam = apps.get_model("games", "GameTeam")
    rows = {
        "team": apps.get_model("leaderboards", "TeamGameFigures"),
        "player": apps.get_model("leaderboards", "PlayerGameFigures"),
    }
    totals = {
        "team": apps.get_model("leaderboards", "TeamTotals"),
        "player": apps.get_model("leaderboards", "PlayerTotals"),
    }
    seats = GameTeam.objects.filter(game__status="finished").values_list(
        "game_id",
        "team_id",
        "score",
        "kodis",
        "place",
        "game__scoring",
        "game__kodi",
        "first_player_id",
        "second_player_id",
        "third_player_id",
        "fourth_player_id",
    )
    by_game = defaultdict(list)
    for seat in seats.iterator(chunk_size=CHUNK):
        by_game[seat[0]].append(seat)
    figures = {"team": {}, "player": {}}  # (game, side) -> (form, the new figures)
    for game, sides in by_game.items():
        score = sum(side[2] for side in sides)
        kodis = sum(side[3] for side in sides)
        for _game, team, points, taken, place, scoring, kodi, *players in sides:
            form = _form(scoring, kodi)
            new = dict.fromkeys(NEW, 0)
            if form == "points":
                new.update(
                    points_for=points,
                    points_against=score - points,
                    sessions_won=int(place == 1),
                )
            elif form == "kodi":
                new.update(kodis_taken=taken, kodis_given=kodis - taken)
            figures["team"][(game, team)] = (form, new)
            for player in players:
                if player is not None:
                    figures["player"][(game, player)] = (form, new)
    for side, model in rows.items():
        changed = []
        for row in model.objects.only("id", "game_id", f"{side}_id").iterator(chunk_size=CHUNK):
            found = figures[side].get((row.game_id, getattr(row, f"{side}_id")))
            if found is None:
                continue
            row.form = found[0]
            for name, value in found[1].items():
                setattr(row, name, value)
            changed.append(row)
        model.objects.bulk_update(changed, ["form", *NEW], batch_size=CHUNK)
        summed = {
            found[f"{side}_id"]: found
            for found in model.objects.values(f"{side}_id").annotate(**{n: Sum(n) for n in NEW})
        }
        kept = list(totals[side].objects.only("id", f"{side}_id"))
        for total in kept:
            found = summed.get(getattr(total, f"{side}_id"), {})
            for name in NEW:
                setattr(total, name, found.get(name) or 0)
        totals[side].objects.bulk_update(kept, list(NEW), batch_size=CHUNK)
    # The teams' own ratings, from their results as teams, in the order games finished.
    order = (
        GameTeam.objects.filter(game__status="finished")
        .order_by("game__finished_at", "game_id", "position")
        .values_list("game_id", "team_id", "place")
    )
    games = defaultdict(list)
    for game, team, place in order.iterator(chunk_size=CHUNK):
        games[game].append((team, place))
    rated = ratings.rate_teams(
        ratings.RatedGame(
            game=game,
            teams=[[team] for team, _place in sides],
            places=[place or len(sides) for _team, place in sides],
        )
        for game, sides in games.items()
    )
    kept = list(totals["team"].objects.only("id", "team_id"))
    for total in kept:
        found = rated.get(total.team_id)
        if found is not None:
            total.mu, total.sigma = found.mu, found.sigma
            total.rated_games, total.rating = found.games, found.rating
        else:
            total.mu, total.sigma, total.rated_games, total.rating = (
                ratings.MU,
                ratings.SIGMA,
                0,
                0.0,
            )
    totals["team"].objects.bulk_update(
        kept, ["mu", "sigma", "rated_games", "rating"], batch_size=CHUNK
    )


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0014_admin_list_order'),
        ('leaderboards', '0003_owed_games'),
        ('tournaments', '0009_stages'),
    ]

    operations = [
        migrations.AddField(
            model_name='playergamefigures',
            name='form',
            field=models.CharField(db_default='tables', default='tables', max_length=6),
        ),
        migrations.AddField(
            model_name='playergamefigures',
            name='kodis_given',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis given'),
        ),
        migrations.AddField(
            model_name='playergamefigures',
            name='kodis_taken',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis taken'),
        ),
        migrations.AddField(
            model_name='playergamefigures',
            name='points_against',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='points against'),
        ),
        migrations.AddField(
            model_name='playergamefigures',
            name='points_for',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='points for'),
        ),
        migrations.AddField(
            model_name='playergamefigures',
            name='sessions_won',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='sessions won'),
        ),
        migrations.AddField(
            model_name='playertotals',
            name='kodis_given',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis given'),
        ),
        migrations.AddField(
            model_name='playertotals',
            name='kodis_taken',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis taken'),
        ),
        migrations.AddField(
            model_name='playertotals',
            name='points_against',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='points against'),
        ),
        migrations.AddField(
            model_name='playertotals',
            name='points_for',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='points for'),
        ),
        migrations.AddField(
            model_name='playertotals',
            name='sessions_won',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='sessions won'),
        ),
        migrations.AddField(
            model_name='teamgamefigures',
            name='form',
            field=models.CharField(db_default='tables', default='tables', max_length=6),
        ),
        migrations.AddField(
            model_name='teamgamefigures',
            name='kodis_given',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis given'),
        ),
        migrations.AddField(
            model_name='teamgamefigures',
            name='kodis_taken',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis taken'),
        ),
        migrations.AddField(
            model_name='teamgamefigures',
            name='points_against',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='points against'),
        ),
        migrations.AddField(
            model_name='teamgamefigures',
            name='points_for',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='points for'),
        ),
        migrations.AddField(
            model_name='teamgamefigures',
            name='sessions_won',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='sessions won'),
        ),
        migrations.AddField(
            model_name='teamtotals',
            name='kodis_given',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis given'),
        ),
        migrations.AddField(
            model_name='teamtotals',
            name='kodis_taken',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='kodis taken'),
        ),
        migrations.AddField(
            model_name='teamtotals',
            name='mu',
            field=models.FloatField(db_default=25.0, default=25.0),
        ),
        migrations.AddField(
            model_name='teamtotals',
            name='points_against',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='points against'),
        ),
        migrations.AddField(
            model_name='teamtotals',
            name='points_for',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='points for'),
        ),
        migrations.AddField(
            model_name='teamtotals',
            name='rated_games',
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name='teamtotals',
            name='sessions_won',
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name='sessions won'),
        ),
        migrations.AddField(
            model_name='teamtotals',
            name='sigma',
            field=models.FloatField(db_default=8.333333333333334, default=8.333333333333334),
        ),
        migrations.AddIndex(
            model_name='playergamefigures',
            index=models.Index(fields=['form', 'player'], name='playergamefigures_form'),
        ),
        migrations.AddIndex(
            model_name='teamgamefigures',
            index=models.Index(fields=['form', 'team'], name='teamgamefigures_form'),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
