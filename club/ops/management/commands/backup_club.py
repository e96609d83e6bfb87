"""``manage.py backup_club``: the whole club in one versioned, checksummed, signed file."""

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.translation import gettext as _

from club.ops.backup import default_filename, users_with_extra_permissions, write_backup
from club.ops.backup_format import FORMAT, VERSION, BackupError


class Command(BaseCommand):
    help = (
        "Write every club (with its organisers and players), login, player, team, game (with "
        "its deals, ledger, history, scorer links and waiting deals), tournament and rating of "
        f"the site to one JSON file (format {FORMAT}, "
        f"version {VERSION}, signed with the server's secret key), readable by its owner only: it "
        "holds password hashes and the scorer links' secrets. Restore it with restore_club."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--output",
            metavar="FILE",
            help="the file to write (default: fiftysix-club-backup-YYYYMMDD-HHMMSS.json here)",
        )

    def handle(self, *args, output, **options):
        path = output or default_filename(timezone.now())
        try:
            manifest = write_backup(path)
        except BackupError as error:
            raise CommandError(error.message) from None
        counts = manifest["counts"]
        self.stdout.write(
            _(
                "Wrote the backup %(file)s: %(users)d logins, %(players)d players, %(games)d "
                "games with %(deals)d deals, %(tournaments)d tournaments."
            )
            % {
                "file": path,
                "users": counts["auth.user"],
                "players": counts["games.player"],
                "games": counts["games.game"],
                "deals": counts["games.round"],
                "tournaments": counts["tournaments.tournament"],
            }
        )
        extra = users_with_extra_permissions()
        if extra:
            self.stderr.write(
                _(
                    "Note: %(count)d logins have groups or single permissions; the backup "
                    "keeps only whether a login is staff, superuser and active."
                )
                % {"count": extra}
            )
