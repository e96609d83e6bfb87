"""Tournament pages through Django's test client: forms and their errors, the organiser's
whole flow, the live endpoints, query counts and who may do what."""

from __future__ import annotations

import re
from decimal import Decimal
from itertools import combinations

import pytest
from django.urls import reverse
from django.utils.html import escape

from club.games import services as scoring
from club.games.models import Game
from club.tournaments import selectors, services
from club.tournaments.models import Sitting, Standing, Tournament, TournamentEvent
from club.tournaments.selectors.live import shown_in_full
from club.tournaments.services.lifecycle import NAME_TAKEN
from club.tournaments.services.teams import PLAYS_FOR_ANOTHER, REGISTERED_ALREADY
from club.tournaments.writes import RESULTS_FINAL
from tests.games.page_forms import form_posting_to
from tests.tournaments.helpers import PAIRS, make_tournament, play_sitting, rng, win_game

pytestmark = pytest.mark.django_db


def new_tournament_post(**overrides):
    data = {
        "name": "Monsoon Cup",
        "starts_on": "2025-07-05",
        "ends_on": "2025-07-06",
        "venue": "Kochi Club",
        "tables_per_team": "1",
        "payout": "28-39: 1 2\n40-47: 2 3\n48-55: 3 4\n56-56: 4 5",
        "double_factor": "2",
        "redouble_factor": "4",
        "deal_limit": "",
        "points_2": "3 1",
        "points_3": "4 2 0",
        "points_4": "5 3 1 0",
    }
    data.update(overrides)
    return data


def met(games) -> set[frozenset]:
    return {frozenset(pair) for game in games for pair in combinations(game, 2)}


class TestNewTournamentForm:
    url = reverse("tournaments:new")

    def test_creates_the_tournament_with_its_house_rules(self, organiser_client):
        response = organiser_client.post(
            self.url,
            new_tournament_post(
                points_2="2 0",
                deal_limit="8",
                require_confirmation="on",
                double_factor="3",
                check_in="on",
            ),
        )
        tournament = Tournament.objects.get()
        assert response.status_code == 302 and response.url == tournament.get_absolute_url()
        assert tournament.venue == "Kochi Club" and tournament.tables_per_team == 1
        assert tournament.deal_limit == 8 and tournament.require_confirmation
        assert tournament.check_in
        assert tournament.double_factor == 3
        assert tournament.points_scheme == {"2": [2, 0], "3": [4, 2, 0], "4": [5, 3, 1, 0]}
        assert TournamentEvent.objects.get().action == "created"

    def test_the_default_points_are_not_stored(self, organiser_client):
        organiser_client.post(self.url, new_tournament_post())
        assert Tournament.objects.get().points_scheme == {}

    def test_a_bad_payout_line_is_named(self, organiser_client):
        response = organiser_client.post(
            self.url, new_tournament_post(payout="28-39: 1 2\n40-56 2")
        )
        assert response.status_code == 200
        assert "Line 2 of the payout schedule needs four whole numbers" in response.text
        assert not Tournament.objects.exists()

    def test_a_payout_with_a_gap_is_refused(self, organiser_client):
        response = organiser_client.post(self.url, new_tournament_post(payout="28-39: 1 2"))
        assert response.context["form"].errors["payout"]
        assert not Tournament.objects.exists()

    def test_points_that_rise_are_refused(self, organiser_client):
        response = organiser_client.post(self.url, new_tournament_post(points_3="0 2 4"))
        assert response.context["form"].errors["points_3"] == [
            "The points for a game of 3 teams cannot rise from a place to the next."
        ]
        assert not Tournament.objects.exists()

    def test_points_with_the_wrong_count_or_words_are_refused(self, organiser_client):
        response = organiser_client.post(self.url, new_tournament_post(points_2="3 1 0"))
        assert response.context["form"].errors["points_2"] == [
            "A game of 2 teams needs points for exactly 2 places."
        ]
        response = organiser_client.post(self.url, new_tournament_post(points_4="five 3 1 0"))
        assert "whole numbers" in response.context["form"].errors["points_4"][0]
        assert not Tournament.objects.exists()

    def test_a_name_taken_and_days_backwards_are_refused(self, organiser_client):
        make_tournament(name="Monsoon cup", teams=0)
        response = organiser_client.post(self.url, new_tournament_post(ends_on="2025-07-01"))
        assert response.context["form"].errors["ends_on"] == [
            "The last day cannot be before the first day."
        ]
        response = organiser_client.post(self.url, new_tournament_post())
        assert response.context["form"].errors["name"] == [NAME_TAKEN % {"name": "Monsoon Cup"}]
        assert Tournament.objects.count() == 1


class TestRegisterForm:
    def url(self, tournament):
        return reverse("tournaments:register", args=[tournament.pk])

    def test_registers_a_pair(self, organiser_client):
        tournament = make_tournament(teams=0)
        response = organiser_client.post(
            self.url(tournament), {"first": "Anu", "second": "Biju", "name": "Kochi Kings"}
        )
        assert response.status_code == 302
        assert list(tournament.entries.values_list("team__name", flat=True)) == ["Kochi Kings"]

    def test_a_team_registered_twice_is_refused(self, organiser_client):
        tournament = make_tournament(teams=2)
        response = organiser_client.post(self.url(tournament), {"first": "Biju", "second": "Anu"})
        assert response.status_code == 200
        assert escape(REGISTERED_ALREADY % {"team": "Anu & Biju"}) in response.text
        assert tournament.entries.count() == 2

    def test_a_player_in_two_teams_is_refused(self, organiser_client):
        tournament = make_tournament(teams=2)
        response = organiser_client.post(self.url(tournament), {"first": "Zara", "second": "Dev"})
        refusal = PLAYS_FOR_ANOTHER % {"player": "Dev", "team": "Chitra & Dev"}
        assert escape(refusal) in response.text
        assert tournament.entries.count() == 2

    def test_a_missing_partner_is_named(self, organiser_client):
        tournament = make_tournament(teams=0)
        response = organiser_client.post(self.url(tournament), {"first": "Anu", "second": ""})
        assert response.context["register_form"].errors["second"] == ["This field is required."]
        assert not tournament.entries.exists()


class TestAdjustForm:
    def test_a_team_twice_is_refused_by_name_and_nothing_changes(self, organiser_client):
        tournament = make_tournament(teams=4)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        ids = dict(tournament.entries.values_list("team__name", "id"))
        response = organiser_client.post(
            reverse("tournaments:adjust", args=[tournament.pk, 1]),
            {
                "table0_seat0": ids["Anu & Biju"],
                "table0_seat1": ids["Chitra & Dev"],
                "table1_seat0": ids["Anu & Biju"],
                "table1_seat1": ids["Gita & Hari"],
            },
        )
        assert response.status_code == 200
        assert "Team Anu &amp; Biju is in the draw more than once." in response.text
        before = sitting.proposal
        sitting.refresh_from_db()
        assert sitting.proposal == before

    def test_moves_teams_and_gives_byes(self, organiser_client):
        tournament = make_tournament(teams=4)
        services.propose_sitting(tournament=tournament, rng=rng())
        ids = dict(tournament.entries.values_list("team__name", "id"))
        response = organiser_client.post(
            reverse("tournaments:adjust", args=[tournament.pk, 1]),
            {
                "table0_seat0": ids["Anu & Biju"],
                "table0_seat1": ids["Gita & Hari"],
                "byes": [ids["Chitra & Dev"], ids["Esha & Farid"]],
            },
        )
        assert response.status_code == 302
        sitting = Sitting.objects.get()
        assert sitting.proposal == [[ids["Anu & Biju"], ids["Gita & Hari"]]]
        assert sorted(sitting.proposed_byes) == sorted([ids["Chitra & Dev"], ids["Esha & Farid"]])

    def test_a_half_empty_table_is_refused(self, organiser_client):
        tournament = make_tournament(teams=4)
        services.propose_sitting(tournament=tournament, rng=rng())
        ids = dict(tournament.entries.values_list("team__name", "id"))
        response = organiser_client.post(
            reverse("tournaments:adjust", args=[tournament.pk, 1]),
            {
                "table0_seat0": ids["Anu & Biju"],
                "table0_seat1": ids["Gita & Hari"],
                "table1_seat0": ids["Chitra & Dev"],
                "byes": [ids["Esha & Farid"]],
            },
        )
        assert "Table 2 has 1 teams; each game must have 2." in response.text


def test_the_whole_organiser_flow(organiser_client):
    client = organiser_client
    client.post(reverse("tournaments:new"), new_tournament_post())
    tournament = Tournament.objects.get()
    page = tournament.get_absolute_url()
    for first, second in PAIRS[:6]:
        response = client.post(
            reverse("tournaments:register", args=[tournament.pk]),
            {"first": first, "second": second},
        )
        assert response.status_code == 302
    assert tournament.entries.count() == 6

    # Sitting 1: a random draw of three games of two, nobody sitting out.
    response = client.post(reverse("tournaments:draw", args=[tournament.pk]), {"game_size": "2"})
    assert response.url == reverse("tournaments:sitting", args=[tournament.pk, 1])
    sitting = Sitting.objects.get(tournament=tournament, number=1)
    assert [len(game) for game in sitting.proposal] == [2, 2, 2] and sitting.proposed_byes == []
    assert not Game.objects.exists()
    response = client.get(response.url)
    assert "Confirm and start the games" in response.text
    client.post(reverse("tournaments:confirm", args=[tournament.pk, 1]))
    sitting.refresh_from_db()
    assert sitting.status == "confirmed" and sitting.games.count() == 3

    # Every game won by the team whose name sorts first.
    winners = set(play_sitting(sitting).values())
    entries = {entry.team.name: entry for entry in tournament.entries.select_related("team")}
    rows = {row.entry.team.name: row for row in Standing.objects.filter(tournament=tournament)}
    for name in entries:
        row = rows[name]
        won = name in winners
        # One table each: the winner ends with 2 (+1), the loser with 0 (-1).
        assert (row.points, row.games, row.won, row.net_tables) == (
            (Decimal(3), 1, 1, 1) if won else (Decimal(1), 1, 0, -1)
        )
        assert (row.declared, row.made) == ((1, 1) if won else (0, 0))
        # Winners tie on everything and never met: they share 1st; the others share 4th.
        assert (row.place, row.shared) == ((1, True) if won else (4, True))
    response = client.get(page)
    assert response.text.count('<td class="place">1=</td>') == 3
    assert response.text.count('<td class="place">4=</td>') == 3
    assert "100%" in response.text

    # Sitting 2: Swiss, and nobody meets a team met before.
    client.post(reverse("tournaments:draw", args=[tournament.pk]), {"game_size": "2"})
    second = Sitting.objects.get(tournament=tournament, number=2)
    assert not met(second.proposal) & met(sitting.proposal)
    assert selectors.rematches(second) == 0
    client.post(reverse("tournaments:confirm", args=[tournament.pk, 2]))
    second.refresh_from_db()
    play_sitting(second)

    # Finish, make final, then a change is refused with the service's message.
    client.post(reverse("tournaments:finish", args=[tournament.pk]))
    client.post(reverse("tournaments:final", args=[tournament.pk]))
    tournament.refresh_from_db()
    assert tournament.status == "finished" and tournament.is_final
    assert "Final results" in client.get(page).text
    response = client.post(
        reverse("tournaments:draw", args=[tournament.pk]), {"game_size": "2"}, follow=True
    )
    assert escape(RESULTS_FINAL % {"name": "Monsoon Cup"}) in response.text
    assert tournament.sittings.count() == 2

    # Reopening needs a reason, and the reason is kept.
    response = client.post(reverse("tournaments:reopen", args=[tournament.pk]), {"reason": ""})
    assert "Say why the tournament is reopened." in response.text
    client.post(reverse("tournaments:reopen", args=[tournament.pk]), {"reason": "Table 2 recount"})
    tournament.refresh_from_db()
    assert not tournament.is_final and tournament.status == "running"
    event = TournamentEvent.objects.filter(tournament=tournament).first()
    assert (event.action, event.note) == ("reopened", "Table 2 recount")
    assert "Table 2 recount" in client.get(page).text


def test_drawing_twice_shows_the_same_sitting(organiser_client):
    tournament = make_tournament(teams=4)
    url = reverse("tournaments:draw", args=[tournament.pk])
    first = organiser_client.post(url, {"game_size": "2"})
    second = organiser_client.post(url, {"game_size": "2"})
    assert first.url == second.url == reverse("tournaments:sitting", args=[tournament.pk, 1])
    assert Sitting.objects.count() == 1


def test_too_few_teams_for_a_game_is_explained(organiser_client):
    tournament = make_tournament(teams=2)
    response = organiser_client.post(
        reverse("tournaments:draw", args=[tournament.pk]), {"game_size": "3"}
    )
    assert response.status_code == 200
    assert response.context["draw_form"].non_field_errors()
    assert not Sitting.objects.exists()


def test_call_time_ends_the_games_of_the_sitting(organiser_client):
    tournament = make_tournament(teams=4, tables_per_team=12)
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    services.confirm_sitting(sitting=sitting, rng=rng())
    url = reverse("tournaments:call_time", args=[tournament.pk, 1])
    asked = organiser_client.post(url)  # no deal anywhere: the tables are named first
    assert set(Game.objects.values_list("status", flat=True)) == {"in_progress"}
    organiser_client.post(url, form_posting_to(asked.text, url))
    assert set(Game.objects.values_list("status", flat=True)) == {"finished"}


class TestLive:
    def test_the_live_fragment_answers_204_until_something_changes(self, client):
        tournament = make_tournament(teams=2)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        services.confirm_sitting(sitting=sitting, rng=rng())
        url = reverse("tournaments:live", args=[tournament.pk])
        first = client.get(url, headers={"HX-Request": "true"})
        assert first.status_code == 200 and "<html" not in first.text
        version = first.context["live_version"]
        assert f'data-live-version="{version}"' in first.text
        assert client.get(url, {"version": version}).status_code == 204

        game = Game.objects.get()
        win_game(game, "Anu & Biju")
        changed = client.get(url, {"version": version})
        assert changed.status_code == 200
        assert changed.context["live_version"] != version
        assert client.get(url, {"version": changed.context["live_version"]}).status_code == 204

    def test_a_deal_of_a_game_in_progress_changes_the_version(self, client):
        tournament = make_tournament(teams=2, tables_per_team=12)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        services.confirm_sitting(sitting=sitting, rng=rng())
        tournament.refresh_from_db()
        version = selectors.live_version(tournament)
        win_game(Game.objects.get(), "Anu & Biju")  # one table moves; the game goes on
        tournament.refresh_from_db()
        assert selectors.live_version(tournament) != version

    def test_the_projector_polls_the_same_way(self, client):
        tournament = make_tournament(teams=2)
        url = reverse("tournaments:projector", args=[tournament.pk])
        page = client.get(url)
        assert page.status_code == 200 and "data-cycle" in page.text
        assert 'class="top"' not in page.text  # no header nav on the projector
        version = page.context["live_version"]
        assert client.get(url, {"version": version}).status_code == 204
        services.register_team(tournament=tournament, first="Kavya", second="Latif")
        fragment = client.get(url, {"version": version})
        assert fragment.status_code == 200 and "Kavya &amp; Latif" in fragment.text
        assert "<html" not in fragment.text

    def test_the_game_page_answers_204_while_unchanged(self, client):
        tournament = make_tournament(teams=2, tables_per_team=12)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        services.confirm_sitting(sitting=sitting, rng=rng())
        game = Game.objects.get()
        url = game.get_absolute_url()
        page = client.get(url)
        marker = 'data-live-version="'
        version = page.text.split(marker, 1)[1].split('"', 1)[0]
        assert f'data-live-url="{url}"' in page.text
        assert (
            client.get(url, {"version": version}, headers={"HX-Request": "true"}).status_code == 204
        )
        win_game(game, "Anu & Biju")
        fresh = client.get(url, {"version": version}, headers={"HX-Request": "true"})
        assert fresh.status_code == 200 and 'id="live"' in fresh.text and "<html" not in fresh.text


def test_the_page_shows_the_newest_sitting_and_any_still_played_in_full():
    def sitting(number: int, *playing: bool) -> dict:
        return {"number": number, "games": [{"playing": each} for each in playing]}

    newest, late, done, first = sitting(4, True), sitting(3, False, True), sitting(2), sitting(1)
    full, earlier = shown_in_full([newest, late, done, first])
    assert full == [newest, late] and earlier == [done, first]
    assert shown_in_full([]) == ([], [])


class TestQueryCounts:
    """Measured, then pinned: the same number with one sitting played as with three."""

    def tournament_with(self, sittings: int):
        tournament = make_tournament(teams=4)
        for _ in range(sittings):
            sitting = services.propose_sitting(tournament=tournament, rng=rng())
            services.confirm_sitting(sitting=sitting, rng=rng())
            play_sitting(sitting)
        # One more sitting still being played.
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        services.confirm_sitting(sitting=sitting, rng=rng())
        return tournament

    @pytest.mark.parametrize("sittings", [1, 3])
    def test_the_public_page(self, client, django_assert_max_num_queries, sittings):
        tournament = self.tournament_with(sittings)
        # Rendered: the two of its key (club.web.pages), then the page's seven.
        with django_assert_max_num_queries(9):
            response = client.get(tournament.get_absolute_url())
        # The sitting being played in full, each finished one a link to its own page.
        page = response.text
        assert page.count('<ul class="sitting-games">') == 1
        earlier = re.findall(r'<ul class="sitting-links">(.*?)</ul>', page)
        assert len(earlier) == 1 and earlier[0].count("<li>") == sittings
        for number in range(1, sittings + 1):
            url = reverse("tournaments:sitting", args=[tournament.pk, number])
            assert f'<a href="{url}">Sitting {number}</a>' in earlier[0]

    @pytest.mark.parametrize("sittings", [1, 3])
    def test_the_organiser_page(self, organiser_client, django_assert_max_num_queries, sittings):
        tournament = self.tournament_with(sittings)
        # The public page's queries, then the register (teams, and who sits in), the
        # history, the draw and stage forms.
        with django_assert_max_num_queries(15):
            organiser_client.get(tournament.get_absolute_url())

    @pytest.mark.parametrize("sittings", [1, 3])
    def test_the_live_fragment(self, client, django_assert_max_num_queries, sittings):
        tournament = self.tournament_with(sittings)
        url = reverse("tournaments:live", args=[tournament.pk])
        with django_assert_max_num_queries(8):
            response = client.get(url)
        with django_assert_max_num_queries(1):
            assert client.get(url, {"version": response.context["live_version"]}).status_code == 204


class TestPermissions:
    def write_urls(self):
        tournament = make_tournament(teams=4)
        services.propose_sitting(tournament=tournament, rng=rng())
        pk = tournament.pk
        return tournament, [
            reverse("tournaments:new"),
            reverse("tournaments:register", args=[pk]),
            reverse("tournaments:draw", args=[pk]),
            reverse("tournaments:finish", args=[pk]),
            reverse("tournaments:final", args=[pk]),
            reverse("tournaments:reopen", args=[pk]),
            reverse("tournaments:adjust", args=[pk, 1]),
            reverse("tournaments:confirm", args=[pk, 1]),
            reverse("tournaments:discard", args=[pk, 1]),
            reverse("tournaments:call_time", args=[pk, 1]),
        ]

    @pytest.fixture(params=["anonymous", "player"])
    def outsider(self, request, client, django_user_model):
        if request.param == "player":
            user = django_user_model.objects.create_user(username="pat", password="pw")
            client.force_login(user)
        return client

    def test_outsiders_are_sent_to_log_in_and_nothing_changes(self, outsider):
        """A visitor is sent to log in; someone logged in who organises nothing is told so
        (403), not sent to log in again. Either way nothing changes."""
        tournament, urls = self.write_urls()
        signed_in = "_auth_user_id" in outsider.session
        for url in urls:
            for response in (
                outsider.get(url),
                outsider.post(url, {"reason": "x", "first": "A", "second": "B"}),
            ):
                if signed_in:
                    assert response.status_code == 403, url
                else:
                    assert response.status_code == 302, url
                    assert response.url.startswith(reverse("login")), url
        sitting = Sitting.objects.get()
        assert sitting.status == "proposed"
        assert tournament.entries.count() == 4 and Tournament.objects.count() == 1
        assert list(TournamentEvent.objects.values_list("action", flat=True)) == [
            "drawn",
            *["registered"] * 4,
            "created",
        ]

    def test_outsiders_read_every_public_page(self, outsider):
        tournament = make_tournament(name="Open", teams=2)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        services.confirm_sitting(sitting=sitting, rng=rng())
        pk = tournament.pk
        for url in [
            reverse("tournaments:list"),
            reverse("tournaments:detail", args=[pk]),
            reverse("tournaments:live", args=[pk]),
            reverse("tournaments:projector", args=[pk]),
            reverse("tournaments:sitting", args=[pk, 1]),
            Game.objects.get().get_absolute_url(),
        ]:
            response = outsider.get(url)
            assert response.status_code == 200, url
            assert "Register the team" not in response.text
            assert "Call time for this sitting" not in response.text

    def test_the_list_offers_new_tournament_to_organisers_only(self, client, organiser_client):
        make_tournament(name="Running", teams=0)
        assert "New tournament" in organiser_client.get(reverse("tournaments:list")).text
        client.logout()
        assert "New tournament" not in client.get(reverse("tournaments:list")).text


def test_the_list_groups_tournaments_by_status(client):
    draft = make_tournament(name="Next month", teams=0)
    running = make_tournament(name="Tonight", teams=2)
    sitting = services.propose_sitting(tournament=running, rng=rng())
    services.confirm_sitting(sitting=sitting, rng=rng())
    response = client.get(reverse("tournaments:list"))
    assert [t.name for t in response.context["running"]] == ["Tonight"]
    assert [t.name for t in response.context["upcoming"]] == [draft.name]
    assert response.context["finished"] == []


def test_a_game_ended_by_scoring_updates_the_page(client):
    tournament = make_tournament(teams=2, tables_per_team=12)
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    services.confirm_sitting(sitting=sitting, rng=rng())
    scoring.end_game(game=Game.objects.get())
    response = client.get(tournament.get_absolute_url())
    assert response.text.count('<td class="place">1=</td>') == 2
    assert '<td class="num points">2</td>' in response.text
