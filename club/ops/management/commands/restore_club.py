"""``manage.py restore_club FILE``: a backup written by backup_club, into an empty database."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from club.ops.backup import BackupError, restore


class Command(BaseCommand):
    help = (
        "Restore a backup written by backup_club into an empty, migrated database, in one "
        "transaction. Refuses, writing nothing, when the database already holds any login, "
        "player, game or tournament, when the file is not a backup of a version this app "
        "reads, when its signature is missing or does not match this server's secret key "
        "(or it is an unsigned backup of version 1 or 2), or when a table's row count or "
        "checksum fails."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE", help="the backup file")
        parser.add_argument(
            "--accept-unsigned",
            action="store_true",
            help=(
                "restore a backup whose signature does not verify (written by a server with "
                "another secret key, when the club moves) or that has none (versions 1 and 2), "
                "after a warning that nothing proves the file was not changed"
            ),
        )

    def handle(self, *args, file, accept_unsigned, **options):
        try:
            summary = restore(file, accept_unsigned=accept_unsigned, warn=self._warn)
        except BackupError as error:
            raise CommandError(error.message) from None
        counts = summary.counts
        self.stdout.write(
            _(
                "Restored the backup of %(created)s (app version %(app)s): %(users)d logins, "
                "%(players)d players, %(games)d games with %(deals)d deals, %(tournaments)d "
                "tournaments."
            )
            % {
                "created": summary.created_at,
                "app": summary.app_version,
                "users": counts["auth.user"],
                "players": counts["games.player"],
                "games": counts["games.game"],
                "deals": counts["games.round"],
                "tournaments": counts["tournaments.tournament"],
            }
        )

    def _warn(self, message: str) -> None:
        rule = "!" * 72
        self.stderr.write(self.style.WARNING(f"{rule}\n{message}\n{rule}"))
