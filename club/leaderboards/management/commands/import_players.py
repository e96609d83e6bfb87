from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from club.clubs import known
from club.leaderboards.services.importing import PlayerImportError, import_players


class Command(BaseCommand):
    help = (
        "Add or update a club's players from a CSV file with a header row: name (required), "
        "nickname, member_number, active. All rows are saved, or none."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the CSV file (UTF-8)")
        parser.add_argument(
            "--club", default="", help="the club's short name (its address); the home club if none"
        )

    def handle(self, *args, file, club="", **options):
        chosen = known.by_slug(club) if club else known.home()
        if chosen is None:
            raise CommandError(f"No club has the short name {club}.")
        try:
            data = Path(file).read_bytes()
        except OSError as error:
            raise CommandError(f"Cannot read {file}: {error.strerror}") from error
        try:
            result = import_players(data, club=chosen)
        except PlayerImportError as error:
            for fault in error.faults:
                self.stderr.write(str(fault))
            raise CommandError(
                f"Nothing was imported: {len(error.faults)} fault(s) in {file}."
            ) from error
        self.stdout.write(
            f"{len(result.created)} added, {len(result.updated)} updated, "
            f"{len(result.unchanged)} unchanged"
            + (f"; {len(result.joined)} joined {chosen.name}." if result.joined else ".")
        )
