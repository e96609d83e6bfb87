"""The labels the app makes are read in the reader's language.

A sitting's game is stored as "Thursday League, January 2026 · sitting 2 · Table 3" and
its table as "Table 3", in English (the archive carries them so); every page shows them
in its reader's language. Checked on the demo club's pages in Malayalam: the games, the
tournaments and their sittings, seats, sheets and players' pages, the profiles and
boards, for a visitor and for the organiser.
"""

from __future__ import annotations

import io
import random
import re

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation

from club.games import words
from club.games.models import Game, Player
from club.tournaments import services
from club.tournaments.models import Sitting, Tournament
from tests.tournaments.helpers import make_tournament

pytestmark = pytest.mark.django_db

# English words of the labels the app makes: "· sitting 2 ·", "Table 3".
ENGLISH = re.compile(r"· sitting \d|\bTable \d")


def _pages() -> list[str]:
    pages = [reverse("games:list"), reverse("tournaments:list"), reverse("leaderboards:boards")]
    pages += [reverse("leaderboards:team_board")]
    for game in Game.objects.all():
        pages.append(game.get_absolute_url())
    for tournament in Tournament.objects.all():
        pk = tournament.pk
        pages += [
            tournament.get_absolute_url(),
            reverse("tournaments:seats", args=[pk]),
            reverse("tournaments:projector", args=[pk]),
            reverse("tournaments:board", args=[pk]),
        ]
        for sitting in Sitting.objects.filter(tournament=tournament):
            pages.append(reverse("tournaments:sitting", args=[pk, sitting.number]))
            pages.append(reverse("tournaments:sitting_sheets", args=[pk, sitting.number]))
    for player in Player.objects.all()[:6]:
        pages.append(player.get_absolute_url())
    return pages


@pytest.fixture
def back_in_english():
    """The pages read below leave their language active in this thread: put it back."""
    with translation.override("en"):
        yield


def test_every_page_of_the_demo_club_reads_its_labels_in_malayalam(
    admin_client, client, back_in_english
):
    call_command("load_demo", stdout=io.StringIO())
    made = Game.objects.filter(label__contains=" · sitting ").count()
    assert made >= 12  # the demo's tournaments' games carry the labels the app makes
    pages = _pages()
    for reader in (client, admin_client):
        reader.cookies["django_language"] = "ml"
        shown = 0
        for path in pages:
            response = reader.get(path)
            if response.status_code in (302, 403):
                continue  # an organiser's page, for the visitor
            assert response.status_code == 200, path
            page = response.text
            assert not ENGLISH.search(page), (path, ENGLISH.search(page)[0])
            shown += "റൗണ്ട്" in page or "മേശ" in page
        assert shown >= 20


def test_a_label_the_app_did_not_make_is_shown_as_it_is():
    with translation.override("ml"):
        assert words.game_title("Friday night, table 1") == "Friday night, table 1"
        assert words.table_title("Window table") == "Window table"
        assert words.game_title("Cup · sitting 2 · Table 3") == "Cup · റൗണ്ട് 2 · മേശ 3"
        assert words.game_title("Cup · sitting 2 · Window") == "Cup · റൗണ്ട് 2 · Window"
    with translation.override("en"):
        assert words.game_title("Cup · sitting 2 · Table 3") == "Cup · sitting 2 · Table 3"


def test_a_sittings_games_are_stored_with_the_labels_in_english_whoever_draws():
    tournament = make_tournament(teams=4, tables_per_team=1)
    with translation.override("ml"):
        sitting = services.propose_sitting(tournament=tournament, rng=random.Random(1))
        services.confirm_sitting(sitting=sitting, rng=random.Random(1))
    labels = sorted(Game.objects.values_list("label", flat=True))
    assert labels == [f"{tournament.name} · sitting 1 · Table {n}" for n in (1, 2)]
    with translation.override("ml"):
        assert Game.objects.order_by("label").first().title == (
            f"{tournament.name} · റൗണ്ട് 1 · മേശ 1"
        )
