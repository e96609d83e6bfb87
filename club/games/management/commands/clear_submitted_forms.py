"""Forget the one-time keys of forms older than a week (run daily from cron)."""

import datetime

from django.core.management.base import BaseCommand
from django.utils import timezone

from club.games.models import SubmittedForm


class Command(BaseCommand):
    help = "Delete the kept answers of forms submitted more than --days days ago (default 7)."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=7)

    def handle(self, *args, days: int, **options):
        cutoff = timezone.now() - datetime.timedelta(days=days)
        deleted, _ = SubmittedForm.objects.filter(created_at__lt=cutoff).delete()
        self.stdout.write(f"Forgot {deleted} submitted form(s) older than {days} days.")
