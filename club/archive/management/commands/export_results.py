"""``manage.py export_results [--club SLUG]``: a club's games as JSON or CSV, or whole
tournaments of it (the home club without ``--club``).

The export is written as it is made, a piece at a time, so that the whole
archive of a federation never sits in memory.
"""

import os

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from club.archive.export import stream_csv, stream_json
from club.archive.format import CSV_TABLES, ArchiveError
from club.archive.management.club_option import add_club_option, club_named
from club.archive.tournament_export import stream_tournament_csv, stream_tournament_json
from club.clubs import known as clubs
from club.clubs.models import Club
from club.db import one_snapshot
from club.tournaments.models import Tournament


class Command(BaseCommand):
    help = (
        "Export every game of a club (oldest first) as a fiftysix-results/1 JSON document, or "
        "as CSV with one row per team per deal; --club SLUG names the club (without it, the "
        "site's home club). With --tournament NAME, export that tournament of the club "
        "whole: its settings, teams, sittings, standings and games (JSON), or one of its "
        "CSV tables (--table standings, games or deals). Writes to standard output unless "
        "--output is given."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--format", choices=["json", "csv"], default="json", help="json (default) or csv"
        )
        parser.add_argument(
            "--tournament",
            metavar="NAME",
            action="append",
            help="export this tournament only (repeat it for several: JSON writes a list)",
        )
        parser.add_argument(
            "--table",
            choices=CSV_TABLES,
            default="deals",
            help="with --tournament --format csv: standings, games or deals (default)",
        )
        parser.add_argument("--output", metavar="FILE", help="write to FILE instead")
        add_club_option(parser, "to export")

    def handle(self, *args, format, tournament, table, output, club=None, **options):
        of = club_named(club) or clubs.home()
        # Every query of the export sees one moment of the database, while scorers
        # go on recording (club.db).
        with one_snapshot():
            self._export(of, format, tournament, table, output)
        if output is not None:
            self.stdout.write(_("Exported the results to %(file)s.") % {"file": output})

    def _export(self, club: Club, format, tournament, table, output) -> None:
        try:
            if tournament:
                tournaments = [self._tournament(club, name) for name in tournament]
                if format == "csv":
                    if len(tournaments) > 1:
                        raise CommandError(
                            _("CSV holds one tournament at a time; give --tournament once.")
                        )
                    pieces = stream_tournament_csv(tournaments[0], table)
                else:
                    pieces = stream_tournament_json(tournaments)
            else:
                pieces = stream_csv(club) if format == "csv" else stream_json(club)
            if output is None:
                for piece in pieces:
                    self.stdout.write(piece, ending="")
                return
            self._write_file(output, pieces)
        except ArchiveError as error:
            raise CommandError(error.message) from None

    def _write_file(self, output: str, pieces) -> None:
        """Write the pieces as they come; a file this run created is removed if it fails."""
        created = not os.path.lexists(output)
        try:
            with open(output, "w", encoding="utf-8", newline="") as handle:
                for piece in pieces:
                    handle.write(piece)
        except BaseException as error:
            if created and os.path.isfile(output):
                os.remove(output)
            if isinstance(error, OSError):
                raise CommandError(
                    _("Cannot write %(file)s: %(reason)s.")
                    % {"file": output, "reason": error.strerror}
                ) from None
            raise

    def _tournament(self, club: Club, name: str) -> Tournament:
        held = Tournament.objects.filter(club=club)
        found = held.filter(name__iexact=" ".join(name.split())).first()
        if found is None:
            names = ", ".join(f"“{t.name}”" for t in held.order_by("name")[:20])
            raise CommandError(
                _("There is no tournament called “%(name)s” (the tournaments are: %(names)s).")
                % {"name": name, "names": names or _("none yet")}
            )
        return found
