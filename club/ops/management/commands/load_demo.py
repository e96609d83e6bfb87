"""``manage.py load_demo``: the demo club, once, on an empty database.

Imports ``fixtures/demo.json`` (games of club nights) and
``fixtures/demo_tournaments.json`` (a finished tournament whose results are
final and one still running) when the club has no games yet, all in one
transaction, and, on a development machine (``DEBUG``), adds the organiser
login ``demo``. Running it again changes nothing. Never in a folder the venue has
served from (club/venue.py): the venue's database is the club's own.
"""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils.translation import gettext as _

from club.archive.format import ArchiveError
from club.archive.load import import_results
from club.games.models import Game
from club.ops.demo import DEMO_PASSWORD, DEMO_USER
from club.venue import is_venue_folder

DEMO_FILES = (
    settings.BASE_DIR / "fixtures" / "demo.json",
    settings.BASE_DIR / "fixtures" / "demo_tournaments.json",
)


class Command(BaseCommand):
    help = (
        "Load the demo club (fixtures/demo.json and fixtures/demo_tournaments.json) into an "
        "empty database; add a demo login."
    )

    def handle(self, *args, **options):
        if is_venue_folder(settings.DATA_DIR):
            raise CommandError(
                _(
                    "%(folder)s is the venue's data folder: the demo club is never loaded "
                    "there. Leave DJANGO_DATA_DIR unset, or set it to another folder, to try "
                    "the demo club."
                )
                % {"folder": settings.DATA_DIR}
            )
        with transaction.atomic():
            if Game.objects.exists():
                self.stdout.write(_("The club already has games; the demo club was not loaded."))
            else:
                for path in DEMO_FILES:
                    self._load(path)
            if settings.DEBUG:
                users = get_user_model()
                if not users.objects.filter(username=DEMO_USER).exists():
                    users.objects.create_superuser(
                        username=DEMO_USER, email="", password=DEMO_PASSWORD
                    )
                    self.stdout.write(
                        _("Created the organiser login “%(user)s” (password “%(password)s”).")
                        % {"user": DEMO_USER, "password": DEMO_PASSWORD}
                    )

    def _load(self, path) -> None:
        name = f"fixtures/{path.name}"
        try:
            summary = import_results(path.read_text(encoding="utf-8"))
        except (OSError, ArchiveError) as error:
            raise CommandError(
                _("The demo club could not be loaded from %(file)s: %(reason)s")
                % {"file": name, "reason": getattr(error, "message", error)}
            ) from None
        self.stdout.write(
            _("Loaded the demo club (%(file)s): %(games)d games with %(deals)d deals.")
            % {"file": name, "games": summary.games, "deals": summary.deals}
        )
        for tournament in summary.tournaments:
            self.stdout.write(_("Loaded the tournament “%(name)s”.") % {"name": tournament})
