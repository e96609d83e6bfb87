"""``manage.py import_results FILE``: store a ``fiftysix-results/1`` file, all of it or nothing."""

import sys

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.scoring.archive import ArchiveError, import_results, read_text


class Command(BaseCommand):
    help = (
        "Import games, or whole tournaments, from a fiftysix-results/1 JSON file (use - for "
        "standard input). "
        "The whole file is checked against the rules first; it is stored all at once, "
        "or nothing is stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the JSON file to import, or - for standard input")

    def handle(self, *args, file, **options):
        try:
            if file == "-":
                text = read_text(sys.stdin.buffer.read)
            else:
                with open(file, "rb") as handle:
                    text = read_text(handle.read)
        except OSError as error:
            raise CommandError(
                _("Cannot read %(file)s: %(reason)s.") % {"file": file, "reason": error.strerror}
            ) from None
        except ArchiveError as error:
            raise CommandError(error.message) from None
        try:
            summary = import_results(text)
        except ArchiveError as error:
            raise CommandError(
                _("%(problem)s Nothing was imported.") % {"problem": error.message}
            ) from None
        games = ngettext("%(count)d game", "%(count)d games", summary.games) % {
            "count": summary.games
        }
        deals = ngettext("%(count)d deal", "%(count)d deals", summary.deals) % {
            "count": summary.deals
        }
        self.stdout.write(
            _("Imported %(games)s with %(deals)s from %(file)s.")
            % {"games": games, "deals": deals, "file": file}
        )
        for name in summary.tournaments:
            self.stdout.write(
                _("Imported the tournament “%(name)s” with its teams, sittings and standings.")
                % {"name": name}
            )
