"""Publishing a night on the web: a results file uploaded, checked and previewed, then stored
all at once or not at all, in the words of ``manage.py import_results``.

What is here already is recognised: a game the same as the file's is left as it is (the
same file published twice adds nothing), a tournament or a different game under a name
already here stops the whole file.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from club.archive import views
from club.archive.export import export_json
from club.clubs import known
from club.games import services
from club.games.models import Game
from club.tournaments.models import Tournament
from tests.archive.test_tournament_archive import build, counts, export, wipe
from tests.factories import deal, start_game

pytestmark = pytest.mark.django_db

PREVIEW = reverse("archive:import")
STORE = reverse("archive:import_store")


def night() -> list[Game]:
    """Two tables of a club night: one ended early, one still being played."""
    one = start_game(2, label="Friday table 1")
    services.record_deal(game=one, number=1, entry=deal(one, {0: 30, 1: 26}, "Anu", 28, "clubs"))
    services.record_deal(game=one, number=2, entry=deal(one, {0: 20, 1: 36}, "Chitra", 30))
    services.end_game(game=one)
    two = start_game(2, label="Friday table 2", first_dealer=1)
    services.record_deal(game=two, number=1, entry=deal(two, {0: 40, 1: 16}, "Biju", 32, "spades"))
    return [one, two]


def upload(text: str, name: str = "night.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"), content_type="application/json")


def preview(client, text: str):
    return client.post(PREVIEW, {"file": upload(text)})


def fingerprint(page) -> str:
    found = re.search(r'name="previewed" value="([0-9a-f]{64})"', page.content.decode())
    assert found, "the preview offers no import"
    return found.group(1)


def store(client, text: str, previewed: str):
    key = str(uuid.uuid4())  # each a new press of Import
    return client.post(
        STORE, {"file": upload(text), "previewed": previewed, "idempotency_key": key}
    )


def test_a_nights_games_are_previewed_then_stored_and_export_as_the_file(organiser_client):
    night()
    text = export_json()
    wipe()

    before = counts()
    page = preview(organiser_client, text)
    assert page.status_code == 200
    body = page.content.decode()
    assert counts() == before  # a preview writes nothing
    assert "Friday table 1" in body and "Friday table 2" in body
    assert body.count("new: to be added") == 2
    assert "Import 2 games with 3 deals" in body

    answer = store(organiser_client, text, fingerprint(page))
    assert answer.status_code == 302 and answer["Location"] == reverse("games:list")
    listed = organiser_client.get(answer["Location"]).content.decode()
    assert "Imported 2 games with 3 deals from night.json." in listed
    assert export_json() == text  # every game, deal and computed field as the file


def test_the_same_night_published_twice_adds_nothing_the_second_time(organiser_client):
    night()
    text = export_json()
    before = counts()

    page = preview(organiser_client, text)
    body = page.content.decode()
    assert body.count("here already: left as it is") == 2
    assert "Everything in this file is here already: there is nothing to import." in body
    assert 'name="previewed"' not in body
    assert counts() == before


def test_a_night_that_went_on_adds_only_the_games_not_here(organiser_client):
    night()
    published = export_json()
    later = start_game(2, label="Friday table 3")
    services.record_deal(game=later, number=1, entry=deal(later, {0: 30, 1: 26}, "Anu", 28))
    whole_night = export_json()
    later.delete()
    assert export_json() == published

    page = preview(organiser_client, whole_night)
    body = page.content.decode()
    assert body.count("here already: left as it is") == 2 and body.count("new: to be added") == 1
    answer = store(organiser_client, whole_night, fingerprint(page))
    assert answer.status_code == 302
    listed = organiser_client.get(answer["Location"]).content.decode()
    assert "Imported 1 game with 1 deal from night.json." in listed
    assert "2 games of the file are here already, as the file has them" in listed
    assert export_json() == whole_night


def test_a_different_game_under_a_label_here_stops_the_whole_file(organiser_client):
    games = night()
    text = export_json()
    document = json.loads(text)
    document["games"][1]["label"] = "Friday table 9"  # a new game beside the changed one
    document["games"][0]["rounds"] = document["games"][0]["rounds"][:1]
    for key in ("status", "winner", "tables", "score", "kodis"):
        document["games"][0].pop(key, None)  # what the rules made of the deals cut
    changed = json.dumps(document, ensure_ascii=False)
    before = counts()

    page = preview(organiser_client, changed)
    body = page.content.decode()
    refusal = "Game &quot;Friday table 1&quot;, label: the club already has a game with this label."
    assert f"{refusal} This file cannot be imported." in body
    assert 'name="previewed"' not in body
    # Sent anyway, with the fingerprint of this very file: refused in the same words.
    answer = store(
        organiser_client, changed, views._fingerprint(upload(changed), club=known.home())
    )
    assert answer.status_code == 200
    assert f"{refusal} Nothing was imported." in answer.content.decode()
    assert counts() == before
    assert Game.objects.filter(pk=games[0].pk).get().deals_played == 2


def test_a_tournament_published_twice_is_refused_with_its_name(organiser_client):
    tournament = build(final=True)
    text = export("--tournament", tournament.name)
    before = counts()

    refusal = (
        f"Tournament &quot;{tournament.name}&quot;, name: there is already a tournament "
        f"called “{tournament.name}”."
    )
    page = preview(organiser_client, text)
    assert f"{refusal} This file cannot be imported." in page.content.decode()
    answer = store(organiser_client, text, views._fingerprint(upload(text), club=known.home()))
    assert f"{refusal} Nothing was imported." in answer.content.decode()
    assert counts() == before

    wipe()
    page = preview(organiser_client, text)
    answer = store(organiser_client, text, fingerprint(page))
    assert answer["Location"] == Tournament.objects.get().get_absolute_url()
    assert export("--tournament", tournament.name) == text


def test_only_the_file_previewed_is_stored(organiser_client):
    night()
    text = export_json()
    wipe()
    page = preview(organiser_client, text)
    other = text.replace("Friday table 2", "Friday table 5")
    answer = store(organiser_client, other, fingerprint(page))
    assert "This is not the file, or not the choices, that were previewed" in (
        answer.content.decode()
    )
    assert Game.objects.count() == 0


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "The file is not valid JSON: "),
        ('{"format": "other/2", "games": []}', "this club reads “fiftysix-results/1” files"),
        ("\udcff", "The file is not UTF-8 text"),
    ],
)
def test_a_file_the_import_refuses_is_refused_in_its_words(organiser_client, text, words):
    data = text.encode("utf-8", "surrogateescape")
    page = organiser_client.post(
        PREVIEW, {"file": SimpleUploadedFile("bad.json", data, "application/json")}
    )
    body = page.content.decode()
    assert words in body and "This file cannot be imported." in body
    assert 'name="previewed"' not in body


def test_a_file_past_the_limit_is_refused_before_it_is_read(organiser_client, monkeypatch):
    monkeypatch.setitem(views.results_import.upload_limits, "file", 1000)
    monkeypatch.setattr(views.ResultsFileForm.base_fields["file"], "max_bytes", 1000)
    page = organiser_client.post(PREVIEW, {"file": upload(" " * 5000)})
    assert page.status_code == 413
    assert "the most this page takes is 1 KB" in page.content.decode()


def test_the_preview_asks_what_the_import_asks_a_fixed_few_a_game(organiser_client):
    for number in range(6):
        game = start_game(2, label=f"Long night {number}")
        services.record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 26}, "Anu", 28))
    text = export_json()
    short = json.dumps({**json.loads(text), "games": json.loads(text)["games"][:2]})
    wipe()

    def asked(send, file: str) -> int:
        with CaptureQueriesContext(connection) as queries:
            send(file)
        wipe()  # for the import; the preview kept nothing
        return len(queries)

    def previewed(file: str):
        preview(organiser_client, file)

    def imported(file: str):
        store(organiser_client, file, views._fingerprint(upload(file), club=known.home()))

    # The preview is the import rehearsed without the deals' rows and the boards' work:
    # each asks a fixed few statements a game (its label looked up as it is checked, the
    # games saved in batches, the boards brought up to date once), no more for a longer
    # file than that, and the preview no more than the import. One game at a time, both
    # asked 22 a game.
    previewing = (asked(previewed, text) - asked(previewed, short)) / 4
    importing = (asked(imported, text) - asked(imported, short)) / 4
    assert previewing == 1
    assert importing == 2.5


def test_players_and_visitors_cannot_import(client):
    night()
    text = export_json()
    wipe()
    answer = client.post(PREVIEW, {"file": upload(text)})
    assert answer.status_code == 302 and "/accounts/login/" in answer["Location"]
    answer = client.post(STORE, {"file": upload(text), "previewed": "0" * 64})
    assert answer.status_code == 302
    assert Game.objects.count() == 0
