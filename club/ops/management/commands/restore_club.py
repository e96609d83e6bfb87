"""``manage.py restore_club FILE``: a backup written by backup_club, into an empty database."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from club.ops.backup_format import BackupError
from club.ops.restore import restore


class Command(BaseCommand):
    help = (
        "Restore a backup written by backup_club into an empty, migrated database, in one "
        "transaction; the file's clubs take the place of the home club a new database has "
        "(a file written before clubs puts everything into that club). Refuses, writing "
        "nothing, when the database already holds any login, player, game or tournament, "
        "when the file is not a backup of a version this app "
        "reads, when its signature is missing or does not match this server's secret key "
        "(or it is an unsigned backup of version 1 or 2), or when a table's row count or "
        "checksum fails. A backup restored with --accept-unsigned is checked as an import of "
        "results is: it is refused when any game's tables, piles, ledger, places or winner "
        "disagree with its deals settled by the rules, or a tournament's standings with its "
        "games; its ratings are computed again; and it is refused, naming them, when it gives "
        "any login organiser or admin rights, unless --with-organisers is given too."
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
        parser.add_argument(
            "--with-organisers",
            action="store_true",
            help=(
                "with --accept-unsigned: restore the logins the file makes organisers or admins "
                "(staff or superuser) with those rights. Without it such a file is refused, "
                "naming those logins, and nothing is written: nothing proves who gave them "
                "their rights, and restoring them as plain logins would lock the club's "
                "organisers out. Give it only when the logins named are the club's own "
                "organisers. A signed backup of this server needs no such flag"
            ),
        )

    def handle(self, *args, file, accept_unsigned, with_organisers, **options):
        try:
            summary = restore(
                file,
                accept_unsigned=accept_unsigned,
                with_organisers=with_organisers,
                warn=self._warn,
            )
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
