"""Two clubs' nights at once, on two app servers, under chaos: nothing lost, doubled or crossed.

A short run of ``python -m loadtest.clubs`` (its docstring says it all): two clubs on one
site, two gunicorn servers on one PostgreSQL database and one Redis, phones of both clubs
posting deals through their scorer links to either server and the organisers recording,
correcting and reaching for the other club's games, while workers are killed
mid-request, the database restarts, and posts are hung up, cut, slowed, sent twice and
sent again. Afterwards every acknowledged deal is stored exactly once in its own game and
club, the invariants hold, the kept pages equal a fresh render; and the check, shown a
database broken on purpose (``--sabotage``), finds it.

It runs once, in the PostgreSQL half of CI (the nights need PostgreSQL's row locks, and a
database of their own whose connections they cut: a throwaway one beside the suite's),
and needs the machine's Redis at 127.0.0.1:6379, as CI has it.

Found by the nights: an organiser's form sent again while the database restarted, lost
before the log-in was read (the club of its address is read first), was told it had
been used for something else (400) instead of the truth.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.parse
import uuid
from pathlib import Path
from unittest import mock

import pytest
from django.conf import settings
from django.db import OperationalError
from django.urls import reverse

from club.clubs import known
from club.games.models import Round
from loadtest.clubs.sabotage import _told_once
from loadtest.clubs.tally import Post, Tally
from tests.factories import deal_form, start_game

ROOT = Path(settings.BASE_DIR)
SUITE_DATABASE = os.environ.get("DATABASE_URL", "")
REDIS = "redis://127.0.0.1:6379/12"  # a database of its own: tests/web use 13


@pytest.fixture
def redis_url():
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=1).ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis at 127.0.0.1:6379")
    return REDIS


def night_database() -> str:
    """A throwaway database on the suite's PostgreSQL server, named after the suite's."""
    parts = urllib.parse.urlsplit(SUITE_DATABASE)
    name = f"{parts.path.lstrip('/')}_two_clubs"
    return urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))


@pytest.mark.skipif(
    not SUITE_DATABASE.startswith("postgres"),
    reason="the nights run on PostgreSQL only: once, in the PostgreSQL half",
)
def test_two_clubs_nights_under_chaos_lose_double_and_cross_nothing(tmp_path, redis_url):
    command = [sys.executable, "-m", "loadtest.clubs", "--duration", "12", "--games", "3"]
    command += ["--phones", "2", "--readers", "3", "--chaos-every", "1.5", "--sabotage"]
    command += ["--postgres-url", night_database(), "--redis-url", redis_url]
    command += ["--out", str(tmp_path), "--json", str(tmp_path / "counts.json")]
    command += ["--data", str(tmp_path / "data")]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-4000:]
    report = (tmp_path / "clubs-night.md").read_text()
    counts = json.loads((tmp_path / "counts.json").read_text())

    assert (counts["lost"], counts["doubled"], counts["crossed"]) == (0, 0, 0), report
    assert counts["invariants_broken"] == 0
    assert counts["unresolved"] == 0 and counts["promises_not_kept"] == 0
    assert counts["crossed_acknowledgements"] == 0
    assert counts["pages_compared"] > 0 and counts["pages_differing"] == 0
    assert counts["server_errors"] == 0
    # The nights ran, and the chaos with them.
    assert counts["acknowledged"] >= 10 and counts["deals_stored"] >= 10, report
    assert counts["faults"].get("worker killed", 0) >= 1, report
    assert counts["faults"].get("database restarted", 0) >= 1, report
    assert counts["retried"] >= 1 and counts["cross_club_tries"] >= 1, report
    # Zeros that mean something: the check finds a database broken on purpose.
    assert counts["sabotage_found"] is True, report


@pytest.mark.django_db(transaction=True)
def test_a_resend_that_loses_the_database_before_the_log_in_is_read_is_not_refused(
    organiser_client,
):
    game = start_game()
    chitra = game.teams.get(position=1).first_player
    data = deal_form(1, chitra.pk, 30, "hearts", key=str(uuid.uuid4()), p0=22, p1=34)
    url = reverse("games:record", args=[game.pk])
    assert organiser_client.post(url, data).status_code == 302

    def restarting():
        raise OperationalError("the database system is starting up")

    # The clubs are read again (every 30 s, or in a new worker) while the database restarts:
    # the request goes no further than the club of its address, and never to the log-in.
    organiser_client.raise_request_exception = False
    known.forget()
    with mock.patch.object(known, "_read", restarting):
        again = organiser_client.post(url, data)
    assert again.status_code == 503, again.content.decode()[:400]
    page = again.content.decode()
    # Whose form it is could not be told, so neither whether it was written: the truth.
    assert "we could not check whether this was saved" in page
    assert "already used for something else" not in page
    assert Round.objects.filter(game=game).count() == 1
    replay = organiser_client.post(url, data)  # the database is back: the kept answer
    assert replay.status_code == 302 and replay["X-Idempotent-Replay"] == "true"
    assert Round.objects.filter(game=game).count() == 1


def test_the_sabotage_takes_back_every_acknowledgement_of_a_deal_said_nowhere_else():
    """The check's teeth: the deal whose acknowledgements are taken back must look written
    and never told (doubled). A form sent again was acknowledged twice (taking back one
    left the other), and a deal whose content a post to another game said is crossed."""

    def post(game, number, content, key, kind="deal", club="gulf"):
        return Post(club, game, number, content, key, kind, "link", outcome="recorded")

    twice = [post(1, 1, ("a",), "k1"), post(1, 1, ("a",), "k1")]
    said_elsewhere = post(1, 2, ("b",), "k2")
    corrected = [post(2, 1, ("c",), "k3"), post(2, 1, ("d",), "k4", kind="correction")]
    ours = post(9, 1, ("b",), "k5", club="bay")
    tally = Tally(posts=[said_elsewhere, *corrected, ours])
    assert _told_once(tally, "gulf") == []  # said elsewhere, or corrected: none fits
    tally.posts += twice
    assert _told_once(tally, "gulf") == twice
