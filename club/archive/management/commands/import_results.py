"""``manage.py import_results FILE``: store a ``fiftysix-results/1`` file, all of it or nothing."""

import sys

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.archive import ArchiveError, import_results, read_text

# A club's whole history is a few MB (a 20 MB file holds thousands of games); a larger file
# is refused before it is read, so a wrong file cannot fill the memory.
MAX_BYTES = 50 * 1024 * 1024


class Command(BaseCommand):
    help = (
        "Import games, or whole tournaments, from a fiftysix-results/1 JSON file (use - for "
        "standard input) of at most 50 MB. "
        "The whole file is checked against the rules first; it is stored all at once, "
        "or nothing is stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the JSON file to import, or - for standard input")

    def handle(self, *args, file, **options):
        try:
            if file == "-":
                text = read_text(lambda: self._read_at_most(sys.stdin.buffer, file))
            else:
                with open(file, "rb") as handle:
                    text = read_text(lambda: self._read_at_most(handle, file))
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

    def _read_at_most(self, handle, file: str) -> bytes:
        data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise CommandError(
                _(
                    "%(file)s is larger than %(limit)d MB; a results file is never that big. "
                    "Split it into several files. Nothing was imported."
                )
                % {"file": file, "limit": MAX_BYTES // (1024 * 1024)}
            )
        return data
