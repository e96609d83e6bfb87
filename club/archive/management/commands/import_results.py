"""``manage.py import_results FILE [--club SLUG]``: store a ``fiftysix-results/1`` file into
a club (the home club without ``--club``), all of it or nothing."""

import os
import stat
import sys
import tempfile
from contextlib import contextmanager

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from club.archive.format import ArchiveError
from club.archive.load import Undecided, import_text, summary_lines
from club.archive.management.club_option import add_club_option, adopt_files_club, club_named
from club.archive.reading import TextFile
from club.games.whos_who import Choice, name_key
from club.web.writes import writes_of

# A club's whole history is a few MB (a 20 MB file holds thousands of games); a larger file
# is refused before it is read. The file is read a piece at a time, never held whole: what
# the import holds is the game it is at (README, "Import and export").
MAX_BYTES = 50 * 1024 * 1024
PIECE = 1024 * 1024


class Command(BaseCommand):
    help = (
        "Import games, or whole tournaments, from a fiftysix-results/1 JSON file (use - for "
        "standard input) of at most 50 MB. "
        "The whole file is checked against the rules first; it is stored all at once, "
        "or nothing is stored. With --club SLUG it goes into that club (without it, the "
        "site's home club); a file of another club's results is refused."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the JSON file to import, or - for standard input")
        add_club_option(parser, "to import into")
        parser.add_argument(
            "--adopt-club",
            action="store_true",
            help="a site that has played nothing yet becomes the club the file names (the "
            "venue's laptop loading its club's players)",
        )
        parser.add_argument(
            "--same-person",
            action="append",
            default=[],
            metavar="NAME",
            help="a player of the file whose name this site gives to a player with another "
            "identifier is that same person (repeat for each)",
        )
        parser.add_argument(
            "--another-person",
            action="append",
            default=[],
            metavar="NAME=NEW NAME",
            help="a player of the file whose name this site gives to a player with another "
            "identifier is another person, to be added as NEW NAME (repeat for each)",
        )

    def _choices(self, same: list[str], another: list[str]) -> dict[str, Choice]:
        choices: dict[str, Choice] = {}
        told = [(name, Choice(True)) for name in same]
        for given in another:
            name, equals, called = given.partition("=")
            if not equals or not name.strip() or not called.strip():
                raise CommandError(
                    _("--another-person takes NAME=NEW NAME, not “%(given)s”.") % {"given": given}
                )
            told.append((name, Choice(False, called)))
        for name, choice in told:
            if any(name_key(name) == name_key(other) for other in choices):
                raise CommandError(
                    _("%(name)s is given two choices; give one.") % {"name": name.strip()}
                )
            choices[name] = choice
        return choices

    def handle(self, *args, file, same_person, another_person, club=None, **options):
        if options.get("adopt_club") and club is None and file != "-":
            adopted = adopt_files_club(file)
            if adopted:
                self.stdout.write(adopted)
        into = club_named(club)
        choices = self._choices(same_person, another_person)
        try:
            with self._opened(file) as handle:
                text = TextFile(handle)
                try:
                    text.check()
                except ArchiveError as error:
                    raise CommandError(error.message) from None
                try:
                    # With --club its writes are the club's: they move only its kept pages'
                    # counter (without, the site's, which every club's pages follow).
                    with writes_of(into.pk if into is not None else None):
                        summary = import_text(text, choices=choices, club=into)
                except Undecided as error:
                    problem = CommandError(
                        _(
                            "%(problem)s Nothing was imported: decide each with "
                            "--same-person NAME or --another-person “NAME=NEW NAME”."
                        )
                        % {"problem": error.message}
                    )
                    problem.clashes = error.message  # the venue's --roster: decide on the page
                    raise problem from None
                except ArchiveError as error:
                    raise CommandError(
                        _("%(problem)s Nothing was imported.") % {"problem": error.message}
                    ) from None
        except OSError as error:
            raise CommandError(
                _("Cannot read %(file)s: %(reason)s.") % {"file": file, "reason": error.strerror}
            ) from None
        for line in summary_lines(summary, file):
            self.stdout.write(line)

    @contextmanager
    def _opened(self, file: str):
        """The file, open for reading from its start as often as the import needs, and no
        larger than ``MAX_BYTES``. Standard input, a pipe or a device is read once into a
        temporary file (on disk, a piece at a time)."""
        if file != "-":
            with open(file, "rb") as handle:
                facts = os.fstat(handle.fileno())
                if stat.S_ISREG(facts.st_mode):
                    if facts.st_size > MAX_BYTES:
                        raise self._too_large(file)
                    yield handle
                    return
                with self._copied(handle, file) as copy:
                    yield copy
            return
        with self._copied(sys.stdin.buffer, file) as copy:
            yield copy

    @contextmanager
    def _copied(self, source, file: str):
        with tempfile.TemporaryFile() as copy:
            size = 0
            while piece := source.read(min(PIECE, MAX_BYTES + 1 - size)):
                size += len(piece)
                if size > MAX_BYTES:
                    raise self._too_large(file)
                copy.write(piece)
            copy.seek(0)
            yield copy

    def _too_large(self, file: str) -> CommandError:
        return CommandError(
            _(
                "%(file)s is larger than %(limit)d MB; a results file is never that big. "
                "Split it into several files. Nothing was imported."
            )
            % {"file": file, "limit": MAX_BYTES // (1024 * 1024)}
        )
