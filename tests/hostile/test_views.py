"""Hostile and malformed input against the real views, through the Django test client.

For every request: never a 5xx; a refusal carries a message the page shows and
leaves every table as it was; an accepted write keeps the game invariants.
"""

from __future__ import annotations

import datetime
import random
import unicodedata

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from club.games import links
from club.games.models import Game, Player
from club.games.services import Deal, record_deal, submit_deal
from club.scoring import rules as core
from club.scoring.names import normal_name
from club.scoring.rules import Rules, Thani
from club.tournaments import services as tournament_services
from club.tournaments.models import Sitting
from club.web.unreadable import readable
from tests.factories import seat, start_game
from tests.hostile.conftest import (
    HOSTILE,
    HUGE,
    NAMES,
    check_answer,
    form_data,
    fresh_state,
    hostile_text,
    hostile_value,
    refusals,
    snapshot,
)
from tests.tournaments.helpers import make_tournament, play_sitting

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _pile_split(teams: int):
    """Piles that add up to 56, as a valid form would send them."""
    return st.lists(
        st.integers(min_value=0, max_value=56), min_size=teams - 1, max_size=teams - 1
    ).map(lambda cuts: _split(sorted(cuts)))


def _split(cuts: list[int]) -> list[str]:
    edges = [0, *cuts, 56]
    return [str(edges[i + 1] - edges[i]) for i in range(len(edges) - 1)]


@st.composite
def deal_posts(draw, game: Game):
    """A deal form as a phone might send it: mostly plausible, each field maybe hostile."""
    teams = game.teams.count()
    players = [str(pk) for pk in Player.objects.values_list("pk", flat=True)]
    piles = draw(st.one_of(_pile_split(teams), st.lists(hostile_text, min_size=teams, max_size=4)))
    data = {
        "number": draw(hostile_value(str(game.deals_played + 1), "1", "2")),
        "declarer": draw(hostile_value("pass", *players)),
        "bid": draw(hostile_value(*(str(bid) for bid in range(28, 57)))),
        "trump": draw(hostile_value("clubs", "diamonds", "hearts", "spades", "no-trumps")),
        "doubling": draw(hostile_value("none", "double", "redouble")),
    }
    for position, points in enumerate(piles):
        data[f"points_{position}"] = points
    if draw(st.booleans()):
        data["idempotency_key"] = draw(st.one_of(st.uuids().map(str), hostile_text))
    return form_data(data)


@pytest.fixture
def game():
    return start_game(2)


@pytest.fixture
def three_team_game():
    return start_game(3)


@pytest.fixture
def thani_sheet():
    """A points sheet that plays thani, with added doubling and no all pass: the new paths."""
    return start_game(
        2,
        rules=Rules(
            team_size=2,
            scoring="points",
            deal_limit=18,
            all_pass=False,
            thani=Thani(6, 8),
            doubling_mode="add",
            double_factor=1,
            redouble_factor=2,
        ),
    )


@given(data=st.data())
@HOSTILE
def test_deal_form_of_a_thani_points_sheet_takes_any_input(hostile_client, thani_sheet, data):
    players = [str(pk) for pk in Player.objects.values_list("pk", flat=True)]
    with fresh_state():
        post = data.draw(deal_posts(thani_sheet))
        post["declarer"] = (
            data.draw(
                hostile_value(*(f"thani:{pk}" for pk in players), *players, "thani:", "thani:x")
            )
            or ""
        )
        post["thani_made"] = data.draw(hostile_value("yes", "no")) or ""
        before = snapshot()
        response = hostile_client.post(reverse("games:record", args=[thani_sheet.pk]), post)
        check_answer(response, before)


@given(data=st.data(), htmx=st.booleans())
@HOSTILE
def test_deal_form_takes_any_input_without_a_500(hostile_client, game, data, htmx):
    with fresh_state():
        post = data.draw(deal_posts(game))
        before = snapshot()
        response = hostile_client.post(
            reverse("games:record", args=[game.pk]), post, **(HTMX if htmx else {})
        )
        check_answer(response, before)


@given(data=st.data())
@HOSTILE
def test_deal_form_of_three_teams(hostile_client, three_team_game, data):
    with fresh_state():
        post = data.draw(deal_posts(three_team_game))
        before = snapshot()
        response = hostile_client.post(reverse("games:record", args=[three_team_game.pk]), post)
        check_answer(response, before)


@pytest.fixture
def played_game(game):
    """The two-team game with two deals recorded."""
    anu, chitra = seat(game, "Anu"), seat(game, "Chitra")
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 30, 1: 26}, declarer=anu, bid=28, trump="spades"),
    )
    record_deal(
        game=game,
        number=2,
        entry=Deal(points={0: 10, 1: 46}, declarer=chitra, bid=40, trump="hearts"),
    )
    game.refresh_from_db()
    return game


@given(data=st.data())
@HOSTILE
def test_deal_correction_takes_any_input(hostile_client, played_game, data):
    with fresh_state():
        post = data.draw(deal_posts(played_game))
        number = data.draw(st.sampled_from([1, 2, 3, 10**6]))
        before = snapshot()
        response = hostile_client.post(reverse("games:edit", args=[played_game.pk, number]), post)
        check_answer(response, before)


@given(number=st.one_of(hostile_text, st.none()))
@HOSTILE
def test_undo_takes_any_number(hostile_client, game, number):
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(
            reverse("games:undo", args=[game.pk]), form_data({"number": number})
        )
        check_answer(response, before)


@pytest.fixture
def finished_game():
    game = start_game(2, rules=core.Rules(tables_per_team=1))
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 56, 1: 0}, declarer=seat(game, "Anu"), bid=28, trump="spades"),
    )
    game.refresh_from_db()
    assert game.is_finished
    return game


@pytest.mark.parametrize("number", ["1", "²", "١", "0", "2", "", "x", "1" * 40, "-1", "\x00"])
def test_resent_deal_on_a_finished_game_is_answered_not_a_500(
    hostile_client, finished_game, number
):
    before = snapshot()
    response = hostile_client.post(
        reverse("games:record", args=[finished_game.pk]), {"number": number, "declarer": "pass"}
    )
    check_answer(response, before)
    assert refusals(response)


@st.composite
def new_game_posts(draw):
    players = draw(st.sampled_from(["4", "6", "8", "6x3", "8x4"]) | hostile_text)
    data = {
        "label": draw(hostile_value("Friday table 1")),
        "players": players,
        "first_dealer": draw(hostile_value("random", "0", "1", "3", "7", "8")),
        "tables_per_team": draw(hostile_value("12", "1", "999")),
        "payout": draw(hostile_value("28-39: 1 2\n40-47: 2 3\n48-55: 3 4\n56-56: 4 5")),
        "double_factor": draw(hostile_value("2", "1", "64")),
        "redouble_factor": draw(hostile_value("4", "1", "256")),
        # The forms of play.
        "preset": draw(hostile_value("tables", "international", "kodi", "custom")),
        "scoring": draw(hostile_value("tables", "points")),
        "doubling_mode": draw(hostile_value("multiply", "add")),
        "all_pass": draw(hostile_value("yes", "no")),
        "kodi": draw(hostile_value("on")),
        "thani_made": draw(hostile_value("6", "0", "4000")),
        "thani_failed": draw(hostile_value("8", "0")),
        "deal_limit": draw(hostile_value("18", "1", "1000")),
        "small_deck": draw(hostile_value("on")),
    }
    plausible = ["Anu", "Biju", "Chitra", "Dev", "Esha", "Farid", "Gita", "Hari"]
    for team in range(1, 5):
        data[f"team{team}_name"] = draw(hostile_value(""))
        for partner in (1, 2, 3, 4):
            data[f"team{team}_player{partner}"] = draw(
                st.one_of(st.sampled_from(plausible), hostile_text)
            )
    return form_data(data)


@given(post=new_game_posts())
@HOSTILE
def test_new_game_form_takes_any_input(hostile_client, post):
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(reverse("games:new"), post)
        check_answer(response, before)


@given(
    query=st.dictionaries(
        st.sampled_from(["players", "label", "first_dealer", "preset", "apply", "kodi"]),
        hostile_text,
    )
)
@HOSTILE
def test_new_game_page_takes_any_query(hostile_client, query):
    response = hostile_client.get(reverse("games:new"), query)
    # A control character is refused before the page is built (club.web.unreadable).
    assert response.status_code == (200 if all(map(readable, query.values())) else 400)


@pytest.mark.parametrize("name", NAMES)
def test_unicode_and_hostile_names_in_a_new_game(hostile_client, name):
    post = {
        "label": f"Night {name}"[:120],
        "players": "4",
        "first_dealer": "0",
        "tables_per_team": "12",
        "payout": "28-39: 1 2\n40-47: 2 3\n48-55: 3 4\n56-56: 4 5",
        "double_factor": "2",
        "redouble_factor": "4",
        "team1_player1": name,
        "team1_player2": "Biju",
        "team2_player1": "Chitra",
        "team2_player2": "Dev",
        "team1_name": name,
    }
    before = snapshot()
    response = hostile_client.post(reverse("games:new"), post)
    accepted = check_answer(response, before)
    hidden = any(unicodedata.category(char) in {"Cc", "Cf"} for char in name.strip())
    if "\x00" in name or len(name) > 80 or not name.strip() or hidden:
        assert not accepted  # a right-to-left override makes a name look like another
    elif name.strip():
        assert accepted
        # Stored in its composed form (NFKC): "e" and three accents is "é" and two.
        assert Player.objects.filter(name=normal_name(name)).exists()


# --- Tournaments ----------------------------------------------------------------------------


@st.composite
def tournament_posts(draw):
    data = {
        "name": draw(hostile_value("Monsoon Cup")),
        "starts_on": draw(hostile_value("2025-07-05", "9999-12-31", "0001-01-01", "2025-02-30")),
        "ends_on": draw(hostile_value("", "2025-07-06", "2025-07-04")),
        "venue": draw(hostile_value("", "Club hall")),
        "tables_per_team": draw(hostile_value("12", "1", "999")),
        "payout": draw(hostile_value("28-39: 1 2\n40-47: 2 3\n48-55: 3 4\n56-56: 4 5")),
        "double_factor": draw(hostile_value("2")),
        "redouble_factor": draw(hostile_value("4")),
        "deal_limit": draw(hostile_value("", "1", "999")),
        "points_2": draw(hostile_value("3 1", "1 1", "0 0")),
        "points_3": draw(hostile_value("4 2 0")),
        "points_4": draw(hostile_value("5 3 1 0")),
        "require_confirmation": draw(hostile_value("on", "")),
    }
    return form_data(data)


@given(post=tournament_posts())
@HOSTILE
def test_new_tournament_form_takes_any_input(hostile_client, post):
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(reverse("tournaments:new"), post)
        check_answer(response, before)


@pytest.fixture
def tournament():
    return make_tournament(teams=5)


@given(
    first=hostile_value("Anu", "Zara"),
    second=hostile_value("Biju", "Yusuf"),
    name=hostile_value("", "New pair"),
)
@HOSTILE
def test_team_register_takes_any_input(hostile_client, tournament, first, second, name):
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(
            reverse("tournaments:register", args=[tournament.pk]),
            form_data({"first": first, "second": second, "name": name}),
        )
        check_answer(response, before)


@given(
    teams=st.one_of(
        hostile_value("Zara, Yusuf\nAces: Wilson, Vinod", "Anu, Zara", "x"),
        st.lists(hostile_value("Zara", "Yusuf"), min_size=1, max_size=5).map(
            lambda names: ", ".join(name for name in names if name is not None)
        ),
        st.text(max_size=300),
    )
)
@HOSTILE
def test_a_list_of_teams_takes_any_input(hostile_client, tournament, teams):
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(
            reverse("tournaments:register_list", args=[tournament.pk]),
            form_data({"teams": teams}),
        )
        check_answer(response, before)


@given(
    first=hostile_value("Anu", "Zara", "Chitra"),
    second=hostile_value("Biju", "Yusuf"),
    name=hostile_value("", "Renamed"),
)
@HOSTILE
def test_changing_a_team_takes_any_input(hostile_client, tournament, first, second, name):
    entry = tournament.entries.order_by("id").first()
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(
            reverse("tournaments:team_edit", args=[tournament.pk, entry.pk]),
            form_data({"first": first, "second": second, "name": name}),
        )
        check_answer(response, before)


@given(game_size=hostile_value("2", "3", "4", "5", "1"))
@HOSTILE
def test_draw_takes_any_game_size(hostile_client, tournament, game_size):
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(
            reverse("tournaments:draw", args=[tournament.pk]), form_data({"game_size": game_size})
        )
        assert response.status_code < 500
        if response.status_code == 302:
            # A draw is a proposal: a sitting row, no game yet.
            assert snapshot()["Game"] == before["Game"]
        else:
            check_answer(response, before)


@given(data=st.data())
@HOSTILE
def test_adjusting_a_draw_takes_any_input(hostile_client, tournament, data):
    sitting = tournament_services.propose_sitting(
        tournament=tournament, game_size=2, rng=random.Random(3)
    )
    entries = [str(pk) for pk in tournament.entries.values_list("pk", flat=True)]
    fields = [f"table{t}_seat{s}" for t in range(3) for s in range(2)]
    with fresh_state():
        post = {
            name: data.draw(hostile_value(*entries, "", "0", "-1", str(10**30)))
            for name in [*fields, "table9_seat9"]
        }
        post["byes"] = data.draw(st.lists(hostile_value(*entries), max_size=3))
        post = {key: value for key, value in post.items() if value is not None}
        post["byes"] = [value for value in post["byes"] if value is not None]
        before = snapshot()
        response = hostile_client.post(
            reverse("tournaments:adjust", args=[tournament.pk, sitting.number]), post
        )
        assert response.status_code < 500
        if response.status_code != 302:
            check_answer(response, before)
        else:
            sitting.refresh_from_db()
            assert sitting.status == Sitting.Status.PROPOSED
            assert snapshot()["Game"] == before["Game"]


@pytest.fixture
def final_tournament():
    tournament = make_tournament(name="Final Cup", teams=2)
    sitting = tournament_services.propose_sitting(
        tournament=tournament, game_size=2, rng=random.Random(1)
    )
    tournament_services.confirm_sitting(sitting=sitting, rng=random.Random(1))
    play_sitting(sitting)
    tournament_services.finish_tournament(tournament=tournament)
    return tournament_services.make_final(tournament=tournament)


@given(reason=hostile_value("A deal was entered for the wrong table."))
@HOSTILE
def test_reopen_takes_any_reason(hostile_client, final_tournament, reason):
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(
            reverse("tournaments:reopen", args=[final_tournament.pk]),
            form_data({"reason": reason}),
        )
        assert response.status_code < 500
        if response.status_code == 302:
            # Accepted: the reopening is recorded with its reason, nothing else written.
            after = snapshot()
            assert after["TournamentEvent"] == before["TournamentEvent"] + 1
            assert after["Game"] == before["Game"]
        else:
            check_answer(response, before)


# --- The register ----------------------------------------------------------------------------


@st.composite
def player_posts(draw):
    return form_data(
        {
            "name": draw(hostile_value("Zara", "Anu", "anu")),
            "nickname": draw(hostile_value("", "Z")),
            "member_number": draw(hostile_value("", "M-1", "M-2")),
            "active": draw(hostile_value("on", "")),
        }
    )


@pytest.fixture
def register():
    from club.leaderboards import services

    return [
        services.register_player(name="Anu", member_number="M-1"),
        services.register_player(name="Biju", member_number="M-2"),
    ]


@given(post=player_posts())
@HOSTILE
def test_new_player_takes_any_input(hostile_client, register, post):
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(reverse("leaderboards:player_new"), post)
        check_answer(response, before)


@given(post=player_posts())
@HOSTILE
def test_player_edit_takes_any_input(hostile_client, register, post):
    with fresh_state():
        before = snapshot()
        names = list(Player.objects.order_by("pk").values_list("name", "member_number"))
        response = hostile_client.post(
            reverse("leaderboards:player_edit", args=[register[1].pk]), post
        )
        accepted = check_answer(response, before)
        if refusals(response):
            assert list(Player.objects.order_by("pk").values_list("name", "member_number")) == (
                names
            )
        del accepted


@given(
    keep=hostile_value("1", "2", "-1", "0"),
    fold=hostile_value("1", "2", "999999999999999999999"),
)
@HOSTILE
def test_merge_takes_any_input(hostile_client, register, keep, fold):
    ids = {str(i + 1): str(player.pk) for i, player in enumerate(register)}
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(
            reverse("leaderboards:merge"),
            form_data({"keep": ids.get(keep, keep), "fold": ids.get(fold, fold)}),
        )
        assert response.status_code < 500
        if response.status_code == 302:
            assert snapshot()["Player"] == before["Player"] - 1
        else:
            check_answer(response, before)


@given(active=hostile_value("1", "0"))
@HOSTILE
def test_player_active_takes_any_input(hostile_client, register, active):
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(
            reverse("leaderboards:player_active", args=[register[0].pk]),
            form_data({"active": active}),
        )
        assert response.status_code == (302 if active is None or readable(active) else 400)
        assert snapshot() == before


CSV_CELLS = st.one_of(hostile_text, st.sampled_from(["yes", "no", "M-3", "Zara"]))


@st.composite
def csv_uploads(draw):
    header = draw(
        st.one_of(
            st.just("name,nickname,member_number,active"),
            st.lists(st.sampled_from(["name", "nickname", "member_number", "active", "x", ""])).map(
                ",".join
            ),
            hostile_text,
        )
    )
    rows = draw(
        st.lists(st.lists(CSV_CELLS, min_size=0, max_size=5), max_size=4).map(
            lambda rows: "\n".join(",".join(f'"{c.replace(chr(34), "")}"' for c in r) for r in rows)
        )
    )
    text = f"{header}\n{rows}\n"
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1-ish", "raw"]))
    if encoding == "raw":
        return draw(st.binary(max_size=300))
    if encoding == "latin-1-ish":
        return text.encode("utf-8", "surrogatepass") + b"\xff\xfe\xc3"
    return text.encode(encoding, "surrogatepass")


@given(content=csv_uploads())
@HOSTILE
def test_player_import_upload_takes_any_file(hostile_client, register, content):
    with fresh_state():
        before = snapshot()
        response = hostile_client.post(
            reverse("leaderboards:import"),
            {"file": SimpleUploadedFile("players.csv", content, content_type="text/csv")},
        )
        check_answer(response, before)


def test_player_import_refuses_nul_in_a_name_clearly(hostile_client):
    before = snapshot()
    response = hostile_client.post(
        reverse("leaderboards:import"),
        {"file": SimpleUploadedFile("p.csv", b"name,nickname\nA\x00nu,x\nBiju,\x00\n")},
    )
    assert not check_answer(response, before)
    assert any("Row 2" in message for message in refusals(response))


def test_player_import_refuses_an_oversized_upload(hostile_client):
    before = snapshot()
    content = b"name\n" + b"x" * 1_100_000
    response = hostile_client.post(
        reverse("leaderboards:import"), {"file": SimpleUploadedFile("p.csv", content)}
    )
    assert not check_answer(response, before)
    assert "The file is 1.1 MB; the most this page takes is 1 MB." in refusals(response)


def test_player_import_without_a_file(hostile_client):
    before = snapshot()
    response = hostile_client.post(reverse("leaderboards:import"), {"file": "not a file"})
    assert not check_answer(response, before)


# --- Scorer links ----------------------------------------------------------------------------


@pytest.fixture
def confirmed_game():
    """A game whose deals need another team's confirmation, with a deal 1 waiting."""
    game = start_game(2)
    Game.objects.filter(pk=game.pk).update(require_confirmation=True)
    game.refresh_from_db()
    first, second = links.issue_links(game=game)
    submit_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 30, 1: 26}, declarer=seat(game, "Anu"), bid=28, trump="spades"),
        link=first,
    )
    return game, first, second


@given(data=st.data(), htmx=st.booleans())
@HOSTILE
def test_scorer_send_takes_any_input(anonymous_client, game, data, htmx):
    (link,) = links.issue_links(game=game)
    with fresh_state():
        post = data.draw(deal_posts(game))
        before = snapshot()
        response = anonymous_client.post(
            reverse("games:scorer_send", args=[link.token]), post, **(HTMX if htmx else {})
        )
        check_answer(response, before)


@given(
    token=st.one_of(hostile_text.filter(lambda t: "/" not in t and t), st.just("first")),
    action=st.sampled_from(["games:scorer_confirm", "games:scorer_reject"]),
    number=st.one_of(st.integers(min_value=0, max_value=10**30), st.just(1)),
)
@HOSTILE
def test_scorer_answers_take_any_token_and_number(
    anonymous_client, confirmed_game, token, action, number
):
    game, first, second = confirmed_game
    token = {"first": first.token}.get(token, token)
    with fresh_state():
        before = snapshot()
        try:
            url = reverse(action, args=[token, number])
        except Exception:
            return  # a token the URL pattern cannot carry is never routed to the view
        response = anonymous_client.post(url)
        check_answer(response, before)


def test_scorer_confirm_by_the_other_team_is_accepted(anonymous_client, confirmed_game):
    game, first, second = confirmed_game
    before = snapshot()
    response = anonymous_client.post(reverse("games:scorer_confirm", args=[second.token, 1]))
    assert check_answer(response, before)
    assert game.rounds.count() == 1


# --- Public pages with hostile query strings ---------------------------------------------------


@pytest.fixture
def public_urls(game, final_tournament):
    sitting = final_tournament.sittings.get()
    player = Player.objects.first()
    (link,) = links.issue_links(game=game)
    return [
        reverse("games:list"),
        reverse("games:rules"),
        reverse("games:detail", args=[game.pk]),
        reverse("games:sheet", args=[game.pk]),
        reverse("games:scorer", args=[link.token]),
        reverse("tournaments:sitting_sheets", args=[final_tournament.pk, sitting.number]),
        reverse("tournaments:list"),
        reverse("tournaments:detail", args=[final_tournament.pk]),
        reverse("tournaments:live", args=[final_tournament.pk]),
        reverse("tournaments:projector", args=[final_tournament.pk]),
        reverse("tournaments:sitting", args=[final_tournament.pk, sitting.number]),
        reverse("tournaments:print_standings", args=[final_tournament.pk]),
        reverse("archive:export_json", args=[final_tournament.pk]),
        reverse("archive:standings_csv", args=[final_tournament.pk]),
        reverse("leaderboards:players"),
        reverse("leaderboards:player", args=[player.pk]),
        reverse("leaderboards:player_board"),
        reverse("leaderboards:team_board"),
    ]


QUERY_KEYS = [
    "game",
    "version",
    "q",
    "active",
    "start",
    "end",
    "tournament",
    "sort",
    "order",
    "page",
    "x",
]


@given(
    data=st.data(),
    query=st.dictionaries(st.sampled_from(QUERY_KEYS), hostile_text, max_size=5),
    htmx=st.booleans(),
)
@HOSTILE
def test_public_pages_take_any_query_string(anonymous_client, public_urls, data, query, htmx):
    url = data.draw(st.sampled_from(public_urls))
    response = anonymous_client.get(url, query, **(HTMX if htmx else {}))
    if all(map(readable, query.values())):
        assert response.status_code in (200, 204), (url, query, response.status_code)
    else:  # refused before the page is built; htmx is given the note to show
        assert response.status_code == (200 if htmx else 400), (url, query)
        assert "cannot be read" in response.text


@pytest.mark.parametrize("value", ["\x00", "%00", "a\x00b", "²", "1" * 5000])
def test_public_pages_take_nul_in_a_query_string(anonymous_client, public_urls, value):
    # A NUL is refused before the page is built (club.web.unreadable); the rest is read.
    expected = (400,) if "\x00" in value or "%00" in value else (200, 204)
    for url in public_urls:
        response = anonymous_client.get(
            f"{url}?q={value}&start={value}&sort={value}&game={value}&tournament={value}"
        )
        assert response.status_code in expected, url


@pytest.mark.parametrize("pk", ["0", str(2**31), str(2**63), "9" * 40])
def test_huge_ids_in_urls_are_not_found(anonymous_client, hostile_client, pk):
    for path in [
        f"/games/{pk}/",
        f"/games/{pk}/sheet/",
        f"/tournaments/{pk}/",
        f"/tournaments/{pk}/live/",
        f"/tournaments/{pk}/standings.csv",
        f"/tournaments/{pk}/sittings/{pk}/",
        f"/players/{pk}/",
        f"/s/x/deals/{pk}/confirm/",
    ]:
        method = anonymous_client.post if path.startswith("/s/") else anonymous_client.get
        assert method(path).status_code == 404, path
    for path in [
        f"/games/{pk}/deals/",
        f"/games/{pk}/deals/{pk}/edit/",
        f"/games/{pk}/links/",
        f"/tournaments/{pk}/teams/",
        f"/players/{pk}/edit/",
    ]:
        assert hostile_client.post(path, {"name": "x"}).status_code == 404, path


def test_board_with_a_huge_tournament_id(anonymous_client):
    for value in HUGE:
        response = anonymous_client.get(reverse("leaderboards:player_board"), {"tournament": value})
        assert response.status_code == 200


def test_dates_far_out_of_range_in_a_tournament(hostile_client):
    before = snapshot()
    response = hostile_client.post(
        reverse("tournaments:new"),
        {
            "name": "Far",
            "starts_on": "99999-01-01",
            "payout": "28-56: 1 2",
            "tables_per_team": "12",
            "double_factor": "2",
            "redouble_factor": "4",
            "points_2": "3 1",
            "points_3": "4 2 0",
            "points_4": "5 3 1 0",
        },
    )
    assert not check_answer(response, before)
    assert datetime.date.today()  # the form names the date field
    assert any("date" in message.lower() for message in refusals(response))
