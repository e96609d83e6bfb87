"""What a site of many clubs costs no page more than a site of one.

A page that links many clubs (the site's list of clubs) makes each club's addresses as
``{% url %}`` would inside the club, without a pattern of its own for each club: Python
keeps 512 compiled patterns, and the list of 200 clubs made three a club at every render.
The clubs kept in the process are found by key without going through all of them, and
PostgreSQL is told that reading out of turn is cheap, so a club's few members are looked
up by key among the site's players instead of read with all of them."""

from __future__ import annotations

import re._compiler

import pytest
from django.db import connection
from django.urls import reverse

from club.clubs import known
from club.clubs.addresses import addresses_of, reverse_in
from club.clubs.models import Club

pytestmark = pytest.mark.django_db

NAMES = [("games:list", ()), ("games:detail", (7,)), ("tournaments:detail", (3,))]


@pytest.fixture
def clubs():
    known.home()
    made = Club.objects.bulk_create(
        [Club(name=f"Club {number}", slug=f"club-{number}") for number in range(30)]
    )
    known.forget()
    yield made
    known.forget()


def test_a_clubs_addresses_are_those_its_own_pages_make(clubs):
    for club in clubs:
        for name, args in NAMES:
            with addresses_of(club):
                inside = reverse(name, args=args)
            assert reverse_in(club, name, args=args) == inside
            assert inside.startswith(f"/clubs/{club.slug}/")


def test_many_clubs_addresses_compile_no_pattern_a_club(clubs, monkeypatch):
    reverse_in(clubs[0], "games:list")  # the patterns of the names, once
    for name, args in NAMES:
        reverse_in(clubs[0], name, args=args)
    compiled = []
    compile_pattern = re._compiler.compile
    monkeypatch.setattr(
        re._compiler, "compile", lambda *args: compiled.append(args) or compile_pattern(*args)
    )
    for club in clubs:
        for name, args in NAMES:
            reverse_in(club, name, args=args)
    assert compiled == []


def test_the_clubs_by_key_are_made_once_a_reading(clubs):
    kept = known.clubs()
    assert kept.by_pk is kept.by_pk
    assert known.by_id(clubs[5].pk) == clubs[5]


def test_postgresql_reads_out_of_turn_as_a_memory_would():
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL planner's setting")
    with connection.cursor() as cursor:
        cursor.execute("SHOW random_page_cost")
        assert float(cursor.fetchone()[0]) == 1.1


def test_the_sites_list_of_clubs_is_read_a_page_at_a_time(client):
    """200 clubs cost the list what 50 do: a page of them, by name, and the way on."""
    from django.db import connection as db
    from django.test.utils import CaptureQueriesContext

    from club.leaderboards.federation import CLUBS_PER_PAGE

    known.home()
    Club.objects.bulk_create(
        [Club(name=f"Club {number:03d}", slug=f"club-{number:03d}") for number in range(60)]
    )
    known.forget()
    with CaptureQueriesContext(db) as few:
        first = client.get("/clubs/")
    names = [each.name for each in first.context["clubs"]]
    assert len(names) == CLUBS_PER_PAGE and names == sorted(names)
    assert 'href="?page=2" rel="next"' in first.content.decode()
    second = client.get("/clubs/", {"page": 2})
    assert len(second.context["clubs"]) == 61 - CLUBS_PER_PAGE  # and the home club
    Club.objects.bulk_create(
        [Club(name=f"More {number:03d}", slug=f"more-{number:03d}") for number in range(140)]
    )
    known.forget()
    with CaptureQueriesContext(db) as many:
        assert client.get("/clubs/").status_code == 200
    assert len(many) == len(few)
