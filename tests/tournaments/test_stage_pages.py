"""The pages of a tournament's stages: drawing one from the tournament's page, its chart
or bracket for everyone (and on paper), the organiser's changes before confirming, each
refusal in the club's words with nothing stored."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from club.tournaments import stages
from club.tournaments.models import Stage, TournamentEvent
from club.tournaments.stages import CONFIRMED_ALREADY, TOO_MANY_QUALIFIERS
from tests.tournaments.helpers import play_sitting, rng
from tests.tournaments.test_stages import event, names_of, next_sitting

pytestmark = pytest.mark.django_db


def add(client, tournament, **data):
    return client.post(reverse("tournaments:stage_add", args=[tournament.pk]), data)


def test_the_organiser_draws_groups_a_and_b_and_sees_the_chart(organiser_client):
    tournament = event(teams=8)
    page = organiser_client.get(tournament.get_absolute_url()).text
    assert "Add a stage" in page and 'name="sittings" value="4"' in page  # half of 8 teams
    response = add(organiser_client, tournament, kind="groups", sittings="3", tie_deals="2")
    stage = Stage.objects.get(tournament=tournament)
    assert response.status_code == 302 and response["Location"] == stage.get_absolute_url()
    page = organiser_client.get(stage.get_absolute_url()).text
    assert "Stage 1: Groups A and B" in page and "is drawn: look at it" in page
    names = dict(tournament.entries.values_list("id", "team__name"))
    for team in stage.groups["a"] + stage.groups["b"]:
        assert names[team] in page
    assert "Confirm the stage" in page and "Change the groups" in page
    # Everyone may read the chart; nobody else sees the organiser's buttons.
    client = Client()
    public = client.get(stage.get_absolute_url()).text
    assert "Chart" in public and names[stage.groups["a"][0]] in public
    assert "Confirm the stage" not in public and "Change the groups" not in public
    # The tournament's page lists the stage for everyone.
    assert "Stage 1: Groups A and B" in client.get(tournament.get_absolute_url()).text


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "groups"}, "Say how many sittings groups A and B play."),
        ({"kind": "groups", "sittings": "0"}, "a whole number from 1 to 50"),
        ({"kind": "knockout"}, "Say how many teams go into the knockout."),
        (
            {"kind": "knockout", "qualifiers": "9"},
            (TOO_MANY_QUALIFIERS, {"qualifiers": 9, "teams": 8}),
        ),
        ({"kind": "knockout", "qualifiers": "65"}, "a whole number from 2 to 64"),
        ({"kind": "swiss"}, "Select a valid choice"),
        (
            {"kind": "knockout", "qualifiers": "4", "deal_limit": "10", "tie_deals": "30"},
            "a whole number from 0 to 24",
        ),
    ],
)
def test_a_stage_that_cannot_be_drawn_is_refused_with_its_reason(organiser_client, data, message):
    tournament = event(teams=8)
    before = TournamentEvent.objects.count()
    response = add(organiser_client, tournament, **data)
    assert response.status_code == 200
    if isinstance(message, tuple):  # a refusal of the stage's service, with its values
        refusal, values = message
        message = refusal % values
    assert message in response.text
    assert not Stage.objects.exists()
    assert TournamentEvent.objects.count() == before


def test_the_organiser_moves_a_team_to_the_other_group(organiser_client):
    tournament = event(teams=8)
    stage = stages.add_stage(tournament=tournament, kind="groups", sittings=2, rng=rng())
    a, b = stage.groups["a"], stage.groups["b"]
    data = {f"team{team}": "a" for team in a} | {f"team{team}": "b" for team in b}
    data[f"team{a[0]}"], data[f"team{b[0]}"] = "b", "a"
    url = reverse("tournaments:stage_groups", args=[tournament.pk, 1])
    assert organiser_client.post(url, data).status_code == 302
    stage.refresh_from_db()
    assert set(stage.groups["a"]) == {b[0], *a[1:]}
    # Unbalanced: refused, in words, and nothing changes.
    data = {f"team{team}": "a" for team in a + b}
    data[f"team{b[1]}"] = "b"
    response = organiser_client.post(url, data)
    assert response.status_code == 200 and "they have 7 and 1 teams" in response.text
    stage.refresh_from_db()
    assert set(stage.groups["a"]) == {b[0], *a[1:]}


def test_the_organiser_reorders_the_seeds_and_a_repeated_seed_is_refused(organiser_client):
    tournament = event(teams=4)
    stage = stages.add_stage(tournament=tournament, kind="knockout", qualifiers=4, rng=rng())
    seeds = stage.seeds
    url = reverse("tournaments:stage_seeds", args=[tournament.pk, 1])
    data = {f"seed{team}": str(4 - at) for at, team in enumerate(seeds)}
    assert organiser_client.post(url, data).status_code == 302
    stage.refresh_from_db()
    assert stage.seeds == list(reversed(seeds))
    data = {f"seed{team}": "1" for team in seeds}
    response = organiser_client.post(url, data)
    assert "Give every team of the knockout a different seed, from 1 to 4." in response.text
    stage.refresh_from_db()
    assert stage.seeds == list(reversed(seeds))


def test_confirm_redraw_and_discard(organiser_client):
    tournament = event(teams=8)
    stage = stages.add_stage(tournament=tournament, kind="groups", sittings=2, rng=rng())
    base = [tournament.pk, 1]
    organiser_client.post(reverse("tournaments:stage_redraw", args=base))
    assert TournamentEvent.objects.filter(action="stage_adj").count() == 1
    response = organiser_client.post(reverse("tournaments:stage_confirm", args=base), follow=True)
    assert "is confirmed: draw its first sitting" in response.text
    stage.refresh_from_db()
    assert stage.status == Stage.Status.CONFIRMED
    response = organiser_client.post(reverse("tournaments:stage_discard", args=base), follow=True)
    refused = CONFIRMED_ALREADY % {"stage": stage.title}
    assert refused in response.text and Stage.objects.count() == 1
    # The first sitting comes from the chart, from the tournament's page.
    organiser_client.post(reverse("tournaments:draw", args=[tournament.pk]), {"game_size": "2"})
    sitting = tournament.sittings.get()
    assert {frozenset(g) for g in sitting.proposal} == {
        frozenset(g) for g in stage.chart[0]["games"]
    }


def test_the_bracket_page_shows_seeds_winners_and_the_champion(client):
    tournament = event(teams=6)
    stage = stages.add_stage(tournament=tournament, kind="knockout", qualifiers=6, rng=rng())
    stages.confirm_stage(stage=stage)
    seeds = stage.seeds
    names = names_of(tournament, seeds)
    page = client.get(stage.get_absolute_url()).text
    assert "Semi-finals" in page and "Final" in page and "Quarter-finals" in page
    assert page.count('class="bracket-match bye"') == 2
    first = next_sitting(tournament)
    page = client.get(stage.get_absolute_url()).text
    assert page.count("Table 1") == 1 and "bracket-match playing" in page
    play_sitting(first, winners=names_of(tournament, [seeds[4], seeds[2]]))
    for _ in range(2):
        sitting = next_sitting(tournament)
        play_sitting(sitting, winners=[names[2]])
    page = client.get(stage.get_absolute_url()).text
    assert f"Champion: {names[2]}" in page
    assert 'class="bracket-team lost"' in page


def test_the_stage_pages_cost_the_same_queries_for_a_small_and_a_big_knockout(client):
    counts = []
    for teams in (4, 16):
        tournament = event(teams=teams)
        tournament.name = f"Open {teams}"
        tournament.save(update_fields=["name"])
        stage = stages.add_stage(
            tournament=tournament, kind="knockout", qualifiers=teams, rng=rng()
        )
        stages.confirm_stage(stage=stage)
        play_sitting(next_sitting(tournament))
        next_sitting(tournament)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(stage.get_absolute_url()).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
