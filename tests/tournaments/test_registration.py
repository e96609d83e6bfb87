"""Registering a tournament's teams: a whole list at once,
all or nothing with every line's fault named; a team changed before it has played; a
team withdrawn (no new games, its results stay) and back in; all in the history."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from club.games.models import Game
from club.tournaments import services
from club.tournaments.forms import RegisterTeamsForm
from club.tournaments.models import Standing, TournamentEvent, TournamentTeam
from club.tournaments.services.draw import WITHDRAWN
from club.tournaments.services.teams import (
    HAS_PLAYED,
    IN_A_DRAW,
    LINES_REFUSED,
    OWN_PARTNER,
    PLAYS_FOR_ANOTHER,
)
from tests.tournaments.helpers import make_tournament, play_sitting, rng
from tests.tournaments.test_forms_of_play import international

pytestmark = pytest.mark.django_db


def lines(text: str, size: int = 2):
    form = RegisterTeamsForm({"teams": text}, team_size=size)
    assert form.is_valid(), form.errors
    return form.cleaned_data["lines"]


def names(tournament) -> list[str]:
    return list(tournament.entries.order_by("id").values_list("team__name", flat=True))


# --- Reading a list -------------------------------------------------------------------


def test_a_list_reads_players_in_seat_order_with_an_optional_name():
    read = lines(
        "Anu, Biju\n"
        "\n"
        "Thrissur Aces: Chitra & Dev\n"
        "Kochi Kings\tEsha\tFarid\n"  # a spreadsheet row: the name in the first column
        "  Gita ;  Hari  \n"
    )
    assert [(line.line, line.name, line.players) for line in read] == [
        (1, "", ("Anu", "Biju")),
        (3, "Thrissur Aces", ("Chitra", "Dev")),
        (4, "Kochi Kings", ("Esha", "Farid")),
        (5, "", ("Gita", "Hari")),
    ]


def test_a_list_of_teams_of_three_and_its_faults_by_line():
    form = RegisterTeamsForm(
        {"teams": "Anu, Biju, Chitra\nDev, Esha\nGita, Hari, In\u200bdu\n"}, team_size=3
    )
    assert form.is_valid()  # the lines read are still checked against the tournament
    assert [line.line for line in form.cleaned_data["lines"]] == [1]
    (two, reason_two), (three, reason_three) = form.cleaned_data["line_errors"]
    assert (two, reason_two) == (2, "a team of this tournament is 3 players; this line names 2.")
    assert three == 3 and reason_three.startswith("“Indu” holds an invisible or control character")


@pytest.mark.parametrize(
    "data, message",
    [({"teams": " \n \n"}, "Paste the teams, one a line, or choose a file.")],
)
def test_an_empty_list_is_refused(data, message):
    form = RegisterTeamsForm(data, team_size=2)
    assert not form.is_valid() and form.errors["__all__"] == [message]


def test_an_uploaded_file_is_read_like_a_pasted_list():
    upload = SimpleUploadedFile("teams.csv", "\ufeffAces,Anu,Biju\r\nChitra,Dev\r\n".encode())
    form = RegisterTeamsForm({}, {"file": upload}, team_size=2)
    assert form.is_valid(), form.errors
    assert [(line.name, line.players) for line in form.cleaned_data["lines"]] == [
        ("Aces", ("Anu", "Biju")),
        ("", ("Chitra", "Dev")),
    ]
    bad = SimpleUploadedFile("teams.csv", b"\xff\xfe\x00A")
    form = RegisterTeamsForm({}, {"file": bad}, team_size=2)
    assert not form.is_valid() and form.errors["__all__"] == ["The file is not UTF-8 text."]


# --- Registering a list ----------------------------------------------------------------


def test_a_whole_list_registers_in_order_and_each_team_is_in_the_history():
    tournament = make_tournament(teams=0)
    entries = services.register_teams(
        tournament=tournament, teams=lines("Anu, Biju\nAces: Chitra, Dev\nEsha, Farid")
    )
    assert [entry.team.name for entry in entries] == ["Anu & Biju", "Aces", "Esha & Farid"]
    assert names(tournament) == ["Anu & Biju", "Aces", "Esha & Farid"]
    assert Standing.objects.filter(tournament=tournament).count() == 3
    assert list(
        TournamentEvent.objects.filter(action="registered")
        .order_by("id")
        .values_list("note", flat=True)
    ) == ["Anu & Biju", "Aces", "Esha & Farid"]


def test_a_list_with_faults_registers_nothing_and_names_every_faulty_line():
    tournament = make_tournament(teams=2)  # Anu & Biju, Chitra & Dev
    before = (TournamentTeam.objects.count(), TournamentEvent.objects.count())
    with pytest.raises(services.RegistrationErrors) as refused:
        services.register_teams(
            tournament=tournament,
            teams=lines("Esha, Farid\nGita, Anu\nHari, Hari\nIndu, Esha"),
        )
    assert refused.value.errors == [
        (2, PLAYS_FOR_ANOTHER % {"player": "Anu", "team": "Anu & Biju"}),
        (3, OWN_PARTNER % {"player": "Hari"}),
        (4, PLAYS_FOR_ANOTHER % {"player": "Esha", "team": "Esha & Farid"}),
    ]
    assert LINES_REFUSED % {"count": 3} == refused.value.message
    assert (TournamentTeam.objects.count(), TournamentEvent.objects.count()) == before
    assert names(tournament) == ["Anu & Biju", "Chitra & Dev"]


def test_the_organiser_pastes_a_list_on_the_page(organiser_client):
    tournament = international(teams=[])
    url = reverse("tournaments:register_list", args=[tournament.pk])
    response = organiser_client.post(url, {"teams": "Anu, Biju, Chitra\nDev, Esha\n"})
    assert response.status_code == 200
    assert "Line 2: a team of this tournament is 3 players; this line names 2." in response.text
    assert not TournamentTeam.objects.exists()
    response = organiser_client.post(url, {"teams": "Anu, Biju, Chitra\nDev, Esha, Farid\n"})
    assert response.status_code == 302 and response.url.endswith("#register")
    assert names(tournament) == ["Anu & Biju & Chitra", "Dev & Esha & Farid"]
    page = organiser_client.get(tournament.get_absolute_url()).text
    assert "2 teams registered." in page
    response = organiser_client.post(url, {"teams": "Gita, Hari, Anu\n"})
    refusal = PLAYS_FOR_ANOTHER % {"player": "Anu", "team": "Anu & Biju & Chitra"}
    assert f"Line 1: {escape(refusal)}" in response.text


def test_every_faulty_line_is_named_at_once_whatever_its_fault(organiser_client):
    """A line of the wrong size once hid the other lines' faults until it was fixed."""
    tournament = make_tournament(teams=2)  # Anu & Biju, Chitra & Dev
    before = (TournamentTeam.objects.count(), TournamentEvent.objects.count())
    url = reverse("tournaments:register_list", args=[tournament.pk])
    response = organiser_client.post(
        url, {"teams": "Esha, Farid\nGita, Anu\nHari, Indu, Jo, Kala\nJaya, Jaya\nKiran, Lata"}
    )
    assert response.status_code == 200
    faults = [
        f"Line 2: {escape(PLAYS_FOR_ANOTHER % {'player': 'Anu', 'team': 'Anu & Biju'})}",
        "Line 3: a team of this tournament is 2 players; this line names 4.",
        f"Line 4: {escape(OWN_PARTNER % {'player': 'Jaya'})}",
    ]
    text = response.text
    assert all(fault in text for fault in faults), text
    assert [text.index(fault) for fault in faults] == sorted(text.index(f) for f in faults)
    assert LINES_REFUSED % {"count": 3} in text
    assert (TournamentTeam.objects.count(), TournamentEvent.objects.count()) == before


# --- Changing a team before it has played -------------------------------------------------


def test_a_team_changes_its_players_and_name_before_it_has_played(organiser_client):
    tournament = make_tournament(teams=2)
    entry = tournament.entries.get(team__name="Anu & Biju")
    url = reverse("tournaments:team_edit", args=[tournament.pk, entry.pk])
    page = organiser_client.get(url)
    assert page.status_code == 200 and 'value="Biju"' in page.text
    response = organiser_client.post(url, {"first": "Anu", "second": "Kavya", "name": "Aces"})
    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.team.name == "Aces"
    assert [player.name for player in entry.team.players] == ["Anu", "Kavya"]
    event = TournamentEvent.objects.get(action="edited")
    assert event.note == "Anu & Biju → Aces"
    # A player of another team is refused, naming them; nothing changes.
    response = organiser_client.post(url, {"first": "Anu", "second": "Chitra", "name": ""})
    refusal = PLAYS_FOR_ANOTHER % {"player": "Chitra", "team": "Chitra & Dev"}
    assert escape(refusal) in response.text
    entry.refresh_from_db()
    assert entry.team.name == "Aces"


def test_a_team_that_has_played_cannot_change():
    tournament = make_tournament(teams=2)
    sitting = services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    assert sitting.games.exists()
    entry = tournament.entries.get(team__name="Anu & Biju")
    refusal = HAS_PLAYED % {"team": "Anu & Biju"}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        services.edit_team(entry=entry, players=["Anu", "Kavya"])
    entry.refresh_from_db()
    assert entry.team.name == "Anu & Biju"


# --- Withdrawing ---------------------------------------------------------------------------


def test_a_withdrawn_team_gets_no_new_games_and_keeps_its_results(organiser_client):
    tournament = make_tournament(teams=4)
    first = services.confirm_sitting(
        sitting=services.propose_sitting(tournament=tournament, rng=rng()), rng=rng()
    )
    play_sitting(first)
    leaving = tournament.entries.get(team__name="Anu & Biju")
    points_before = Standing.objects.get(entry=leaving).points
    response = organiser_client.post(
        reverse("tournaments:team_withdraw", args=[tournament.pk, leaving.pk])
    )
    assert response.status_code == 302 and response.url.endswith("#teams")
    leaving.refresh_from_db()
    assert leaving.withdrawn_at is not None
    assert Standing.objects.get(entry=leaving).points == points_before  # results stay
    second = services.propose_sitting(tournament=tournament, rng=rng())
    drawn = {team for game in second.proposal for team in game} | set(second.proposed_byes)
    assert leaving.pk not in drawn and len(drawn) == 3
    # The organiser cannot put it back into the draw by hand.
    others = sorted(drawn)
    refusal = WITHDRAWN % {"team": "Anu & Biju"}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        services.adjust_sitting(sitting=second, games=[[leaving.pk, others[0]]], byes=others[1:])
    page = organiser_client.get(tournament.get_absolute_url()).text
    assert '<span class="badge withdrawn">withdrawn</span>' in page
    assert [e.action for e in TournamentEvent.objects.order_by("id")][-2:] == ["withdrawn", "drawn"]


def test_a_team_in_the_pending_draw_is_not_withdrawn_and_a_withdrawn_one_comes_back():
    tournament = make_tournament(teams=4)
    sitting = services.propose_sitting(tournament=tournament, rng=rng())
    entry = tournament.entries.get(pk=sitting.proposal[0][0])
    refusal = IN_A_DRAW % {"team": entry.team.name, "sitting": sitting}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        services.withdraw_team(entry=entry)
    services.discard_sitting(sitting=sitting)
    services.withdraw_team(entry=entry)
    services.reinstate_team(entry=entry)
    entry.refresh_from_db()
    assert entry.withdrawn_at is None
    drawn = services.propose_sitting(tournament=tournament, rng=rng())
    assert entry.pk in {team for game in drawn.proposal for team in game}
    assert not Game.objects.exists()
