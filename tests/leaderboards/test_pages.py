"""Profiles, permissions and query counts of the public pages."""

import datetime

import pytest
from django.core.cache import caches
from django.urls import reverse

from club.games.models import Player
from club.games.services import Deal, TeamEntry, create_game
from club.leaderboards import selectors
from club.leaderboards.profile import PROFILE_GAMES
from club.leaderboards.services import register_player
from club.leaderboards.views import OFFERED_TOURNAMENTS
from club.scoring import rules as core
from club.tournaments.models import Tournament
from tests.factories import seat, start_game

from .conftest import play


def test_profile_shows_details_rating_form_history_and_games(client, club):
    Player.objects.filter(name="Anu").update(nickname="Ammu", member_number="M-1")
    anu = Player.objects.get(name="Anu")
    response = client.get(anu.get_absolute_url())
    assert response.status_code == 200
    context = response.context
    # Newest first: C (2nd of 3), B (won), A (won); D is in progress and has no badge.
    assert context["form"] == ["2", "W", "W"]
    lines = context["games"]
    assert [line.label for line in lines] == ["Game D", "Game C", "Game B", "Game A"]
    assert {partner.name for line in lines for partner in line.partners} == {"Biju"}
    assert [line.tables for line in lines] == [20, 0, 8, 8]
    assert [line.badge for line in lines] == ["", "2", "W", "W"]
    figures = context["figures"]
    assert (figures.played, figures.won, figures.tables_net, figures.biggest_bid) == (3, 2, 6, 30)
    assert context["rating"].games == 3
    assert context["chart"]["points"].count(",") == 4  # the start and three games
    html = response.content.decode()
    for text in ("Ammu", "M-1", "<polyline", "Game C", "Biju"):
        assert text in html
    assert "style=" not in html  # the Content Security Policy forbids inline styles
    assert "Edit" not in html  # not for the public


def test_form_badges_for_last_places():
    from club.leaderboards.profile import form_badge

    assert [form_badge(p, 4, won=p == 1) for p in (1, 2, 3, 4)] == ["W", "2", "3", "L"]
    assert [form_badge(p, 2, won=p == 1) for p in (1, 2)] == ["W", "L"]
    assert form_badge(None, 2, won=False) == ""


def test_profile_of_a_player_without_games(client, db):
    player = register_player(name="Nobody")
    response = client.get(player.get_absolute_url())
    assert response.status_code == 200
    assert "No games yet." in response.content.decode()
    assert client.get(reverse("leaderboards:player", args=[999999])).status_code == 404


@pytest.mark.django_db
def test_the_page_shows_20_games_a_page_and_the_api_50(client):
    for _ in range(22):
        start_game(2)
    anu = Player.objects.get(name="Anu")
    first = client.get(anu.get_absolute_url()).content.decode()
    second = client.get(anu.get_absolute_url(), {"page": 2}).content.decode()
    assert first.count('<div class="profile-game">') == PROFILE_GAMES == 20
    assert second.count('<div class="profile-game">') == 2
    answer = client.get(f"/api/v1/players/{anu.pk}/").json()
    assert (len(answer["games"]), answer["games_count"]) == (22, 22)  # the API's 50 a page


READ = [
    ("leaderboards:players", []),
    ("leaderboards:player_board", []),
    ("leaderboards:team_board", []),
]
WRITE_GET = ["leaderboards:player_new", "leaderboards:merge", "leaderboards:import"]


@pytest.mark.django_db
def test_anyone_can_read(client):
    player = register_player(name="Anu")  # one of the club's players
    for name, args in READ:
        assert client.get(reverse(name, args=args)).status_code == 200
    assert client.get(player.get_absolute_url()).status_code == 200


@pytest.mark.django_db
def _refused(response, who: str) -> bool:
    """A visitor is sent to log in; someone logged in who organises nothing is told so."""
    if who == "anonymous":
        return response.status_code == 302 and "/accounts/login/" in response.url
    return response.status_code == 403 and "who does not organise" in response.content.decode()


def test_anonymous_and_players_cannot_write(client, django_user_model):
    anu = Player.objects.create(name="Anu")
    biju = Player.objects.create(name="Biju")
    writes = [
        (reverse("leaderboards:player_new"), {"name": "Eve"}),
        (reverse("leaderboards:player_edit", args=[anu.pk]), {"name": "Eve"}),
        (reverse("leaderboards:player_active", args=[anu.pk]), {"active": "0"}),
        (reverse("leaderboards:merge"), {"keep": anu.pk, "fold": biju.pk}),
        (reverse("leaderboards:import"), {}),
    ]
    member = django_user_model.objects.create_user(username="member", password="pw-member-1")
    for who in ("anonymous", "member"):
        if who == "member":
            client.force_login(member)
        for name in WRITE_GET:
            response = client.get(reverse(name))
            assert _refused(response, who)
        for url, data in writes:
            response = client.post(url, data)
            assert _refused(response, who), url
    assert sorted(Player.objects.values_list("name", "active")) == [("Anu", True), ("Biju", True)]
    # The public pages offer no write links.
    html = client.get(reverse("leaderboards:players")).content.decode()
    assert reverse("leaderboards:player_new") not in html


def test_organiser_sees_write_links(organiser_client, db):
    html = organiser_client.get(reverse("leaderboards:players")).content.decode()
    assert reverse("leaderboards:player_new") in html
    assert reverse("leaderboards:merge") in html


def _more_games(count: int) -> None:
    """``count`` more finished games between new pairs, three deals each (4 tables:
    2/6 after a failed 30, 6/2 after a made doubled 40, 8/0 after a failed 28)."""
    for n in range(count):
        game = create_game(
            label=f"Extra {n}",
            teams=[TeamEntry(f"P{n}a", f"P{n}b"), TeamEntry(f"P{n}c", f"P{n}d")],
            first_dealer=0,
            rules=core.Rules(tables_per_team=4),
        )
        play(
            game,
            Deal(points={0: 20, 1: 36}, declarer=seat(game, f"P{n}a"), bid=30, trump="clubs"),
            Deal(
                points={0: 40, 1: 16},
                declarer=seat(game, f"P{n}b"),
                bid=40,
                trump="hearts",
                doubling="double",
            ),
            Deal(points={0: 36, 1: 20}, declarer=seat(game, f"P{n}d"), bid=28, trump="spades"),
        )
        assert game.is_finished


# The figures the harness measures (python -m benchmarks), the same at every preset.
# A public board or profile rendered: its key first (club.web.pages: its live token and
# the club's), then the page; read again, only the key (KEPT).
QUERIES = {
    # key (2: its live token, read once for the key and the page, and the club's), the
    # tournaments for the filter, count, page, forms of play played; a team board then
    # its page's players' names, by key
    "player leaderboard": 6,
    "team leaderboard": 7,
    "player leaderboard, one tournament": 6,
    "register": 2,  # work owed to the boards (none), one page with the register's count
    # key (3: the player with the latest change to their games, the ratings' state, which
    # does the work owed first, and the club's token), then the page with the player's
    # totals and the forms they have played (one query), their ratings, a page of their
    # games with its count and their partners' names by key, the chart's rating changes,
    # the tournaments being played now (a player of one club: no query of their clubs'
    # figures, which the page shows only beside another club's), the club's latest seasons
    # of players (at most three, their tables made only when there are some), and the
    # player's latest night in review (club.leaderboards.night: the latest games, which
    # hold the night, the one before it and the night's games; their seats, their players,
    # the player's seats' moves, their deals counted by kind: the night's rating changes are
    # the chart's). Seats read their players by key, not by four joins (seat_players).
    # Rendered after another's game, the player's own parts kept: 5 (test_own_parts.py).
    "player profile": 15,
}
KEPT = {"player leaderboard": 2, "player profile": 3}


@pytest.mark.parametrize("extra", [0, 8])
def test_query_counts_do_not_grow_with_the_club(client, club, extra, django_assert_num_queries):
    _more_games(extra)
    anu = Player.objects.get(name="Anu")
    cup = Tournament.objects.create(name="Cup", starts_on=datetime.date(2025, 1, 1))
    pages = {
        "player leaderboard": reverse("leaderboards:player_board"),
        "team leaderboard": reverse("leaderboards:team_board") + "?sort=made",
        "player leaderboard, one tournament": reverse("leaderboards:player_board")
        + f"?tournament={cup.pk}&start=2025-01-01",
        "register": reverse("leaderboards:players"),
        "player profile": anu.get_absolute_url(),
    }
    for name, url in pages.items():
        with django_assert_num_queries(QUERIES[name]):
            response = client.get(url)
        assert response.status_code == 200
        if name in KEPT:
            with django_assert_num_queries(KEPT[name]):
                again = client.get(url)
            assert again.content == response.content
    caches["pages"].clear()
    board = client.get(reverse("leaderboards:player_board")).context["board"]
    assert board.total == 6 + 4 * extra
    assert len(board.rows) == min(board.total, selectors.PER_PAGE)


def test_the_boards_filter_offers_the_newest_tournaments_and_the_one_chosen(client, db):
    """Not every tournament of the club's history: an older one comes from its own page."""
    cups = [
        Tournament.objects.create(
            name=f"Cup {day:02d}", starts_on=datetime.date(2025, 1, 1) + datetime.timedelta(day)
        )
        for day in range(OFFERED_TOURNAMENTS + 5)
    ]
    board = reverse("leaderboards:player_board")
    offered = client.get(board).context["form"].fields["tournament"].choices
    assert [name for _pk, name in offered[1:]] == [c.name for c in cups[::-1][:OFFERED_TOURNAMENTS]]
    oldest = cups[0]
    response = client.get(f"{board}?tournament={oldest.pk}")
    form = response.context["form"]
    assert form.is_valid() and form.cleaned_data["tournament"] == oldest.pk
    assert (oldest.pk, oldest.name) in form.fields["tournament"].choices
    page = client.get(reverse("tournaments:detail", args=[oldest.pk])).content.decode()
    assert f"{board}?tournament={oldest.pk}" in page
    assert f"{reverse('leaderboards:team_board')}?tournament={oldest.pk}" in page
