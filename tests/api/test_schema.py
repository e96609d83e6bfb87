"""The API keeps its word: schemathesis against the running app.

The OpenAPI document the app serves (/api/v1/schema/) is read from the app
running on a live server (real HTTP, on the test database), and schemathesis
calls every operation with every parameter, from data its hypothesis draws
(valid and invalid: ids past any column, pages past the end, unknown
statuses) against a club with games and a tournament in it. Every answer
must be in the schema: no 5xx, only documented status codes, bodies and
content types as described. The ids of the club's own games and tournament
are called too, so the 200 answers are checked, not only the 404s.
"""

from __future__ import annotations

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings

from club.api.views import api
from club.games.models import Game
from tests.api.test_api import played_game
from tests.tournaments.helpers import make_tournament, night

pytestmark = pytest.mark.django_db(transaction=True)


# The document as the app serves it; the cases are sent to the live server's address.
schema = schemathesis.openapi.from_dict(api.get_openapi_schema())


def test_the_served_schema_is_the_one_tested(live_server):
    served = requests.get(f"{live_server.url}/api/v1/schema/", timeout=10)
    assert served.status_code == 200
    assert served.json() == schema.raw_schema


@pytest.fixture
def club(transactional_db):
    """A game played at the club, and a tournament with a sitting played."""
    played_game()
    tournament = make_tournament(teams=4)
    night(tournament, 8)
    return {"game": Game.objects.order_by("id").first().pk, "tournament": tournament.pk}


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_every_operation_answers_as_its_schema_says(case, club, live_server):
    case.call_and_validate(base_url=live_server.url)


@pytest.mark.parametrize(
    ("path", "key"),
    [("/games/{pk}/", "game"), ("/tournaments/{pk}/", "tournament")],
)
def test_the_clubs_own_objects_answer_as_the_schema_says(club, live_server, path, key):
    operation = schema[f"/api/v1{path}"]["GET"]
    case = operation.Case(path_parameters={"pk": club[key]})
    response = case.call_and_validate(base_url=live_server.url)
    assert response.status_code == 200
