"""No text with a control character reaches a view or a query (club.web.unreadable).

PostgreSQL refuses a NUL in text: ``/api/v1/players/?search=a%00b`` was a 500
there. Every URL of the permission table (tests/test_permissions.py) and every
operation of the API's OpenAPI document is sent a NUL, a unit separator and a
DEL in each query parameter its view, form or selector reads, and in one it does
not, as a visitor and as the organiser: a page answers 400 naming the parameter,
the API 422 in its own shape. Then posted fields, a scorer link's path and
cookies; and a textarea's tabs and line breaks still go through.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import pytest
from django.test import Client
from django.urls import reverse

from club.api.views import api as read_api
from club.games.forms import NewGameForm
from club.games.models import Player, SubmittedForm
from club.games.services import load_seating
from club.leaderboards.forms import BoardForm, MergeForm, RegisterSearchForm
from club.tournaments.forms import TournamentForm
from club.tournaments.models import TournamentTeam
from tests import test_permissions
from tests.test_permissions import RULES, deal_post, every_row, kwargs_for
from tests.tournaments.helpers import make_tournament

pytestmark = pytest.mark.django_db

# The permission table's club and its four browsers, as the fixtures ``world`` and ``clients``.
world = test_permissions.world
world_kept = test_permissions.world_kept
clients = test_permissions.clients

CONTROLS = ["\x00", "\x1f", "\x7f"]
UNKNOWN = "unknown"  # a parameter no view reads
SETTINGS_FIELDS = [*NewGameForm.base_fields, "team1_player1", "team1_name"]
BOARD = [*BoardForm.base_fields, "page", "version"]

# The query parameters each page reads (request.GET in its view, the form it binds to
# the query or fills from it, club.web.paging's ``page``, club.web.pages' ``version``
# for a kept page); a URL not named here reads none.
READS = {
    "choose_language": ["next", "language"],
    "set_language": ["next", "language"],
    "login": ["next"],
    "logout": ["next"],
    "games:list": ["page", "version"],
    "games:rules": ["game"],
    "games:new": [*SETTINGS_FIELDS, "apply"],
    "games:detail": ["version"],
    "games:embed": ["version"],
    "tournaments:list": ["page"],
    "tournaments:new": [*TournamentForm.base_fields, "apply"],
    "tournaments:detail": ["version"],
    "tournaments:live": ["version"],
    "tournaments:embed": ["version"],
    "tournaments:projector": ["version"],
    "tournaments:board": ["version"],
    "tournaments:stage": ["version"],
    "tournaments:player": ["version"],
    "tournaments:seats": ["q", "version"],
    "leaderboards:players": [*RegisterSearchForm.base_fields, "page"],
    "leaderboards:merge": list(MergeForm.base_fields),
    "leaderboards:player": ["page", "version"],
    "leaderboards:player_board": BOARD,
    "leaderboards:team_board": BOARD,
    # A link preview's picture: its version and its language (club.web.preview).
    **{name: ["v", "lang"] for name in RULES if name.endswith("preview")},
}


@pytest.fixture(scope="module")
def api_document():
    return read_api.get_openapi_schema(path_prefix=reverse("api:api-root"))


def api_operation(url: str, document: dict) -> dict | None:
    """The OpenAPI operation that answers ``url``, or None (the document and its docs)."""
    for template, operations in document["paths"].items():
        pattern = re.escape(template).replace(r"\{pk\}", r"\d+")
        if re.fullmatch(pattern, url):
            return operations["get"]
    return None


def parameters_of(name: str, url: str, document: dict) -> list[str]:
    if name.startswith("api:"):
        operation = api_operation(url, document) or {}
        return [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
    return READS.get(name, [])


def test_every_api_operation_is_one_of_the_tables_urls(world, api_document):
    """So the test below sends every operation each of its parameters."""
    reached = set()
    for name, (_rule, _methods, key) in RULES.items():
        operation = api_operation(reverse(name, kwargs=kwargs_for(key, world)), api_document)
        if operation is not None:
            reached.add(operation["operationId"])
    documented = {operations["get"]["operationId"] for operations in api_document["paths"].values()}
    assert reached == documented


def assert_refused(response, *, api: bool, place: str, name: str | None) -> None:
    """The refusal: the API's 422 with where it is, or the 400 page naming it."""
    if api:
        assert response.status_code == 422, response.status_code
        [detail] = response.json()["detail"]
        assert detail["type"] == "control_character"
        assert detail["loc"] == [place, *([name] if name is not None else [])]
    else:
        assert response.status_code == 400, response.status_code
        text = response.content.decode()
        assert "holds a character that cannot be read" in text
        if name is not None:
            assert f"“{name}”" in text


@pytest.mark.parametrize("name", sorted(RULES))
def test_a_control_character_in_any_query_parameter_is_refused(name, world, clients, api_document):
    url = reverse(name, kwargs=kwargs_for(RULES[name][2], world))
    api = name.startswith("api:")
    parameters = [*parameters_of(name, url, api_document), UNKNOWN]
    before = every_row()
    for role in ("anonymous", "organiser"):
        browser = clients[role]
        for parameter in parameters:
            for control in CONTROLS:
                response = browser.get(url, {parameter: f"a{control}b"})
                assert_refused(response, api=api, place="query", name=parameter)
            # In the parameter's name; the name is shown with "�" for what cannot be.
            response = browser.get(url, {f"{parameter}\x00": "1"})
            assert_refused(response, api=api, place="query", name=f"{parameter}\ufffd")
        # In the address itself.
        for control in CONTROLS:
            assert_refused(browser.get(url + quote(control)), api=api, place="path", name=None)
    assert every_row() == before


def test_the_api_search_that_was_a_500_on_postgresql_is_refused(client):
    response = client.get("/api/v1/players/?search=a%00b")
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "control_character",
                "loc": ["query", "search"],
                "msg": "Holds a control character, which cannot be read: remove it and try "
                "again (tab and line breaks are allowed).",
            }
        ]
    }
    # What it answers without the NUL, for comparison: a page of the register.
    assert client.get("/api/v1/players/?search=ab").status_code == 200


def test_the_page_is_in_the_readers_language_and_keeps_the_sites_policy(client):
    response = client.get("/players/?q=a%00b", HTTP_ACCEPT_LANGUAGE="ml")
    assert response.status_code == 400
    assert response["Content-Language"] == "ml"
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert "no-store" in response["Cache-Control"]
    assert 'lang="ml"' in response.text


# --- Posted forms -------------------------------------------------------------------------


def writing_posts(world):
    """(url, a post the view would accept, the field given a control character)."""
    game = world["game"]
    declarer = load_seating(game).players[0]
    draft = make_tournament(name="Vishu cup", teams=0)
    return {
        "deal": (reverse("games:record", args=[game.pk]), deal_post(2, declarer), "trump"),
        "player": (reverse("leaderboards:player_new"), {"name": "Kiran"}, "name"),
        "team": (
            reverse("tournaments:register", args=[draft.pk]),
            {"first": "Jaya", "second": "Kiran"},
            "second",
        ),
        "teams": (
            reverse("tournaments:register_list", args=[draft.pk]),
            {"teams": "Jaya, Kiran\nLeela, Mohan\n"},
            "teams",
        ),
    }


@pytest.mark.parametrize("kind", ["deal", "player", "team", "teams"])
@pytest.mark.parametrize("encoding", ["multipart", "urlencoded"])
def test_a_control_character_in_a_posted_field_is_refused_and_writes_nothing(
    kind, encoding, world, clients
):
    url, post, field = writing_posts(world)[kind]
    organiser = clients["organiser"]
    before = every_row()
    for control in CONTROLS:
        sent = {**post, field: post[field][:2] + control + post[field][2:]}
        if encoding == "multipart":
            response = organiser.post(url, sent)
        else:
            response = organiser.post(
                url, urlencode(sent), content_type="application/x-www-form-urlencoded"
            )
        assert response.status_code == 400
        assert f"The form holds a character that cannot be read in “{field}”" in response.text
        assert every_row() == before
        assert not SubmittedForm.objects.exists()
    # The same post without the character is written: it was the character that was refused.
    assert organiser.post(url, post).status_code == 302
    assert every_row() != before


def test_a_deal_sent_by_htmx_with_a_control_character_gets_a_note_it_can_show(world, clients):
    game = world["game"]
    declarer = load_seating(game).players[0]
    before = every_row()
    response = clients["organiser"].post(
        reverse("games:record", args=[game.pk]),
        {**deal_post(2, declarer), "trump": "clubs\x00"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="live",
    )
    # htmx swaps no 4xx answer: the note comes as a 200 put at the top of the game's live
    # part, above the form, which keeps what was typed.
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#live"
    assert response["HX-Reswap"] == "afterbegin"
    assert response["HX-Reselect"] == ".unreadable"  # not the answer's part the form selects
    assert response["HX-Push-Url"] == "false"
    assert 'role="alert"' in response.text and "<html" not in response.text
    assert "cannot be read in “trump”" in response.text
    assert every_row() == before


@pytest.mark.parametrize(("target", "retarget"), [("results", "#results"), ("", "main")])
def test_the_registers_live_search_gets_the_note_above_its_results(client, target, retarget):
    response = client.get(
        reverse("leaderboards:players"),
        {"q": "Anu\x1f"},
        HTTP_HX_REQUEST="true",
        **({"HTTP_HX_TARGET": target} if target else {}),
    )
    assert response.status_code == 200 and response["HX-Retarget"] == retarget
    assert "The address holds a character that cannot be read in “q”" in response.text


def test_tabs_and_line_breaks_in_a_textarea_are_still_read(organiser_client):
    """A spreadsheet's rows pasted into bulk registration: tab between the players, CRLF
    between the teams."""
    tournament = make_tournament(name="Vishu cup", teams=0)
    url = reverse("tournaments:register_list", args=[tournament.pk])
    # A vertical tab (Word's line break) is a control character all the same.
    refused = organiser_client.post(url, {"teams": "Jaya\x0bKiran\r\n"})
    assert refused.status_code == 400
    assert "“teams”" in refused.text
    response = organiser_client.post(url, {"teams": "Jaya\tKiran\r\nLeela\tMohan\r\n"})
    assert response.status_code == 302
    teams = TournamentTeam.objects.filter(tournament=tournament).order_by("pk")
    assert [entry.team.name for entry in teams] == ["Jaya & Kiran", "Leela & Mohan"]


# --- The address of a scorer link, and cookies -----------------------------------------------


@pytest.mark.parametrize("control", CONTROLS)
def test_a_control_character_in_a_scorer_links_token_is_refused(control, world, client):
    token = world["link"].token
    before = every_row()
    for path in (
        f"/s/{token}{quote(control)}/",
        f"/s/{quote(control)}/",
        f"/s/{token[:5]}{quote(control)}{token[5:]}/deals/",
    ):
        assert_refused(client.get(path), api=False, place="path", name=None)
        declarer = load_seating(world["game"]).players[0]
        assert_refused(
            client.post(path, deal_post(2, declarer)), api=False, place="path", name=None
        )
    assert every_row() == before


COOKIES = ["sessionid", "csrftoken", "django_language", "messages"]


@pytest.mark.parametrize("cookie", COOKIES)
def test_a_cookie_holding_a_control_character_is_forgotten(cookie, world):
    """A cookie is not the reader's to retype: the request goes on as if it had not been
    sent. (A session cookie with a NUL was a 500 on every page on PostgreSQL.)"""
    browser = Client()
    browser.cookies[cookie] = "abcdefgh\x00ijklmnop"
    for url in ("/", "/players/", reverse("games:scorer", args=[world["link"].token])):
        response = browser.get(url)
        assert response.status_code == 200, (cookie, url)
    response = browser.post(reverse("leaderboards:player_new"), {"name": "Kiran"})
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not Player.objects.filter(name="Kiran").exists()


def test_an_organisers_good_session_survives_a_bad_cookie_beside_it(clients):
    organiser = clients["organiser"]
    organiser.cookies["django_language"] = "ml\x00"
    response = organiser.get(reverse("leaderboards:player_new"))
    assert response.status_code == 200  # still signed in: only the bad cookie is forgotten
