"""``manage.py export_results``: every game, oldest first, as JSON or CSV."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from club.scoring.archive import ArchiveError, export_csv, export_json


class Command(BaseCommand):
    help = (
        "Export every game (oldest first) as a fiftysix-results/1 JSON document, or as CSV "
        "with one row per team per deal. Writes to standard output unless --output is given."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--format", choices=["json", "csv"], default="json", help="json (default) or csv"
        )
        parser.add_argument("--output", metavar="FILE", help="write to FILE instead")

    def handle(self, *args, format, output, **options):
        try:
            text = export_csv() if format == "csv" else export_json()
        except ArchiveError as error:
            raise CommandError(error.message) from None
        if output is None:
            self.stdout.write(text, ending="")
            return
        try:
            with open(output, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        except OSError as error:
            raise CommandError(
                _("Cannot write %(file)s: %(reason)s.") % {"file": output, "reason": error.strerror}
            ) from None
        self.stdout.write(_("Exported the results to %(file)s.") % {"file": output})
