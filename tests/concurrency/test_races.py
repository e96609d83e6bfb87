"""Two writes to one game at the same moment, in every pairing, over real HTTP: no 5xx.

Both requests are held at a barrier just before the game row is locked
(``club.games.services.recording.lock``, as ``club.games.services.deals`` calls
it), so each has read the game as it was before either writes: the slower one
always works from a game that has moved on (deal 2 recorded, the game over, deal
1 corrected or undone, time called). Its answer must be built from the game as
it is now, never a server error, and the stored game must stay what the rules
give (tables conserved, the ledger equal to a replay).

The game: two teams with two tables each; deal 1 (made, 1 table) is recorded,
so the deal 2 below (made again) ends the game.
"""

from __future__ import annotations

import threading
import uuid
from contextlib import contextmanager
from unittest import mock

import pytest

from club.games.links import issue_links
from club.games.models import GameTeam, LedgerEntry
from club.games.services import Deal, load_seating, record_deal, replay_game
from club.games.services import deals as deal_services
from club.scoring.rules import Rules
from tests.concurrency.conftest import Scorer, at_once
from tests.factories import deal_form, start_game

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def both_read_before_either_locks(parties: int = 2):
    """Hold each write just before it locks the game, until all have come that far."""
    barrier = threading.Barrier(parties, timeout=3)
    real = deal_services.lock

    def wait_then_lock(game):
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            pass  # the other request was refused before it needed the lock
        return real(game)

    with mock.patch.object(deal_services, "lock", wait_then_lock):
        yield


def deal(number: int, declarer, *, ours=20, theirs=36) -> dict:
    return deal_form(number, declarer.pk, 30, "hearts", key=str(uuid.uuid4()), p0=ours, p1=theirs)


@pytest.fixture
def table(live_server, django_user_model):
    from tests.concurrency.conftest import PASSWORD, skip_without_real_locks

    skip_without_real_locks()
    game = start_game(2, rules=Rules(tables_per_team=2))
    chitra = load_seating(game).players[1]
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 20, 1: 36}, declarer=1, bid=30, trump="hearts"),  # Chitra's seat
    )
    [link] = issue_links(game=game)
    django_user_model.objects.create_user(username="olive", password=PASSWORD, is_staff=True)
    organiser = Scorer(live_server.url, "olive").log_in()
    phones = [Scorer(live_server.url, f"phone {n}") for n in (1, 2)]
    return {"game": game, "chitra": chitra, "link": link, "organiser": organiser, "phones": phones}


def actions(table) -> dict:
    game, chitra, token = table["game"], table["chitra"], table["link"].token
    organiser = table["organiser"]
    game_path = f"/games/{game.pk}/"
    scorer_path = f"/s/{token}/"

    def phone(index: int, htmx: bool):
        scorer = table["phones"][index]
        csrf = scorer.token(scorer_path)
        headers = {"HX-Request": "true"} if htmx else {}
        return lambda: scorer.post(
            f"{scorer_path}deals/", deal(2, chitra), token=csrf, headers=headers
        )

    def by_organiser(path: str, data: dict):
        csrf = organiser.token(game_path)
        return lambda: organiser.post(path, data, token=csrf)

    key = {"idempotency_key": str(uuid.uuid4())}
    return {
        "phone 1 sends deal 2": phone(0, htmx=False),
        "phone 2 sends deal 2 by htmx": phone(1, htmx=True),
        "organiser records deal 2": by_organiser(f"{game_path}deals/", deal(2, chitra)),
        "organiser corrects deal 1": by_organiser(
            f"{game_path}deals/1/edit/", deal(1, chitra, ours=40, theirs=16)
        ),
        "organiser undoes deal 1": by_organiser(f"{game_path}deals/undo/", {"number": 1, **key}),
        "organiser calls time": by_organiser(f"{game_path}end/", dict(key)),
    }


PAIRS = [
    ("phone 1 sends deal 2", "phone 2 sends deal 2 by htmx"),
    ("phone 1 sends deal 2", "organiser records deal 2"),
    ("phone 2 sends deal 2 by htmx", "organiser corrects deal 1"),
    ("phone 1 sends deal 2", "organiser corrects deal 1"),
    ("phone 1 sends deal 2", "organiser undoes deal 1"),
    ("phone 2 sends deal 2 by htmx", "organiser undoes deal 1"),
    ("phone 1 sends deal 2", "organiser calls time"),
    ("phone 2 sends deal 2 by htmx", "organiser calls time"),
    ("organiser records deal 2", "organiser calls time"),
]


def still_by_the_rules(game) -> None:
    game.refresh_from_db()
    _, settlements, state = replay_game(game)
    teams = list(GameTeam.objects.filter(game=game).order_by("position"))
    assert sum(team.tables for team in teams) == 4  # tables are conserved
    assert [team.tables for team in teams] == state.tables
    stored = list(
        LedgerEntry.objects.filter(round__game=game)
        .order_by("round__number", "game_team__position")
        .values_list("change", flat=True)
    )
    assert stored == [s.transfers[team] for s in settlements for team in sorted(s.transfers)]


@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_two_writes_at_once_never_answer_a_server_error(table, first, second):
    moves = actions(table)
    with both_read_before_either_locks():
        answers = at_once(moves[first], moves[second])
    for name, answer in zip((first, second), answers, strict=True):
        assert not isinstance(answer, Exception), (name, answer)
        assert answer.status < 500, (name, answer.status, answer.body[:500])
        assert "Server Error" not in answer.body
    still_by_the_rules(table["game"])


def test_the_slower_phone_sending_the_final_deal_sees_the_result(table):
    """The race at a game's end: both phones send the deal that ends the game; the slower one
    used to get a 500 ("56 is played by 4, 6 or 8 players, not 2")."""
    moves = actions(table)
    with both_read_before_either_locks():
        answers = at_once(moves["phone 1 sends deal 2"], moves["phone 2 sends deal 2 by htmx"])
    assert sorted(answer.status for answer in answers) == [200, 200]
    bodies = " ".join(answer.body for answer in answers)
    assert "Deal 2 is already recorded" in bodies  # the slower one is told, not a 500
    game = table["game"]
    game.refresh_from_db()
    assert game.is_finished and game.deals_played == 2
    still_by_the_rules(game)


def test_calling_time_never_deadlocks_with_a_scorer_recording(live_server, django_user_model):
    """Calling time ends the games in one transaction under a one-time key, and locks
    every one of them before it ends the first. Ending them one by one in one
    transaction held the tournament's row from the first game on, while a scorer in
    the second game held that game and waited for the tournament: PostgreSQL found a
    deadlock and the scorer was told "connection lost". Here the scorer reaches for
    the second game's lock just after the organiser ended the first."""
    import datetime
    import inspect
    import time

    from club.games.models import Game
    from club.tournaments import services as tournaments
    from tests.concurrency.conftest import PASSWORD, skip_without_real_locks

    skip_without_real_locks()
    tournament = tournaments.create_tournament(name="Cup", starts_on=datetime.date(2026, 1, 1))
    for first, second in (("A1", "A2"), ("B1", "B2"), ("C1", "C2"), ("D1", "D2")):
        tournaments.register_team(tournament=tournament, first=first, second=second)
    sitting = tournaments.propose_sitting(tournament=tournament, game_size=2)
    tournaments.confirm_sitting(sitting=sitting)
    games = list(Game.objects.filter(sitting_entry__sitting=sitting))  # call_time's order
    second = games[1]  # the game the organiser ends second
    declarer = load_seating(second).players[1]
    for name in ("olive", "sam"):
        django_user_model.objects.create_user(username=name, password=PASSWORD, is_staff=True)
    olive = Scorer(live_server.url, "olive").log_in()
    sam = Scorer(live_server.url, "sam").log_in()
    sitting_path = f"/tournaments/{tournament.pk}/sittings/{sitting.number}/"
    game_path = f"/games/{second.pk}/"
    olive_csrf, sam_csrf = olive.token(sitting_path), sam.token(game_path)

    organiser_at_second, scorer_has_second = threading.Event(), threading.Event()
    real = deal_services.lock

    def lock(game):
        by_organiser = any(frame.function == "end_game" for frame in inspect.stack())
        if game.pk == second.pk and by_organiser:
            organiser_at_second.set()  # the first game is ended
            scorer_has_second.wait(5)
            time.sleep(0.5)
        elif game.pk == second.pk:
            organiser_at_second.wait(5)
            locked = real(game)
            scorer_has_second.set()
            return locked
        return real(game)

    with mock.patch.object(deal_services, "lock", lock):
        answers = at_once(
            lambda: olive.post(
                sitting_path + "time/",
                {
                    "idempotency_key": str(uuid.uuid4()),
                    # The tables with no deal, agreed to end level (the page's confirmation).
                    "level": [str(game.pk) for game in games],
                },
                token=olive_csrf,
            ),
            lambda: sam.post(game_path + "deals/", deal(1, declarer), token=sam_csrf),
        )
    organiser, scorer = answers
    assert organiser.status == 302, organiser.body[:300]
    # The scorer waited for the organiser, who held the game: its deal came after time was
    # called, and is refused in the club's words, on the game's page, which shows it over.
    assert scorer.status == 302 and scorer.location == game_path, scorer.body[:300]
    assert "The game is over" in sam.get(game_path).body
    assert all(game.rounds.count() <= 1 for game in games)
    assert not Game.objects.filter(sitting_entry__sitting=sitting, status="in_progress").exists()
