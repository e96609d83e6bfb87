"""The venue started again at once after the laptop's server died (``kill -9``, a closed
lid, a crash): on the same port, so every scorer link and QR code already given out still
opens, while the last connections of the dead server are still closing (TIME_WAIT).

The phone is a network namespace of its own (tests/wifi.py), so its requests come over a
link, as a phone's over the hall's Wi-Fi.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from club import venue_flags
from tests.venue import serving
from tests.wifi import phone_on_the_wifi

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")),
    reason="the venue keeps the club's SQLite file of its own: once, in the SQLite half",
)

# The phone opens the home page ``count`` times, each on a connection of its own that the
# server closes first (the phone asks it to, and reads to the end before closing its own
# side): the laptop's side of each lingers in TIME_WAIT. It then opens the page once more
# on a connection it keeps open, as a phone's browser does, for the kill to find.
BUSY_PHONE = r"""
import socket, sys, time
host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def home(connection, close):
    header = b"Connection: close\r\n" if close else b""
    connection.sendall(b"GET / HTTP/1.1\r\nHost: " + host.encode() + b"\r\n" + header + b"\r\n")
    answer = connection.recv(65536)
    while close and (chunk := connection.recv(65536)):  # to the server's end
        answer += chunk
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:100]
for _ in range(count):
    with socket.create_connection((host, port), timeout=10) as connection:
        home(connection, close=True)
held = socket.create_connection((host, port), timeout=10)
home(held, close=False)
print("ready", flush=True)
time.sleep(60)
"""

# The phone opens the home page until it answers, for at most ``wait`` seconds.
PATIENT_PHONE = r"""
import sys, time, urllib.request
base, wait = sys.argv[1], float(sys.argv[2])
began = time.monotonic()
while True:
    try:
        status = urllib.request.urlopen(base + "/", timeout=5).status
        print(status, round(time.monotonic() - began, 1))
        break
    except OSError:
        if time.monotonic() - began > wait:
            print("no answer")
            break
        time.sleep(0.2)
"""


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


TIME_WAIT = "06"  # a connection's state in /proc/net/tcp


def states_on(port: int) -> list[str]:
    """The states of the laptop's connections on ``port`` (/proc/net/tcp)."""
    found = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        if int(local.split(":")[1], 16) == port:
            found.append(state)
    return found


def test_the_venue_starts_again_at_once_on_the_same_port_after_a_crash(tmp_path):
    with phone_on_the_wifi() as phone:
        with serving(tmp_path, phone.laptop) as first:
            port = port_of(first.url)
            busy = subprocess.Popen(
                ["ip", "netns", "exec", phone.namespace, sys.executable, "-c", BUSY_PHONE]
                + [phone.laptop, str(port), "5"],
                stdout=subprocess.PIPE,
                text=True,
            )
            try:
                assert busy.stdout.readline().strip() == "ready"
                os.kill(first.pid, signal.SIGKILL)
                time.sleep(0.5)
                assert TIME_WAIT in states_on(port)  # the dead server's connections linger
            finally:
                busy.kill()
                busy.wait()
        began = time.monotonic()
        with serving(tmp_path, phone.laptop, port=port) as again:
            assert again.url == first.url  # the links already given out open as before
            assert "is taken" not in again.terminal, again.terminal
            answer = phone.run(
                sys.executable,
                "-c",
                PATIENT_PHONE,
                again.url,
                "15",
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert answer.stdout.split()[:1] == ["200"], answer.stdout + again.terminal
        assert time.monotonic() - began < 15 + 10  # the start's own work, then 15 s at most


def test_a_port_another_program_listens_on_is_still_taken_on_any_address():
    """Reusing the address lets the venue past connections that are only closing, never past
    a program listening, on every interface or only on one of the venue's two addresses."""
    for address in ("0.0.0.0", "127.0.0.1"):  # noqa: S104
        with socket.socket() as other:
            other.bind((address, 0))
            other.listen()
            assert not venue_flags.port_is_free(other.getsockname()[1]), address
