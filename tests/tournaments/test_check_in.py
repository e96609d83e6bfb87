"""Check-in: with the tournament's setting on, only the teams checked in for a sitting are
drawn; the others are left out, play no game, have no bye and score nothing for it.

Six pairs (tests/tournaments/helpers.py), one table each, so one made contract wins a
game (3 points a win, 1 a loss, 3 a bye: the default scheme). Sitting 1: Kavya & Latif
and Indu & Jacob are late; the four others play two games. Sitting 2: all six are here.
"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from club.games.links import issue_links
from club.tournaments import checkin, services, stages
from club.tournaments.checkin import DRAWN_ALREADY, KNOCKOUT_NOT_IN, NOT_ASKED, TOO_FEW_IN
from club.tournaments.models import (
    Bye,
    CheckIn,
    Sitting,
    Standing,
    TournamentEvent,
    TournamentTeam,
)
from club.tournaments.services.draw import NOT_CHECKED_IN
from club.tournaments.writes import RESULTS_FINAL
from tests.archive.test_tournament_archive import export, import_text, refused, wipe
from tests.tournaments.helpers import make_tournament, play_sitting, rng

pytestmark = pytest.mark.django_db

LATE = ("Indu & Jacob", "Kavya & Latif")


def entry(name: str) -> TournamentTeam:
    return TournamentTeam.objects.select_related("tournament", "team").get(team__name=name)


def drawn(sitting: Sitting) -> set[str]:
    ids = {team for game in sitting.proposal for team in game} | set(sitting.proposed_byes)
    return set(TournamentTeam.objects.filter(pk__in=ids).values_list("team__name", flat=True))


@pytest.fixture
def cup():
    tournament = make_tournament(teams=6)
    checkin.set_check_in(tournament=tournament, on=True)
    tournament.refresh_from_db()
    return tournament


def test_without_check_in_every_team_is_drawn_and_none_checks_in():
    tournament = make_tournament(teams=6)
    with pytest.raises(services.TournamentError, match=re.escape(str(NOT_ASKED))):
        checkin.check_in(entry=entry("Anu & Biju"))
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    assert len(drawn(sitting)) == 6 and sitting.absent == []


def test_only_the_teams_checked_in_are_drawn_and_the_late_score_nothing(cup):
    for registered in TournamentTeam.objects.exclude(team__name__in=LATE):
        checkin.check_in(entry=registered)
    sitting = services.propose_sitting(tournament=cup, rng=rng())
    assert drawn(sitting) == {"Anu & Biju", "Chitra & Dev", "Esha & Farid", "Gita & Hari"}
    assert sorted(entry(name).pk for name in LATE) == sitting.absent
    assert sitting.proposed_byes == []  # four present: two games, nobody sits out
    services.confirm_sitting(sitting=sitting, rng=rng())
    play_sitting(sitting)
    assert not Bye.objects.exists()
    standing = {s.entry.team.name: s for s in Standing.objects.select_related("entry__team")}
    for name in LATE:  # no game, no bye: nothing
        assert (standing[name].games, standing[name].points, standing[name].byes) == (0, 0, 0)
    assert sum(standing[name].games for name in standing) == 4
    # The sitting's page says who was left out and why.
    assert "Left out, not checked in" in services_page(cup, 1)
    # Sitting 2: the late teams are here now; everyone checked in again is drawn.
    for registered in TournamentTeam.objects.all():
        checkin.check_in(entry=registered)
    second = services.propose_sitting(tournament=cup, rng=rng(2))
    assert len(drawn(second)) == 6 and second.absent == []


def services_page(tournament, number: int) -> str:
    from django.test import Client

    return Client().get(reverse("tournaments:sitting", args=[tournament.pk, number])).text


def test_a_draw_needs_two_teams_checked_in(cup):
    checkin.check_in(entry=entry("Anu & Biju"))
    refusal = TOO_FEW_IN % {"count": 1, "number": 1}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        services.propose_sitting(tournament=cup, rng=rng())
    assert not Sitting.objects.exists()


def test_checking_in_once_the_sitting_is_drawn_is_refused_with_what_to_do(cup):
    for name in ("Anu & Biju", "Chitra & Dev"):
        checkin.check_in(entry=entry(name))
    services.propose_sitting(tournament=cup, rng=rng())
    refusal = DRAWN_ALREADY % {"number": 1, "team": "Esha & Farid"}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        checkin.check_in(entry=entry("Esha & Farid"))
    assert CheckIn.objects.count() == 2


def test_an_absent_team_cannot_be_put_into_the_draw_by_hand(cup):
    for name in ("Anu & Biju", "Chitra & Dev", "Esha & Farid", "Gita & Hari"):
        checkin.check_in(entry=entry(name))
    sitting = services.propose_sitting(tournament=cup, rng=rng())
    late = entry("Kavya & Latif").pk
    games = [list(game) for game in sitting.proposal]
    games[0][0] = late
    refusal = NOT_CHECKED_IN % {"team": "Kavya & Latif"}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        services.adjust_sitting(sitting=sitting, games=games, byes=[])


def test_the_director_checks_teams_in_on_the_board_one_tap_each(organiser_client, cup):
    board = reverse("tournaments:board", args=[cup.pk])
    page = organiser_client.get(board).text
    assert "Check-in for sitting 1" in page and "Checked in: 0 of 6." in page
    anu = entry("Anu & Biju")
    url = reverse("tournaments:check_in", args=[cup.pk, anu.pk])
    card = organiser_client.post(url, headers={"HX-Request": "true"})
    assert card.status_code == 200
    assert "Checked in: 1 of 6." in card.text and 'aria-pressed="true"' in card.text
    assert CheckIn.objects.get().entry == anu and not CheckIn.objects.get().by_captain
    # Without scripts, the same tap comes back to the board.
    again = organiser_client.post(url, {"undo": "1"})
    assert again.status_code == 302 and again.url.endswith("#check-in")
    assert not CheckIn.objects.exists()
    # The setting is on the same card.
    off = organiser_client.post(reverse("tournaments:check_in_setting", args=[cup.pk]), {"on": "0"})
    assert off.status_code == 302
    cup.refresh_from_db()
    assert not cup.check_in


def test_the_captain_checks_the_team_in_from_the_captains_page(client, cup):
    anu = entry("Anu & Biju")
    url = reverse("tournaments:captain", args=[checkin.captain_key(anu)])
    page = client.get(url)
    assert page.status_code == 200
    assert "no-store" in page["Cache-Control"]
    assert "We are here: check in for sitting 1" in page.text
    response = client.post(url)
    assert response.status_code == 302
    found = CheckIn.objects.get()
    assert (found.entry, found.number, found.by_captain, found.by) == (anu, 1, True, None)
    assert "Checked in for sitting 1 at" in client.get(url).text
    # A key this server did not sign is no captain's.
    assert client.get(reverse("tournaments:captain", args=["1.forged"])).status_code == 404
    other = checkin.captain_key(entry("Chitra & Dev"))
    assert client.get(reverse("tournaments:captain", args=[other[:-2] + "xx"])).status_code == 404


def test_the_captains_page_shows_the_teams_table_and_scorer_link(client, cup):
    for name in ("Anu & Biju", "Chitra & Dev"):
        checkin.check_in(entry=entry(name))
    sitting = services.propose_sitting(tournament=cup, rng=rng())
    services.confirm_sitting(sitting=sitting, rng=rng())
    game = sitting.games.get().game
    url = reverse("tournaments:captain", args=[checkin.captain_key(entry("Anu & Biju"))])
    assert "has not issued scorer links" in client.get(url).text
    (link,) = issue_links(game=game)
    page = client.get(url).text
    assert f"/s/{link.token}/" in page and "Table 1" in page


def test_the_team_cards_carry_each_captains_code(organiser_client, cup):
    page = organiser_client.get(reverse("tournaments:team_cards", args=[cup.pk])).text
    assert page.count('class="print-link team-card"') == 6
    for registered in TournamentTeam.objects.all():
        assert f"/tournaments/captain/{checkin.captain_key(registered)}/" in page
    assert page.count('class="qr"') == 6


def test_the_archive_keeps_the_setting_and_who_was_left_out(tmp_path, cup):
    for registered in TournamentTeam.objects.exclude(team__name__in=LATE):
        checkin.check_in(entry=registered)
    sitting = services.propose_sitting(tournament=cup, rng=rng())
    services.confirm_sitting(sitting=sitting, rng=rng())
    play_sitting(sitting)
    first = export("--tournament", cup.name)
    document = json.loads(first)["tournament"]
    assert document["check_in"] is True
    assert document["sittings"][0]["absent"] == sorted(LATE)
    standings = document["standings"]
    wipe()
    import_text(tmp_path, first)
    assert export("--tournament", cup.name) == first
    again = Sitting.objects.get()
    assert sorted(entry(name).pk for name in LATE) == again.absent
    assert json.loads(export("--tournament", cup.name))["tournament"]["standings"] == standings


def test_an_archive_that_seats_an_absent_team_is_refused(tmp_path, cup):
    for registered in TournamentTeam.objects.exclude(team__name__in=LATE):
        checkin.check_in(entry=registered)
    sitting = services.propose_sitting(tournament=cup, rng=rng())
    services.confirm_sitting(sitting=sitting, rng=rng())
    document = json.loads(export("--tournament", cup.name))
    wipe()
    played = "Anu & Biju"  # checked in, and at a table of sitting 1
    document["tournament"]["sittings"][0]["absent"].append(played)
    message = refused(tmp_path, document)
    assert f"{played} is both in" in message and "a team plays once per sitting" in message


# --- Stages: a chart's game is not played without both teams; a knockout waits for them ---


def _stage_event(kind: str, **options):
    from tests.tournaments.test_stages import event

    tournament = event(teams=8 if kind == "groups" else 4, check_in=True)
    stage = stages.add_stage(tournament=tournament, kind=kind, rng=rng(), **options)
    stages.confirm_stage(stage=stage)
    return tournament, stage


def test_a_groups_stage_leaves_out_only_its_absent_teams_and_their_opponents_sit_out():
    tournament, stage = _stage_event("groups", sittings=2)
    late = stage.groups["a"][0]
    opponent = next(b for a, b in stage.chart[0]["games"] if a == late)
    for registered in tournament.entries.exclude(pk=late):
        checkin.check_in(entry=registered)
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    assert sitting.absent == [late]
    assert len(sitting.proposal) == 3 and sitting.proposed_byes == [opponent]


def test_a_knockout_match_is_not_drawn_without_both_teams_and_says_who_is_missing():
    tournament, stage = _stage_event("knockout", qualifiers=4)
    seeds = stage.seeds
    for pk in seeds[:3]:
        checkin.check_in(entry=tournament.entries.get(pk=pk))
    missing = tournament.entries.get(pk=seeds[3]).team.name
    refusal = KNOCKOUT_NOT_IN % {"teams": missing, "number": 1, "count": 1}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        services.propose_sitting(tournament=tournament, rng=rng())
    assert not Sitting.objects.exists()
    # Withdrawn, it gives its opponent the match; the others are drawn as the bracket says.
    services.withdraw_team(entry=tournament.entries.get(pk=seeds[3]))
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    assert sitting.absent == [] and {frozenset(g) for g in sitting.proposal} == {
        frozenset((seeds[1], seeds[2]))
    }


def test_a_new_card_stops_the_old_one_working(organiser_client, client, cup):
    anu = entry("Anu & Biju")
    old = checkin.captain_key(anu)
    assert checkin.captain_key(entry("Anu & Biju")) == old  # made once, then kept
    assert client.get(reverse("tournaments:captain", args=[old])).status_code == 200
    response = organiser_client.post(reverse("tournaments:new_captain_key", args=[cup.pk, anu.pk]))
    assert response.status_code == 302 and response.url.endswith(f"#card-{anu.pk}")
    new = TournamentTeam.objects.get(pk=anu.pk).captain_key
    assert new != old and len(new) >= 40
    assert client.get(reverse("tournaments:captain", args=[old])).status_code == 404
    assert client.get(reverse("tournaments:captain", args=[new])).status_code == 200
    cards = organiser_client.get(reverse("tournaments:team_cards", args=[cup.pk])).text
    assert f"/tournaments/captain/{new}/" in cards and old not in cards


def test_a_captains_check_in_reaches_the_directors_board_at_its_next_poll(cup, organiser_client):
    """The board polls with its version: a check-in (by anyone) changes it, and the live
    part it sends back holds the check-in list."""
    url = reverse("tournaments:board", args=[cup.pk])
    first = organiser_client.get(url)
    version = first.context["board_version"]
    polled = organiser_client.get(url, {"version": version}, HTTP_HX_REQUEST="true")
    assert polled.status_code == 204
    checkin.check_in(entry=entry("Gita & Hari"), by_captain=True)
    polled = organiser_client.get(url, {"version": version}, HTTP_HX_REQUEST="true")
    assert polled.status_code == 200
    assert "Checked in: 1 of 6." in polled.text and "by the captain" in polled.text
    # Taken back, it changes again.
    again = polled.context["board_version"]
    checkin.undo_check_in(entry=entry("Gita & Hari"))
    polled = organiser_client.get(url, {"version": again}, HTTP_HX_REQUEST="true")
    assert polled.status_code == 200 and "Checked in: 0 of 6." in polled.text


def next_step_card(page: str) -> str:
    return page[
        page.index('id="next-step"') : page.index("</section>", page.index('id="next-step"'))
    ]


def test_the_next_step_sends_the_director_to_check_in_before_the_draw(organiser_client, cup):
    check_in_list = f'href="{reverse("tournaments:board", args=[cup.pk])}#check-in"'
    card = next_step_card(organiser_client.get(cup.get_absolute_url()).text)
    assert "Checked in for sitting 1: 0 of 6." in card
    assert check_in_list in card
    assert "Draw the next sitting</button>" not in card  # nobody to draw yet
    for name in ("Anu & Biju", "Chitra & Dev", "Esha & Farid", "Gita & Hari"):
        checkin.check_in(entry=entry(name))
    card = next_step_card(organiser_client.get(cup.get_absolute_url()).text)
    assert "Checked in for sitting 1: 4 of 6." in card and check_in_list in card
    # Enough for a draw: it may go ahead, and says who would sit the sitting out.
    assert "Draw the next sitting</button>" in card
    assert "The 2 teams not checked in sit this sitting out" in card
    for name in LATE:
        checkin.check_in(entry=entry(name))
    card = next_step_card(organiser_client.get(cup.get_absolute_url()).text)
    assert "Draw the next sitting</button>" in card and "Checked in for sitting 1" not in card


def test_a_draw_refused_for_want_of_check_ins_links_to_the_check_in_list(organiser_client, cup):
    """Pressed from a page drawn before check-in was asked for."""
    answer = organiser_client.post(reverse("tournaments:draw", args=[cup.pk]), {"game_size": "2"})
    assert answer.status_code == 200 and not Sitting.objects.exists()
    card = next_step_card(answer.text)
    assert TOO_FEW_IN % {"count": 0, "number": 1} in card
    assert f'href="{reverse("tournaments:board", args=[cup.pk])}#check-in"' in card


def test_no_new_captains_card_once_the_results_are_final(organiser_client):
    tournament = make_tournament(teams=2)
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    services.confirm_sitting(sitting=sitting, rng=rng())
    play_sitting(sitting)
    services.finish_tournament(tournament=tournament)
    services.make_final(tournament=tournament)
    anu = entry("Anu & Biju")
    old = checkin.captain_key(anu)
    events = TournamentEvent.objects.count()
    cards = organiser_client.get(reverse("tournaments:team_cards", args=[tournament.pk])).text
    assert reverse("tournaments:new_captain_key", args=[tournament.pk, anu.pk]) not in cards
    answer = organiser_client.post(
        reverse("tournaments:new_captain_key", args=[tournament.pk, anu.pk]), follow=True
    )
    assert [str(message) for message in answer.context["messages"]] == [
        RESULTS_FINAL % {"name": "Monsoon Cup"}
    ]
    assert TournamentTeam.objects.get(pk=anu.pk).captain_key == old
    assert TournamentEvent.objects.count() == events
    assert organiser_client.get(reverse("tournaments:captain", args=[old])).status_code == 200
