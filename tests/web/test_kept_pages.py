"""What a shared phone may keep of a page (club/web/kept.py): the headers the worker obeys.

The worker (club/templates/sw.js) never keeps an answer sent ``private`` or
``no-store``; keeps a scorer's own page apart; and keeps one copy of a page
whatever query parameters beside those its view declares. The browser side is
tested in tests/browser/test_offline.py; these check the server's half on every URL.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import QueryDict
from django.test import override_settings
from django.urls import reverse

from club.games.models import ScorerLink
from club.games.templatetags.qr import _drawn
from club.web.installable import STATIC_FILES
from tests import test_permissions
from tests.test_permissions import (
    CAPTAIN,
    ORGANISER,
    PUBLIC,
    RULES,
    SCORER,
    SIGNED_IN,
    kwargs_for,
)

pytestmark = pytest.mark.django_db
world = test_permissions.world
world_kept = test_permissions.world_kept
clients = test_permissions.clients


def _get_urls(world, rules=(PUBLIC, ORGANISER, SCORER, SIGNED_IN, CAPTAIN)):
    """Every page a person can open: each URL read by GET, and the admin's lists."""
    for name, (rule, methods, key) in RULES.items():
        if rule in rules and "get" in methods:
            yield name, reverse(name, kwargs=kwargs_for(key, world))
    if ORGANISER not in rules:
        return
    yield "admin", reverse("admin:index")
    for model in admin.site._registry:
        label = f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"
        yield label, reverse(label)


def _read(browser, url, data=None):
    try:
        return browser.get(url, data)
    except PermissionDenied:  # the admin's lists an organiser without rights may not see
        return None


def _stored(response) -> set[str]:
    return {part.strip().split("=")[0] for part in response.get("Cache-Control", "").split(",")}


def _shows(body: str, token: str) -> bool:
    """Whether the page holds the link of ``token``: as text, or drawn as its QR code."""
    drawn = _drawn(f"http://testserver/s/{token}/", "")
    return token in body or re.search(r' d="([^"]+)"', drawn).group(1) in body


def _without(middleware: str):
    from django.conf import settings

    return override_settings(MIDDLEWARE=[m for m in settings.MIDDLEWARE if m != middleware])


@pytest.mark.parametrize("role", ["anonymous", "organiser", "admin"])
def test_every_page_that_shows_a_scorer_link_is_no_store_whoever_reads_it(role, world, clients):
    """Found by what the page holds (a live link's secret), not by a list of pages. The
    page itself says no-store: the rule for logged-in accounts is switched off here."""
    tokens = set(ScorerLink.objects.filter(revoked_at=None).values_list("token", flat=True))
    assert len(tokens) == 2
    showing = {}
    with _without("club.web.kept.KeptPagesMiddleware"):
        for name, url in _get_urls(world):
            response = _read(clients[role], url)
            if response is None or response.status_code != 200 or response.streaming:
                continue
            if response["Content-Type"].startswith("image/"):
                continue  # a link preview's picture (club.web.preview): no link in it
            body = response.content.decode()
            # A scorer's own page and its table's part show the link they were opened by.
            parts = url.strip("/").split("/")
            own = {parts[parts.index("s") + 1]} if name.startswith("games:scorer") else set()
            shown = {token for token in tokens - own if _shows(body, token)}
            if shown:
                showing[name] = _stored(response)
    if role == "anonymous":
        # Only organisers see the links, and a team's captain its own (the captain's page,
        # reached by the team's own secret link): never kept.
        assert set(showing) == {"tournaments:captain"}
        assert "no-store" in showing["tournaments:captain"]
    else:
        # The pages an organiser opens to hand the links out, found by their content.
        assert {
            "games:links",
            "games:links_print",
            "tournaments:sitting_sheets",
            "tournaments:sitting_links_print",
        } <= set(showing)
        assert {name: "no-store" in stored for name, stored in showing.items()} == {
            name: True for name in showing
        }


@pytest.mark.parametrize("role", ["player", "organiser", "admin"])
def test_nothing_a_logged_in_account_opens_may_be_kept(role, world, clients):
    kept = []
    for name, url in _get_urls(world):
        response = _read(clients[role], url)
        if response is None or response.status_code != 200:
            continue
        if not {"private", "no-store"} <= _stored(response):
            kept.append(name)
    assert kept == []


def test_the_public_pages_and_a_scorers_own_page_may_be_kept(world, client):
    for name, url in _get_urls(world, rules=(PUBLIC, SCORER)):
        response = client.get(url)
        assert response.status_code == 200, name
        # Django's log-in page is never kept: its form holds a CSRF token; nor the part of
        # a scorer's page with the table's call for the director, as it stands now.
        if response["Content-Type"].startswith("text/html") and name not in (
            "login",
            "games:scorer_table",
        ):
            assert not {"private", "no-store"} & _stored(response), name
    scorer = client.get(reverse("games:scorer", args=[world["link"].token]))
    assert scorer["Club-Scorer-Page"] == "1"
    assert "no-cache" in _stored(scorer)  # asked again every time it is opened
    # Nobody else's page is marked as a scorer's.
    assert "Club-Scorer-Page" not in client.get(reverse("games:detail", args=[world["game"].pk]))


# Every name a view of the club reads from a query string, with a value it can take.
QUERY = {
    "page": "2",
    "q": "Anu",
    "active": "active",
    "start": "2026-01-01",
    "end": "2026-12-31",
    "tournament": "1",
    "sort": "wins",
    "order": "asc",
    "game": "1",
    "preset": "international",
    "players": "6",
    "next": "/",
    "language": "es",
    "x": "0",
}


@pytest.fixture
def reads(monkeypatch):
    """The names a request's query is asked for by get, getlist or `in`. Not by [], which
    iterating over the query uses too (the pages cache's key; a pager's links)."""
    asked: set[str] = set()

    def watching(method):
        def watched(self, key, *args, **kwargs):
            if not self._mutable:  # a request's own query, not one being built or copied
                asked.add(key)
            return method(self, key, *args, **kwargs)

        return watched

    for method in ("get", "__contains__", "getlist"):
        monkeypatch.setattr(QueryDict, method, watching(getattr(QueryDict, method)))
    return asked


def test_every_page_declares_the_query_parameters_it_reads(world, client, reads):
    """An undeclared one would make the phone keep two pages as one: its offline copy of
    ``?page=2`` would be page 1. The live poll's ``version`` is not a page's: it asks
    for a fragment, which the worker never keeps."""
    undeclared = {}
    for name, url in _get_urls(world, rules=(PUBLIC, SCORER)):
        reads.clear()
        response = client.get(url, QUERY)
        if not response.get("Content-Type", "").startswith("text/html") or (
            {"private", "no-store"} & _stored(response)
        ):
            continue  # never kept by the phone: its query does not matter to it
        declared = set(response["Club-Page-Query"].split())
        extra = reads - declared - {"version"}
        if extra:
            undeclared[name] = sorted(extra)
    assert undeclared == {}


def test_a_page_is_kept_under_the_query_that_shapes_it(world, client):
    assert client.get("/rules/?x=1&game=7")["Club-Page-Query"] == "game"
    assert client.get("/?x=1")["Club-Page-Query"] == "page"
    board = client.get(reverse("leaderboards:player_board"))
    assert board["Club-Page-Query"].split() == sorted(
        ["end", "form", "order", "page", "sort", "start", "tournament"]
    )
    assert client.get(reverse("tournaments:detail", args=[world["tournament"].pk]))[
        "Club-Page-Query"
    ] == ("")


def test_logging_out_clears_the_browsers_copies_and_says_so(world, clients):
    organiser = clients["organiser"]
    response = organiser.post(reverse("logout") + "?next=/games/")
    assert response.status_code == 200  # the page itself, never a redirect: see kept.py
    assert response["Clear-Site-Data"] == '"cache"'
    assert {"private", "no-store"} <= _stored(response)
    assert re.search(r"You are logged out", response.content.decode())
    # Logged out for real: an organiser's page asks for a login again.
    assert organiser.get(reverse("games:new")).status_code == 302


def test_every_file_a_page_loads_is_kept_for_a_page_drawn_with_no_network():
    """A page drawn from the phone's copy loads what base.html names: each of those files
    must be among the ones the worker keeps (the deal entry's script was once missing, and
    a scorer's page reopened offline had no checks, no queue words and no reset)."""
    base = Path(__file__).resolve().parents[2] / "club" / "templates" / "base.html"
    loaded = set(re.findall(r"{% static '([^']+)' %}", base.read_text()))
    assert len(loaded) >= 10
    assert sorted(loaded - set(STATIC_FILES)) == []
