"""The upgrade that gives every club its own token of kept pages, on a site of two clubs
whose one token row was written with its id given (pk=1), as sites before it wrote it:
on PostgreSQL that moved no sequence, and the other club's new row must not take id 1."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from club.clubs import known
from club.clubs.models import Club
from club.games.models import ClubVersion

BEFORE = ("games", "0019_club_default")


@pytest.mark.django_db(transaction=True)
def test_two_clubs_each_get_a_token_and_the_next_club_one_more():
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    old = executor.loader.project_state([BEFORE]).apps
    home = old.get_model("clubs", "Club").objects.order_by("pk").first()
    if home is None:
        home = old.get_model("clubs", "Club").objects.create(name="56 Club", slug="club")
    old.get_model("clubs", "Club").objects.create(name="Gulf 56", slug="gulf")
    old.get_model("games", "ClubVersion").objects.all().delete()
    old.get_model("games", "ClubVersion").objects.create(pk=1, generation="before", names=7)
    if connection.vendor == "postgresql":  # as on a site that never made a row otherwise
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence('games_clubversion', 'id'), 1, false)"
            )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    known.forget()
    rows = {row.club.slug: row for row in ClubVersion.objects.select_related("club")}
    assert set(rows) == {"club", "gulf"}
    assert (rows["club"].pk, rows["club"].generation, rows["club"].names) == (1, "before", 7)
    # A club added after the upgrade gets its token from the sequence, past every row.
    third = Club.objects.create(name="Leeds 56", slug="leeds")
    assert ClubVersion.objects.filter(club=third).exists()
