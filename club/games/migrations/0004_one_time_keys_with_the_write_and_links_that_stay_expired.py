from django.db import migrations, models


def forget_kept_answers(apps, schema_editor):
    # Kept answers were stored uncompressed, and some were left "being saved" by a
    # lost connection; their writes are in the database either way, and a resend
    # of such a form is now answered from it ("already recorded").
    apps.get_model("games", "SubmittedForm").objects.all().delete()


def expire_links_of_finished_games(apps, schema_editor):
    # Links of games already over expired with them: an undo must not revive them.
    from django.utils import timezone

    ScorerLink = apps.get_model("games", "ScorerLink")
    ScorerLink.objects.filter(game__status="finished", expired_at__isnull=True).update(
        expired_at=timezone.now()
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_submitted_forms"),
    ]

    operations = [
        migrations.RunPython(forget_kept_answers, migrations.RunPython.noop),
        migrations.RemoveField(model_name="submittedform", name="done"),
        migrations.RemoveField(model_name="submittedform", name="location"),
        migrations.AlterField(model_name="submittedform", name="path", field=models.TextField()),
        migrations.AddField(
            model_name="submittedform",
            name="digest",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="submittedform",
            name="status",
            field=models.PositiveSmallIntegerField(),
        ),
        migrations.AddField(
            model_name="scorerlink",
            name="expired_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="expired"),
        ),
        migrations.RunPython(expire_links_of_finished_games, migrations.RunPython.noop),
    ]
