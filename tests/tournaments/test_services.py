"""Tournament services: registration clashes, one draw at a time, sittings, finishing."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal

import pytest

from club.games.models import Game
from club.tournaments import selectors, services
from club.tournaments.models import Sitting, SittingGame, Standing, TournamentEvent
from club.tournaments.services import TournamentError
from club.tournaments.services.draw import GAMES_STILL_PLAYED
from club.tournaments.services.lifecycle import SAY_WHY
from club.tournaments.services.teams import PLAYS_FOR_ANOTHER, REGISTERED_ALREADY
from club.tournaments.writes import RESULTS_FINAL
from tests.tournaments.helpers import make_tournament, play_sitting, rng

pytestmark = pytest.mark.django_db


class TestRegistration:
    def test_a_team_registered_twice_is_refused(self):
        tournament = make_tournament(teams=2)
        with pytest.raises(TournamentError) as error:
            services.register_team(tournament=tournament, first="Anu", second="Biju")
        assert error.value.message == REGISTERED_ALREADY % {"team": "Anu & Biju"}
        assert tournament.entries.count() == 2

    def test_a_player_in_two_teams_is_refused(self):
        tournament = make_tournament(teams=2)
        with pytest.raises(TournamentError) as error:
            services.register_team(tournament=tournament, first="Anu", second="Zara")
        assert error.value.message == PLAYS_FOR_ANOTHER % {"player": "Anu", "team": "Anu & Biju"}
        assert tournament.entries.count() == 2

    def test_the_same_player_may_play_in_another_tournament(self):
        make_tournament(name="First", teams=1)
        other = make_tournament(name="Second", teams=0)
        services.register_team(tournament=other, first="Anu", second="Zara")
        assert other.entries.count() == 1

    def test_a_bad_points_scheme_is_refused(self):
        with pytest.raises(TournamentError) as error:
            services.create_tournament(
                name="Odd",
                starts_on=datetime.date(2025, 1, 1),
                points_scheme={2: (1, 3), 3: (4, 2, 0), 4: (5, 3, 1, 0)},
            )
        assert "cannot rise" in error.value.message


class TestSittings:
    def test_proposing_twice_returns_the_same_sitting(self):
        tournament = make_tournament()
        first = services.propose_sitting(tournament=tournament, rng=rng())
        second = services.propose_sitting(tournament=tournament, rng=rng(99))
        assert first.pk == second.pk
        assert Sitting.objects.filter(tournament=tournament).count() == 1
        assert TournamentEvent.objects.filter(action="drawn").count() == 1

    def test_a_proposed_sitting_has_no_games(self):
        tournament = make_tournament()
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        assert len(sitting.proposal) == 3 and sitting.proposed_byes == []
        assert not SittingGame.objects.filter(sitting=sitting).exists()
        assert not Game.objects.exists()
        services.confirm_sitting(sitting=sitting, rng=rng())
        assert Game.objects.count() == 3

    def test_five_teams_give_one_bye(self):
        tournament = make_tournament(teams=5)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        assert len(sitting.proposal) == 2 and len(sitting.proposed_byes) == 1

    def test_adjusting_names_the_team_at_fault(self):
        tournament = make_tournament(teams=4)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        ids = dict(tournament.entries.values_list("team__name", "id"))
        games = [[ids["Anu & Biju"], ids["Chitra & Dev"]], [ids["Anu & Biju"], ids["Gita & Hari"]]]
        with pytest.raises(TournamentError) as error:
            services.adjust_sitting(sitting=sitting, games=games, byes=[])
        assert error.value.message == "Team Anu & Biju is in the draw more than once."
        sitting.refresh_from_db()
        assert sorted(map(sorted, sitting.proposal)) != sorted(map(sorted, games))

    def test_the_rematch_count_comes_from_history(self):
        tournament = make_tournament(teams=4)
        first = services.propose_sitting(tournament=tournament, rng=rng())
        services.confirm_sitting(sitting=first, rng=rng())
        play_sitting(first)
        second = services.propose_sitting(tournament=tournament, rng=rng())
        assert selectors.rematches(second) == 0
        services.adjust_sitting(sitting=second, games=first.proposal, byes=[])
        second.refresh_from_db()
        assert selectors.rematches(second) == 2

    def test_the_next_sitting_waits_for_games_in_progress(self):
        tournament = make_tournament(teams=2)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        services.confirm_sitting(sitting=sitting, rng=rng())
        with pytest.raises(TournamentError, match=re.escape(GAMES_STILL_PLAYED % {"count": 1})):
            services.propose_sitting(tournament=tournament)

    def test_calling_time_places_games_by_tables_held(self):
        tournament = make_tournament(teams=2, tables_per_team=12)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        services.confirm_sitting(sitting=sitting, rng=rng())
        assert services.call_time(sitting=sitting) == (1, 1)  # 1 game ended, level
        # No deal played: both teams hold 12 tables and share first place, (3 + 1) / 2 each.
        points = set(Standing.objects.values_list("points", flat=True))
        assert points == {Decimal("2")}


class TestFinishing:
    def test_final_results_refuse_changes_until_reopened(self, organiser):
        tournament = make_tournament(teams=2)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        services.confirm_sitting(sitting=sitting, rng=rng())
        play_sitting(sitting)
        services.finish_tournament(tournament=tournament)
        services.make_final(tournament=tournament)
        message = RESULTS_FINAL % {"name": "Monsoon Cup"}
        with pytest.raises(TournamentError) as error:
            services.register_team(tournament=tournament, first="Kavya", second="Latif")
        assert error.value.message == message
        with pytest.raises(TournamentError, match=re.escape(str(SAY_WHY))):
            services.reopen(tournament=tournament, reason="  ")
        services.reopen(tournament=tournament, reason="Table 1 miscounted", user=organiser)
        event = TournamentEvent.objects.filter(action="reopened").get()
        assert event.note == "Table 1 miscounted" and event.made_by == organiser
        tournament.refresh_from_db()
        assert not tournament.is_final and tournament.status == "running"
