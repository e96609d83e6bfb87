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
import re
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from club import venue, venue_flags
from tests.venue import (
    PASSWORD,
    ROOT,
    SERVING,
    free_port,
    in_a_terminal,
    run_venue,
    seed,
    serving,
    start_once,
    venue_env,
)
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


def two_ports_taken() -> list[socket.socket]:
    """A port and the one after it, both listened on, as another program would."""
    while True:
        first = socket.socket()
        first.bind(("0.0.0.0", 0))  # noqa: S104
        second = socket.socket()
        try:
            second.bind(("0.0.0.0", first.getsockname()[1] + 1))  # noqa: S104
        except OSError:
            first.close()
            second.close()
            continue
        for taken in (first, second):
            taken.listen()
        return [first, second]


def test_a_port_taken_is_said_with_a_free_one_to_try(tmp_path):
    taken = two_ports_taken()
    port = taken[0].getsockname()[1]
    try:
        answer = run_venue(tmp_path, "--address", "127.0.0.1", "--port", str(port))
    finally:
        for held in taken:
            held.close()
    assert answer.returncode == 2
    assert f"Port {port} is taken" in answer.stderr
    suggested = int(re.search(r"--port (\d+) is free", answer.stderr).group(1))
    assert suggested not in (port, port + 1)  # the next one was taken too
    with socket.socket() as probe:  # and the one suggested is free: the venue could bind it
        probe.bind(("0.0.0.0", suggested))  # noqa: S104


def test_an_address_for_every_interface_is_refused(tmp_path):
    """0.0.0.0 (and any address of the loopback but 127.0.0.1) can be bound, but no phone
    opens it: it is not one of the laptop's addresses the venue names, so it is refused."""
    answer = start_once(tmp_path, "--address", "0.0.0.0", "--port", str(free_port()))  # noqa: S104
    assert answer.returncode == 2, answer.terminal
    assert "0.0.0.0 is not an address of this laptop" in answer.terminal


def named_addresses(message: str) -> list[str]:
    return re.search(r"This laptop's addresses: (.+?)\. Leave out", message).group(1).split(", ")


def test_the_addresses_named_are_exactly_those_accepted(tmp_path, capsys):
    """The laptop's addresses as the refusal names them, on a laptop with the club's Wi-Fi
    beside its own network (the namespace's veth): each one named is accepted, and none else."""
    with phone_on_the_wifi() as phone:
        answer = run_venue(tmp_path, "--address", "203.0.113.7", "--port", str(free_port()))
        assert answer.returncode == 2
        named = named_addresses(answer.stderr)
        assert phone.laptop in named, answer.stderr  # the Wi-Fi's: accepted, so named
        assert sorted(named) == sorted(venue_flags.own_addresses())
        for address in [*named, "0.0.0.0", "127.0.0.2", "localhost", "203.0.113.7"]:  # noqa: S104
            try:
                venue_flags.check_address(address)
                accepted = True
            except SystemExit:
                accepted = False
            assert accepted == (address in named), address
    capsys.readouterr()


@pytest.mark.parametrize(
    ("password", "words"),
    [
        ("", "Set DJANGO_ORGANISER_PASSWORD to olive's password"),
        ("12345678", "That password is too weak"),
        ("demo-organiser", "That is the demo organiser's password"),
    ],
)
def test_no_organiser_is_made_without_a_good_password(tmp_path, password, words):
    answer = start_once(
        tmp_path,
        "--address",
        "127.0.0.1",
        "--port",
        str(free_port()),
        "--organiser",
        "olive",
        DJANGO_ORGANISER_PASSWORD=password,
    )
    assert answer.returncode == 2, answer.terminal
    assert words in answer.terminal
    assert organisers(tmp_path) == []  # and no demo organiser either


def test_with_nobody_to_ask_the_first_organiser_is_asked_for(tmp_path):
    answer = run_venue(tmp_path, "--address", "127.0.0.1", "--port", str(free_port()))
    assert answer.returncode == 2
    assert "start in a terminal to be asked for one" in answer.stderr
    assert organisers(tmp_path) == []


def venue_at(folder: Path, *args: str, password: str = PASSWORD):
    return start_once(
        folder,
        "--address",
        "127.0.0.1",
        "--port",
        str(free_port()),
        *args,
        DJANGO_ORGANISER_PASSWORD=password,
    )


def password_is(folder: Path, name: str, password: str) -> bool:
    # The venue's own hasher: the tests' settings keep a fast one of their own.
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    with sqlite3.connect(folder / "club.sqlite3") as connection:
        [(stored,)] = connection.execute(
            "SELECT password FROM auth_user WHERE username = ?", (name,)
        ).fetchall()
    return PBKDF2PasswordHasher().verify(password, stored)


# --- The venue's database, apart from the quick start's demo club ----------------------------


def test_the_venue_keeps_a_folder_of_its_own_apart_from_the_quick_starts(monkeypatch, tmp_path):
    """``python3 dev.py start`` keeps the demo club in the project folder (club.sqlite3); the
    venue, started from the same checkout, never opens that database."""
    monkeypatch.delenv("DJANGO_DATA_DIR", raising=False)
    assert venue.data_dir() == ROOT / "venue-data"
    assert venue.data_dir() != ROOT  # where the quick start keeps the demo club
    monkeypatch.setenv("DJANGO_DATA_DIR", str(tmp_path))
    assert venue.data_dir() == tmp_path


def quick_start(folder: Path) -> None:
    """What ``python3 dev.py start`` does to its database before serving it."""
    env = venue_env(folder)
    for command in (["migrate", "--no-input", "-v", "0"], ["load_demo"]):
        subprocess.run(
            [sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True, timeout=300
        )


def test_the_quick_starts_demo_database_is_refused(tmp_path):
    quick_start(tmp_path)
    answer = venue_at(tmp_path, "--organiser", "Meera")
    assert answer.returncode == 2, answer.terminal  # not served
    assert SERVING not in answer.terminal
    assert "has the demo club's organiser login" in answer.terminal
    assert "never serves the demo club" in answer.terminal
    assert sorted(organisers(tmp_path)) == ["demo"]  # Meera was not made there either
    # The quick start's folder is left as it was: the demo club still starts from it.
    assert not (tmp_path / venue.SECRET_FILE).exists()
    quick_start(tmp_path)


@pytest.mark.django_db
def test_the_demo_club_is_never_loaded_into_the_venues_folder(settings, tmp_path):
    from django.contrib.auth import get_user_model
    from django.core.management import CommandError, call_command

    from club.games.models import Game

    settings.DATA_DIR = tmp_path
    venue.keep_secret_key(tmp_path, venue.secret_key(tmp_path))  # the venue has served here
    with pytest.raises(CommandError, match="the demo club is never loaded there"):
        call_command("load_demo")
    assert not Game.objects.exists()
    assert not get_user_model().objects.exists()


def manage(folder: Path, *command: str) -> subprocess.CompletedProcess:
    """``manage.py`` run by the organiser in the checkout, on the venue's folder."""
    return subprocess.run(
        [sys.executable, "manage.py", *command],
        cwd=ROOT,
        env=venue_env(folder),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_backup_of_the_venues_folder_is_signed_with_the_venues_key(tmp_path):
    """The club's commands run on the venue's folder use the key kept beside its database,
    so a backup made there restores wherever that key goes with it, and nowhere else."""
    served = tmp_path / "venue"
    assert venue_at(served, "--organiser", "olive").returncode is None
    backup = tmp_path / "night.json"
    made = manage(served, "backup_club", "--output", str(backup))
    assert made.returncode == 0, made.stderr
    elsewhere, with_key = tmp_path / "elsewhere", tmp_path / "with-key"
    for folder in (elsewhere, with_key):
        seed(folder)  # a club's database, migrated (manage.py migrate), and no key
    refused = manage(elsewhere, "restore_club", str(backup))
    assert refused.returncode != 0  # signed with a key this folder does not have
    (with_key / venue.SECRET_FILE).write_text((served / venue.SECRET_FILE).read_text())
    restored = manage(with_key, "restore_club", str(backup), "--with-organisers")
    assert restored.returncode == 0, restored.stderr
    assert organisers(with_key) == ["olive"]


def test_an_organiser_named_is_made_when_the_club_has_one_already(tmp_path):
    assert "Organiser olive created." in venue_at(tmp_path, "--organiser", "olive").terminal
    other = "Meera-Venue-5512"
    answer = venue_at(tmp_path, "--organiser", "Meera", password=other)
    assert answer.returncode is None, answer.terminal  # served
    assert "Organiser Meera created." in answer.terminal
    assert sorted(organisers(tmp_path)) == ["Meera", "olive"]
    assert password_is(tmp_path, "Meera", other)


def test_an_organiser_who_exists_is_told_how_to_change_the_password(tmp_path):
    venue_at(tmp_path, "--organiser", "olive")
    answer = venue_at(tmp_path, "--organiser", "olive", password="Another-Venue-8833")
    assert answer.returncode is None, answer.terminal  # served: olive logs in as before
    assert "Organiser olive already exists here; nothing was changed." in answer.terminal
    assert "start again with --organiser olive --change-password" in answer.terminal
    assert password_is(tmp_path, "olive", PASSWORD)

    changed = venue_at(
        tmp_path, "--organiser", "olive", "--change-password", password="Another-Venue-8833"
    )
    assert changed.returncode is None, changed.terminal
    assert "Organiser olive's new password is saved." in changed.terminal
    assert password_is(tmp_path, "olive", "Another-Venue-8833")
    assert organisers(tmp_path) == ["olive"]


def test_a_name_no_login_could_use_is_refused(tmp_path):
    answer = venue_at(tmp_path, "--organiser", "Meera K")
    assert answer.returncode == 2, answer.terminal
    assert "“Meera K” cannot be an organiser's name: Enter a valid username." in answer.terminal
    assert organisers(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a terminal of its own needs POSIX")
def test_an_organiser_named_in_a_terminal_is_asked_for_a_password(tmp_path):
    answer = in_a_terminal(
        tmp_path,
        ["--address", "127.0.0.1", "--port", str(free_port()), "--organiser", "Meera"],
        {"Meera's password:": PASSWORD, "The password again:": PASSWORD},
    )
    assert answer.returncode is None, answer.terminal  # served
    assert "Organiser Meera created." in answer.terminal
    assert PASSWORD not in answer.terminal  # never shown
    assert password_is(tmp_path, "Meera", PASSWORD)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a terminal of its own needs POSIX")
def test_the_first_organiser_is_asked_for_in_a_terminal(tmp_path):
    answer = in_a_terminal(
        tmp_path,
        ["--address", "127.0.0.1", "--port", str(free_port())],
        {
            "Organiser's name:": "Meera",
            "Meera's password:": PASSWORD,
            "The password again:": PASSWORD,
        },
    )
    assert answer.returncode is None, answer.terminal
    assert "The club has no organiser yet." in answer.terminal
    assert "Organiser Meera created." in answer.terminal
    assert organisers(tmp_path) == ["Meera"]


# --- python3 dev.py start ----------------------------------------------------------------------


def dev_start(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "dev.py", "start", *args],
        cwd=ROOT,
        env=venue_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("args", [["--help"], ["--venue", "--help"], ["-h"]])
def test_dev_start_help_shows_every_flag_and_does_nothing_else(tmp_path, args):
    answer = dev_start(tmp_path, *args)
    assert answer.returncode == 0, answer.stderr
    for flag in ("--venue", "--port", "--address", "--organiser", "--change-password"):
        assert flag in answer.stdout
    assert "Serving" not in answer.stdout + answer.stderr
    assert list(tmp_path.iterdir()) == []  # no database migrated, no demo loaded


def test_dev_start_refuses_the_venues_flags_without_the_venue(tmp_path):
    answer = dev_start(tmp_path, "--port", "8080")
    assert answer.returncode == 2
    assert "--port is the venue's: add --venue" in answer.stderr
    assert list(tmp_path.iterdir()) == []


def test_dev_start_passes_the_venues_flags_in_any_order():
    import dev

    assert dev.venue_arguments(["--organiser", "Meera", "--venue", "--port", "8080"]) == [
        "--organiser",
        "Meera",
        "--port",
        "8080",
    ]
    assert dev.venue_arguments(["127.0.0.1:8080"]) is None  # the development server


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
out["home"] = [
    home.status, home.headers.get("Server", ""), home.headers.get("Cross-Origin-Opener-Policy")
]
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
    # A first start, as docs/venue.md gives it: the venue makes its database.
    with phone_on_the_wifi() as phone, serving(tmp_path, phone.laptop, fresh=True) as venue:
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
        # waitress, the production server; no Cross-Origin-Opener-Policy, which a browser
        # ignores over plain HTTP (and says so in its console on every page)
        assert seen["home"] == [200, "56 club", None]
        assert seen["logged_in"] == [200, f"{url}/"]  # over plain HTTP: no redirect to https
        assert seen["new_game"] == [200, True]
        assert seen["missing"] == [404, False]  # DEBUG off
    # The secret key was made once, beside the database, for its owner only.
    key = tmp_path / "venue-secret-key"
    assert key.exists() and oct(key.stat().st_mode & 0o777) == "0o600"
    assert organisers(tmp_path) == ["olive"]  # and no demo organiser


@pytest.mark.parametrize(("venue", "policy"), [("1", "None"), ("0", "same-origin")])
def test_only_the_hosted_site_sends_a_cross_origin_opener_policy(venue, policy):
    """Over HTTPS the hosted site keeps Django's same-origin; the venue's plain HTTP has none."""
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; from django.conf import settings; django.setup(); "
            "print(settings.SECURE_CROSS_ORIGIN_OPENER_POLICY)",
        ],
        cwd=ROOT,
        env=venue_env(
            ROOT,
            DJANGO_SETTINGS_MODULE="club.settings",
            DJANGO_DEBUG="0",
            DJANGO_VENUE=venue,
            DJANGO_SECRET_KEY="a-key-for-this-test-only-0123456789abcdefghijklmnop",
            DJANGO_ALLOWED_HOSTS="scores.example-club.org",
        ),
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.split() == [policy]


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
