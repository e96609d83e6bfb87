"""Public pages kept under their version are never stale.

Each test reads a page as a visitor does (no session: it is kept), changes the
club the way the app does (a deal recorded, corrected, undone, a game ended, a
deal confirmed from phones, a rename, a merge, an admin edit, a restore), and
reads it again: the page shows the change at once. A cached page also equals a
fresh render of the same version.
"""

from __future__ import annotations

import datetime

import pytest
from django.core.cache import caches
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from club.clubs import known
from club.games import links
from club.games.models import Game, Player
from club.games.services import (
    Deal,
    edit_deal,
    end_game,
    record_deal,
    submit_deal,
    undo_last_deal,
)
from club.leaderboards import merge
from club.leaderboards import services as register
from club.ops import backup
from club.scoring import rules as core
from club.tournaments import services as tournaments
from tests.factories import start_game
from tests.tournaments.helpers import make_tournament, rng

pytestmark = pytest.mark.django_db


def made(game, number, points=(30, 26), team=0):
    """The first player of the team at ``team`` (in seat ``team``) makes 28 hearts."""
    return Deal(
        points={0: points[0], 1: points[1]},
        declarer=team,
        bid=28,
        trump="hearts",
    )


def read(url, **headers):
    return Client().get(url, headers=headers).text


def kept(url):
    """Read twice: the second answer comes from the pages cache (and equals the first)."""
    first, second = Client().get(url), Client().get(url)
    assert first.content == second.content
    assert first["ETag"] == second["ETag"]
    return second.text


def test_a_kept_page_equals_a_fresh_render():
    game = start_game(2)
    record_deal(game=game, number=1, entry=made(game, 1))
    url = game.get_absolute_url()
    cached = kept(url)
    caches["pages"].clear()
    assert read(url) == cached


def test_record_correct_undo_and_end_show_at_once():
    game = start_game(2)
    url = game.get_absolute_url()
    assert "Deal 1 of" not in kept(url) and "Deal 1" in kept(url)
    record_deal(game=game, number=1, entry=made(game, 1))
    page = kept(url)
    assert 'class="declaring"' in page and ">30<" in page
    edit_deal(game=game, number=1, entry=made(game, 1, points=(34, 22)))
    page = kept(url)
    assert ">34<" in page and ">30<" not in page
    undo_last_deal(game=game, number=1)
    assert 'class="declaring"' not in kept(url)
    record_deal(game=game, number=1, entry=made(game, 1))
    end_game(game=game)
    assert "Time was called" in kept(url)


def test_a_deal_confirmed_from_the_phones_shows_at_once():
    game = start_game(2, require_confirmation=True)
    url = game.get_absolute_url()
    kept(url)
    first, second = links.issue_links(game=game)
    submit_deal(game=game, number=1, entry=made(game, 1), link=first)
    kept(url)
    links.confirm_deal(link=second, number=1)
    assert 'class="declaring"' in kept(url)


def test_a_rename_and_a_merge_show_on_the_game_page():
    game = start_game(2)
    url = game.get_absolute_url()
    assert "Anu" in kept(url)
    anu = Player.objects.get(name="Anu")
    register.update_player(player=anu, name="Anupama")
    assert "Anupama" in kept(url)
    spare = register.register_player(name="Anupama K")
    merge.merge_players(keep=spare, fold=Player.objects.get(name="Anupama"))
    page = kept(url)
    assert "Anupama K" in page


def test_the_tournament_page_follows_results_draws_and_an_admin_edit():
    tournament = make_tournament(teams=4, tables_per_team=1)
    url = tournament.get_absolute_url()
    assert "No sitting has been played yet." in kept(url)
    sitting = tournaments.confirm_sitting(
        sitting=tournaments.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    assert "Sitting 1" in kept(url)
    game = sitting.games.first().game
    record_deal(game=game, number=1, entry=made(game, 1, points=(56, 0)))
    assert kept(url).count("badge finished") >= 1
    tournament.refresh_from_db()
    tournament.name = "Monsoon Cup, renamed"
    tournament.save()  # as the admin saves it
    assert "Monsoon Cup, renamed" in kept(url)


@pytest.mark.django_db(transaction=True)  # flush, as on a real server
def test_a_restore_serves_no_page_cached_before_it(tmp_path):
    game = start_game(2, label="Before the restore")
    url = game.get_absolute_url()
    record_deal(game=game, number=1, entry=made(game, 1))
    kept(url)
    before = Client().get(url)["ETag"]
    path = tmp_path / "club.json"
    path.write_text(backup.make_backup().text, encoding="utf-8")
    call_command("flush", interactive=False, verbosity=0)
    call_command("restore_club", str(path), verbosity=0)
    # The same game under the same id and version, but a new club: a new key.
    assert "Before the restore" in kept(url)
    assert Client().get(url)["ETag"] != before


def test_signed_in_readers_and_readers_with_a_message_get_their_own_page(organiser_client):
    game = start_game(2)
    url = game.get_absolute_url()
    kept(url)
    page = organiser_client.get(url)
    assert "Record deal 1" in page.text and "ETag" not in page  # the organiser's form
    visitor = Client()
    visitor.cookies["messages"] = "x"
    assert "ETag" not in visitor.get(url)


def test_each_language_has_its_own_copy():
    game = start_game(2)
    url = game.get_absolute_url()
    english = kept(url)
    client = Client()
    client.cookies["django_language"] = "ml"
    malayalam = client.get(url).text
    assert malayalam != english and 'lang="ml"' in malayalam


def test_a_cached_page_carries_no_form_token():
    game = start_game(2)
    page = kept(game.get_absolute_url())
    assert "csrfmiddlewaretoken" not in page and "X-CSRFToken" not in page
    # The language switch works without one.
    answer = Client().get(reverse("choose_language"), {"language": "es", "next": "/"})
    assert answer.status_code == 302


def test_a_missing_game_is_not_kept():
    assert Client().get("/games/999999/").status_code == 404
    start_game(2)
    assert Client().get("/games/999999/").status_code == 404


def test_app_servers_sharing_redis_never_serve_a_stale_page(settings):
    """The shared backend, for real: the pages cache is Redis at 127.0.0.1:6379, as
    several app servers would share it. What one server kept, another finds there; after
    a write, both read a new key. (Here the key is read from the database, as a test's
    transaction never commits; test_write_counter runs it again with the counter.)"""
    import redis

    server = redis.Redis(host="127.0.0.1", port=6379, db=15, socket_connect_timeout=1)
    try:
        server.ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis at 127.0.0.1:6379")
    prefix = f"club-test-{datetime.datetime.now().timestamp()}"
    if getattr(settings, "PAGES_WRITE_COUNTER", None) is None:
        settings.PAGES_WRITE_COUNTER = False
    settings.CACHES = {
        **settings.CACHES,
        "pages": {
            "BACKEND": "club.web.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:6379/15",
            "KEY_PREFIX": prefix,
        },
    }
    try:
        game = start_game(2)
        url = game.get_absolute_url()
        first = kept(url)
        assert server.keys(f"{prefix}*")  # kept in Redis, for every server
        kept_before = set(server.keys(f"{prefix}*"))
        record_deal(game=game, number=1, entry=made(game, 1))
        second = kept(url)
        assert second != first and 'class="declaring"' in second
        assert set(server.keys(f"{prefix}*")) > kept_before  # the new version's copy
    finally:
        for key in server.keys(f"{prefix}*"):
            server.delete(key)


def test_a_profile_and_the_leaderboard_follow_a_finished_game():
    game = start_game(2, rules=core.Rules(tables_per_team=1), label="The first one")
    anu = Player.objects.get(name="Anu")
    profile, board = anu.get_absolute_url(), reverse("leaderboards:player_board")
    assert "The first one" in kept(profile)
    assert "No finished game matches these filters yet." in kept(board)
    record_deal(game=game, number=1, entry=made(game, 1, points=(56, 0)))  # Anu's team wins
    assert "No finished game matches these filters yet." not in kept(board)
    assert "Anu" in kept(board)
    assert 'class="form-badges"' in kept(profile)  # the form badge of the game just won
    register.update_player(player=anu, name="Anu Varghese")
    assert "Anu Varghese" in kept(board) and "Anu Varghese" in kept(profile)


def _night_of(page: str) -> str:
    """The night in review of a player's page (leaderboards/_night.html)."""
    return page.split('id="night"', 1)[1].split("</section>", 1)[0]


def test_a_profiles_night_is_kept_under_its_date_and_follows_a_new_game():
    first = start_game(2, rules=core.Rules(tables_per_team=1), label="Night one")
    record_deal(game=first, number=1, entry=made(first, 1, points=(56, 0)))
    started = datetime.datetime(2026, 3, 14, 20, 0, tzinfo=datetime.UTC)
    Game.objects.filter(pk=first.pk).update(created_at=started)
    anu = Player.objects.get(name="Anu")
    night = f"{anu.get_absolute_url()}?night=2026-03-14"
    span = f"{anu.get_absolute_url()}?from=2026-03-01&to=2026-03-31"
    other = f"{anu.get_absolute_url()}?night=2026-03-13"
    pages = {url: kept(url) for url in (night, span, other)}
    assert "Night one" in _night_of(pages[night]) and "Night one" in _night_of(pages[span])
    assert "finished no game" in _night_of(pages[other])  # keyed by its date
    caches["pages"].clear()
    for url, page in pages.items():
        assert read(url) == page  # a kept page equals a fresh render
    second = start_game(2, rules=core.Rules(tables_per_team=1), label="Night two")
    record_deal(game=second, number=1, entry=made(second, 1, points=(56, 0)))
    Game.objects.filter(pk=second.pk).update(created_at=started + datetime.timedelta(hours=1))
    assert "Night two" in _night_of(kept(night)) and "Night two" in _night_of(kept(span))
    # The club's time zone decides the night's day: 20:00 UTC is the 15th in Kolkata.
    home = known.home()
    home.time_zone = "Asia/Kolkata"
    home.save()
    assert "finished no game" in _night_of(kept(night))
    assert "Night one" in _night_of(kept(f"{anu.get_absolute_url()}?night=2026-03-15"))


def test_a_kept_page_goes_out_gzipped_once_and_reads_the_same():
    import gzip

    game = start_game(2)
    url = game.get_absolute_url()
    plain = kept(url)
    packed = [Client().get(url, headers={"accept-encoding": "gzip"}) for _ in range(2)]
    assert {answer["Content-Encoding"] for answer in packed} == {"gzip"}
    assert packed[0].content == packed[1].content  # compressed when kept, not per read
    assert gzip.decompress(packed[0].content).decode() == plain
    assert "Accept-Encoding" in packed[0]["Vary"]


# --- What the review of the cache found (each once served stale or poisoned) ------------


def test_a_poll_or_a_false_htmx_header_cannot_poison_the_whole_page():
    tournament = make_tournament(teams=4)
    tournaments.confirm_sitting(
        sitting=tournaments.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    projector = reverse("tournaments:projector", args=[tournament.pk])
    assert "<html" not in Client().get(projector, {"version": "junk"}).text  # a fragment
    assert "<html" in Client().get(projector).text  # and the page stays a page
    game = start_game(2)
    url = game.get_absolute_url()
    assert "<html" in Client().get(url, headers={"hx-request": "false"}).text
    fragment = Client().get(url, headers={"hx-request": "true"}).text
    assert "<html" not in fragment


def test_an_admin_edit_of_a_sittings_table_label_shows_at_once():
    tournament = make_tournament(teams=4)
    sitting = tournaments.confirm_sitting(
        sitting=tournaments.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    url = reverse("tournaments:seats", args=[tournament.pk])
    assert "Table 1" in kept(url)
    table = sitting.games.get(position=0)
    table.table_label = "The window table"
    table.save()  # as the admin's inline saves it
    assert "The window table" in kept(url)


def test_a_profile_lists_a_running_tournament_its_team_was_registered_in():
    first = make_tournament(name="Spring Cup", teams=2)
    tournaments.confirm_sitting(
        sitting=tournaments.propose_sitting(tournament=first, rng=rng()), rng=rng()
    )
    anu = Player.objects.get(name="Anu")
    profile = anu.get_absolute_url()
    assert "Playing in Spring Cup" in kept(profile)
    second = tournaments.create_tournament(
        name="Autumn Cup", starts_on=datetime.date(2026, 10, 1), rules=core.Rules()
    )
    tournaments.register_team(tournament=second, first="Anu", second="Biju")
    tournaments.register_team(tournament=second, first="Chitra", second="Dev")
    tournaments.confirm_sitting(
        sitting=tournaments.propose_sitting(tournament=second, rng=rng()), rng=rng()
    )
    assert "Playing in Autumn Cup" in kept(profile)


def test_an_organisers_rename_shows_in_a_games_history(django_user_model):
    olive = django_user_model.objects.create_user(username="olive", password="x", is_staff=True)
    game = start_game(2)
    record_deal(game=game, number=1, entry=made(game, 1), user=olive)
    url = game.get_absolute_url()
    assert "olive" in kept(url)
    olive.username = "olive-the-director"
    olive.save()
    assert "olive-the-director" in kept(url)


def test_the_home_page_follows_every_game_started_played_ended_renamed_or_deleted():
    assert "Home night" not in kept("/")
    game = start_game(2, label="Home night")
    assert "Home night" in kept("/")
    record_deal(game=game, number=1, entry=made(game, 1))
    first = kept("/")
    end_game(game=game)
    ended = kept("/")
    assert ended != first and "Home night" in ended
    team = game.teams.first().team
    team.name = "The Bold Ones"
    team.save()  # as the admin saves it
    assert "The Bold Ones" in kept("/")
    game.delete()  # as the admin deletes it
    assert "Home night" not in kept("/")


def test_a_deploy_that_changes_a_template_or_the_code_is_a_new_release(tmp_path, monkeypatch):
    """The shared cache's keys hold the release: a deploy of new templates, code or
    translations (with the static files unchanged) never serves a page the last one kept."""
    from club import settings as club_settings

    monkeypatch.delenv("DJANGO_RELEASE", raising=False)
    (tmp_path / "club" / "templates").mkdir(parents=True)
    page = tmp_path / "club" / "templates" / "page.html"
    page.write_text("<p>before</p>")
    (tmp_path / "club" / "views.py").write_text("x = 1\n")
    monkeypatch.setattr(club_settings, "BASE_DIR", tmp_path)
    first = club_settings.release()
    assert club_settings.release() == first  # the same files, the same release
    page.write_text("<p>after</p>")
    second = club_settings.release()
    (tmp_path / "club" / "views.py").write_text("x = 2\n")
    assert len({first, second, club_settings.release()}) == 3
    monkeypatch.setenv("DJANGO_RELEASE", "v56")
    assert club_settings.release() == "v56"
