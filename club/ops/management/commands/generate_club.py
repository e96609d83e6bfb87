"""Write a synthetic club (players, teams, tournaments, finished games) for benchmarks.

    python manage.py generate_club --preset small|large|federation [--seed N ...]

Every deal is settled by the rules core; rows are written in bulk. At the end a
sample of games is replayed through the deal service and compared with the
stored rows (``--check N``, 20 by default). Use a database of its own
(``DATABASE_URL``), never the club's.
"""

from __future__ import annotations

import dataclasses

from django.core.management.base import BaseCommand, CommandError

from club.ops import synthetic
from club.ops.synthetic_check import CheckFailed
from club.tournaments.models import Tournament


class Command(BaseCommand):
    help = "Generate a synthetic club for benchmarks (see club/ops/synthetic.py)."

    def add_arguments(self, parser):
        parser.add_argument("--preset", choices=sorted(synthetic.PRESETS), default="small")
        parser.add_argument("--players", type=int)
        parser.add_argument("--tournaments", type=int)
        parser.add_argument("--teams", type=int, help="registered teams per tournament")
        parser.add_argument("--sittings", type=int, help="sittings per tournament")
        parser.add_argument("--seed", type=int)
        parser.add_argument(
            "--check", type=int, default=20, help="games to replay and compare at the end"
        )

    def handle(self, *args, **options):
        plan = synthetic.PRESETS[options["preset"]]
        changes = {
            name: options[name]
            for name in ("players", "tournaments", "teams", "sittings", "seed")
            if options[name] is not None
        }
        plan = dataclasses.replace(plan, **changes)
        if plan.players < 2 * plan.teams:
            raise CommandError(
                f"{plan.teams} teams per tournament need at least {2 * plan.teams} players."
            )
        if Tournament.objects.filter(name__startswith=f"S{plan.seed} Cup ").exists():
            raise CommandError(
                f"This database already holds the club of seed {plan.seed}: "
                "use another --seed or an empty database."
            )
        self.stdout.write(f"Generating {options['preset']}: {plan}")
        try:
            report = synthetic.generate(plan, say=self.stdout.write, check=options["check"])
        except CheckFailed as error:
            raise CommandError(f"Replay check FAILED: {error}") from error
        self.stdout.write(
            self.style.SUCCESS(
                f"Done in {report.seconds:.1f} s: {report.players} players, {report.teams} teams, "
                f"{report.tournaments} tournaments, {report.games} games, {report.deals} deals "
                f"(standings {report.standings_seconds:.1f} s, "
                f"ratings {report.ratings_seconds:.1f} s, check {report.check_seconds:.1f} s)"
            )
        )
