"""The game pages through Django's test client: every form, its errors, and the htmx fragments."""

import re
from html import escape

import pytest
from django.urls import reverse

from club.games.models import Change, Game, Round
from club.games.services import Deal, load_seating, record_deal
from club.scoring import rules as core
from tests.factories import deal_form, start_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def game():
    return start_game(2, first_dealer=0)


@pytest.fixture
def seats(game):
    # Seats in play order: Anu, Chitra, Biju, Dev.
    return load_seating(game).players


class TestGameList:
    def test_lists_games_in_progress_and_finished(self, client, game):
        response = client.get(reverse("games:list"))
        assert response.status_code == 200
        assert game.label in response.text
        assert "No game has finished yet." in response.text

    def test_list_query_count_does_not_grow_with_games(self, client, django_assert_num_queries):
        # The kept page's key (the newest change of any game, the club's token); then the
        # finished: their count, a page; those being played; every card's teams, of both
        # lists at once. Read again, the kept page: its key only.
        for _ in range(5):
            start_game(3)
        finished(2)
        with django_assert_num_queries(6):
            client.get(reverse("games:list"))
        finished(40)
        with django_assert_num_queries(6):
            page = client.get(reverse("games:list"))
        assert page.context["in_progress_count"] == 5
        assert all(len(card.teams) == 3 for card in page.context["in_progress"])
        assert all(len(card.teams) == 2 for card in page.context["finished"])
        won = page.context["finished"][0]
        assert won.winner is not None and won.winner.pk == won.game.winner_id
        assert f"{escape(won.winner.name)} won" in page.text
        with django_assert_num_queries(2):
            client.get(reverse("games:list"))

    def test_more_games_being_played_than_shown_are_counted(
        self, client, monkeypatch, django_assert_num_queries
    ):
        """Past the games the page shows, their number is counted (one query more) and
        said; the newest are the ones shown."""
        monkeypatch.setattr("club.games.selectors.IN_PROGRESS_SHOWN", 3)
        games = [start_game(2) for _ in range(5)]
        with django_assert_num_queries(7):
            page = client.get(reverse("games:list"))
        assert page.context["in_progress_count"] == 5
        assert [card.game.pk for card in page.context["in_progress"]] == [
            game.pk for game in reversed(games[2:])
        ]
        assert "The 3 newest of the 5 games being played." in page.text
        for game in games[:2]:
            game.delete()
        with django_assert_num_queries(7):  # as many as are shown: counted, none more
            page = client.get(reverse("games:list"))
        assert page.context["in_progress_count"] == 3
        assert "games being played." not in page.text

    def test_finished_games_are_paged_latest_first_and_a_bad_page_reads_the_first(self, client):
        games = finished(31)
        first = client.get(reverse("games:list")).text
        assert games[-1].label in first and games[0].label not in first
        assert "Page 1 of 2 (31 in all)" in first and 'href="?page=2"' in first
        second = client.get(reverse("games:list"), {"page": "2"}).text
        assert games[0].label in second and "In progress" not in second
        assert 'href="?page=1"' in second
        for bad in ("0", "-3", "two", "99999999"):
            page = client.get(reverse("games:list"), {"page": bad})
            assert page.status_code == 200
            assert ("Page 1 of 2" in page.text) or ("Page 2 of 2" in page.text)


def finished(count: int) -> list:
    """``count`` games of one table a team, each won in its one deal, oldest first."""
    games = []
    for _ in range(count):
        game = start_game(2, rules=core.Rules(tables_per_team=1))
        record_deal(
            game=game,
            number=1,
            entry=Deal(points={0: 56, 1: 0}, declarer=0, bid=28, trump="spades"),
        )
        games.append(game)
    return games


class TestNewGame:
    def valid(self, **overrides):
        data = {
            "label": "Friday table 1",
            "players": "4",
            "first_dealer": "2",
            "team1_player1": "Anu",
            "team1_player2": "Biju",
            "team2_player1": "Chitra",
            "team2_player2": "Dev",
            "tables_per_team": "12",
            "payout": "28-39: 1 2\n40-47: 2 3\n48-55: 3 4\n56-56: 4 5",
            "double_factor": "2",
            "redouble_factor": "4",
        }
        data.update(overrides)
        return data

    def test_needs_an_organiser(self, client):
        response = client.get(reverse("games:new"))
        assert response.status_code == 302
        assert reverse("login") in response["Location"]

    def test_form_shows_team_rows_for_the_player_count(self, organiser_client):
        response = organiser_client.get(reverse("games:new"), {"players": "8"})
        assert response.status_code == 200
        assert 'name="team4_player2"' in response.text
        response = organiser_client.get(reverse("games:new"), {"players": "4"})
        assert 'name="team3_player1"' not in response.text

    def test_starts_a_game_with_the_chosen_dealer(self, organiser_client, organiser):
        response = organiser_client.post(reverse("games:new"), self.valid())
        game = Game.objects.get(label="Friday table 1")
        assert response.status_code == 302
        assert response["Location"] == game.get_absolute_url()
        assert game.first_dealer_seat == 2  # Biju
        assert game.created_by == organiser
        assert [t.tables for t in game.teams.order_by("position")] == [12, 12]

    def test_random_dealer_and_custom_settings(self, organiser_client):
        organiser_client.post(
            reverse("games:new"),
            self.valid(
                first_dealer="random",
                tables_per_team="5",
                double_factor="3",
                payout="28-47: 1 2\n48-56: 2 3",
            ),
        )
        game = Game.objects.get()
        assert 0 <= game.first_dealer_seat < 4
        assert game.tables_per_team == 5
        assert game.double_factor == 3
        assert game.payout_bands == [[28, 47, 1, 2], [48, 56, 2, 3]]

    @pytest.mark.parametrize(
        ("overrides", "message"),
        [
            ({"team2_player1": "anu"}, "anu is named twice at this game (team 1 and team 2)."),
            ({"team2_player2": ""}, "Team 2 needs two players."),
            ({"label": ""}, "This field is required."),
            (
                {"payout": "28-39: 1 2\n41-56: 2 3"},
                "The payout bands must cover every bid from 28 to 56 in order.",
            ),
            ({"payout": "28 to 56 one two"}, "Line 1 of the payout schedule needs four whole"),
            ({"tables_per_team": "0"}, "Enter a whole number from 1 to 1000."),
            ({"first_dealer": "7"}, "Choose a seated player or draw at random."),
        ],
    )
    def test_refuses_bad_input_and_saves_nothing(self, organiser_client, overrides, message):
        response = organiser_client.post(reverse("games:new"), self.valid(**overrides))
        assert response.status_code == 200
        assert message in response.text
        assert Game.objects.count() == 0

    def test_refuses_a_label_in_use(self, organiser_client, game):
        response = organiser_client.post(reverse("games:new"), self.valid(label=game.label))
        assert f"There is already a game called “{game.label}”." in response.text
        assert Game.objects.count() == 1


class TestGamePage:
    def test_anonymous_sees_scores_but_no_form(self, client, game):
        response = client.get(game.get_absolute_url())
        assert response.status_code == 200
        assert "Record deal 1" not in response.text
        assert "<b>Anu</b> deals; <b>Chitra</b> bids first." in response.text
        assert "take the 2–8 out of both packs, leaving 48 cards, 12 each" in response.text

    def test_organiser_sees_the_deal_form(self, organiser_client, game):
        response = organiser_client.get(game.get_absolute_url())
        assert "Record deal 1" in response.text
        assert 'name="points_0"' in response.text and 'name="points_1"' in response.text

    def test_htmx_request_gets_the_live_fragment_only(self, client, game):
        response = client.get(game.get_absolute_url(), headers={"HX-Request": "true"})
        assert response.status_code == 200
        assert response.text.lstrip().startswith('<div id="live"')
        assert "<html" not in response.text

    def test_query_count_is_flat_as_deals_grow(
        self, client, game, seats, django_assert_max_num_queries
    ):
        for number in range(1, 11):
            record_deal(
                game=game,
                number=number,
                entry=Deal(points={0: 28, 1: 28}, declarer=number % 2, bid=28, trump="spades"),
            )
        with django_assert_max_num_queries(10):
            client.get(game.get_absolute_url())

    def test_unknown_game_is_404(self, client):
        assert client.get(reverse("games:detail", args=[999])).status_code == 404


class TestRecordDeal:
    def url(self, game):
        return reverse("games:record", args=[game.pk])

    def test_anonymous_cannot_record(self, client, game):
        response = client.post(self.url(game), deal_form(1, t0=30, t1=26))
        assert response.status_code == 302
        assert Round.objects.count() == 0

    def test_records_and_redirects_to_the_settlement(self, organiser_client, game, seats):
        response = organiser_client.post(
            self.url(game),
            deal_form(
                1, declarer=seats[1].pk, bid=32, trump="hearts", doubling="double", t0=20, t1=36
            ),
        )
        assert response.status_code == 302
        assert response["Location"].endswith("#settlement")
        page = organiser_client.get(game.get_absolute_url()).text
        # Chitra & Dev made 32 doubled: 1 table x 2 from Anu & Biju.
        assert 'data-team-tables="0">10<' in page
        assert 'data-team-tables="1">14<' in page
        assert "Record deal 2" in page

    def test_htmx_post_returns_the_settled_fragment(self, organiser_client, game):
        response = organiser_client.post(
            self.url(game), deal_form(1, t0=20, t1=36), headers={"HX-Request": "true"}
        )
        assert response.status_code == 200
        text = response.text
        assert text.lstrip().startswith('<div id="live"')
        # All passed, Anu dealt: Chitra bids first, so Chitra & Dev are held to 28 and made it.
        assert "All passed: Chitra &amp; Dev to make 28, no trumps" in text
        assert 'data-team-tables="1">13<' in text
        assert "Record deal 2" in text

    @pytest.mark.parametrize(
        ("data", "message"),
        [
            (
                deal_form(1, declarer="X", bid=32, trump="hearts", t0=20, t1=36),
                "The declarer must be one of the players seated.",
            ),
            (
                deal_form(1, declarer="SEAT1", bid=27, trump="hearts", t0=20, t1=36),
                "A bid must be from 28 to 56; 27 is not.",
            ),
            (
                deal_form(1, declarer="SEAT1", bid=57, trump="hearts", t0=20, t1=36),
                "A bid must be from 28 to 56; 57 is not.",
            ),
            (
                deal_form(1, declarer="SEAT1", bid="", trump="hearts", t0=20, t1=36),
                "Enter the bid, from 28 to 56.",
            ),
            (
                deal_form(1, declarer="SEAT1", bid=30, trump="", t0=20, t1=36),
                "Choose the trumps, or no trumps.",
            ),
            (
                deal_form(1, declarer="SEAT1", bid=30, trump="jokers", t0=20, t1=36),
                "Choose the trumps, or no trumps.",
            ),
            (
                deal_form(1, declarer="SEAT1", bid=30, trump="hearts", t0=20, t1=37),
                "The piles add up to 57; they must add up to exactly 56.",
            ),
            (
                deal_form(1, declarer="SEAT1", bid=30, trump="hearts", t0=-1, t1=57),
                "is from 0 to 56 card points.",
            ),
            (
                deal_form(1, declarer="SEAT1", bid=30, trump="hearts", t0="2.5", t1=36),
                "The pile of Anu &amp; Biju must be a whole number.",
            ),
            (
                deal_form(1, declarer="SEAT1", bid=30, trump="hearts", t0=56),
                "Enter the pile of Chitra &amp; Dev.",
            ),
            (
                deal_form(1, doubling="double", t0=20, t1=36),
                "A deal where everyone passed cannot be doubled or redoubled.",
            ),
            (
                deal_form(
                    1, declarer="SEAT1", bid=30, trump="hearts", doubling="triple", t0=20, t1=36
                ),
                "Choose not doubled, doubled or redoubled.",
            ),
            (
                deal_form(5, declarer="SEAT1", bid=30, trump="hearts", t0=20, t1=36),
                "The next deal to record is deal 1, not deal 5.",
            ),
            (deal_form("x", t0=20, t1=36), "Enter a whole number."),
        ],
    )
    def test_refuses_bad_input_and_saves_nothing(
        self, organiser_client, game, seats, data, message
    ):
        if data["declarer"] == "SEAT1":
            data["declarer"] = seats[1].pk
        response = organiser_client.post(self.url(game), data)
        assert response.status_code == 200
        assert message in response.text
        assert Round.objects.count() == 0
        assert Change.objects.count() == 0

    def test_declarer_of_another_game_is_refused(self, organiser_client, game):
        other = start_game(3, label="Other table")
        stranger = load_seating(other).players[2]  # Esha, not at this game
        response = organiser_client.post(
            self.url(game), deal_form(1, declarer=stranger.pk, bid=30, trump="clubs", t0=20, t1=36)
        )
        assert "The declarer must be one of the players seated." in response.text
        assert Round.objects.count() == 0

    def test_a_resent_deal_is_recorded_once(self, organiser_client, game, seats):
        data = deal_form(1, declarer=seats[1].pk, bid=32, trump="hearts", t0=20, t1=36)
        organiser_client.post(self.url(game), data)
        response = organiser_client.post(self.url(game), data)
        assert response.status_code == 200
        assert "Deal 1 is already recorded:" in response.text
        assert "Chitra bid 32 Hearts" in response.text
        assert Round.objects.filter(game=game).count() == 1

    def test_no_deal_after_the_game_is_won(self, organiser_client, seats):
        from club.games.services import TeamEntry, create_game
        from club.scoring import rules as core

        short = create_game(
            label="Short game",
            teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
            first_dealer=0,
            rules=core.Rules(tables_per_team=1),
        )
        record_deal(
            game=short,
            number=1,
            entry=Deal(points={0: 0, 1: 56}, declarer=1, bid=30, trump="clubs"),
        )
        short.refresh_from_db()
        assert short.is_finished
        page = organiser_client.get(short.get_absolute_url()).text
        assert "Chitra &amp; Dev won the game" in page
        assert "Record deal" not in page
        response = organiser_client.post(
            reverse("games:record", args=[short.pk]), deal_form(2, t0=20, t1=36), follow=True
        )
        assert "The game is over: Chitra &amp; Dev won. No more deals can be recorded." in (
            response.text
        )
        assert short.rounds.count() == 1


class TestCorrections:
    @pytest.fixture
    def played(self, game, seats):
        record_deal(
            game=game,
            number=1,
            entry=Deal(points={0: 20, 1: 36}, declarer=1, bid=32, trump="hearts"),
        )
        record_deal(
            game=game,
            number=2,
            entry=Deal(points={0: 40, 1: 16}, declarer=2, bid=40, trump="spades"),
        )
        return game

    def test_edit_form_is_prefilled(self, organiser_client, played, seats):
        response = organiser_client.get(reverse("games:edit", args=[played.pk, 1]))
        assert response.status_code == 200
        assert f'name="declarer" value="{seats[1].pk}" data-team="1" checked>' in response.text
        assert 'name="bid" value="32" checked>' in response.text
        assert 'name="trump" value="hearts" checked>' in response.text

    def test_correction_replays_the_rest(self, organiser_client, played, seats, organiser):
        response = organiser_client.post(
            reverse("games:edit", args=[played.pk, 1]),
            deal_form(
                1, declarer=seats[1].pk, bid=32, trump="hearts", doubling="redouble", t0=20, t1=36
            ),
        )
        assert response.status_code == 302
        tables = [t.tables for t in played.teams.order_by("position")]
        # Deal 1 redoubled: 1 x 4 = 4 to Chitra & Dev (8, 16); deal 2 Biju made 40: 2 back.
        assert tables == [10, 14]
        change = Change.objects.get(action="edited")
        assert change.made_by == organiser
        assert change.before["doubling"] == "none"
        assert change.after["doubling"] == "redouble"
        page = organiser_client.get(played.get_absolute_url()).text
        assert "Corrected deal 1 (olive)" in page

    def test_correction_that_breaks_a_later_deal_is_refused(self, organiser_client, seats):
        from club.games.services import TeamEntry, create_game
        from club.scoring import rules as core

        game = create_game(
            label="Three teams",
            teams=[
                TeamEntry("Anu", "Biju"),
                TeamEntry("Chitra", "Dev"),
                TeamEntry("Esha", "Farid"),
            ],
            first_dealer=0,
            rules=core.Rules(tables_per_team=2),
        )
        players = load_seating(game).players  # Anu, Chitra, Esha, Biju, Dev, Farid
        record_deal(
            game=game,
            number=1,
            entry=Deal(points={0: 30, 1: 20, 2: 6}, declarer=0, bid=28, trump="clubs"),
        )
        record_deal(
            game=game,
            number=2,
            entry=Deal(points={0: 10, 1: 20, 2: 26}, declarer=2, bid=28, trump="clubs"),
        )
        before = [t.tables for t in game.teams.order_by("position")]
        # Corrected so that Esha declared 28 doubled and failed with 6: she owes 2 x 2 to
        # each other team but holds 2, so pays 1 each and Esha & Farid are out before
        # deal 2, where Esha declared.
        response = organiser_client.post(
            reverse("games:edit", args=[game.pk, 1]),
            deal_form(
                1,
                declarer=players[2].pk,
                bid=28,
                trump="clubs",
                doubling="double",
                t0=30,
                t1=20,
                t2=6,
            ),
        )
        assert response.status_code == 200
        assert "Deal 2: The declarer&#x27;s team, Esha &amp; Farid, is out and cannot bid." in (
            response.text
        )
        assert [t.tables for t in game.teams.order_by("position")] == before
        assert not Change.objects.filter(action="edited").exists()

    def test_undo_last_deal(self, organiser_client, played):
        response = organiser_client.post(reverse("games:undo", args=[played.pk]), {"number": 2})
        assert response.status_code == 302
        played.refresh_from_db()
        assert played.deals_played == 1
        assert [t.tables for t in played.teams.order_by("position")] == [11, 13]
        assert Change.objects.filter(action="undone", number=2).exists()

    def test_undo_of_a_stale_deal_number_is_refused(self, organiser_client, played):
        response = organiser_client.post(
            reverse("games:undo", args=[played.pk]), {"number": 1}, follow=True
        )
        assert "Deal 1 is no longer the last deal (deal 2 is); nothing was undone." in (
            response.text
        )
        played.refresh_from_db()
        assert played.deals_played == 2

    def test_anonymous_cannot_correct_or_undo(self, client, played):
        assert (
            client.post(reverse("games:undo", args=[played.pk]), {"number": 2}).status_code == 302
        )
        assert client.get(reverse("games:edit", args=[played.pk, 1])).status_code == 302
        played.refresh_from_db()
        assert played.deals_played == 2


def test_a_refused_field_names_its_error_for_a_screen_reader(organiser_client):
    """The field is marked invalid and described by its error, which the page holds
    under the id the field names (WCAG 2.2: errors identified, linked to their field)."""
    game = start_game(2)
    seating = load_seating(game)
    response = organiser_client.post(
        reverse("games:record", args=[game.pk]),
        deal_form(1, declarer=seating.players[0].pk, bid="10", trump="hearts", p0=30, p1=26),
    )
    assert response.status_code == 200
    html = response.content.decode()
    # The bid is a group of keys: the group is marked and described, and so is a pile.
    bid = re.search(r'<fieldset[^>]*data-group="bid"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in bid
    described = re.search(r'aria-describedby="([^"]+)"', bid).group(1)
    error = re.search(rf'<div[^>]* id="{described}"[^>]*>(.*?)</div>', html, re.S)
    assert error is not None and "A bid must be from 28 to 56; 10 is not." in error.group(1)
    assert not Round.objects.filter(game=game).exists()
