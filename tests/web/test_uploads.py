"""Uploads bounded while they are read (club.web.uploads).

The two pages that take a file, the player import (1 MB) and a tournament's list of
teams (100 KB), refuse a larger one with the form again and its message, 413, and
nothing saved; the refusal comes before the file is read, or as soon as its bytes pass
the limit. A page that takes no file refuses one with 400.

The memory tests post 50 times a page's limit through Django's request handler and
every middleware, from a ``wsgi.input`` that makes the body as it is read (the test
never holds it), and measure with tracemalloc what the request allocated at its peak.
tests/web/test_upload_memory.py does the same against a real gunicorn worker.
"""

from __future__ import annotations

import html
import sys
import tracemalloc
import uuid

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.client import ClientHandler
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from club.games.models import Player, SubmittedForm
from club.leaderboards.services import MAX_IMPORT_BYTES
from club.tournaments.forms import MAX_LIST_BYTES
from club.tournaments.models import TournamentTeam
from club.web.uploads import FORM_ROOM, REFUSED_BODY, size_text, too_large
from tests.tournaments.helpers import make_tournament
from tests.web.helpers import Multipart, StreamedInput

MB = 1_000_000
# What a refused request may allocate besides the file's limit: its page, its session.
FEW_MB = 3 * MB
CSRF_SECRET = "k" * 32  # Django takes the cookie's secret itself as the form's token


# --- The pages, through the test client ----------------------------------------------------


def test_a_register_a_little_over_the_limit_is_refused_with_the_form_again(organiser_client):
    content = b"name\n" + b"Anu\n" * 275_000  # 1.1 MB
    response = organiser_client.post(
        reverse("leaderboards:import"), {"file": SimpleUploadedFile("players.csv", content)}
    )
    assert response.status_code == 413
    assert "The file is 1.1 MB; the most this page takes is 1 MB." in response.text
    assert 'type="file" name="file"' in response.text  # the organiser can choose another
    assert not Player.objects.exists()


def test_a_register_under_the_limit_is_still_imported(organiser_client):
    # Just under 1 MB: the limit counts the file's bytes, not the post around them. (A
    # spreadsheet's export, its empty rows kept: the import skips them.)
    content = b"name,nickname,member_number,active\r\nAnu Menon,Anu,M-001,yes\r\n" + (
        b",,,\r\n" * 195_000
    )
    assert MAX_IMPORT_BYTES - 50_000 < len(content) < MAX_IMPORT_BYTES
    response = organiser_client.post(
        reverse("leaderboards:import"), {"file": SimpleUploadedFile("players.csv", content)}
    )
    assert response.status_code == 302
    assert Player.objects.get().name == "Anu Menon"


def test_a_team_file_over_its_limit_is_refused_and_nothing_registered(organiser_client):
    tournament = make_tournament(teams=0)
    content = b"Anu, Biju\n" * 15_000  # 150 KB
    response = organiser_client.post(
        reverse("tournaments:register_list", args=[tournament.pk]),
        {"teams": "", "file": SimpleUploadedFile("teams.csv", content)},
    )
    assert response.status_code == 413
    text = response.text
    assert "The file is 150 KB; the most this page takes is 100 KB." in text
    assert "Paste the teams" not in text  # the one fault is the file's size
    assert not TournamentTeam.objects.filter(tournament=tournament).exists()


def test_a_file_sent_to_a_page_that_takes_none_is_refused(organiser_client):
    response = organiser_client.post(
        reverse("leaderboards:player_new"),
        {"name": "Anu Menon", "file": SimpleUploadedFile("anu.csv", b"x" * 10_000)},
    )
    assert response.status_code == 400
    assert not Player.objects.exists()


def test_sizes_read_as_a_club_reads_them():
    assert size_text(1_000_000) == "1 MB"
    assert size_text(100_000) == "100 KB"
    assert size_text(52_428_800) == "52.4 MB"
    assert too_large(52_428_800, 1_000_000) == (
        "The file is 52.4 MB; the most this page takes is 1 MB."
    )
    # Unknown, or no larger once rounded: said as more than the most.
    assert too_large(None, 1_000_000) == "The file is larger than 1 MB, the most this page takes."
    assert too_large(1_020_000, 1_000_000) == too_large(None, 1_000_000)


# --- A body past the largest of all, refused by the venue's server unread -----------------
# The server asks the app with the request's headers and REFUSED_BODY; its test sends one to
# the venue itself (tests/test_venue_hostile.py).


def test_a_body_past_the_largest_is_told_in_the_readers_language_with_its_pages_limit(client):
    from club.archive.forms import MAX_UPLOAD_BYTES
    from club.venue_server import LARGEST_BODY

    page = reverse("archive:import_store")
    # No session, no user, no query: this test has no database (pytest-django refuses one).
    response = client.post(
        page,
        headers={"Accept-Language": "es", "Referer": f"http://testserver{page}"},
        **{REFUSED_BODY: (LARGEST_BODY, 300 * 2**20)},
    )
    assert response.status_code == 413
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert response["Content-Language"] == "es"
    shown = html.unescape(response.text)
    assert "El archivo pesa 314,6 MB; esta página admite como máximo 50 MB." in shown
    with translation.override("es"):
        assert too_large(300 * 2**20, MAX_UPLOAD_BYTES) in shown
        assert gettext("Nothing was saved.") in shown
    assert f'href="http://testserver{page}" data-history-back' in response.text
    assert 'rel="stylesheet"' in response.text  # the club's page, in its style
    assert "no-store" in response["Cache-Control"]  # never kept


def test_a_body_past_the_largest_to_a_page_that_takes_no_file_names_the_largest(client):
    from club.venue_server import LARGEST_BODY

    response = client.post("/games/new/", **{REFUSED_BODY: (LARGEST_BODY, None)})
    assert response.status_code == 413
    assert response["Content-Language"] == "en"
    assert "What was sent is larger than 50.3 MB, the most the club takes." in html.unescape(
        response.text
    )
    assert 'href="/" data-history-back' in response.text  # no page it was sent from


@pytest.mark.django_db  # the post goes on to its page, whose club is read
def test_a_header_cannot_pass_for_the_servers_refusal(client):
    # A header arrives as HTTP_CLUB.REFUSED_BODY, not the key: the post goes on to its page.
    response = client.post("/games/new/", headers={REFUSED_BODY: "1"})
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/games/new/"


# --- Fifty times the limit, measured -------------------------------------------------------


def _environ(path: str, body: Multipart, stream: StreamedInput, length: int | None, cookies):
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "testserver",
        "HTTP_COOKIE": "; ".join(f"{name}={value}" for name, value in cookies.items()),
        "CONTENT_TYPE": body.content_type,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": stream,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if length is not None:
        environ["CONTENT_LENGTH"] = str(length)
    return environ


def _post(client, path: str, body: Multipart, *, length: int | None, endless: bool = False):
    """The post through Django's handler and every middleware, CSRF checked; returns the
    answer, the bytes read of the body, and the peak the request allocated."""
    cookies = {
        settings.SESSION_COOKIE_NAME: client.cookies[settings.SESSION_COOKIE_NAME].value,
        settings.CSRF_COOKIE_NAME: CSRF_SECRET,
    }
    stream = StreamedInput(body.pieces(endless=endless))
    handler = ClientHandler(enforce_csrf_checks=True)
    handler.load_middleware()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        response = handler(_environ(path, body, stream, length, cookies))
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    return response, stream.given, peak


def _form(**fields) -> dict[str, str]:
    return {"csrfmiddlewaretoken": CSRF_SECRET, "idempotency_key": str(uuid.uuid4()), **fields}


def test_fifty_times_the_import_limit_is_refused_before_the_file_is_read(organiser_client):
    body = Multipart(_form(), file_size=50 * MAX_IMPORT_BYTES)
    response, read, peak = _post(
        organiser_client, reverse("leaderboards:import"), body, length=len(body)
    )
    assert response.status_code == 413
    assert "The file is 50 MB; the most this page takes is 1 MB." in response.content.decode()
    assert read < 200_000  # the token and the key, in the parser's first reads; no file
    assert peak < MAX_IMPORT_BYTES + FEW_MB, f"{peak / MB:.1f} MB"
    assert not Player.objects.exists()
    # The refusal is the answer kept for the form's key: a resend gets it again.
    assert SubmittedForm.objects.get().status == 413


def test_a_length_that_lies_is_counted_and_stopped_at_the_limit(organiser_client):
    # Told 1.2 MB, within the page's room for its other fields; the file never ends.
    told = MAX_IMPORT_BYTES + FORM_ROOM - 50_000
    body = Multipart(_form(), file_size=0)
    response, read, peak = _post(
        organiser_client, reverse("leaderboards:import"), body, length=told, endless=True
    )
    assert response.status_code == 413
    assert f"The file is {size_text(told)}; the most" in response.content.decode()
    assert MAX_IMPORT_BYTES < read <= told
    assert peak < MAX_IMPORT_BYTES + FEW_MB, f"{peak / MB:.1f} MB"
    assert not Player.objects.exists()


def test_a_body_without_a_length_is_not_read_at_all(organiser_client):
    # Under WSGI Django reads no body without a Content-Length (chunked): the form is
    # empty, its CSRF token missing, and the post refused.
    body = Multipart(_form(), file_size=0)
    response, read, peak = _post(
        organiser_client, reverse("leaderboards:import"), body, length=None, endless=True
    )
    assert response.status_code == 403
    assert read == 0
    assert peak < FEW_MB
    assert not Player.objects.exists()


def test_fifty_times_the_team_list_limit_is_refused_before_it_is_read(organiser_client):
    tournament = make_tournament(teams=0)
    body = Multipart(_form(teams=""), file_size=50 * MAX_LIST_BYTES, file_name="teams.csv")
    response, read, peak = _post(
        organiser_client,
        reverse("tournaments:register_list", args=[tournament.pk]),
        body,
        length=len(body),
    )
    assert response.status_code == 413
    text = response.content.decode()
    assert "The file is 5 MB; the most this page takes is 100 KB." in text
    assert read < 200_000
    assert peak < MAX_LIST_BYTES + FEW_MB, f"{peak / MB:.1f} MB"
    assert not TournamentTeam.objects.filter(tournament=tournament).exists()


def test_a_file_to_a_page_that_takes_none_is_not_read(organiser_client):
    body = Multipart(_form(name="Anu Menon"), file_size=50 * MB)
    response, read, peak = _post(
        organiser_client, reverse("leaderboards:player_new"), body, length=len(body)
    )
    assert response.status_code == 400
    assert read < 200_000
    assert peak < FEW_MB, f"{peak / MB:.1f} MB"
    assert not Player.objects.exists()
