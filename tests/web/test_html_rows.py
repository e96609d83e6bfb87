"""The rows written in Python (club.web.html and the tags that use it), with hostile names.

Each tag is called directly, as its template calls it, with names that try to
close an attribute, open a tag or run a script. What comes out must be the
tag's own markup only, with every name shown as the text it is.
"""

from __future__ import annotations

import dataclasses
import datetime
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from club.games.selectors import CardTeam, GameCard, game_page
from club.games.services import (
    Deal,
    TeamEntry,
    create_game,
    edit_deal,
    load_seating,
    record_deal,
)
from club.games.templatetags import club_tags
from club.leaderboards.night import NightGame
from club.leaderboards.night_seats import NightGameOf, NightSeat
from club.leaderboards.profile import GameLine, Named
from club.leaderboards.selectors import FORM_FIGURES, Filters, board_figures
from club.leaderboards.templatetags import board_tags
from club.scoring.review import DealSeen, count_contracts
from club.scoring.rules import Doubling
from club.tournaments.templatetags import tournament_tags
from club.web.html import safe_join, text

HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "' onmouseover='alert(1)",
    "Anu & <b>Biju</b>",
    "&lt;already escaped&gt;",
]
ALLOWED = {
    "tr": {"class", "data-kind"},
    "td": {"class"},
    "th": {"class", "scope"},
    "a": {"href", "class"},
    "span": {"class", "title", "aria-hidden"},
    "b": set(),
    "div": {"class"},
    "li": {"class"},
    "ul": {"class"},
    "strong": set(),
}


class Markup(HTMLParser):
    """The elements and the text of a piece of HTML, as a browser would read them."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.text = ""
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text += data


def only_own_markup(html: str, names) -> Markup:
    markup = Markup(html)
    for tag, attrs in markup.elements:
        assert tag in ALLOWED, (tag, html)
        assert set(attrs) <= ALLOWED[tag], (tag, attrs)
        if "href" in attrs:
            assert attrs["href"].startswith("/"), attrs
    for name in names:
        assert name in markup.text  # shown as written, not read as markup
    return markup


@pytest.mark.parametrize("value", HOSTILE)
def test_text_escapes_as_the_templates_autoescape_does(value):
    from django.template import engines

    template = engines["django"].from_string("{{ value }}")
    assert text(value) == template.render({"value": value})
    assert text(mark_safe("<b>kept</b>")) == "<b>kept</b>"
    assert text(42) == "42"


def test_safe_join_makes_one_safe_string_of_the_lines():
    joined = safe_join([f"<li>{text(name)}</li>" for name in HOSTILE], "\n")
    assert isinstance(joined, SafeString)
    assert joined.count("<li>") == len(HOSTILE)
    only_own_markup(joined, HOSTILE)


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "ml"])
def test_the_deals_and_the_history_of_a_game_with_hostile_names(language):
    game = create_game(
        label=HOSTILE[0],
        teams=[
            TeamEntry(HOSTILE[1], HOSTILE[2], name=HOSTILE[3]),
            TeamEntry(HOSTILE[4], "Dev"),
        ],
        first_dealer=0,
    )
    declarer = load_seating(game).players[1]
    entry = Deal(
        points={0: 20, 1: 36},
        declarer=1,  # that player's seat
        bid=32,
        trump="spades",
        doubling="double",
    )
    record_deal(game=game, number=1, entry=entry)
    edit_deal(game=game, number=1, entry=dataclasses.replace(entry, bid=30))
    page = game_page(game)
    with translation.override(language):
        deals = club_tags.deal_lines(page["deal_rows"], game, organiser=True)
        history = club_tags.change_lines(page["changes"])
    names = [declarer.name, page["deal_rows"][0].round.dealer.name]  # who bid, who dealt
    assert set(names) <= set(HOSTILE)
    markup = only_own_markup(deals, names)
    assert [tag for tag, _attrs in markup.elements].count("tr") == 1
    only_own_markup(history, [declarer.name, HOSTILE[3]])  # who bid, a team


def test_a_sittings_games_and_the_standings_with_hostile_names():
    games = [
        {
            "playing": index == 0,
            "url": f"/games/{index + 1}/",
            "table_label": name,
            "status": "in_progress",
            "status_label": name,
            "teams": [(name, 5, None, False), ("Chitra & Dev", 0, 2, True)],
        }
        for index, name in enumerate(HOSTILE)
    ]
    only_own_markup(tournament_tags.game_lines(games), HOSTILE)
    standings = [
        {
            "place": index + 1,
            "shared": False,
            "team": name,
            "players": [name, "Biju", name],
            "points": "3",
            "games": 2,
            "won": 1,
            "net": 4 - index,
            "made_percent": None if index else 50,
            "made": 1,
            "declared": 2,
            "byes": 0,
        }
        for index, name in enumerate(HOSTILE)
    ]
    markup = only_own_markup(tournament_tags.standing_lines(standings), HOSTILE)
    assert [tag for tag, _attrs in markup.elements].count("tr") == len(HOSTILE)


@pytest.mark.parametrize("kind", ["players", "teams"])
def test_leaderboard_rows_and_a_profiles_games_with_hostile_names(kind):
    players = [SimpleNamespace(pk=1, name=HOSTILE[1]), SimpleNamespace(pk=2, name=HOSTILE[2])]
    board = [
        SimpleNamespace(
            rank=index + 1,
            subject=SimpleNamespace(pk=index + 1),
            name=name,
            players=players,
            rating=None if index else 1500.4,
            played=3,
            won=1,
            win_percent=33,
            declared=2,
            made=1,
            doubles_won=0,
            doubles_lost=1,
            redoubles_won=0,
            redoubles_lost=0,
            tables_net=-2,
            points_for=5,
            points_against=7,
            score_difference=-2,
            sessions_won=0,
            kodis_taken=1,
            kodis_given=0,
            biggest_bid=40,
        )
        for index, name in enumerate(HOSTILE)
    ]
    expected = HOSTILE + ([HOSTILE[1], HOSTILE[2]] if kind == "teams" else [])
    shown = board_figures(Filters(), list(FORM_FIGURES))
    only_own_markup(board_tags.board_rows(board, kind, shown), expected)
    finished = datetime.datetime(2026, 11, 30, 20, 0, tzinfo=datetime.UTC)
    lines = [
        GameLine(
            game_id=index + 1,
            label=f"{name} · sitting 2 · Table 3",
            status="finished" if index % 2 else "in_progress",
            scoring="points" if index % 3 else "tables",
            finished_at=finished if index % 2 else None,
            won=bool(index % 2),
            team=name,
            place=1 if index % 2 else None,
            tables=index,
            score=index,
            partners=[Named(2, HOSTILE[2])],
            teams=2,
            rating_delta=None if index == 2 else 3.6,
        )
        for index, name in enumerate(HOSTILE)
    ]
    only_own_markup(board_tags.profile_games(lines), HOSTILE)


def test_the_home_pages_game_cards_with_hostile_names():
    cards = []
    for index, name in enumerate(HOSTILE):
        teams = [
            CardTeam(pk=10 * index + seat, tables=t, score=0, name=n)
            for seat, (n, t) in enumerate([(name, 0), (HOSTILE[0], 4)])
        ]
        game = SimpleNamespace(
            pk=index + 1,
            label=name,
            title=name,
            deals_played=index,
            scoring="tables",
            winner_id=teams[1].pk if index % 2 else None,
        )
        cards.append(GameCard(game, teams))  # type: ignore[arg-type]  # a game's fields
    markup = only_own_markup(club_tags.game_cards(cards), [*HOSTILE, HOSTILE[0]])
    assert [tag for tag, _attrs in markup.elements].count("a") == len(HOSTILE)


def test_a_nights_games_with_hostile_names():
    """The night in review's games (board_tags.night_games): every name shown as written,
    links to the game and the partners, and only the markup the list's own."""
    lines = []
    for index, name in enumerate(HOSTILE):
        seat = NightSeat(index, index + 1, name, 1, 0, 0, [Named(1, "Anu"), Named(2, name)])
        them = NightSeat(100 + index, index + 1, name, 2, 0, 0, [Named(3, name), Named(4, "Dev")])
        game = NightGameOf(index + 1, name, 1, "finished", "tables", False, seat.pk)
        lines.append(
            NightGame(
                seat=seat,
                game=game,
                partners=[Named(2, name)],
                opponents=[them],
                form="tables",
                rating_delta=None if index % 2 else -3.4,
                tables_won=4,
                tables_lost=1,
            )
        )
    markup = only_own_markup(board_tags.night_games(lines), HOSTILE)
    links = [attrs["href"] for tag, attrs in markup.elements if tag == "a"]
    assert links == [
        href for index in range(len(HOSTILE)) for href in (f"/games/{index + 1}/", "/players/2/")
    ]
    assert markup.text.count("+3 tables") == len(HOSTILE)
    assert markup.text.count("rating -3") == len(HOSTILE[::2])


def test_a_nights_contracts_by_bid():
    """Every band of bids, empty or not; a thani or an all-pass row only when a deal was
    one; each row keyed by its kind for the page's style and its tests."""
    plain = {"doubling": Doubling.NONE, "thani": False, "all_pass": False}
    seen = [
        DealSeen(ours=True, bid=30, made=True, **plain),
        DealSeen(ours=False, bid=56, made=False, **plain),
    ]
    markup = only_own_markup(board_tags.night_contracts(count_contracts(seen).rows), [])
    kinds = [attrs["data-kind"] for tag, attrs in markup.elements if tag == "tr"]
    assert kinds == ["band-28", "band-40", "band-48", "band-56"]
    assert "28–39" in markup.text and "Thani" not in markup.text
    thani = DealSeen(
        ours=True, bid=40, made=True, doubling=Doubling.NONE, thani=True, all_pass=False
    )
    rows = Markup(board_tags.night_contracts(count_contracts([*seen, thani]).rows))
    assert [attrs["data-kind"] for tag, attrs in rows.elements if tag == "tr"][-1] == "thani"
