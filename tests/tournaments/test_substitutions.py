"""Substitution: a director replaces a registered team's player from a sitting on, and the
starter may come back; the games record who sat, the team's standing is the team's.

Six pairs (tests/tournaments/helpers.py), one table each, so one made contract wins a game.
Omana sits in for Biju of Anu & Biju from sitting 2; Biju is back from sitting 3.
"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from club.games.models import GameTeam, Player
from club.leaderboards.models import PlayerRating, PlayerTotals, TeamTotals
from club.tournaments import services, substitutions
from club.tournaments.models import Standing, Substitution, TournamentEvent, TournamentTeam
from club.tournaments.services.teams import HAS_A_SUBSTITUTION
from club.tournaments.substitutions import (
    BACK_ALREADY,
    BACK_TOO_SOON,
    FOR_THEMSELVES,
    LIMIT_MADE,
    NAME_THE_SUBSTITUTE,
    NOT_OF_THE_TEAM,
    PLAYED_WITH,
    PLAYS_FOR_THE_TEAM,
    REGISTERED_ELSEWHERE,
    REPLACED_ALREADY,
    SITS_IN_ELSEWHERE,
    SITTING_PLAYED,
    WITHDRAWN,
)
from tests.archive.test_tournament_archive import export, import_text, refused, wipe
from tests.tournaments.helpers import make_tournament, night, rng

pytestmark = pytest.mark.django_db


def entry(name: str) -> TournamentTeam:
    return TournamentTeam.objects.select_related("tournament", "team").get(team__name=name)


def player(name: str) -> Player:
    return Player.objects.get(name=name)


def seated(number: int, team: str) -> list[str]:
    """Who sat for ``team`` in sitting ``number``."""
    row = GameTeam.objects.select_related("first_player", "second_player").get(
        game__sitting_entry__sitting__number=number, team__name=team
    )
    return [row.first_player.name, row.second_player.name]


@pytest.fixture
def cup():
    return make_tournament(teams=6)


def test_the_substitute_sits_for_the_sittings_covered_and_the_starter_returns(
    cup, django_user_model
):
    director = django_user_model.objects.create_user("director", is_staff=True)
    night(cup, 1)
    made = substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana", user=director
    )
    assert made.first_sitting == 2 and made.returned_from is None  # the next sitting by default
    night(cup, 2)
    substitutions.bring_back(substitution=made, user=director)
    made.refresh_from_db()
    assert made.returned_from == 3 and made.last_sitting == 2
    night(cup, 3)
    assert [seated(n, "Anu & Biju") for n in (1, 2, 3)] == [
        ["Anu", "Biju"],
        ["Anu", "Omana"],  # in Biju's seat
        ["Anu", "Biju"],
    ]
    # Every game is the registered team's: its standing counts three games.
    standing = Standing.objects.get(entry__team__name="Anu & Biju")
    assert standing.games == 3
    # Each player is credited with the games they sat in.
    totals = {t.player.name: t.played for t in PlayerTotals.objects.select_related("player")}
    assert (totals["Anu"], totals["Biju"], totals["Omana"]) == (3, 2, 1)
    assert PlayerRating.objects.get(player__name="Omana").games == 1
    assert TeamTotals.objects.get(team__name="Anu & Biju").played == 3
    # The history keeps who made each change and when.
    events = TournamentEvent.objects.filter(
        action__in=[TournamentEvent.Action.SUBSTITUTED, TournamentEvent.Action.RETURNED]
    ).order_by("made_at", "id")
    assert [(e.action, e.sitting_number, e.note, e.made_by) for e in events] == [
        ("sub", 2, "Anu & Biju: Biju → Omana", director),
        ("sub_back", 3, "Anu & Biju: Biju → Omana", director),
    ]


def test_a_substitution_for_a_drawn_sitting_seats_the_substitute_when_confirmed(cup):
    sitting = services.propose_sitting(tournament=cup, rng=rng())
    substitutions.substitute(
        entry=entry("Gita & Hari"), player_out=player("Gita"), player_in="Zara"
    )
    services.confirm_sitting(sitting=sitting, rng=rng())
    assert seated(1, "Gita & Hari") == ["Zara", "Hari"]


@pytest.mark.parametrize(
    ("out", "player_in", "message", "values"),
    [
        ("Anu", "Chitra", REGISTERED_ELSEWHERE, {"player": "Chitra", "team": "Chitra & Dev"}),
        ("Anu", "Biju", PLAYS_FOR_THE_TEAM, {"player": "Biju", "team": "Anu & Biju"}),
        ("Chitra", "Omana", NOT_OF_THE_TEAM, {"player": "Chitra", "team": "Anu & Biju"}),
        ("Anu", "Anu", FOR_THEMSELVES, {"player": "Anu"}),
        ("Anu", "  ", NAME_THE_SUBSTITUTE, {}),
    ],
)
def test_a_substitute_who_cannot_sit_in_is_refused_naming_why(cup, out, player_in, message, values):
    with pytest.raises(services.TournamentError, match=re.escape(message % values)):
        substitutions.substitute(
            entry=entry("Anu & Biju"), player_out=player(out), player_in=player_in
        )
    assert not Substitution.objects.exists()


def test_a_substitute_plays_for_one_team_and_a_team_keeps_to_its_limit(cup):
    substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana"
    )
    refusal = SITS_IN_ELSEWHERE % {"player": "Omana", "team": "Anu & Biju"}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        substitutions.substitute(
            entry=entry("Chitra & Dev"), player_out=player("Dev"), player_in="Omana"
        )
    refusal = LIMIT_MADE % {"team": "Anu & Biju", "limit": 1}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        substitutions.substitute(
            entry=entry("Anu & Biju"), player_out=player("Anu"), player_in="Prakash"
        )
    # Nor may a substitute be registered afterwards in another team.
    with pytest.raises(services.TournamentError, match="Omana already plays for Anu & Biju"):
        services.register_team(tournament=cup, first="Omana", second="Prakash")
    # A tournament that allows two: the second is another player's.
    cup.substitutions = 2
    cup.save(update_fields=["substitutions"])
    refusal = REPLACED_ALREADY % {"player": "Biju", "substitute": "Omana", "number": 1}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        substitutions.substitute(
            entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Prakash"
        )
    substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Anu"), player_in="Prakash"
    )
    assert Substitution.objects.count() == 2


def test_the_sittings_played_keep_who_sat(cup):
    night(cup, 1)
    refusal = SITTING_PLAYED % {"number": 1, "first": 2}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        substitutions.substitute(
            entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana", first_sitting=1
        )
    made = substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana"
    )
    refusal = BACK_TOO_SOON % {"substitute": "Omana", "first": 2, "player": "Biju", "next": 3}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        substitutions.bring_back(substitution=made, returned_from=2)
    night(cup, 2)
    # Played with: it cannot be undone, only ended.
    refusal = PLAYED_WITH % {
        "substitute": "Omana",
        "team": "Anu & Biju",
        "number": 2,
        "player": "Biju",
    }
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        substitutions.undo(substitution=made)
    refusal = SITTING_PLAYED % {"number": 2, "first": 3}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        substitutions.bring_back(substitution=made, returned_from=2)
    substitutions.bring_back(substitution=made, returned_from=4)
    night(cup, 3)
    assert seated(3, "Anu & Biju") == ["Anu", "Omana"]
    night(cup, 4)
    assert seated(4, "Anu & Biju") == ["Anu", "Biju"]
    refusal = BACK_ALREADY % {"player": "Biju", "number": 4}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        substitutions.bring_back(substitution=made)


def test_a_substitution_not_yet_played_can_be_undone_and_the_team_changed_after(cup):
    made = substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana"
    )
    refusal = HAS_A_SUBSTITUTION % {"team": "Anu & Biju"}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        services.edit_team(entry=entry("Anu & Biju"), players=["Anu", "Prakash"])
    substitutions.undo(substitution=made)
    assert not Substitution.objects.exists()
    assert TournamentEvent.objects.filter(action="sub_undo").get().note == (
        "Anu & Biju: Biju → Omana"
    )
    services.edit_team(entry=entry("Anu & Biju"), players=["Anu", "Prakash"])


def test_a_withdrawn_team_or_a_final_tournament_makes_no_substitution(cup):
    services.withdraw_team(entry=entry("Anu & Biju"))
    refusal = WITHDRAWN % {"team": "Anu & Biju"}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        substitutions.substitute(
            entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana"
        )
    assert not Substitution.objects.exists()


def test_the_line_up_applies_each_substitution_covering_the_sitting():
    anu, biju, omana = (Player(pk=n, name=name) for n, name in enumerate("ABO", start=1))
    away = Substitution(player_out=biju, player_in=omana, first_sitting=2, returned_from=4)
    for number, expected in [
        (1, [anu, biju]),
        (2, [anu, omana]),
        (3, [anu, omana]),
        (4, [anu, biju]),
    ]:
        assert substitutions.line_up([anu, biju], [away], number) == expected


# --- In the archive ----------------------------------------------------------------------


def played_with_a_substitution(cup) -> str:
    """Three sittings, Omana for Biju in sitting 2 only; the tournament's export."""
    night(cup, 1)
    made = substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana"
    )
    night(cup, 2)
    substitutions.bring_back(substitution=made)
    night(cup, 3)
    return export("--tournament", "Monsoon Cup")


def test_a_substitution_exports_and_imports_again_identically(cup, tmp_path):
    text = played_with_a_substitution(cup)
    document = json.loads(text)
    assert document["tournament"]["substitutions"] == [
        {"team": "Anu & Biju", "out": "Biju", "in": "Omana", "from": 2, "until": 2}
    ]
    assert "substitutions_per_team" not in document["tournament"]  # the default, one
    game = next(
        g
        for g in document["games"]
        if "sitting 2" in g["label"] and any(t["name"] == "Anu & Biju" for t in g["teams"])
    )
    assert next(t for t in game["teams"] if t["name"] == "Anu & Biju")["players"] == [
        "Anu",
        "Omana",
    ]
    standings = list(Standing.objects.values_list("entry__team__name", "place", "points"))
    wipe()
    import_text(tmp_path, text)
    assert export("--tournament", "Monsoon Cup") == text
    assert sorted(Standing.objects.values_list("entry__team__name", "place", "points")) == sorted(
        standings
    )
    made = Substitution.objects.select_related("player_in", "player_out").get()
    assert (made.player_out.name, made.player_in.name, made.first_sitting, made.returned_from) == (
        "Biju",
        "Omana",
        2,
        3,
    )
    assert PlayerTotals.objects.get(player__name="Omana").played == 1


def _edited(text: str, change) -> dict:
    document = json.loads(text)
    change(document["tournament"])
    return document


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.pop("substitutions"), "Anu & Biju (Anu and Omana) plays in the game"),
        (
            lambda t: t["substitutions"][0].update({"until": 3}),
            "its players in sitting 3 are Anu, Omana",
        ),
        (
            lambda t: t["substitutions"][0].update({"in": "Chitra"}),
            "Chitra, the substitute of substitution 1, is registered with Chitra & Dev",
        ),
        (
            lambda t: t["substitutions"][0].update({"out": "Dev"}),
            'replaces "Dev", who is not a player of Anu & Biju',
        ),
        (
            lambda t: t["substitutions"].append(
                dict(t["substitutions"][0], out="Anu", **{"in": "Zara"})
            ),
            "Anu & Biju makes more substitutions than the 1 a team",
        ),
        (
            lambda t: t["substitutions"][0].pop("from"),
            "substitution 1 needs its “from”",
        ),
        (
            lambda t: t["substitutions"][0].update({"until": 1}),
            "the last sitting must be a whole number from 2",
        ),
    ],
)
def test_an_archive_whose_substitutions_do_not_match_its_games_is_refused(
    cup, tmp_path, change, message
):
    text = played_with_a_substitution(cup)
    wipe()
    assert message in refused(tmp_path, _edited(text, change))


def test_a_tournament_allowing_two_substitutions_says_so_in_its_archive(tmp_path):
    cup = make_tournament(teams=4, substitutions=2)
    substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana"
    )
    substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Anu"), player_in="Prakash"
    )
    night(cup, 1)
    text = export("--tournament", "Monsoon Cup")
    assert json.loads(text)["tournament"]["substitutions_per_team"] == 2
    wipe()
    import_text(tmp_path, text)
    assert export("--tournament", "Monsoon Cup") == text
    assert seated(1, "Anu & Biju") == ["Prakash", "Omana"]


# --- The team's page ---------------------------------------------------------------------


def test_the_teams_page_costs_the_same_in_a_small_and_a_longer_tournament(organiser_client):
    """The team's page reads the team, its substitutions and the sittings played: the same
    queries whether the tournament is one sitting old or four."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = []
    for name, nights in (("Small Cup", 1), ("Long Cup", 4)):
        tournament = make_tournament(name=name, teams=4)
        first = tournament.entries.order_by("pk").first()
        for seed in range(nights):
            night(tournament, seed)
        substitutions.substitute(entry=first, player_out=first.team.first_player, player_in=name)
        url = reverse("tournaments:team_players", args=[tournament.pk, first.pk])
        with CaptureQueriesContext(connection) as queries:
            response = organiser_client.get(url)
        assert response.status_code == 200
        assert f"{name} for {first.team.first_player.name} from sitting {nights + 1}" in (
            response.text
        )
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_director_substitutes_and_brings_back_through_the_pages(organiser_client, cup):
    registered = entry("Anu & Biju")
    url = reverse("tournaments:team_players", args=[cup.pk, registered.pk])
    night(cup, 1)
    # A substitute registered elsewhere is refused on the form, naming why; nothing is kept.
    response = organiser_client.post(
        url, {"player_out": player("Biju").pk, "player_in": "Chitra", "first_sitting": 2}
    )
    assert response.status_code == 200
    refusal = REGISTERED_ELSEWHERE % {"player": "Chitra", "team": "Chitra & Dev"}
    assert escape(refusal) in response.text
    assert not Substitution.objects.exists()
    response = organiser_client.post(
        url,
        {"player_out": player("Biju").pk, "player_in": "Omana", "first_sitting": 2},
        follow=True,
    )
    assert "Omana sits in for Biju from sitting 2." in response.text
    made = Substitution.objects.get()
    night(cup, 2)
    back = reverse("tournaments:player_back", args=[cup.pk, registered.pk, made.pk])
    response = organiser_client.post(back, {f"back{made.pk}-returned_from": 2}, follow=True)
    assert escape(SITTING_PLAYED % {"number": 2, "first": 3}) in response.text
    response = organiser_client.post(back, {f"back{made.pk}-returned_from": 3}, follow=True)
    assert "Biju is back from sitting 3." in response.text
    assert "Omana for Biju in sitting 2" in response.text
    undo = reverse("tournaments:substitution_undo", args=[cup.pk, registered.pk, made.pk])
    response = organiser_client.post(undo, follow=True)
    refusal = PLAYED_WITH % {
        "substitute": "Omana",
        "team": "Anu & Biju",
        "number": 2,
        "player": "Biju",
    }
    assert escape(refusal) in response.text
    assert Substitution.objects.get().returned_from == 3


# --- What a substitution touches elsewhere -----------------------------------------------


def test_a_return_not_yet_played_can_be_moved_and_one_played_cannot(cup):
    night(cup, 1)
    made = substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana"
    )
    substitutions.bring_back(substitution=made, returned_from=9)  # meant 3
    substitutions.bring_back(substitution=made, returned_from=3)
    made.refresh_from_db()
    assert made.returned_from == 3
    night(cup, 2)
    night(cup, 3)
    refusal = BACK_ALREADY % {"player": "Biju", "number": 3}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        substitutions.bring_back(substitution=made, returned_from=5)


def test_merging_a_substitute_into_a_player_of_the_same_tournament_is_refused(cup):
    from club.leaderboards.merge import merge_players
    from club.leaderboards.services import RegisterError

    substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana"
    )
    for keep, fold in (("Chitra", "Omana"), ("Omana", "Biju")):
        with pytest.raises(RegisterError, match="one of them as a substitute"):
            merge_players(keep=player(keep), fold=player(fold))
    # Two records of the substitute are one person: the substitution follows the merge.
    merge_players(keep=Player.objects.create(name="Omana K"), fold=player("Omana"))
    assert Substitution.objects.get().player_in.name == "Omana K"


def test_the_player_pages_know_who_sits_in(cup, client):
    night(cup, 1)
    substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana"
    )
    sitting = services.propose_sitting(tournament=cup, rng=rng(2))
    biju = reverse("tournaments:player", args=[cup.pk, player("Biju").pk])
    omana = reverse("tournaments:player", args=[cup.pk, player("Omana").pk])
    assert "Omana sits in for you" in client.get(biju).text
    services.confirm_sitting(sitting=sitting, rng=rng(2))
    page = client.get(biju).text
    assert "Omana sits in for you in this sitting." in page
    # The substitute's own page: the team's table of the sitting, and none before.
    answer = client.get(omana)
    assert answer.status_code == 200
    assert "Playing with" in answer.text and "Anu" in answer.text


def test_the_admin_keeps_a_substitution_consistent(cup):
    from club.games.services import TeamEntry, find_or_add_team
    from club.tournaments.admin import TournamentTeamForm

    made = substitutions.substitute(
        entry=entry("Anu & Biju"), player_out=player("Biju"), player_in="Omana"
    )
    other = find_or_add_team(
        TeamEntry("Anu", "Zed"), player("Anu"), Player.objects.create(name="Zed")
    )
    form = TournamentTeamForm({"team": other.pk, "captain": player("Anu").pk}, instance=made.entry)
    assert not form.is_valid()
    assert "undo it before changing" in str(form.errors)
    with_substitute = find_or_add_team(
        TeamEntry("Omana", "Prakash"), player("Omana"), Player.objects.create(name="Prakash")
    )
    form = TournamentTeamForm(
        {"team": with_substitute.pk, "captain": player("Omana").pk},
        instance=TournamentTeamForm._meta.model(tournament=cup),
    )
    assert not form.is_valid()
    assert "Omana already plays for Anu &amp; Biju" in str(form.errors)
