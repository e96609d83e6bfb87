import time

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from club.leaderboards import figures
from club.leaderboards.services.owed_work import catch_up
from club.leaderboards.services.ratings import rebuild_ratings


class Command(BaseCommand):
    help = (
        "Recompute every leaderboard figure and rating from the finished games' deals. "
        "Run it after restoring or upgrading; with --check, only report what has drifted."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--check",
            action="store_true",
            help="Compare the stored figures with a recomputation and write nothing.",
        )

    def handle(self, *args, check=False, **options):
        start = time.perf_counter()
        catch_up()  # work a page's answer left for after it (club.leaderboards.owed)
        if check:
            faults = figures.drift()
            if faults:
                for fault in faults[:20]:
                    self.stderr.write(fault)
                raise CommandError(f"{len(faults)} stored figures differ from the deals.")
            self.stdout.write(f"The figures match the deals ({time.perf_counter() - start:.1f} s).")
            return
        with transaction.atomic():
            games = figures.rebuild_all()
            tick = time.perf_counter()
            rated = rebuild_ratings()
        if connection.vendor == "postgresql":
            # Every figure table was rewritten: give the planner its statistics now.
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        self.stdout.write(
            f"Figures of {games} finished games in {tick - start:.1f} s; "
            f"ratings over {rated} games in {time.perf_counter() - tick:.1f} s."
        )
