"""Two app servers sharing one Redis never serve a stale page.

For real: two gunicorn servers (two workers each) on one database, their pages cache
in the machine's Redis (127.0.0.1:6379), and a third process that records deals as a
scorer's request would (the services, in a transaction that commits). After each
deal, every worker of both servers is asked for the game page and its live poll:
each answer shows the deal just recorded (the page carries the game's newest token),
none is an older copy. Between deals, what one server kept the other serves as it is.

The database is a SQLite file of the test's own, whatever the suite runs on; it runs
once, in the SQLite half of CI. DEBUG is on only so that static files need no
collecting; the cache, the counter and the keys are production's.
"""

from __future__ import annotations

import http.client
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from loadtest.run import HOST, free_port, start_gunicorn, stop_gunicorn

ROOT = Path(settings.BASE_DIR)
TOKEN = re.compile(r'data-live-version="([0-9.]+)"')

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="the servers use a SQLite file of their own: once, in the SQLite half",
)

WRITER = """
import os
from club.games.models import Game
from club.games.services import Deal, record_deal
from tests.factories import start_game
asked = os.environ["WRITE"].split()
if asked == ["start"]:
    game = start_game(2)
else:
    game = Game.objects.get(pk=int(asked[0]))
    number = int(asked[1])
    record_deal(game=game, number=number, entry=Deal(
        points={0: 30, 1: 26}, declarer=number % 2, bid=28, trump="hearts"))
game.refresh_from_db()
print(game.pk, f"{int(game.updated_at.timestamp())}.{game.updated_at.microsecond:06d}")
"""


def get(port: int, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        # Both servers stand behind one address, as behind the site's proxy: a page names
        # that address in its link preview, whichever server made it.
        connection.request("GET", path, headers={"Host": HOST})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


@pytest.fixture
def redis_url():
    redis = pytest.importorskip("redis")
    server = redis.Redis(host=HOST, port=6379, db=13, socket_connect_timeout=1)
    try:
        server.ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis at 127.0.0.1:6379")
    yield "redis://127.0.0.1:6379/13"
    server.flushdb()


def test_two_servers_sharing_redis_never_serve_a_stale_page(tmp_path, redis_url):
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'club.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "club.settings",
        "DJANGO_DEBUG": "1",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(40),
        "DJANGO_ALLOWED_HOSTS": HOST,
        "DJANGO_CACHE_URL": redis_url,
        "DJANGO_RELEASE": f"two-servers-{secrets.token_hex(4)}",
        "DJANGO_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
    }

    def manage(*args: str, **more: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env={**env, **more},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def write(*args: str) -> tuple[int, str]:
        pk, token = manage("shell", "-c", WRITER, WRITE=" ".join(args)).split()[-2:]
        return int(pk), token

    manage("migrate", "-v0")
    pk, token = write("start")
    servers, ports = [], []
    try:
        for number in range(2):
            ports.append(free_port())
            log = tmp_path / f"server-{number}.log"
            servers.append(start_gunicorn(ports[-1], 2, log, env=env))

        page = f"/games/{pk}/"
        for number in range(1, 5):
            # Several reads each, so that both workers of both servers answer.
            answers = [get(port, page) for port in ports for _ in range(4)]
            assert {status for status, _ in answers} == {200}
            assert {TOKEN.search(text).group(1) for _, text in answers} == {token}
            assert len({text for _, text in answers}) == 1  # one copy, kept for all
            polls = {get(port, f"{page}?version={token}")[0] for port in ports for _ in range(4)}
            assert polls == {204}  # nothing new, from every worker
            old = token
            pk, token = write(str(pk), str(number))  # a scorer records deal `number`
            assert token != old
            # At once, from every worker of both servers: the new deal, never the old copy.
            for port in ports:
                for _ in range(4):
                    status, text = get(port, page)
                    assert status == 200 and TOKEN.search(text).group(1) == token
                    assert f"Deal {number + 1}" in text
                    assert get(port, f"{page}?version={old}")[0] == 200  # a poll finds it
    finally:
        for server in servers:
            stop_gunicorn(server)
