"""Restoring backups of one club onto a new site: a club moving to a server of its own.

Its own module: the test empties the database, which a module holding a world in an open
transaction (tests/ops/test_club_restore.py) must not meet.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from club.clubs import known
from club.clubs.models import Club
from club.games.models import Game, Membership, Player
from club.games.services import TeamEntry, create_game
from club.leaderboards.models import PlayerRating, RatingChange
from club.ops.restore import club_is_empty
from tests.ops.backup_helpers import (
    User,
    _restore,
    add_second_club,
    build_club,
    club_backup,
    clubs_held,
    same_backup,
    written,
)


# Without a test transaction around it, as on a real server: the backups are taken, the
# database emptied (a new server), and each club's restore commits on its own.
@pytest.mark.django_db(transaction=True)
def test_two_clubs_backups_restored_one_after_the_other_make_the_site_again(tmp_path):
    olive = build_club()
    known.home().organisers.add(olive)
    gulf = add_second_club()
    held = clubs_held()
    files = {slug: written(tmp_path, club_backup(slug), f"{slug}.json") for slug in held_slugs()}
    last_game = Game.objects.order_by("pk").last().pk

    call_command("flush", interactive=False, verbosity=0)
    assert club_is_empty()
    message = _restore(files["gulf"])
    assert "Restored the backup of the club Gulf 56 (/clubs/gulf/)" in message
    assert "into this new site" in message
    # The club alone, under its ids: a backup of it now is the file again.
    assert list(Club.objects.values_list("slug", flat=True)) == ["gulf"]
    assert same_backup(club_backup("gulf"), files["gulf"].read_text(encoding="utf-8"))
    # Its organiser logs in with the password of the old site; the ratings are computed
    # from the games the site now holds.
    assert User.objects.get(username="rashid").check_password("rashid-organiser-pw")
    assert RatingChange.objects.filter(game__club=gulf.pk).exists()
    assert PlayerRating.objects.exists()

    message = _restore(files["club"])
    assert "beside this site's clubs" in message
    # The players both clubs know were matched by their identifiers: one Zara.
    assert Player.objects.filter(name="Zara").count() == 1
    assert Membership.objects.filter(player__name="Zara").count() == 2
    assert clubs_held() == held  # both clubs, organisers, members, games, tournaments
    assert same_backup(club_backup("club"), files["club"].read_text(encoding="utf-8"))
    # The site administrator comes back as the club's organiser, without the site's
    # rights or a password: the new site's administrator gives them.
    olive = User.objects.get(username="olive")
    assert not olive.is_staff and not olive.has_usable_password()
    # The ids go on from where they were, on PostgreSQL too.
    game = create_game(label="After", teams=[TeamEntry("New", "Comer"), TeamEntry("Zara", "Yusuf")])
    assert game.pk == last_game + 1


def held_slugs() -> list[str]:
    return list(Club.objects.order_by("pk").values_list("slug", flat=True))
