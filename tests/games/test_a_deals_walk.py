"""The walk of a deal through the code: which of the club's modules it passes through.

A deal sent from a scorer's link is followed call by call (``sys.setprofile``)
from the request's arrival to its answer. An *entry* is a call from one module of the
club into a function of another (Django's frames between, a decorator's or a
signal's, are passed over; returns go back the way they came). An object's
method (a model's row, a form's fields, the rules' state) works on that object
and a template's filter is the page's: neither is a step. The games' services
and the rules core are packages, each one stop: calls between their own
modules are their business. The developers' guide draws the walk
(docs/developers/a-deals-journey.md): each module is visited at most twice, so
the write reads top to bottom: the view, its form, the service, the rules.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest
from django.urls import reverse

import club
from club.games import links
from club.games.models import Round
from tests.factories import deal_form, start_game

pytestmark = pytest.mark.django_db

CLUB = str(Path(club.__file__).resolve().parent)
# The rules core and the games' services: each one stop of the walk.
PACKAGES = ("club.scoring", "club.games.services")


def _club(frame) -> bool:
    return frame.f_code.co_filename.startswith(CLUB)


def _module(frame) -> str | None:
    """The module a frame of the club counts as, or None when its calls are not steps of the
    walk: a model's method reads its own row, a template's filter is the page's."""
    if "/templatetags/" in frame.f_code.co_filename:
        return None
    name = frame.f_globals.get("__name__", "")
    if name.endswith((".models", ".people")):
        return None
    for package in PACKAGES:  # a package's own calls between its modules are its business
        if name.startswith(package + "."):
            return package
    return name


def walk(action) -> list[str]:
    """The club's modules the action enters, in order. A call is an entry when the nearest
    frame of the club below it (Django's frames between, a decorator's or a signal's, are
    passed over) is in another module; returns are not entries, they go back the way they
    came."""
    entries: list[str] = []

    def profile(frame, event, _arg):
        if event != "call" or not _club(frame):
            return
        caller = frame.f_back
        if caller is not None and "/django/db/" in caller.f_code.co_filename:
            return  # a wrapper round every query (the write counter) is no step of the deal's
        while caller is not None and not _club(caller):
            caller = caller.f_back
        if caller is None:
            return
        code = frame.f_code
        if code.co_argcount and code.co_varnames[0] == "self":
            return  # an object's method works on that object (a form's fields, the rules' state)
        callee, calling = _module(frame), _module(caller)
        if callee is not None and calling is not None and callee != calling:
            entries.append(callee)

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return entries


def test_a_deal_from_a_scorers_link_visits_each_module_at_most_twice(client):
    game = start_game(2, first_dealer=0)
    [link] = links.issue_links(game=game)
    client.get(reverse("games:scorer", args=[link.token]))  # the page the phone has open
    chitra = game.teams.get(position=1).first_player
    form = deal_form(1, str(chitra.pk), "30", "hearts", p0="20", p1="36", key="5" * 32)

    entries = walk(lambda: client.post(reverse("games:scorer_send", args=[link.token]), form))

    assert Round.objects.filter(game=game, number=1).exists()
    print(" > ".join(entries))
    counted = Counter(entries)
    core = counted.pop("club.scoring", 0)
    print(f"{len(counted)} modules, entered {sum(counted.values())} times; the rules core {core}")
    assert max(counted.values()) <= 2, counted.most_common(5)
    # Each layer asks the rules core its own question once: who sits where (the seating),
    # is the entry well formed (the form), what the deal settles (the service).
    assert core <= 3
