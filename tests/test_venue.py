"""The venue command: the laptop serves the club's phones on the Wi-Fi, with waitress.

Each test starts ``python -m club venue`` as docs/venue.md gives it, with a data folder of its
own (its own SQLite database and secret key), and looks at what an organiser sees. The
last one makes a phone on the club's Wi-Fi: a network namespace with its own address,
joined to this machine by a veth pair, from which the site is opened and an organiser
logs in, over the venue's plain HTTP, from the production server with DEBUG off.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import sys
from pathlib import Path

import pytest

from tests.venue import PASSWORD, free_port, run_venue, serving
from tests.wifi import phone_on_the_wifi

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")),
    reason="the venue keeps the club's SQLite file of its own: once, in the SQLite half",
)


def organisers(folder: Path) -> list[str]:
    database = folder / "club.sqlite3"
    if not database.exists():
        return []
    with sqlite3.connect(database) as connection:
        return [row[0] for row in connection.execute("SELECT username FROM auth_user")]


def test_an_address_that_is_not_the_laptops_is_refused_with_its_own_named(tmp_path):
    answer = run_venue(tmp_path, "--address", "203.0.113.7", "--port", str(free_port()))
    assert answer.returncode == 2
    assert "203.0.113.7 is not an address of this laptop" in answer.stderr
    assert "This laptop's addresses:" in answer.stderr
    assert not (tmp_path / "club.sqlite3").exists()


def test_a_port_taken_is_said_with_what_to_do(tmp_path):
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))  # noqa: S104
        taken.listen()
        port = taken.getsockname()[1]
        answer = run_venue(tmp_path, "--address", "127.0.0.1", "--port", str(port))
    assert answer.returncode == 2
    assert f"Port {port} is taken" in answer.stderr
    assert f"--port {port + 1}" in answer.stderr


@pytest.mark.parametrize(
    ("password", "words"),
    [
        ("", "set DJANGO_ORGANISER_PASSWORD"),
        ("12345678", "That password is too weak"),
    ],
)
def test_no_organiser_is_made_without_a_good_password(tmp_path, password, words):
    answer = run_venue(
        tmp_path,
        "--address",
        "127.0.0.1",
        "--port",
        str(free_port()),
        "--organiser",
        "olive",
        DJANGO_ORGANISER_PASSWORD=password,
    )
    assert answer.returncode == 2
    assert words in answer.stderr
    assert organisers(tmp_path) == []  # and no demo organiser either


def test_with_nobody_to_ask_the_first_organiser_is_asked_for(tmp_path):
    answer = run_venue(tmp_path, "--address", "127.0.0.1", "--port", str(free_port()))
    assert answer.returncode == 2
    assert "start in a terminal to be asked for one" in answer.stderr
    assert organisers(tmp_path) == []


# --- A phone on the club's Wi-Fi -----------------------------------------------------------

# What the phone does, run inside its namespace: open the site, log in as the organiser,
# open an organiser's page, and a page that does not exist.
PHONE_SCRIPT = r"""
import http.cookiejar, json, re, sys, urllib.error, urllib.parse, urllib.request
base, user, password = sys.argv[1:4]
jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
out = {}
home = opener.open(base + "/", timeout=10)
out["home"] = [home.status, home.headers.get("Server", "")]
login = opener.open(base + "/accounts/login/", timeout=10).read().decode()
token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login).group(1)
data = urllib.parse.urlencode(
    {"csrfmiddlewaretoken": token, "username": user, "password": password}
).encode()
request = urllib.request.Request(base + "/accounts/login/", data=data)
request.add_header("Referer", base + "/accounts/login/")
answer = opener.open(request, timeout=10)
out["logged_in"] = [answer.status, answer.geturl()]
page = opener.open(base + "/games/new/", timeout=10)
out["new_game"] = [page.status, "Start the game" in page.read().decode()]
try:
    opener.open(base + "/no-such-page/", timeout=10)
except urllib.error.HTTPError as error:
    body = error.read().decode()
    out["missing"] = [error.code, "Traceback" in body or "DEBUG = True" in body]
print(json.dumps(out))
"""


def test_a_phone_on_the_clubs_wifi_opens_the_site_and_the_organiser_logs_in(tmp_path):
    with phone_on_the_wifi() as phone, serving(tmp_path, phone.laptop) as venue:
        url = venue.url
        assert f"    {url}" in venue.terminal, venue.terminal
        assert "Organiser olive created." in venue.terminal
        answer = phone.run(
            sys.executable,
            "-c",
            PHONE_SCRIPT,
            url,
            "olive",
            PASSWORD,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert answer.returncode == 0, answer.stderr
        seen = json.loads(answer.stdout)
        assert seen["home"] == [200, "56 club"]  # waitress, the production server
        assert seen["logged_in"] == [200, f"{url}/"]  # over plain HTTP: no redirect to https
        assert seen["new_game"] == [200, True]
        assert seen["missing"] == [404, False]  # DEBUG off
    # The secret key was made once, beside the database, for its owner only.
    key = tmp_path / "venue-secret-key"
    assert key.exists() and oct(key.stat().st_mode & 0o777) == "0o600"
    assert organisers(tmp_path) == ["olive"]  # and no demo organiser


# --- Connect phones ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_connect_phones_shows_the_venue_address_as_a_code_and_the_games_in_play(
    organiser_client, settings, django_assert_max_num_queries
):
    from django.urls import reverse

    from tests.factories import start_game

    settings.PUBLIC_URL = "http://192.168.1.10:8000"
    playing = start_game(2, label="Table 1")
    with django_assert_max_num_queries(6):  # the same however many games the club has played
        page = organiser_client.get(reverse("games:connect"))
    assert page.status_code == 200
    text = page.content.decode()
    assert '<a href="http://192.168.1.10:8000/">http://192.168.1.10:8000/</a>' in text
    assert "<svg" in text and "<title>http://192.168.1.10:8000/</title>" in text
    assert f'href="/games/{playing.pk}/links/"' in text
    assert "this computer only" not in text


@pytest.mark.django_db
def test_connect_phones_on_the_laptops_own_address_says_phones_cannot_reach_it(
    organiser_client, settings
):
    from django.urls import reverse

    settings.PUBLIC_URL = ""
    page = organiser_client.get(reverse("games:connect"), HTTP_HOST="127.0.0.1:8000")
    assert "this computer only" in page.content.decode()
