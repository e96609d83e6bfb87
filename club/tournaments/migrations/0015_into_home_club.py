"""Every tournament from before there were clubs is the home club's."""

from django.db import migrations


def into_home_club(apps, schema_editor):
    club = apps.get_model("clubs", "Club").objects.order_by("pk").first()
    if club is not None:  # made by games 0017 whenever there is anything to move
        apps.get_model("tournaments", "Tournament").objects.update(club=club)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0014_clubs")]

    operations = [migrations.RunPython(into_home_club, migrations.RunPython.noop)]
