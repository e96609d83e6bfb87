from django.core.management.base import BaseCommand

from club.leaderboards.services.ratings import rebuild_ratings


class Command(BaseCommand):
    help = "Recompute every player's rating from scratch, from all finished games."

    def handle(self, *args, **options):
        games = rebuild_ratings()
        self.stdout.write(f"Rated {games} finished game{'' if games == 1 else 's'}.")
