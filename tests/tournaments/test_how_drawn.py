"""A sitting says how it was drawn: on its page and on its printout (club.tournaments.draw_words,
from the data club.scoring.draw_notes keeps with the sitting when it is drawn).

The Swiss sitting worked by hand: six teams play a first sitting (Anu & Biju against
Kavya & Latif, Chitra & Dev against Indu & Jacob, Esha & Farid against Gita & Hari), the
first-named of each game winning. A win is 3 points, a loss 1; teams level on everything
stand in the order of their names. So the standings are Anu, Chitra, Esha on 3 points;
Gita, Indu, Kavya on 1. Cut in that order the tables would be Anu-Chitra, Esha-Gita,
Indu-Kavya; Esha and Gita have met, so Esha plays Indu and Gita plays Kavya. Three teams
on 3 points cannot fill whole tables of two: Esha was moved down.
"""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from club.tournaments import checkin, services, stages
from club.tournaments.models import Sitting
from club.tournaments.services.teams import withdraw_team
from tests.tournaments.helpers import make_tournament, play_sitting, rng

pytestmark = pytest.mark.django_db

ANU, CHITRA, ESHA, GITA, INDU, KAVYA = (
    "Anu & Biju",
    "Chitra & Dev",
    "Esha & Farid",
    "Gita & Hari",
    "Indu & Jacob",
    "Kavya & Latif",
)

SWISS = (
    "Swiss draw: the tables are filled from the top of the standings down, teams on the same "
    "tournament points (a score group) together where they can be, and teams that have met "
    "apart where they can be."
)
GROUPS = [
    f"3 points: {ANU}, {CHITRA} and {ESHA}",
    f"1 point: {GITA}, {INDU} and {KAVYA}",
]
MOVED = (
    f"{ESHA} (3 points) was moved down to play {INDU} at table 2: the teams on 3 points or "
    "more could not fill whole tables."
)
AVOIDED = f"{ESHA} and {GITA} had met before, so they were not drawn together."


def how_drawn(page: str) -> dict[str, list[str]]:
    """The explanation's lines as a reader sees them, by heading ("" for the first lines)."""
    found = re.search(r'<section class="card how-drawn".*?</section>', page, re.S)
    if found is None:
        return {}
    parts: dict[str, list[str]] = {"": []}
    heading = ""
    for tag, text in re.findall(r"<(h3|p|li)[^>]*>(.*?)</\1>", found.group(0), re.S):
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())
        if tag == "h3":
            heading = text
            parts[heading] = []
        else:
            parts[heading].append(text)
    return parts


def ids_of(tournament) -> dict[str, int]:
    return dict(tournament.entries.values_list("team__name", "id"))


def first_sitting_played(tournament):
    """The sitting of the module docstring: its games set by hand, the first-named winning."""
    ids = ids_of(tournament)
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    games = [[ids[ANU], ids[KAVYA]], [ids[CHITRA], ids[INDU]], [ids[ESHA], ids[GITA]]]
    services.adjust_sitting(sitting=sitting, games=games, byes=[])
    services.confirm_sitting(sitting=sitting, rng=rng())
    play_sitting(sitting, winners={ANU, CHITRA, ESHA})
    return sitting


@pytest.fixture
def second_sitting():
    tournament = make_tournament(teams=6)
    first_sitting_played(tournament)
    return services.propose_sitting(tournament=tournament, rng=rng())


def test_the_swiss_sitting_worked_by_hand_on_its_page(client, second_sitting):
    ids = ids_of(second_sitting.tournament)
    assert [set(game) for game in second_sitting.proposal] == [
        {ids[ANU], ids[CHITRA]},
        {ids[ESHA], ids[INDU]},
        {ids[GITA], ids[KAVYA]},
    ]
    page = client.get(reverse("tournaments:sitting", args=[second_sitting.tournament_id, 2]))
    assert how_drawn(page.text) == {
        "": [SWISS],
        "Score groups": GROUPS,
        "Moved to another group's table": [MOVED],
        "Rematches avoided": [AVOIDED],
    }


def test_the_same_words_once_confirmed_and_on_the_printout(client, second_sitting):
    services.confirm_sitting(sitting=second_sitting, rng=rng())
    tournament = second_sitting.tournament_id
    expected = {
        "": [SWISS],
        "Score groups": GROUPS,
        "Moved to another group's table": [MOVED],
        "Rematches avoided": [AVOIDED],
    }
    page = client.get(reverse("tournaments:sitting", args=[tournament, 2]))
    assert how_drawn(page.text) == expected
    printout = client.get(reverse("tournaments:sitting_sheets", args=[tournament, 2]))
    assert how_drawn(printout.text) == expected
    assert printout.text.count('class="score-sheet"') == 3  # and every table's sheet after it


def test_what_the_draw_saw_is_kept_though_the_standings_move_on(client, second_sitting):
    services.confirm_sitting(sitting=second_sitting, rng=rng())
    play_sitting(second_sitting)  # the standings change; the sitting's groups do not
    page = client.get(reverse("tournaments:sitting", args=[second_sitting.tournament_id, 2]))
    assert how_drawn(page.text)["Score groups"] == GROUPS


def test_a_draw_changed_by_hand_keeps_the_draw_and_says_what_changed(client, second_sitting):
    ids = ids_of(second_sitting.tournament)
    drawn = dict(second_sitting.explained)
    # The director seats Esha against Gita (a rematch) and Indu out with Kavya.
    services.adjust_sitting(
        sitting=second_sitting,
        games=[[ids[ANU], ids[CHITRA]], [ids[ESHA], ids[GITA]]],
        byes=[ids[INDU], ids[KAVYA]],
    )
    second_sitting.refresh_from_db()
    kept = second_sitting.explained
    assert {key: kept[key] for key in drawn} == drawn  # what the draw did, as it was
    assert kept["adjusted"] == {
        "tables": [2, 3],
        "teams": sorted([ids[GITA], ids[INDU], ids[KAVYA]]),
        "byes": [ids[INDU], ids[KAVYA]],
        "rematches": [{"table": 2, "teams": sorted([ids[ESHA], ids[GITA]])}],
    }
    url = reverse("tournaments:sitting", args=[second_sitting.tournament_id, 2])
    expected = {
        "": [
            SWISS,
            "Changed by hand: the director changed tables 2 and 3 after the draw, so what is "
            "said here is only what is still true of the tables as they are.",
        ],
        "Score groups": GROUPS,
        "Rematches": [
            f"{ESHA} and {GITA} meet again at table 2, as the director seated them.",
        ],
        "Sitting out": [
            f"{INDU} has the bye the director gave it.",
            f"{KAVYA} has the bye the director gave it.",
        ],
    }
    assert how_drawn(client.get(url).text) == expected
    services.confirm_sitting(sitting=second_sitting, rng=rng())
    assert how_drawn(client.get(url).text) == expected


def test_a_draw_put_back_as_drawn_says_only_what_the_draw_did(second_sitting):
    services.adjust_sitting(sitting=second_sitting, games=second_sitting.proposal[::-1], byes=[])
    second_sitting.refresh_from_db()
    assert second_sitting.explained["adjusted"]["tables"] == [1, 3]
    drawn = second_sitting.explained["drawn"]
    services.adjust_sitting(sitting=second_sitting, games=drawn["games"], byes=drawn["byes"])
    second_sitting.refresh_from_db()
    assert "adjusted" not in second_sitting.explained


def test_who_sits_out_and_why_in_a_random_first_sitting(client):
    tournament = make_tournament(teams=8)
    checkin.set_check_in(tournament=tournament, on=True)
    for entry in tournament.entries.exclude(team__name=KAVYA):
        checkin.check_in(entry=entry)
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    names = dict(tournament.entries.values_list("id", "team__name"))
    (bye,) = sitting.proposed_byes
    page = client.get(reverse("tournaments:sitting", args=[tournament.pk, 1]))
    assert how_drawn(page.text) == {
        "": [
            "Random draw: no game had been played yet, so the tables were drawn at random.",
        ],
        "Sitting out": [
            f"{names[bye]} has the bye, drawn at random among the teams with the fewest byes "
            "so far.",
            f"{KAVYA}: not checked in, so left out of the draw (no game, no bye).",
        ],
    }


def test_a_stage_sitting_is_drawn_from_its_chart(client):
    tournament = make_tournament(teams=5)
    stage = stages.add_stage(tournament=tournament, kind="round_robin", rng=rng())
    stages.confirm_stage(stage=stage)
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    names = dict(tournament.entries.values_list("id", "team__name"))
    (bye,) = sitting.proposed_byes
    page = client.get(reverse("tournaments:sitting", args=[tournament.pk, 1]))
    assert how_drawn(page.text) == {
        "": ["Drawn from the chart of Stage 1: Round robin, made when the stage began."],
        "Sitting out": [f"{names[bye]} has the bye the chart gives it in this sitting."],
    }


def test_a_sitting_drawn_before_draws_were_explained_says_nothing(client, second_sitting):
    Sitting.objects.filter(pk=second_sitting.pk).update(explained={})
    url = reverse("tournaments:sitting", args=[second_sitting.tournament_id, 2])
    page = client.get(url)
    assert page.status_code == 200 and "how-drawn" not in page.text
    services.adjust_sitting(sitting=second_sitting, games=second_sitting.proposal[::-1], byes=[])
    assert Sitting.objects.get(pk=second_sitting.pk).explained == {}
    services.confirm_sitting(sitting=second_sitting, rng=rng())
    printout = client.get(
        reverse("tournaments:sitting_sheets", args=[second_sitting.tournament_id, 2])
    )
    assert printout.status_code == 200 and "how-drawn" not in printout.text


class TestQueryCounts:
    """Measured, then pinned: a sitting's page and printout read the same with one sitting
    before it as with four."""

    def tournament_with(self, sittings: int):
        tournament = make_tournament(teams=5)
        for _ in range(sittings):
            sitting = services.propose_sitting(tournament=tournament, rng=rng())
            services.confirm_sitting(sitting=sitting, rng=rng())
            play_sitting(sitting)
        sitting = services.propose_sitting(tournament=tournament, rng=rng())
        assert sitting.explained["method"] == "swiss"
        return tournament, sitting

    @pytest.mark.parametrize("sittings", [1, 4])
    def test_the_proposed_sitting(self, client, django_assert_num_queries, sittings):
        tournament, sitting = self.tournament_with(sittings)
        url = reverse("tournaments:sitting", args=[tournament.pk, sitting.number])
        # The sitting, the teams it may seat, the pairs that met before (two), for the
        # rematches in the draw, the names of every team of the tournament (the
        # explanation's: it may name a team the draw left out), and the version of the
        # page's link preview (two).
        with django_assert_num_queries(7):
            page = client.get(url)
        assert how_drawn(page.text)["Score groups"]

    @pytest.mark.parametrize("sittings", [1, 4])
    def test_the_confirmed_sitting_and_its_printout(
        self, client, django_assert_num_queries, sittings
    ):
        tournament, sitting = self.tournament_with(sittings)
        services.confirm_sitting(sitting=sitting, rng=rng())
        args = [tournament.pk, sitting.number]
        with django_assert_num_queries(9):  # and the names of every team, as above
            page = client.get(reverse("tournaments:sitting", args=args))
        assert how_drawn(page.text)["Score groups"]
        # The explanation's one: the teams' names.
        with django_assert_num_queries(5):
            printout = client.get(reverse("tournaments:sitting_sheets", args=args))
        assert how_drawn(printout.text)["Score groups"]


def test_a_chart_bye_names_the_opponent_who_withdrew(client):
    """The team a chart paired with one that has withdrawn sits out; the page names the
    withdrawn team, though the draw left it out, as the printout does."""
    tournament = make_tournament(teams=4)
    stage = stages.add_stage(tournament=tournament, kind="round_robin", rng=rng())
    stages.confirm_stage(stage=stage)
    first, gone = stage.chart[0]["games"][0]
    withdraw_team(entry=tournament.entries.get(pk=gone))
    services.propose_sitting(tournament=tournament, rng=rng())
    names = dict(tournament.entries.values_list("pk", "team__name"))
    args = [tournament.pk, 1]
    for url in (
        reverse("tournaments:sitting", args=args),
        reverse("tournaments:sitting_sheets", args=args),
    ):
        [line] = [
            line for line in how_drawn(client.get(url).text)["Sitting out"] if names[first] in line
        ]
        assert names[gone] in line and "no longer registered" not in line
