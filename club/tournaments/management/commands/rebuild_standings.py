"""Derive every tournament's standings again from its games, as the rules now rank them."""

from django.core.management.base import BaseCommand

from club.tournaments.models import Tournament
from club.tournaments.services.standings import rebuild_standings


class Command(BaseCommand):
    help = (
        "Rebuild every tournament's standings from its finished games. Run it once after an "
        "upgrade that changes how standings rank (a release's notes say so)."
    )

    def handle(self, *args, **options):
        count = 0
        for tournament in Tournament.objects.order_by("pk").iterator():
            rebuild_standings(tournament)  # one transaction a tournament, under its lock
            count += 1
        self.stdout.write(f"Rebuilt the standings of {count} tournament(s).")
