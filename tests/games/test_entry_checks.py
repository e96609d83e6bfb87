"""The deal form refuses every contradiction, and the phone says so first in the same words.

Two things are tested through the pages themselves:
- every contradictory thani entry (doubled, with trumps or piles, without made or failed,
  "failed" on a normal contract, a thani where everyone passed, a thani in a game without
  thani) is refused with a message naming it, and nothing is stored, on the organiser's
  game page and through a scorer link;
- random entries, valid and not, posted to the game page, are answered exactly as the
  phone's own check (static/js/entry.js, in Node, fed the page's own "phone-entry" JSON)
  answers them: the same mistakes at the same fields in the same words, and a deal
  recorded exactly when the phone finds nothing wrong.
"""

from __future__ import annotations

import html
import json
import random
import re

import pytest
from django.urls import reverse

from club.games import links
from club.games.models import Change, PendingDeal, Round
from club.games.services import TeamEntry, create_game, load_seating
from club.scoring import rules as core
from club.scoring.rules import Preset, Rules, Thani
from tests.factories import start_game
from tests.scoring.node import NODE, run_entry_checks

THANI_RULES = Rules(thani=Thani(6, 8))


def thani_posts(chitra: int) -> list[tuple[str, dict, str]]:
    """Every contradiction a thani entry can hold, with the words that refuse it."""
    thani = {"declarer": str(chitra), "bid": "thani", "thani_made": "yes", "doubling": "none"}
    return [
        ("doubled", {**thani, "doubling": "double"}, "A thani cannot be doubled or redoubled."),
        (
            "redoubled",
            {**thani, "doubling": "redouble"},
            "A thani cannot be doubled or redoubled.",
        ),
        (
            "with trumps",
            {**thani, "trump": "spades"},
            "A thani has no bid, trumps or piles: only its player and whether it was made.",
        ),
        (
            "with piles",
            {**thani, "points_0": "20", "points_1": "36"},
            "A thani has no bid, trumps or piles: only its player and whether it was made.",
        ),
        (
            "an old page's thani with a bid",
            {**thani, "declarer": f"thani:{chitra}", "bid": "32"},
            "A thani has no bid, trumps or piles: only its player and whether it was made.",
        ),
        (
            "without made or failed",
            {**thani, "thani_made": ""},
            "Say whether the thani was made or failed.",
        ),
        (
            "made or failed as something else",
            {**thani, "thani_made": "maybe"},
            "Say whether the thani was made or failed.",
        ),
        (
            "failed on a normal contract",
            {
                "declarer": str(chitra),
                "bid": "32",
                "trump": "hearts",
                "doubling": "none",
                "thani_made": "no",
                "points_0": "20",
                "points_1": "36",
            },
            "Only a thani is marked made or failed; this deal is not a thani.",
        ),
        (
            "made when everyone passed",
            {"declarer": "pass", "thani_made": "yes", "points_0": "20", "points_1": "36"},
            "Only a thani is marked made or failed; this deal is not a thani.",
        ),
        (
            "a thani where everyone passed",
            {"declarer": "pass", "bid": "thani", "thani_made": "yes"},
            "A thani is played by one player: choose who played it, not All passed.",
        ),
    ]


@pytest.mark.parametrize("where", ["game page", "scorer link"])
def test_every_contradictory_thani_is_refused_and_nothing_is_stored(client, organiser, where):
    game = start_game(2, rules=THANI_RULES, require_confirmation=where == "scorer link")
    chitra = load_seating(game).players[1].pk
    if where == "game page":
        client.force_login(organiser)
        url = reverse("games:record", args=[game.pk])
    else:
        first, _second = links.issue_links(game=game)
        url = reverse("games:scorer_send", args=[first.token])
    for name, post, words in thani_posts(chitra):
        response = client.post(url, {"number": "1", **post})
        assert response.status_code == 200, name
        assert html.escape(words) in response.text, name
    assert not Round.objects.exists()
    assert not PendingDeal.objects.exists()
    assert not Change.objects.exists()
    # The same thani, not contradicted, is recorded.
    client.post(url, {"number": "1", **thani_posts(chitra)[0][1], "doubling": "none"})
    assert Round.objects.exists() or PendingDeal.objects.exists()


@pytest.mark.parametrize("post", ["new", "old"])
def test_a_thani_in_a_game_without_thani_is_refused(organiser_client, post):
    game = start_game(2)
    chitra = load_seating(game).players[1].pk
    fields = (
        {"declarer": str(chitra), "bid": "thani", "thani_made": "yes"}
        if post == "new"
        else {"declarer": f"thani:{chitra}", "thani_made": "yes"}
    )
    response = organiser_client.post(
        reverse("games:record", args=[game.pk]), {"number": "1", **fields}
    )
    assert "This game is not played with thani." in response.text
    assert not Round.objects.exists() and not Change.objects.exists()


# --- The server's answers against the phone's ------------------------------------------------


def page_wire(page: str) -> dict:
    found = re.search(r'<script id="phone-entry" type="application/json">(.*?)</script>', page)
    return json.loads(found.group(1))


def server_errors(page: str) -> dict[str, list[str]]:
    """The mistakes the page shows, by field ("" for the entry as a whole)."""
    shown = {}
    for name, inner in re.findall(
        r'<div class="(?:field-errors|errors)"[^>]*data-errors-for="([^"]*)"[^>]*>(.*?)</div>',
        page,
        re.S,
    ):
        words = [html.unescape(text) for text in re.findall(r"<p[^>]*>(.*?)</p>", inner, re.S)]
        if words:
            shown[name] = words
    return shown


def phone_errors(wire: dict, fields: dict, places: set[str]) -> dict[str, list[str]]:
    """The phone's mistakes by field, as entry.js shows them: a field the page has no place
    for is said of the entry as a whole."""
    (answer,) = run_entry_checks([{"wire": wire, "fields": fields}])
    shown: dict[str, list[str]] = {}
    for error in answer["errors"]:
        field = error["field"] or ""
        shown.setdefault(field if field in places else "", []).append(error["words"])
    return shown


def random_fields(rng: random.Random, wire: dict) -> dict:
    seats, in_play = wire["seats"], wire["in_play"]
    if rng.random() < 0.5:  # an entry as a careful scorer makes it
        size = wire["rules"]["team_size"]
        teams = len(seats) // size
        playing = [seat for seat in seats if seats.index(seat) % teams in in_play]
        shares = [rng.randint(0, 56 // len(in_play)) for _ in in_play[:-1]]
        fields = {
            "declarer": rng.choice(playing),
            "bid": str(rng.randint(28, 56)),
            "trump": rng.choice(["hearts", "spades", "no-trumps"]),
            "doubling": rng.choice(["none", "double"]),
        }
        if rng.random() < 0.2 and wire["rules"]["thani"]:
            return {"declarer": fields["declarer"], "bid": "thani", "thani_made": "no"}
        for team, pile in zip(in_play, [*shares, 56 - sum(shares)], strict=True):
            fields[f"points_{team}"] = str(pile)
        return fields
    fields = {
        "declarer": rng.choice(["", "pass", "999", *seats, *seats, *seats]),
        "bid": rng.choice(["", "thani", "27", "28", "33", "45", "56", "57", "1e1"]),
        "trump": rng.choice(["", "hearts", "spades", "no-trumps", "jokers"]),
        "doubling": rng.choice(["", "none", "none", "double", "redouble", "triple"]),
        "thani_made": rng.choice(["", "", "", "yes", "no"]),
    }
    shares = [rng.randint(0, 56 // len(in_play)) for _ in in_play[:-1]]
    for team, pile in zip(in_play, [*shares, 56 - sum(shares)], strict=True):
        fields[f"points_{team}"] = str(pile)
    if rng.random() < 0.3:
        fields[f"points_{rng.choice(in_play)}"] = rng.choice(["", "x", "57", "30"])
    return fields


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
@pytest.mark.parametrize(
    ("teams", "rules"),
    [
        (2, core.DEFAULT_RULES),
        (3, core.DEFAULT_RULES),
        (2, core.preset_rules(Preset.INTERNATIONAL, 6)),
        (2, THANI_RULES),
    ],
    ids=["two teams", "three teams", "international", "thani"],
)
def test_the_game_page_answers_random_entries_as_the_phone_does(organiser_client, teams, rules):
    if rules.team_size == 3:
        game = create_game(
            label="International",
            teams=[
                TeamEntry("Anu", "Biju", third="Chitra"),
                TeamEntry("Dev", "Esha", third="Farid"),
            ],
            first_dealer=0,
            rules=rules,
        )
    else:
        game = start_game(teams, rules=rules)
    rng = random.Random(f"{teams}-{rules.scoring}-{rules.thani}")
    url = reverse("games:detail", args=[game.pk])
    recorded = 0
    for _ in range(40):
        page = organiser_client.get(url).text
        if 'id="phone-entry"' not in page:  # the game is over
            break
        wire = page_wire(page)
        number = re.search(r'name="number" value="(\d+)"', page).group(1)
        fields = random_fields(rng, wire)
        places = set(re.findall(r'data-errors-for="([^"]*)"', page))
        phone = phone_errors(wire, fields, places)
        before = Round.objects.filter(game=game).count()
        answer = organiser_client.post(
            reverse("games:record", args=[game.pk]), {"number": number, **fields}
        )
        if phone:
            assert answer.status_code == 200
            assert server_errors(answer.text) == phone, fields
            assert Round.objects.filter(game=game).count() == before
        else:
            assert answer.status_code == 302, server_errors(answer.text)
            assert Round.objects.filter(game=game).count() == before + 1
            recorded += 1
    assert recorded >= 3  # the valid entries were recorded too, not only refusals seen
