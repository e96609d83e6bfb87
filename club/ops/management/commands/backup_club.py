"""``manage.py backup_club [--club SLUG]``: the whole site, or one club of it, in one
versioned, checksummed, signed file."""

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.translation import gettext as _

from club.archive.management.club_option import club_named
from club.ops.backup import default_filename, users_with_extra_permissions, write_backup
from club.ops.backup_format import FORMAT, VERSION, BackupError


class Command(BaseCommand):
    help = (
        "Write every club (with its organisers and players), login, player, team, game (with "
        "its deals, ledger, history, scorer links and waiting deals), tournament and rating of "
        f"the site to one JSON file (format {FORMAT}, "
        f"version {VERSION}, signed with the server's secret key), readable by its owner only: it "
        "holds password hashes and the scorer links' secrets. With --club SLUG, only that club: "
        "its organisers' logins (without the site's rights), its members and the players and "
        "teams its games name, its games and its tournaments, and no ratings (they count every "
        "club's games; a restore computes them again). Restore either with restore_club."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--club",
            metavar="SLUG",
            help="back up only this club, by its short name (without it, the whole site)",
        )
        parser.add_argument(
            "--output",
            metavar="FILE",
            help=(
                "the file to write (default: fiftysix-club-backup-YYYYMMDD-HHMMSS.json here, "
                "or fiftysix-SLUG-backup-YYYYMMDD-HHMMSS.json for one club)"
            ),
        )

    def handle(self, *args, output, club=None, **options):
        of = club_named(club)
        path = output or default_filename(timezone.now(), of)
        try:
            manifest = write_backup(path, club=of)
        except BackupError as error:
            raise CommandError(error.message) from None
        counts = manifest["counts"]
        numbers = {
            "file": path,
            "users": counts["auth.user"],
            "players": counts["games.player"],
            "games": counts["games.game"],
            "deals": counts["games.round"],
            "tournaments": counts["tournaments.tournament"],
        }
        if of is not None:
            self.stdout.write(
                _(
                    "Wrote the backup of the club %(club)s to %(file)s: %(users)d organisers' "
                    "logins, %(players)d players, %(games)d games with %(deals)d deals, "
                    "%(tournaments)d tournaments. It holds no ratings: they count every "
                    "club's games, and a restore computes them again."
                )
                % {**numbers, "club": of.name}
            )
            return
        self.stdout.write(
            _(
                "Wrote the backup %(file)s: %(users)d logins, %(players)d players, %(games)d "
                "games with %(deals)d deals, %(tournaments)d tournaments."
            )
            % numbers
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
