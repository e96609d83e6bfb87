"""The boards' work a page's answer leaves for after it is sent (club.leaderboards.owed).

A change made through a page records the game as owed in its own transaction
and answers; the worker then brings the figures and ratings up to date
(club.web.after). Whoever reads the boards first does the owed work: the worker
after its answer, or a reader in another worker who comes before it. These tests
make every kind of change with the work left owed, read the club as a visitor
does, and compare what is stored with a recomputation from scratch; and they
check the answer itself, a failure after it, and a kept page in between.
"""

from __future__ import annotations

import logging
import random
from contextlib import contextmanager, nullcontext

import pytest
from django.core.cache import caches
from django.test import Client
from django.urls import reverse

from club.games.models import Game, Player
from club.games.services import (
    Deal,
    TeamEntry,
    create_game,
    edit_deal,
    end_game,
    undo_last_deal,
)
from club.leaderboards import figures
from club.leaderboards.merge import merge_players
from club.leaderboards.models import OwedGame, PlayerRating, PlayerTotals
from club.leaderboards.services.owed_work import catch_up
from club.scoring import rules as core
from club.web import after
from tests.factories import deal, deal_form, pid, seat

from .test_maintained import _win, assert_in_step

BOARD = reverse("leaderboards:player_board")


@contextmanager
def answer_not_yet_sent():
    """As inside a request whose answer has not gone out: the boards' work is left owed."""
    token = after._queue.set([])
    try:
        yield
    finally:
        after._queue.reset(token)


def owed() -> set[int]:
    return set(OwedGame.objects.values_list("game_id", flat=True))


def visitor_reads_the_boards() -> None:
    """A visitor's read of a board, as another worker would serve it before the answer's end."""
    assert Client().get(BOARD).status_code == 200


def test_every_kind_of_change_left_owed_is_done_before_any_reader_sees_the_boards(club):
    with answer_not_yet_sent():
        _win(club["D"], 2, 0, "Biju")  # game D finishes
    assert owed() == {club["D"].pk}
    assert PlayerTotals.objects.get(player__name="Biju").played == 3  # A, B and C: not yet D
    visitor_reads_the_boards()
    assert owed() == set()
    assert PlayerTotals.objects.get(player__name="Biju").played == 4
    assert_in_step()

    # Two changes to finished games before anyone reads: each game owed once.
    with answer_not_yet_sent():
        edit_deal(
            game=club["B"],
            number=2,
            entry=deal(club["B"], {0: 26, 1: 30}, "Chitra", 29, "clubs", "redouble"),
        )
        undo_last_deal(game=club["A"], number=2)
        edit_deal(
            game=club["B"],
            number=2,
            entry=deal(club["B"], {0: 25, 1: 31}, "Chitra", 29, "clubs", "redouble"),
        )
    assert owed() == {club["A"].pk, club["B"].pk}
    visitor_reads_the_boards()
    assert owed() == set()
    assert_in_step()

    # A game that finishes and is undone before the work is done counts for nothing.
    with answer_not_yet_sent():
        end_game(game=club["A"])
        undo_last_deal(game=club["A"], number=1)
    assert not Game.objects.get(pk=club["A"].pk).is_finished
    visitor_reads_the_boards()
    assert_in_step()

    # A merge, and a game deleted while its work is owed.
    game = create_game(
        label="Game F", teams=[TeamEntry("Anu Menon", "Gita"), TeamEntry("Hari", "Indu")]
    )
    with answer_not_yet_sent():
        for number in range(1, 20):
            if Game.objects.get(pk=game.pk).is_finished:
                break
            _win(game, number, 0, "Gita")
    assert owed() == {game.pk}
    merge_players(keep=Player.objects.get(name="Anu"), fold=Player.objects.get(name="Anu Menon"))
    assert owed() == set()  # the merge did the owed work first
    assert_in_step()
    with answer_not_yet_sent():
        edit_deal(
            game=club["C"],
            number=1,
            entry=Deal(
                points={0: 0, 1: 3, 2: 53},
                declarer=seat(club["C"], "Esha"),
                bid=48,
                trump="no-trumps",
            ),
        )
    assert owed() == {club["C"].pk}
    Game.objects.get(pk=club["C"].pk).delete()
    assert owed() == set()  # went with its game
    visitor_reads_the_boards()
    assert_in_step()


def test_the_deal_that_ends_a_game_is_answered_before_the_boards_move(club, organiser_client):
    game = club["D"]
    seen = {}
    run = after._run

    def watched(queue):
        seen["owed while answering"] = owed()
        seen["rating before"] = PlayerRating.objects.get(player__name="Anu").rating
        run(queue)

    data = deal_form(2, declarer=pid("Biju"), bid=56, trump="spades", p0=56, p1=0)
    try:
        after._run = watched
        response = organiser_client.post(f"/games/{game.pk}/deals/", data)
    finally:
        after._run = run
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Game.objects.get(pk=game.pk).is_finished
    # The answer was made with the work still owed; the worker did it after.
    assert seen["owed while answering"] == {game.pk}
    assert owed() == set()
    assert PlayerRating.objects.get(player__name="Anu").rating != seen["rating before"]
    assert_in_step()


def test_work_that_fails_after_the_answer_is_logged_and_done_by_the_next_reader(
    club, monkeypatch, caplog
):
    real = figures.refresh_games

    def broken(*args, **kwargs):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(figures, "refresh_games", broken)
    with answer_not_yet_sent():
        _win(club["D"], 2, 0, "Biju")
    with caplog.at_level(logging.ERROR, logger="club.web.after"):
        after._run([catch_up])
    assert "Work left until after the answer failed" in caplog.text
    assert owed() == {club["D"].pk}  # rolled back with the failure: still owed
    monkeypatch.setattr(figures, "refresh_games", real)
    visitor_reads_the_boards()
    assert owed() == set()
    assert_in_step()


def test_a_kept_board_read_while_the_work_is_owed_shows_the_game(club):
    caches["pages"].clear()
    before = Client().get(BOARD).content
    assert Client().get(BOARD).content == before  # kept
    with answer_not_yet_sent():
        _win(club["D"], 2, 0, "Biju")
    page = Client().get(BOARD)
    assert page.content != before
    assert owed() == set()
    caches["pages"].clear()
    assert Client().get(BOARD).content == page.content  # equals a fresh render


def test_the_register_and_a_profile_do_the_owed_work_first(club):
    with answer_not_yet_sent():
        _win(club["D"], 2, 0, "Biju")
    assert Client().get(reverse("leaderboards:players")).status_code == 200
    assert owed() == set()
    with answer_not_yet_sent():
        undo_last_deal(game=club["D"], number=2)
    anu = Player.objects.get(name="Anu")
    assert Client().get(anu.get_absolute_url()).status_code == 200
    assert owed() == set()
    assert_in_step()


def test_outside_a_request_the_work_is_done_at_once(club):
    _win(club["D"], 2, 0, "Biju")
    assert owed() == set()
    assert_in_step()


@pytest.mark.parametrize("work", ["once", "twice"])
def test_later_runs_each_piece_of_work_once_and_at_once_without_a_request(work):
    done = []
    after.later(lambda: done.append("now"))  # no request: at once
    assert done == ["now"]
    with answer_not_yet_sent():
        step = done.append
        job = lambda: step("later")  # noqa: E731
        after.later(job)
        if work == "twice":
            after.later(job)
        assert done == ["now"]
        queue = after._queue.get()
    after._run(queue)
    assert done == ["now", "later"]


TEAMS = [TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev"), TeamEntry("Esha", "Farid")]


@pytest.mark.parametrize("seed", range(4))
def test_random_nights_with_work_left_owed_end_as_if_done_at_once(club, seed):
    """Games finished, undone, ended, played again and deleted in a random order, some
    changes answered before their work (in runs of one to three), some not, read between:
    whatever was owed, the boards equal a recomputation from scratch."""
    rng = random.Random(seed)
    games = [club[name] for name in "ABCD"]
    for _step in range(14):
        with answer_not_yet_sent() if rng.random() < 0.7 else nullcontext():
            for _change in range(rng.randint(1, 3)):
                game = rng.choice(games)
                game = Game.objects.filter(pk=game.pk).first()
                if game is None or rng.random() < 0.25:
                    first, second = rng.sample(TEAMS, 2)
                    game = create_game(
                        label=f"Night {seed}.{len(games)}",
                        teams=[first, second],
                        rules=core.Rules(tables_per_team=1),
                    )
                    games.append(game)
                    winner = rng.randint(0, 1)
                    _win(game, 1, winner, (first, second)[winner].first)
                elif game.is_finished and rng.random() < 0.8:
                    undo_last_deal(game=game, number=game.deals_played)
                elif not game.is_finished and game.deals_played and rng.random() < 0.5:
                    end_game(game=game)
                elif rng.random() < 0.3:
                    game.delete()
        if rng.random() < 0.5:
            visitor_reads_the_boards()
            assert owed() == set()
            assert_in_step()
    visitor_reads_the_boards()
    assert_in_step()


def test_a_club_that_turns_it_off_has_the_work_done_in_the_request(
    club, organiser_client, settings
):
    settings.CLUB_WORK_AFTER_ANSWER = False
    seen = []
    run = after._run
    try:
        after._run = lambda queue: (seen.append(queue), run(queue))
        data = deal_form(2, declarer=pid("Biju"), bid=56, trump="spades", p0=56, p1=0)
        response = organiser_client.post(f"/games/{club['D'].pk}/deals/", data)
    finally:
        after._run = run
    assert response.status_code == 302
    assert seen == [] and owed() == set()
    assert_in_step()
