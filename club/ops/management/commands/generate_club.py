"""Write a synthetic club (players, teams, tournaments, finished games) for benchmarks.

    python manage.py generate_club --preset small|large|federation [--seed N ...]
    python manage.py generate_club --preset clubs [--clubs N --players N --workers N ...]
    python manage.py generate_club --preset season [--teams N --seed N]

Every deal is settled by the rules core; rows are written in bulk. ``clubs`` writes a
site of many clubs (club/ops/synthetic_clubs.py: 200 clubs, 20,000 players, about two
million deals), by ``COPY`` and in ``--workers`` processes on PostgreSQL. ``season`` adds
a season of 40 club nights of 30 teams, and the competition that counts them, to the club
the database holds already (club/ops/synthetic_season.py): run after ``small`` or
``large``, the same season sits on a small or a large history. At the end a
sample of games is replayed through the deal service and compared with the stored
rows (``--check N``, 20 by default). Use a database of its own (``DATABASE_URL``),
never the club's.
"""

from __future__ import annotations

import dataclasses

from django.core.management.base import BaseCommand, CommandError

from club.clubs.models import Club
from club.competitions.models import Competition
from club.ops import synthetic, synthetic_clubs, synthetic_season
from club.ops.synthetic_check import CheckFailed
from club.tournaments.models import Tournament


class Command(BaseCommand):
    help = (
        "Generate a synthetic club, or site of clubs, for benchmarks (see club/ops/synthetic*.py)."
    )

    def add_arguments(self, parser):
        presets = sorted(
            [*synthetic.PRESETS, *synthetic_clubs.SITE_PRESETS, *synthetic_season.SEASON_PRESETS]
        )
        parser.add_argument("--preset", choices=presets, default="small")
        parser.add_argument("--clubs", type=int, help="clubs (the clubs preset)")
        parser.add_argument("--players", type=int)
        parser.add_argument("--tournaments", type=int, help="tournaments (per club)")
        parser.add_argument(
            "--teams", type=int, help="registered teams per tournament (the season's teams)"
        )
        parser.add_argument("--sittings", type=int, help="sittings per tournament")
        parser.add_argument("--seed", type=int)
        parser.add_argument(
            "--workers",
            type=int,
            default=2,
            help="processes writing the clubs' games (the clubs preset, on PostgreSQL)",
        )
        parser.add_argument(
            "--check", type=int, default=20, help="games to replay and compare at the end"
        )

    def handle(self, *args, **options):
        if options["preset"] in synthetic_clubs.SITE_PRESETS:
            self._site(options)
            return
        if options["preset"] in synthetic_season.SEASON_PRESETS:
            self._season(options)
            return
        plan = synthetic.PRESETS[options["preset"]]
        plan = dataclasses.replace(plan, **self._changes(options, "clubs"))
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

    def _changes(self, options, *unknown: str) -> dict:
        """The plan's numbers the command line changes; refused where the preset has none."""
        for name in unknown:
            if options[name] is not None:
                raise CommandError(f"--{name} is for the clubs preset only.")
        names = ("clubs", "players", "tournaments", "teams", "sittings", "seed")
        return {
            name: options[name]
            for name in names
            if name not in unknown and options[name] is not None
        }

    def _site(self, options) -> None:
        plan = synthetic_clubs.SITE_PRESETS[options["preset"]]
        plan = dataclasses.replace(plan, **self._changes(options))
        members = plan.players // max(1, plan.clubs)
        if plan.clubs < 1 or members < 2 * plan.teams:
            raise CommandError(
                f"{plan.teams} teams per tournament need at least {2 * plan.teams} players "
                f"in each club; {plan.players} players over {plan.clubs} clubs give {members}."
            )
        if Club.objects.filter(slug__startswith=f"s{plan.seed}-").exists():
            raise CommandError(
                f"This database already holds the clubs of seed {plan.seed}: "
                "use another --seed or an empty database."
            )
        self.stdout.write(f"Generating {options['preset']}: {plan}, {options['workers']} workers")
        try:
            report = synthetic_clubs.generate_site(
                plan, say=self.stdout.write, check=options["check"], workers=options["workers"]
            )
        except CheckFailed as error:
            raise CommandError(f"Replay check FAILED: {error}") from error
        self.stdout.write(
            self.style.SUCCESS(
                f"Done in {report.seconds:.1f} s: {report.clubs} clubs, {report.players} players "
                f"({report.memberships} memberships), {report.teams} teams, "
                f"{report.tournaments} tournaments, {report.games} games, {report.deals} deals "
                f"(games written in {report.write_seconds:.1f} s, constraints made again in "
                f"{report.constraints_seconds:.1f} s, figures {report.figures_seconds:.1f} s, "
                f"ratings {report.ratings_seconds:.1f} s, check {report.check_seconds:.1f} s; "
                f"peak RSS {report.peak_rss_mb:.0f} MB here, "
                f"{report.workers_peak_rss_mb:.0f} MB in a worker process)"
            )
        )

    def _season(self, options) -> None:
        plan = synthetic_season.SEASON_PRESETS[options["preset"]]
        changes = self._changes(options, "clubs", "players", "tournaments", "sittings")
        plan = dataclasses.replace(plan, **changes)
        if plan.teams < 2 or plan.teams % 2:
            raise CommandError(
                f"A season's teams each play every night, two to a table: {plan.teams} "
                "teams is not an even number of two or more."
            )
        if Competition.objects.filter(name=plan.name).exists():
            raise CommandError(
                f"This database already holds the season of seed {plan.seed}: "
                "use another --seed or another database."
            )
        self.stdout.write(f"Generating {options['preset']}: {plan}")
        try:
            report = synthetic_season.add_season(
                plan, say=self.stdout.write, check=options["check"]
            )
        except CheckFailed as error:
            raise CommandError(f"Replay check FAILED: {error}") from error
        self.stdout.write(
            self.style.SUCCESS(
                f"Done in {report.seconds:.1f} s: {report.nights} nights, {report.teams} "
                f"teams, {report.games} games, {report.deals} deals (written in "
                f"{report.write_seconds:.1f} s, figures {report.figures_seconds:.1f} s, "
                f"ratings {report.ratings_seconds:.1f} s, check {report.check_seconds:.1f} s); "
                f"competition {report.competition}"
            )
        )
