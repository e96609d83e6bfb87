"""Query counts of the game and tournament pages, and of recording and correcting a deal.

Each limit is the count the benchmark harness measures (``python -m benchmarks``:
the first run of each scenario counts its queries), through the whole stack:
session and user for the organiser, middleware, view, template. Each is pinned
for a short game and a long one, or a small tournament and a bigger one: the
pages and writes read a fixed number of queries however much there is to show.
"""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from club.games.models import Game
from club.games.services import Deal, end_game, load_seating, record_deal
from club.leaderboards.models import PlayerTotals
from club.tournaments import services as tournaments
from club.tournaments.selectors import live_version
from club.web import after
from tests.factories import start_game
from tests.tournaments.helpers import make_tournament, play_sitting, rng

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}

# A public read of the game page or of its live fragment, rendered: its key
# (club.web.pages: the game's version and the club's), then the game, its
# seating (teams with their players), its deals, their ledger with each pile
# beside it, and the latest changes.
GAME_PAGE = 7
# The same page again, kept under its key: the key's two queries only.
GAME_PAGE_KEPT = 2
# A live poll that already shows the newest version: the game's version only.
GAME_POLL_UNCHANGED = 1
# The tournament page, rendered: its key (the tournament's results version, its
# live games' newest change and its newest line of history in one query; the
# club's version), then the tournament, its confirmed sittings, every team of
# their games, the byes, the standings, the live version and its stages.
TOURNAMENT_PAGE = 9
TOURNAMENT_LIVE = 8
TOURNAMENT_KEPT = 2
# A live poll that already shows the newest version: the key's first query only.
TOURNAMENT_POLL_UNCHANGED = 1
# Recording a deal through the organiser's form (htmx): session and user, the
# game and its seating for the form; then the locked game (the seating the form
# was read against serves again, no write having come between), the round,
# piles, ledger, tables, game and history writes and the tournament's version;
# then the page's deals, their ledger with the piles, and history (the game and
# seating come from the write). The deal's writes join the transaction of the
# one-time key the form carries (club.games.idempotency), which adds its
# savepoint and release, keeping the key and keeping the answer with it: 19.
RECORD_DEAL = 19
# Correcting deal 1 (and replaying the rest): session and user, the game, the
# deal, the seating; then the locked game, its seating, deals and piles, the
# deal's update, its piles replaced, the ledger replaced, tables, game, history
# and the tournament's version, with begin and commit: 20; and the one-time
# key's four, as above: 24.
CORRECT_DEAL = 24
# Recording the deal that ends a tournament's game, until its answer: the deal's
# writes as above (a game over needs no write to end its scorer links: they read
# its status); then the standings (the tournament locked, its register with byes
# and standings, its games' teams, the standings that moved, its version) and
# the game marked as owing the boards their work (one insert); the page's reads
# and the one-time key's answer: 24.
ENDING_DEAL = 24
# Then, once the answer is sent (club.web.after, club.leaderboards.owed): whether
# any game is owed, the ratings' state locked, the games owed, the games, which
# of them are counted already; the game's figures (its seats, its deals, the players' and
# teams' rows, their totals added in four upserts: the site's and the club's) and its
# ratings (the state locked again with the last position and this game's, the games
# finished since, its seats, its players' ratings and their ratings in the game's form
# of play, the changes, the ratings, the form's ratings, the state, the teams' ratings:
# their totals, their players, the moved ones); the owed row deleted, with the begin and
# commit: 28. However many games and teams the tournament has.
AFTER_ENDING_DEAL = 28


def alternating(number: int, variant: int = 0) -> Deal:
    """The harness's deal: the first players of T0 and T1 (seats 0 and 1) take turns making 28."""
    declaring = (number - 1) % 2
    points = {declaring: 30 + variant, 1 - declaring: 26 - variant}
    return Deal(points=points, declarer=declaring, bid=28, trump="spades")


def game_of(deals: int, **kwargs) -> Game:
    game = start_game(2, **kwargs)
    for number in range(1, deals + 1):
        record_deal(game=game, number=number, entry=alternating(number))
    game.refresh_from_db()
    return game


def form_data(entry: Deal, number: int, seating) -> dict:
    """The deal form's post of ``entry``: the form names the declarer by player id."""
    return {
        "idempotency_key": str(uuid.uuid4()),  # as every deal form carries one
        "number": number,
        "declarer": seating.player_id(entry.declarer),
        "bid": entry.bid,
        "trump": entry.trump,
        "doubling": entry.doubling,
        **{f"points_{team}": points for team, points in entry.points.items()},
    }


def counted(call):
    with CaptureQueriesContext(connection) as queries:
        response = call()
    return len(queries), response


@pytest.fixture
def short_and_long_games():
    """A game of 3 deals still being played, and one of 60 deals whose time was called."""
    short = game_of(3)
    long = game_of(60)
    end_game(game=long)
    long.refresh_from_db()
    assert long.is_finished and long.deals_played == 60
    return short, long


class TestGamePage:
    def test_the_page(self, client, django_assert_max_num_queries, short_and_long_games):
        counts = []
        for game in short_and_long_games:
            with django_assert_max_num_queries(GAME_PAGE):
                count, response = counted(lambda game=game: client.get(game.get_absolute_url()))
            assert response.status_code == 200
            assert response.text.count('<td class="declaring">') == game.deals_played
            counts.append(count)
        assert counts == [GAME_PAGE, GAME_PAGE]

    def test_the_live_poll(self, client, django_assert_max_num_queries, short_and_long_games):
        changed, unchanged = [], []
        for game in short_and_long_games:
            url = game.get_absolute_url()
            with django_assert_max_num_queries(GAME_PAGE):
                count, response = counted(
                    lambda url=url: client.get(url, {"version": "0.0"}, **HTMX)
                )
            assert response.status_code == 200 and 'id="live"' in response.text
            assert "<html" not in response.text  # only the fragment
            changed.append(count)
            version = response.text.split('data-live-version="')[1].split('"')[0]
            with django_assert_max_num_queries(GAME_POLL_UNCHANGED):
                count, response = counted(
                    lambda url=url, version=version: client.get(url, {"version": version}, **HTMX)
                )
            assert response.status_code == 204
            unchanged.append(count)
        assert changed == [GAME_PAGE, GAME_PAGE]
        assert unchanged == [GAME_POLL_UNCHANGED, GAME_POLL_UNCHANGED]


class TestDealWrites:
    def test_recording_a_deal(self, organiser_client, django_assert_max_num_queries):
        counts = []
        for deals in (3, 60):
            game = game_of(deals)
            number = deals + 1
            entry = alternating(number)
            seating = load_seating(game)
            with django_assert_max_num_queries(RECORD_DEAL):
                count, response = counted(
                    lambda game=game, entry=entry, number=number, seating=seating: (
                        organiser_client.post(
                            reverse("games:record", args=[game.pk]),
                            form_data(entry, number, seating),
                            **HTMX,
                        )
                    )
                )
            assert response.status_code == 200 and "errorlist" not in response.text
            game.refresh_from_db()
            assert game.deals_played == number
            assert f"Record deal {number + 1}" in response.text  # the form for the next deal
            counts.append(count)
        assert counts == [RECORD_DEAL, RECORD_DEAL]

    def test_correcting_deal_1(self, organiser_client, django_assert_max_num_queries):
        counts = []
        for deals in (5, 60):
            game = game_of(deals)
            entry = alternating(1, variant=1)  # 31/25: still made
            seating = load_seating(game)
            with django_assert_max_num_queries(CORRECT_DEAL):
                count, response = counted(
                    lambda game=game, entry=entry, seating=seating: organiser_client.post(
                        reverse("games:edit", args=[game.pk, 1]), form_data(entry, 1, seating)
                    )
                )
            assert response.status_code == 302
            assert game.rounds.get(number=1).piles.get(game_team__position=0).points == 31
            counts.append(count)
        assert counts == [CORRECT_DEAL, CORRECT_DEAL]

    def test_deals_of_a_tournament_game_cost_the_same(
        self, organiser_client, django_assert_max_num_queries
    ):
        # The tournament's version is bumped in the same single query as for a
        # game of no tournament (where it matches nothing).
        tournament = make_tournament(teams=2, tables_per_team=12)  # no deal ends the game
        sitting = tournaments.propose_sitting(tournament=tournament, rng=rng())
        tournaments.confirm_sitting(sitting=sitting, rng=rng())
        game = sitting.games.get().game
        seating = load_seating(game)
        tournament.refresh_from_db()
        before = tournament.results_version
        for number in (1, 2):
            entry = alternating(number)
            with django_assert_max_num_queries(RECORD_DEAL):
                count, response = counted(
                    lambda number=number, entry=entry: organiser_client.post(
                        reverse("games:record", args=[game.pk]),
                        form_data(entry, number, seating),
                        **HTMX,
                    )
                )
            assert response.status_code == 200 and "errorlist" not in response.text
            assert count == RECORD_DEAL
        tournament.refresh_from_db()
        assert tournament.results_version == before + 2


class TestTheDealThatEndsAGame:
    def test_costs_the_same_in_a_small_and_a_bigger_tournament(
        self,
        organiser_client,
        django_assert_max_num_queries,
        small_and_bigger_tournaments,
        monkeypatch,
    ):
        counts = []
        run = after._run
        answered: list[int] = []  # the queries made when each answer went out
        monkeypatch.setattr(
            after, "_run", lambda queue: (answered.append(len(connection.queries_log)), run(queue))
        )
        for tournament in small_and_bigger_tournaments:
            game = (
                Game.objects.filter(
                    sitting_entry__sitting__tournament=tournament,
                    status=Game.Status.IN_PROGRESS,
                )
                .order_by("pk")
                .first()
            )
            entry = alternating(1)  # one table each: the first deal ends it
            seating = load_seating(game)
            with (
                django_assert_max_num_queries(ENDING_DEAL + AFTER_ENDING_DEAL),
                CaptureQueriesContext(connection) as queries,
            ):
                response = organiser_client.post(
                    reverse("games:record", args=[game.pk]), form_data(entry, 1, seating), **HTMX
                )
            assert response.status_code == 200 and "errorlist" not in response.text
            game.refresh_from_db()
            assert game.is_finished
            standing = tournament.standings.get(entry__team=game.winner.team)
            assert standing.won >= 1 and standing.declared >= 1
            assert PlayerTotals.objects.filter(player=game.winner.team.first_player).exists()
            until = answered[-1] - queries.initial_queries
            counts.append((until, len(queries) - until))
        assert counts == [(ENDING_DEAL, AFTER_ENDING_DEAL)] * 2


def tournament_with(teams: int, sittings: int):
    """Teams of one table each; every sitting played out but the last, still being played."""
    tournament = make_tournament(name=f"Cup of {teams}", teams=teams)
    for number in range(1, sittings + 1):
        sitting = tournaments.propose_sitting(tournament=tournament, rng=rng(number))
        tournaments.confirm_sitting(sitting=sitting, rng=rng(number))
        if number < sittings:
            play_sitting(sitting)
    tournament.refresh_from_db()
    return tournament


@pytest.fixture
def small_and_bigger_tournaments():
    return tournament_with(teams=4, sittings=2), tournament_with(teams=12, sittings=4)


class TestTournamentPages:
    def test_the_page(self, client, django_assert_max_num_queries, small_and_bigger_tournaments):
        counts = []
        for tournament in small_and_bigger_tournaments:
            with django_assert_max_num_queries(TOURNAMENT_PAGE):
                count, response = counted(lambda t=tournament: client.get(t.get_absolute_url()))
            assert response.status_code == 200
            # The sitting being played in full (the earlier ones a link each).
            games = Game.objects.filter(
                sitting_entry__sitting__tournament=tournament,
                sitting_entry__sitting__number=tournament.sittings.count(),
            ).count()
            assert response.text.count('<li class="sitting-game') == games
            assert response.text.count('<td class="place">') == tournament.entries.count()
            counts.append(count)
        assert counts == [TOURNAMENT_PAGE, TOURNAMENT_PAGE]

    def test_the_live_fragment(
        self, client, django_assert_max_num_queries, small_and_bigger_tournaments
    ):
        changed, unchanged = [], []
        for tournament in small_and_bigger_tournaments:
            url = reverse("tournaments:live", args=[tournament.pk])
            with django_assert_max_num_queries(TOURNAMENT_LIVE):
                count, response = counted(
                    lambda url=url: client.get(url, {"version": "0.0"}, **HTMX)
                )
            assert response.status_code == 200 and 'id="tournament-live"' in response.text
            changed.append(count)
            version = live_version(tournament)
            with django_assert_max_num_queries(TOURNAMENT_POLL_UNCHANGED):
                count, response = counted(
                    lambda url=url, version=version: client.get(url, {"version": version}, **HTMX)
                )
            assert response.status_code == 204
            unchanged.append(count)
        assert changed == [TOURNAMENT_LIVE, TOURNAMENT_LIVE]
        assert unchanged == [TOURNAMENT_POLL_UNCHANGED, TOURNAMENT_POLL_UNCHANGED]


class TestKeptPages:
    """Read again, a public page comes from the pages cache under its key (club.web.pages):
    the same bytes as its render, for the key's queries only."""

    def test_the_game_page(self, client, short_and_long_games):
        for game in short_and_long_games:
            url = game.get_absolute_url()
            _count, first = counted(lambda url=url: client.get(url))
            count, again = counted(lambda url=url: client.get(url))
            assert again.content == first.content
            assert count == GAME_PAGE_KEPT
            assert again["ETag"] and again["Cache-Control"] == "no-cache"
            etag = again["ETag"]
            _count, fresh = counted(
                lambda url=url, etag=etag: client.get(url, HTTP_IF_NONE_MATCH=etag)
            )
            assert fresh.status_code == 304

    def test_the_tournament_page(self, client):
        tournament = tournament_with(8, 2)
        url = tournament.get_absolute_url()
        _count, first = counted(lambda: client.get(url))
        count, again = counted(lambda: client.get(url))
        assert again.content == first.content and count == TOURNAMENT_KEPT
