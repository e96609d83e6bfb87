"""Nothing crosses between clubs unless it is public.

The world of the permission table (tests/test_permissions.py) is the home club's: a
tournament with a sitting, games, deals, scorer links, a stage, a substitution. A
second club, Gulf 56, has its own organiser. Every URL of the table is tried:

- at Gulf's address, naming the home club's objects, by Gulf's organiser and by anyone:
  not found (404), for every object the address names;
- at the home club's address, by Gulf's organiser: its organiser pages refuse them (sent
  to log in) exactly as they refuse a stranger;
- the pages that name no object, at Gulf's address: nothing of the home club on them.

Nothing is written by any of it.
"""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from tests.test_permissions import (
    CAPTAIN,
    ORGANISER,
    RULES,
    SCORER,
    build_world,
    every_row,
    kwargs_for,
)

# The site's own pages: nobody's, the same at every address.
SITE_PAGES = {
    "health",
    "service_worker",
    "manifest",
    "offline",
    "set_language",
    "choose_language",
    "login",
    "logout",
    "password_change",
    "password_change_done",
    "site_home",
    "clubs",
    "club_new",
    "ranking",  # the federation's: every club's rated players, on purpose
    "api:ranking",
    # The federation's circuits: public, written by the site's administrators only (a club's
    # organiser is refused: tests/competitions/test_pages.py).
    "circuits:list",
    "circuits:new",
    "circuits:detail",
    "circuits:edit",
    "circuits:delete",
    "circuits:print",
    "circuits:projector",
    "circuits:line",
    "circuits:preview",
}
# What the home club's world is called: none of it may show on Gulf's pages.
HOME_NAMES = ("Onam cup", "Anu", "Biju", "Chitra", "Withdrawn link game", "Zara")


@pytest.fixture
def two_clubs(db, django_user_model):
    world = build_world()
    home = world["game"].club
    gulf = Club.objects.create(name="Gulf 56", slug="gulf", time_zone="Asia/Dubai")
    organiser = django_user_model.objects.create_user(username="gulf-organiser", password="pw")
    gulf.organisers.add(organiser)
    browser = Client()
    browser.force_login(organiser)
    return world, home, gulf, browser


def _methods(name: str) -> list[str]:
    return RULES[name][1] or ["get"]


def _send(browser: Client, method: str, url: str):
    if method == "get":
        return browser.get(url)
    return browser.post(url, {"idempotency_key": str(uuid.uuid4()), "label": "x"})


def test_every_url_of_one_club_is_refused_to_another_club_and_to_strangers(two_clubs):
    world, home, gulf, gulf_organiser = two_clubs
    anonymous = Client()
    before = every_row()
    tried = 0
    wrong = []
    for name, (rule, _, key) in RULES.items():
        if name in SITE_PAGES:
            continue
        kwargs = kwargs_for(key, world)
        for method in _methods(name):
            for who, browser in (("gulf organiser", gulf_organiser), ("anonymous", anonymous)):
                # The home club's object, asked for at Gulf's address: no such object there.
                if key is not None:
                    url = reverse_in(gulf, name, kwargs=kwargs)
                    tried += 1
                    response = _send(browser, method, url)
                    if response.status_code != 404 and not (
                        rule == ORGANISER
                        and who == "anonymous"
                        and response.status_code == 302
                        and "/accounts/login/" in response["Location"]
                    ):
                        wrong.append((name, method, who, url, response.status_code))
                # The home club's organiser pages, at its own address: not Gulf's organiser's.
                if rule == ORGANISER:
                    url = reverse_in(home, name, kwargs=kwargs)
                    tried += 1
                    response = _send(browser, method, url)
                    refused = response.status_code == 403 or (
                        response.status_code == 302
                        and response["Location"].startswith(reverse_in(home, "login"))
                    )
                    if not refused:
                        wrong.append((name, method, who, url, response.status_code))
    print("WRONG", sorted({(name, who, status) for name, _m, who, _u, status in wrong}))
    assert not wrong, sorted({(name, who, status) for name, _m, who, _u, status in wrong})
    assert every_row() == before
    print(f"\n{tried} requests across two clubs")  # the closing note's count
    assert tried > 250


def test_a_clubs_pages_that_name_no_object_show_nothing_of_another_club(two_clubs):
    world, _home, gulf, gulf_organiser = two_clubs
    before = every_row()
    for name, (rule, methods, key) in RULES.items():
        if name in SITE_PAGES or key is not None or "get" not in methods:
            continue
        if rule in (SCORER, CAPTAIN):
            continue
        url = reverse_in(gulf, name)
        response = gulf_organiser.get(url)
        assert response.status_code == 200, (name, url, response.status_code)
        body = b"".join(response) if response.streaming else response.content
        text = body.decode(errors="replace")
        for shown in HOME_NAMES:
            assert shown not in text, (name, url, shown)
    assert every_row() == before


def test_gulfs_organiser_writes_in_gulf(two_clubs):
    _world, _home, gulf, gulf_organiser = two_clubs
    response = gulf_organiser.get(reverse_in(gulf, "games:new"))
    assert response.status_code == 200
    response = gulf_organiser.get(reverse_in(gulf, "tournaments:new"))
    assert response.status_code == 200


def test_a_polls_answer_and_a_clubs_suggestions_are_its_own(two_clubs):
    """A poll of another club's tournament at this club's address is no page (a 204 would
    say it exists and how it stands), and a tournament's name suggestions are its club's
    players only."""
    world, home, gulf, gulf_organiser = two_clubs
    tournament = world["tournament"]
    from club.tournaments.selectors.live import page_tokens

    live, _event = page_tokens(tournament.pk)
    at_home = reverse_in(home, "tournaments:live", kwargs={"pk": tournament.pk})
    assert Client().get(at_home, {"version": live}).status_code == 204  # nothing new
    at_gulf = reverse_in(gulf, "tournaments:live", kwargs={"pk": tournament.pk})
    assert Client().get(at_gulf, {"version": live}).status_code == 404
    from club.tournaments import services as tournaments

    cup = tournaments.create_tournament(name="Dubai cup", starts_on=tournament.starts_on, club=gulf)
    page = gulf_organiser.get(reverse_in(gulf, "tournaments:detail", kwargs={"pk": cup.pk}))
    assert page.status_code == 200
    assert not set(page.context["player_names"]) & {"Anu", "Biju", "Chitra", "Dev"}


def test_another_clubs_organiser_neither_sees_nor_answers_a_call(two_clubs):
    """A table of the home club calls the director: Gulf's organiser's calls page says no
    table calls, and their answer, at either club's address, leaves the call open."""
    from club.games import calls
    from club.games.models import DirectorCall

    world, home, gulf, gulf_organiser = two_clubs
    call = world["call"]
    assert call.is_open
    page = gulf_organiser.get(reverse_in(gulf, "games:calls"))
    assert page.status_code == 200 and "No table is calling the director." in page.text
    assert page.context["calls"] == {"open": [], "answered": []}
    version = calls.calls_token(calls.club_calls(gulf.pk))
    # The home club's call moves nothing of Gulf's page: its poll stays "nothing new".
    calls.give_reason(call=call, reason="score")
    assert (
        gulf_organiser.get(reverse_in(gulf, "games:calls"), {"version": version}).status_code == 204
    )
    for club in (gulf, home):
        response = gulf_organiser.post(
            reverse_in(club, "games:call_answer", kwargs={"pk": call.pk}),
            {"idempotency_key": str(uuid.uuid4())},
        )
        assert response.status_code in (302, 403, 404), club
        if response.status_code == 302:
            assert "/accounts/login/" in response["Location"]
    call.refresh_from_db()
    assert call.is_open and DirectorCall.objects.get(pk=call.pk).answered_by is None
    # The home club's organisers see it on their page.
    home_page = Client()
    home_page.force_login(_home_organiser(home))
    assert "calls the director" in home_page.get(reverse_in(home, "games:calls")).text


def _home_organiser(home):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username="home-organiser", password="pw")
    home.organisers.add(user)
    return user
