"""``manage.py add_club --name NAME --slug SLUG --organiser USER``: a new club on the site.

The organiser is made if the site has no such login yet (its password in
``DJANGO_ORGANISER_PASSWORD``), and may then write in this club only; a login that
exists already becomes an organiser of this club too (a login may organise several).
"""

from __future__ import annotations

import os

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils.translation import gettext as _

from club.clubs.models import Club, default_languages, default_time_zone, language_codes


class Command(BaseCommand):
    help = "Add a club to the site, with its first organiser."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--name", required=True, help="The club's name, as pages show it.")
        parser.add_argument(
            "--slug", required=True, help="Its short name: the address /clubs/<slug>/."
        )
        parser.add_argument(
            "--organiser",
            action="append",
            default=[],
            help="A login that organises the club (made if new; may be given more than once).",
        )
        parser.add_argument(
            "--languages",
            default="",
            help="Its pages' languages, comma-separated codes (default: all the site has: "
            + ", ".join(language_codes())
            + ").",
        )
        parser.add_argument("--time-zone", default="", help="Such as Asia/Kolkata.")

    def handle(self, *args, name: str, slug: str, organiser: list[str], **options) -> None:
        languages = [code.strip() for code in options["languages"].split(",") if code.strip()]
        club = Club(
            name=" ".join(name.split()),
            slug=slug.strip().lower(),
            languages=languages or default_languages(),
            time_zone=options["time_zone"].strip() or default_time_zone(),
        )
        try:
            club.full_clean()
        except ValidationError as error:
            problems = "; ".join(
                f"{field}: {' '.join(messages)}" for field, messages in error.message_dict.items()
            )
            raise CommandError(
                _("The club was not added (%(problems)s). Nothing was saved.")
                % {"problems": problems}
            ) from None
        with transaction.atomic():
            club.save()
            for login in organiser:
                self._organiser(club, login)
        self.stdout.write(
            _("Club %(name)s added at /clubs/%(slug)s/.") % {"name": club.name, "slug": club.slug}
        )

    def _organiser(self, club: Club, login: str) -> None:
        users = get_user_model()
        user = users.objects.filter(username=login).first()
        if user is None:
            password = os.environ.get("DJANGO_ORGANISER_PASSWORD", "")
            if not password:
                raise CommandError(
                    _(
                        "%(login)s is a new login: set DJANGO_ORGANISER_PASSWORD to its "
                        "password. Nothing was saved."
                    )
                    % {"login": login}
                )
            try:
                validate_password(password, users(username=login))
            except ValidationError as error:
                raise CommandError(
                    _("The password for %(login)s is too weak: %(why)s Nothing was saved.")
                    % {"login": login, "why": " ".join(error.messages)}
                ) from None
            user = users.objects.create_user(username=login, password=password)
            self.stdout.write(_("Organiser %(login)s created.") % {"login": login})
        club.organisers.add(user)
        self.stdout.write(_("%(login)s organises %(club)s.") % {"login": login, "club": club.name})
