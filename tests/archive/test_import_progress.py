"""How far an import has gone: the import tells each game it checks and writes, the web
import keeps it under the page's run and the organiser's login, and the page reads it
while it waits (js/import.js drives the bar; tests/browser/test_import_progress.py
watches it in a browser)."""

from __future__ import annotations

import json
import uuid

import pytest
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from club.archive import progress
from club.archive.export import export_json
from club.archive.format import ArchiveError
from club.archive.load import import_text
from club.archive.publish import preview_text
from club.archive.reading import TextInMemory
from club.clubs import known
from club.games.models import Game
from tests.archive.test_tournament_archive import wipe
from tests.archive.test_web_import import night

pytestmark = pytest.mark.django_db

PREVIEW = reverse("archive:import")
STORE = reverse("archive:import_store")
PROGRESS = reverse("archive:import_progress")


@pytest.fixture(autouse=True)
def empty_progress():
    caches["progress"].clear()
    yield
    caches["progress"].clear()


def _night_file() -> str:
    night()
    text = export_json()
    wipe()
    return text


def _told(run) -> list[tuple[str, int, int]]:
    steps = []
    run(lambda step, done, total: steps.append((step, done, total)))
    return steps


def test_the_import_tells_every_game_it_checks_then_every_game_it_writes():
    text = _night_file()
    steps = _told(lambda told: import_text(TextInMemory(text), progress=told))

    assert steps == [("check", 1, 2), ("check", 2, 2), ("write", 1, 2), ("write", 2, 2)]
    assert Game.objects.count() == 2


def test_the_preview_tells_the_same_steps_and_keeps_nothing():
    text = _night_file()
    steps = _told(lambda told: preview_text(TextInMemory(text), progress=told))

    assert steps == [("check", 1, 2), ("check", 2, 2), ("write", 1, 2), ("write", 2, 2)]
    assert Game.objects.count() == 0


def test_a_refused_file_stops_telling_where_it_was_refused():
    document = json.loads(_night_file())
    document["games"][1]["rounds"][0]["bid"] = 99
    steps = _told(
        lambda told: pytest.raises(
            ArchiveError,
            import_text,
            TextInMemory(json.dumps(document)),
            progress=told,
        )
    )
    assert steps == [("check", 1, 2)]  # the second game was refused as it was checked


def _upload(text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("night.json", text.encode(), content_type="application/json")


def test_the_page_reads_how_far_its_own_run_went(organiser_client, client, django_user_model):
    text = _night_file()
    run = uuid.uuid4().hex
    page = organiser_client.post(PREVIEW, {"file": _upload(text), "run": run})
    assert page.status_code == 200 and page.context["preview"].games == 2
    assert f'name="run" value="{page.context["run"]}"' in page.content.decode()
    assert page.context["run"] != run  # the next run is named anew

    told = organiser_client.get(PROGRESS, {"run": run})
    assert told.status_code == 200
    assert "no-store" in told["Cache-Control"]
    assert told.json() == {"percent": 99, "words": "Undoing the trial: nothing is kept yet"}

    # Another organiser, another run, a key that is not a run: nothing to read.
    other = django_user_model.objects.create_user(username="oscar", password="x", is_staff=True)
    client.force_login(other)
    assert client.get(PROGRESS, {"run": run}).json() == {"percent": None, "words": ""}
    for key in (uuid.uuid4().hex, "../../etc", ""):
        assert organiser_client.get(PROGRESS, {"run": key}).json()["percent"] is None


def test_the_words_and_the_share_of_each_step(organiser):
    home = known.home()
    run = uuid.uuid4().hex
    told = progress.reporter(organiser, run, "import", club=home)
    told("check", 1, 4035)
    assert progress.read(organiser, run, club=home) == {
        "percent": 0,
        "words": "Checking the games: 1 of 4,035",
    }
    told("write", 2000, 4035)
    assert progress.read(organiser, run, club=home) == {
        "percent": 30 + 70 * 2000 // 4035,
        "words": "Storing the games: 2,000 of 4,035",
    }
    told("write", 4035, 4035)
    assert progress.read(organiser, run, club=home)["words"] == (
        "Bringing the leaderboards and ratings up to date"
    )
    preview = progress.reporter(organiser, run, "preview", club=home)
    preview("write", 10, 20)
    assert progress.read(organiser, run, club=home) == {
        "percent": 55 + 45 * 10 // 20,
        "words": "Trying the games against this site: 10 of 20",
    }
    assert progress.reporter(organiser, "not a run", "import", club=home) is None


def test_an_import_sent_by_the_page_goes_where_a_plain_post_is_sent(organiser_client):
    text = _night_file()
    page = organiser_client.post(PREVIEW, {"file": _upload(text)})
    fields = {
        "file": _upload(text),
        "previewed": page.context["fingerprint"],
        "idempotency_key": str(uuid.uuid4()),
        "run": uuid.uuid4().hex,
    }
    answer = organiser_client.post(STORE, fields, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    assert answer["HX-Redirect"] == reverse("games:list")
    assert Game.objects.count() == 2
    told = organiser_client.get(PROGRESS, {"run": fields["run"]}).json()
    assert told["words"] == "Bringing the leaderboards and ratings up to date"
