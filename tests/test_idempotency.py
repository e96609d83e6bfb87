"""A form sent again with the same key gets the first answer and writes nothing more."""

import datetime
import io
import re
import uuid
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from club.games import services as scoring
from club.games.links import issue_links
from club.games.models import Change, PendingDeal, Round, SubmittedForm
from club.games.services import Deal, load_seating, record_deal
from club.tournaments import services as tournaments
from club.tournaments.models import Sitting, TournamentEvent
from tests.factories import deal_form, seat, start_game

pytestmark = pytest.mark.django_db


def deal_data(number, declarer, key, **extra):
    return {**deal_form(number, declarer.pk, 30, "hearts", key=key, p0=20, p1=36), **extra}


@pytest.fixture
def game():
    return start_game(2)


@pytest.fixture
def chitra(game):
    return load_seating(game).players[1]


def test_a_resent_deal_gets_the_first_answer_and_is_stored_once(organiser_client, game, chitra):
    url = reverse("games:record", args=[game.pk])
    key = str(uuid.uuid4())
    first = organiser_client.post(url, deal_data(1, chitra, key))
    again = organiser_client.post(url, deal_data(1, chitra, key))
    assert first.status_code == again.status_code == 302
    assert again["Location"] == first["Location"]
    assert again["X-Idempotent-Replay"] == "true"
    assert Round.objects.filter(game=game).count() == 1
    assert Change.objects.filter(game=game).count() == 1


def test_a_resent_htmx_deal_gets_the_same_fragment(organiser_client, game, chitra):
    url = reverse("games:record", args=[game.pk])
    key = str(uuid.uuid4())
    first = organiser_client.post(url, deal_data(1, chitra, key), headers={"HX-Request": "true"})
    again = organiser_client.post(url, deal_data(1, chitra, key), headers={"HX-Request": "true"})
    assert first.status_code == again.status_code == 200
    assert again.content == first.content
    assert "Record deal 2" in again.text  # the answer of the first send, not "already recorded"
    assert Round.objects.filter(game=game).count() == 1


def test_a_resent_correction_is_kept_once(organiser_client, game, chitra):
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 20, 1: 36}, declarer=seat(game, "Chitra"), bid=30, trump="hearts"),
    )
    url = reverse("games:edit", args=[game.pk, 1])
    key = str(uuid.uuid4())
    data = deal_data(1, chitra, key, doubling="double")
    assert organiser_client.post(url, data).status_code == 302
    assert organiser_client.post(url, data).status_code == 302
    assert Change.objects.filter(game=game, action=Change.Action.EDITED).count() == 1


def test_a_resent_draw_makes_one_sitting(organiser_client):
    tournament = tournaments.create_tournament(name="Onam cup", starts_on=datetime.date(2026, 9, 1))
    for first, second in [("Anu", "Biju"), ("Chitra", "Dev")]:
        tournaments.register_team(tournament=tournament, first=first, second=second)
    url = reverse("tournaments:draw", args=[tournament.pk])
    data = {"game_size": "2", "idempotency_key": str(uuid.uuid4())}
    first = organiser_client.post(url, data)
    again = organiser_client.post(url, data)
    assert again.status_code == first.status_code
    assert again["X-Idempotent-Replay"] == "true"
    assert Sitting.objects.filter(tournament=tournament).count() == 1
    assert TournamentEvent.objects.filter(action=TournamentEvent.Action.DRAWN).count() == 1


def test_a_resent_confirmation_records_the_deal_once(client):
    game = start_game(2, require_confirmation=True)
    first_team, second_team = issue_links(game=game)
    chitra = load_seating(game).players[1]
    client.post(
        reverse("games:scorer_send", args=[first_team.token]),
        deal_data(1, chitra, str(uuid.uuid4())),
    )
    assert PendingDeal.objects.filter(game=game).exists()
    url = reverse("games:scorer_confirm", args=[second_team.token, 1])
    data = {"idempotency_key": str(uuid.uuid4())}
    first = client.post(url, data)
    again = client.post(url, data)
    assert again.status_code == first.status_code
    assert again["X-Idempotent-Replay"] == "true"
    assert Round.objects.filter(game=game).count() == 1


def test_an_answer_that_failed_is_not_kept_so_the_resend_is_tried_again(
    organiser_client, game, chitra
):
    url = reverse("games:record", args=[game.pk])
    key = str(uuid.uuid4())
    organiser_client.raise_request_exception = False
    real = scoring.submit_deal  # the one service the deal form calls
    with mock.patch.object(scoring, "submit_deal", side_effect=RuntimeError("connection lost")):
        failed = organiser_client.post(url, deal_data(1, chitra, key))
    assert failed.status_code == 500
    assert not SubmittedForm.objects.filter(key=key).exists()
    assert Round.objects.count() == 0
    assert scoring.submit_deal is real
    again = organiser_client.post(url, deal_data(1, chitra, key))
    assert again.status_code == 302
    assert Round.objects.filter(game=game).count() == 1


def test_a_key_used_by_someone_else_is_refused(organiser_client, django_user_model, game, chitra):
    url = reverse("games:record", args=[game.pk])
    key = str(uuid.uuid4())
    organiser_client.post(url, deal_data(1, chitra, key))
    other = Client()
    other.force_login(django_user_model.objects.create_user("oscar", is_staff=True))
    response = other.post(url, deal_data(2, chitra, key))
    assert response.status_code == 400
    assert Round.objects.filter(game=game).count() == 1


def test_forms_without_a_key_still_work(organiser_client, game, chitra):
    data = deal_data(1, chitra, "")
    response = organiser_client.post(reverse("games:record", args=[game.pk]), data)
    assert response.status_code == 302
    assert Round.objects.filter(game=game).count() == 1


POST_FORM = re.compile(r"<form\b[^>]*method=\"post\"[^>]*>(.*?)</form>", re.S | re.I)


def test_every_form_that_writes_carries_a_fresh_key(organiser_client, game, chitra):
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 20, 1: 36}, declarer=seat(game, "Chitra"), bid=30, trump="hearts"),
    )
    tournament = tournaments.create_tournament(name="Onam cup", starts_on=datetime.date(2026, 9, 1))
    for first, second in [("Esha", "Farid"), ("Gita", "Hari")]:
        tournaments.register_team(tournament=tournament, first=first, second=second)
    sitting = tournaments.propose_sitting(tournament=tournament)
    pages = [
        reverse("games:new"),
        reverse("games:detail", args=[game.pk]),
        reverse("games:edit", args=[game.pk, 1]),
        reverse("games:links", args=[game.pk]),
        reverse("tournaments:new"),
        reverse("tournaments:detail", args=[tournament.pk]),
        reverse("tournaments:sitting", args=[tournament.pk, sitting.number]),
        reverse("leaderboards:player_new"),
        reverse("leaderboards:merge"),
        reverse("leaderboards:import"),
        reverse("leaderboards:player", args=[chitra.pk]),
        reverse("leaderboards:player_edit", args=[chitra.pk]),
    ]
    keys = []
    for page in pages:
        html = organiser_client.get(page).text
        for form in POST_FORM.findall(html):
            if 'name="idempotency_key"' in form:
                keys.extend(re.findall(r'name="idempotency_key" value="([0-9a-f-]{36})"', form))
                continue
            # Logging out and choosing the language write nothing of the club's.
            assert "log out" in form.lower() or 'name="language"' in form, (page, form[:200])
    assert len(keys) >= len(pages)
    assert len(set(keys)) == len(keys)  # a fresh key for every form


def test_old_keys_are_forgotten(organiser_client, game, chitra):
    from django.core.management import call_command

    key = str(uuid.uuid4())
    organiser_client.post(reverse("games:record", args=[game.pk]), deal_data(1, chitra, key))
    SubmittedForm.objects.update(created_at=datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC))
    call_command("clear_submitted_forms", stdout=io.StringIO())
    assert not SubmittedForm.objects.exists()


def test_the_same_key_with_other_values_is_another_form_and_is_refused(
    organiser_client, game, chitra
):
    """Back in the browser, the form changed and sent again with its old key: not the
    first answer (which would say deal 1 was recorded as first typed), but a refusal."""
    url = reverse("games:record", args=[game.pk])
    key = str(uuid.uuid4())
    assert organiser_client.post(url, deal_data(1, chitra, key)).status_code == 302
    changed = organiser_client.post(url, deal_data(2, chitra, key, points_0=30, points_1=26))
    assert changed.status_code == 400
    assert "already used for something else" in changed.content.decode()
    assert Round.objects.filter(game=game).count() == 1
    # The same values again (a real resend, whatever its CSRF token) get the answer.
    again = organiser_client.post(url, deal_data(1, chitra, key, csrfmiddlewaretoken="x"))
    assert again.status_code == 302 and again["X-Idempotent-Replay"] == "true"
