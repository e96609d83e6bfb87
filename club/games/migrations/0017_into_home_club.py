"""Every game of a site from before there were clubs is its home club's, and every player
it knows is that club's member (club.clubs.known: the home club is the first club made).
A migration of its own: PostgreSQL alters no table with the update's checks pending."""

from django.conf import settings
from django.db import migrations


def home_club(apps):
    """The site's first club, made as club.clubs.known would make it."""
    import os

    Club = apps.get_model("clubs", "Club")
    club = Club.objects.order_by("pk").first()
    if club is None:
        club = Club.objects.create(
            name=os.environ.get("DJANGO_CLUB_NAME", "56 Club").strip() or "56 Club",
            slug=os.environ.get("DJANGO_CLUB_SLUG", "club").strip() or "club",
            languages=[code for code, _name in settings.LANGUAGES],
            time_zone=settings.TIME_ZONE,
        )
    return club


def into_home_club(apps, schema_editor):
    club = home_club(apps)
    apps.get_model("games", "Game").objects.update(club=club)
    Player = apps.get_model("games", "Player")
    Membership = apps.get_model("games", "Membership")
    players = Player.objects.order_by("pk").values_list("pk", flat=True)
    Membership.objects.bulk_create(
        [Membership(club=club, player_id=pk) for pk in players.iterator()], batch_size=2000
    )


class Migration(migrations.Migration):
    dependencies = [("games", "0016_clubs")]

    operations = [migrations.RunPython(into_home_club, migrations.RunPython.noop)]
