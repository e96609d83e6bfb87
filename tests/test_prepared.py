"""Prepared queries (club.db.prepared): the rows Django's own queryset gives, for every
shape of argument, on both databases; a query whose SQL depends on a value is refused."""

import datetime as dt
import re

import pytest
from django.db import connection
from django.db.models import Count, Exists, Max, OuterRef, Subquery
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.db.prepared import LONGEST, NotPreparable, prepared
from club.games.models import Game, GameTeam, Player, in_a_seat
from club.games.services import record_deal
from club.leaderboards import night_seats
from tests.factories import PlayerFactory, deal, pid, start_game


@pytest.fixture
def games(db):
    """Three games of Anu & Biju: two with deals, one being played with none; and Zara,
    who has played nothing."""
    PlayerFactory(name="Zara")
    played = [start_game(teams=2), start_game(teams=3), start_game(teams=2)]
    first, second = played[0], played[1]
    record_deal(game=first, number=1, entry=deal(first, {0: 30, 1: 26}, "Anu", 28))
    record_deal(game=first, number=2, entry=deal(first, {0: 20, 1: 36}, "Chitra", 30))
    record_deal(game=second, number=1, entry=deal(second, {0: 10, 1: 30, 2: 16}, "Esha", 29))
    return played


@prepared
def seats_of(games: list[int]):
    return (
        GameTeam.objects.filter(game_id__in=games)
        .order_by("game__created_at", "game_id", "position")
        .values("pk", "game_id", "team__name", "game__label", "game__created_at")
    )


# The night in review's own: a sum of each seat's ledger, won and lost apart.
moves_of = night_seats._moves_of  # noqa: SLF001


@prepared
def player_with(player: int, since: dt.datetime):
    """A player's row, with subqueries on the player: games since a moment, the newest."""
    games = Game.objects.filter(in_a_seat(OuterRef("pk"), "teams__")).order_by()
    return (
        Player.objects.filter(pk=player)
        .annotate(
            newest=Subquery(
                games.values("club").annotate(newest=Max("updated_at")).values("newest")
            ),
            since=Subquery(
                games.filter(created_at__gte=since)
                .values("club")
                .annotate(n=Count("*"))
                .values("n")[:1]
            ),
            seated=Exists(GameTeam.objects.filter(in_a_seat(OuterRef("pk")))),
        )
        .values_list("name", "newest", "since", "seated")
    )


@prepared
def names_of(keys: list[int]):
    return Player.objects.filter(pk__in=keys).order_by("name").values_list("name", flat=True)


def test_a_prepared_query_gives_the_rows_of_its_queryset(games):
    ids = [game.pk for game in games]
    assert seats_of(ids) == list(seats_of.build(ids))
    assert len(seats_of(ids)) == 7
    assert seats_of(ids)[0]["game__created_at"] == games[0].created_at  # a moment, converted
    seats = [row["pk"] for row in seats_of(ids)]
    moves = moves_of(seats)
    assert sorted(moves) == sorted(moves_of.build(seats))
    assert len(moves) == 5 and {row[0] for row in moves} <= set(seats)  # the seats that dealt
    since = games[1].created_at
    anu = pid("Anu")
    assert player_with(anu, since) == list(player_with.build(anu, since))
    assert player_with(anu, since)[0][0] == "Anu" and player_with(anu, since)[0][3] is True
    assert names_of([pid("Dev"), anu]) == ["Anu", "Dev"]


def test_an_empty_list_reads_nothing(games):
    with CaptureQueriesContext(connection) as queries:
        assert seats_of([]) == []
        assert names_of([]) == []
    assert len(queries) == 0


def test_a_prepared_query_is_one_query_and_compiled_once(games, django_assert_num_queries):
    ids = [game.pk for game in games]
    seats_of(ids)  # compiled for three games
    with django_assert_num_queries(1):
        assert [row["game_id"] for row in seats_of(ids[::-1])].count(ids[0]) == 2
    with CaptureQueriesContext(connection) as queries:
        seats_of([ids[2], ids[0], ids[1]])
    assert str(ids[2]) in queries[0]["sql"]


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    picks=st.lists(st.integers(0, 5), max_size=8),
    hours=st.integers(-48, 48),
)
def test_every_shape_gives_what_django_gives(games, picks, hours):
    """Keys that exist or not, repeated or not, any number of them; any moment."""
    ids = [game.pk for game in games] + [10**6, 10**6 + 1, 10**6 + 2]
    chosen = [ids[pick] for pick in picks]
    assert seats_of(chosen) == list(seats_of.build(chosen))
    seats = [row["pk"] for row in seats_of(chosen)]
    assert sorted(moves_of(seats)) == sorted(moves_of.build(seats))
    moment = games[0].created_at + dt.timedelta(hours=hours)
    for name in ("Anu", "Esha", "Zara"):
        key = pid(name)
        assert player_with(key, moment) == list(player_with.build(key, moment))
    assert names_of(chosen) == list(names_of.build(chosen))


def test_a_query_whose_sql_depends_on_a_value_is_refused(db):
    @prepared
    def first_games(count: int):
        return Game.objects.order_by("pk").values_list("pk", flat=True)[:count]

    with pytest.raises(NotPreparable, match="first_games"):
        first_games(2)


def test_a_query_of_models_or_of_other_arguments_is_refused(db):
    @prepared
    def players(key: int):
        return Player.objects.filter(pk=key)

    @prepared
    def named(name: str):
        return Player.objects.filter(name=name).values("pk")

    with pytest.raises(NotPreparable, match="values"):
        players(1)
    with pytest.raises(NotPreparable, match="keys"):
        named("Anu")
    with pytest.raises(NotPreparable, match="keys"):
        names_of(True)


@prepared
def latest_games(player: int, *, read: int):
    games = Game.objects.filter(in_a_seat(player, "teams__")).order_by("-created_at", "-pk")
    return games.values_list("pk", flat=True)[:read]


def test_a_keyword_is_part_of_the_shape(games):
    """A slice's bound, which Django writes into the SQL, is a keyword: each its own SQL."""
    anu = pid("Anu")
    newest_first = [game.pk for game in reversed(games)]
    assert latest_games(anu, read=1) == newest_first[:1]
    assert latest_games(anu, read=2) == newest_first[:2]
    assert latest_games(anu, read=1) == list(latest_games.build(anu, read=1))
    assert latest_games(pid("Esha"), read=5) == [games[1].pk]


def test_a_list_is_padded_to_a_power_of_two(games):
    """Five to eight keys are one shape: five are sent as eight, the last one repeated."""
    keys = [pid(name) for name in ("Anu", "Biju", "Chitra", "Dev", "Esha")]
    with CaptureQueriesContext(connection) as queries:
        assert names_of(keys) == ["Anu", "Biju", "Chitra", "Dev", "Esha"]
    sent = re.search(r"IN \(([^)]*)\)", queries[0]["sql"]).group(1)
    assert [int(key) for key in sent.split(",")] == [*keys, keys[-1], keys[-1], keys[-1]]


def test_a_key_past_any_column_is_what_django_answers(client, games):
    """Past what a column holds, a key is run as Django runs it: no rows, not a 500."""
    huge = 2**63
    assert player_with(huge, games[0].created_at) == []
    assert client.get(f"/players/{huge}/").status_code == 404


def test_a_list_longer_than_the_longest_prepared_is_run_as_django_runs_it(games):
    keys = [pid("Dev"), *range(10**6, 10**6 + LONGEST), pid("Anu")]
    with CaptureQueriesContext(connection) as queries:
        assert names_of(keys) == ["Anu", "Dev"]
    assert queries[0]["sql"].count(",") < 2 * len(keys)  # not padded to 2,048


def test_what_a_prepared_query_cannot_take_is_refused(db):
    naive = dt.datetime(2026, 3, 14, 19, 30)
    with pytest.raises(NotPreparable, match="aware moments"):
        player_with(1, naive)
    with pytest.raises(NotPreparable, match="lists hold keys"):
        names_of([1, None])


@prepared
def games_of_size(size: int):
    return Game.objects.filter(team_size=size).values_list("pk", flat=True)


def test_a_stand_in_a_column_cannot_hold_is_refused_where_django_answers_it_with_nothing(
    games,
):
    """A team's size is a small column on PostgreSQL: Django answers a stand-in (two
    thousand million) with no rows and no SQL, which would answer every size so; SQLite's
    columns hold it."""
    if connection.vendor == "postgresql":
        with pytest.raises(NotPreparable, match="games_of_size"):
            games_of_size(2)
    else:
        assert games_of_size(2) == list(games_of_size.build(2)) and len(games_of_size(2)) == 3
