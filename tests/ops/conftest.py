"""The backup tests' fixture: a signed backup of the test club, taken once a module."""

from __future__ import annotations

import pytest
from django.db import transaction

from club.ops import backup
from tests.ops.backup_helpers import build_club


@pytest.fixture(scope="module")
def good_backup(django_db_setup, django_db_blocker) -> str:
    """A backup of the test club, taken in a transaction that is then rolled back."""
    with django_db_blocker.unblock(), transaction.atomic():
        build_club()
        text = backup.make_backup().text
        transaction.set_rollback(True)
    return text
