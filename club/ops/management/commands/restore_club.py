"""``manage.py restore_club FILE``: a backup written by backup_club, into an empty database;
or a backup of one club (``backup_club --club``), as that club."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from club.ops.backup_format import BackupError
from club.ops.restore_one_club import ClubRestoreSummary, restore_any


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
        "any login organiser or admin rights, unless --with-organisers is given too. A backup "
        "of one club (backup_club --club) is restored as that club: into a new database (a "
        "club moving to a server of its own), or over the club of its short name, replacing "
        "its games, tournaments, members and organisers; players the site shares with other "
        "clubs are matched by their identifiers and keep the site's details. It is refused, "
        "naming the club and what clashes, when it would touch another club's rows."
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
            summary = restore_any(
                file,
                accept_unsigned=accept_unsigned,
                with_organisers=with_organisers,
                warn=self._warn,
            )
        except BackupError as error:
            raise CommandError(error.message) from None
        if isinstance(summary, ClubRestoreSummary):
            self._restored_club(summary)
            return
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

    def _restored_club(self, summary: ClubRestoreSummary) -> None:
        counts = summary.counts
        how = {
            "new site": _("into this new site"),
            "over": _("over the club of the same short name"),
            "added": _("beside this site's clubs"),
        }[summary.how]
        self.stdout.write(
            _(
                "Restored the backup of the club %(club)s (/clubs/%(slug)s/) of %(created)s "
                "(app version %(app)s) %(how)s: %(users)d organisers, %(players)d players "
                "(%(matched)d already on this site, %(kept)d of them kept as the site has them "
                "because another club knows them), %(games)d games with %(deals)d deals, "
                "%(tournaments)d tournaments. The ratings were computed again from every "
                "club's games."
            )
            % {
                "club": summary.club,
                "slug": summary.slug,
                "created": summary.created_at,
                "app": summary.app_version,
                "how": how,
                "users": counts["auth.user"],
                "players": counts["games.player"],
                "matched": summary.players_matched,
                "kept": summary.players_kept,
                "games": counts["games.game"],
                "deals": counts["games.round"],
                "tournaments": counts["tournaments.tournament"],
            }
        )

    def _warn(self, message: str) -> None:
        rule = "!" * 72
        self.stderr.write(self.style.WARNING(f"{rule}\n{message}\n{rule}"))
