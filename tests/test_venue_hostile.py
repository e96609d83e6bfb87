"""The venue holds against one hostile phone on the hall's Wi-Fi: one that opens hundreds
of connections and keeps each alive with a header line every few seconds (slowloris), or
posts a body far past any upload's limit. The other phones go on reading and recording,
and the laptop's disk does not fill.

The phones are a network namespace (tests/wifi.py) with two addresses: the hostile one's
and an honest scorer's, each a phone of its own to the laptop.
"""

from __future__ import annotations

import html
import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.urls import reverse

from club import venue_server
from tests.test_venue import PHONE_SCRIPT
from tests.venue import PASSWORD, serving
from tests.wifi import Phone, phone_on_the_wifi

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")),
    reason="the venue keeps the club's SQLite file of its own: once, in the SQLite half",
)

# The hostile phone: ``count`` connections from ``source``, each sending a request's first
# line, then a header line every 5 s, never ending its headers; a connection the laptop
# closes is opened again, once a second. It prints how many it held open, every second.
SLOW_PHONE = r"""
import socket, sys, time
host, port, source = sys.argv[1], int(sys.argv[2]), sys.argv[3]
count, seconds = int(sys.argv[4]), float(sys.argv[5])
held = [None] * count
last_line = [0.0] * count
ended = time.monotonic() + seconds
def opened():
    connection = socket.socket()
    connection.setblocking(False)
    connection.bind((source, 0))
    connection.connect_ex((host, port))
    return connection
while time.monotonic() < ended:
    now = time.monotonic()
    for slot in range(count):
        connection = held[slot]
        try:
            if connection is None:
                connection = held[slot] = opened()
                last_line[slot] = 0.0
            if now - last_line[slot] >= 5:
                first = last_line[slot] == 0.0
                connection.send(b"GET / HTTP/1.1\r\n" if first else b"X-Slow: yes\r\n")
                last_line[slot] = now
            elif connection.recv(1, socket.MSG_PEEK) == b"":
                raise ConnectionResetError  # closed by the laptop
        except BlockingIOError:
            pass
        except OSError:
            connection.close()
            held[slot] = None
    print(sum(c is not None for c in held), flush=True)
    time.sleep(1)
"""


# A post to the import's page (Publish results) of ``megabytes`` MB, its length told, or in
# chunks with no length told, sent until the laptop stops it; prints the laptop's answer.
BIG_POST = r"""
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
megabytes, chunked = int(sys.argv[3]), sys.argv[4] == "chunked"
connection = socket.create_connection((host, port), timeout=30)
told = b"Transfer-Encoding: chunked" if chunked else b"Content-Length: %d" % (megabytes * 2**20)
connection.sendall(
    b"POST /import/ HTTP/1.1\r\nHost: " + host.encode() + b"\r\n" + told + b"\r\n"
    b"Content-Type: application/octet-stream\r\n\r\n"
)
megabyte = b"5" * 2**20
try:
    for _ in range(megabytes):
        connection.sendall(b"100000\r\n" + megabyte + b"\r\n" if chunked else megabyte)
    if chunked:
        connection.sendall(b"0\r\n\r\n")
except OSError:
    pass  # the laptop stopped reading, and closed
try:
    print(connection.recv(200).split(b"\r\n")[0].decode() or "closed")
except OSError:
    print("closed")
"""


@dataclass
class Night:
    phone: Phone
    url: str
    port: int
    pid: int


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> Iterator[Night]:
    """A venue serving a phone on the Wi-Fi, for this module's tests."""
    folder = tmp_path_factory.mktemp("venue")
    with phone_on_the_wifi() as phone, serving(folder, phone.laptop) as served:
        yield Night(phone, served.url, int(served.url.rsplit(":", 1)[1]), served.pid)


def on_the_phone(night: Night, script: str, *args: str) -> subprocess.CompletedProcess:
    return night.phone.run(
        sys.executable, "-c", script, *args, capture_output=True, text=True, timeout=120
    )


def test_a_phone_holding_hundreds_of_slow_connections_stops_no_other_phone(night):
    phone = night.phone
    hostile = phone.address.rsplit(".", 1)[0] + ".99"
    phone.run("ip", "addr", "add", f"{hostile}/24", "dev", phone.link, check=True)
    slow = subprocess.Popen(
        ["ip", "netns", "exec", phone.namespace, sys.executable, "-c", SLOW_PHONE]
        + [phone.laptop, str(night.port), hostile, "300", "40"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(12)  # the hostile phone's connections opened, and kept alive
        held_by_laptop = connections_from(hostile, night.port)
        began = time.monotonic()
        answer = on_the_phone(night, PHONE_SCRIPT, night.url, "olive", PASSWORD)
        took = time.monotonic() - began
    finally:
        slow.kill()
        tried = [int(line) for line in slow.communicate()[0].split()]
    assert answer.returncode == 0, answer.stderr
    seen = json.loads(answer.stdout)
    assert seen["home"][0] == 200
    assert seen["logged_in"] == [200, f"{night.url}/"]  # a post: the login recorded
    assert seen["new_game"] == [200, True]
    assert took < 8, took  # four pages (a login among them), in a few seconds
    assert tried and max(tried) == 300  # it did try: all 300 at once
    assert held_by_laptop <= venue_server.PER_PHONE  # the laptop kept its share only


ESTABLISHED = "01"  # a connection's state in /proc/net/tcp


def connections_from(address: str, port: int) -> int:
    """The laptop's open connections on ``port`` from the phone at ``address``."""
    remote = "".join(f"{int(part):02X}" for part in reversed(address.split(".")))
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, peer, state = line.split()[1:4]
        if int(local.split(":")[1], 16) == port and peer.startswith(remote + ":"):
            count += state == ESTABLISHED
    return count


# One connection whose request's headers never end: a header line every 2 s; prints how many
# seconds the laptop kept it (40 at most).
SLOW_HEADERS = r"""
import socket, sys, time
connection = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30)
began = time.monotonic()
connection.sendall(b"GET / HTTP/1.1\r\n")
try:
    while time.monotonic() - began < 40:
        time.sleep(2)
        connection.sendall(b"X-Slow: yes\r\n")
        connection.settimeout(0.01)
        try:
            if connection.recv(1) == b"":
                break
        except socket.timeout:
            pass
        connection.settimeout(30)
except OSError:
    pass
print(round(time.monotonic() - began))
"""


def test_a_request_whose_headers_never_end_is_closed(night):
    answer = on_the_phone(night, SLOW_HEADERS, night.phone.laptop, str(night.port))
    assert answer.returncode == 0, answer.stderr
    assert int(answer.stdout) <= venue_server.HEADERS_WITHIN + 4  # not kept while it dribbles


def largest_file_open(pid: int, stop: threading.Event, largest: list[int]) -> None:
    """The largest of the files ``pid`` holds open (a spooled body is one, deleted as it is
    made, so only its open handle shows it), sampled until ``stop``."""
    while not stop.is_set():
        for handle in Path(f"/proc/{pid}/fd").iterdir():
            try:
                status = handle.stat()
            except OSError:
                continue
            if stat.S_ISREG(status.st_mode):
                largest[0] = max(largest[0], status.st_size)
        time.sleep(0.02)


@pytest.mark.parametrize("how", ["told", "chunked"])
def test_a_300_mb_post_leaves_little_on_the_laptops_disk(night, how):
    largest, stop = [0], threading.Event()
    watch = threading.Thread(target=largest_file_open, args=(night.pid, stop, largest))
    watch.start()
    try:
        answer = on_the_phone(night, BIG_POST, night.phone.laptop, str(night.port), "300", how)
    finally:
        stop.set()
        watch.join()
    assert answer.returncode == 0, answer.stderr
    assert largest[0] < 64 * 2**20, f"{largest[0] / 2**20:.0f} MB on disk"
    assert answer.stdout.strip() in ("HTTP/1.1 413 Request Entity Too Large", "closed")
    assert venue_server.LARGEST_BODY < 64 * 2**20


# A post to ``path`` whose Content-Length is 300 MB, from a phone reading Spanish: its headers
# only (the laptop answers as they end); prints the laptop's whole answer.
TOLD_TOO_LARGE = r"""
import socket, sys
host, port, path = sys.argv[1], sys.argv[2], sys.argv[3]
connection = socket.create_connection((host, int(port)), timeout=30)
connection.sendall(
    f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Length: {300 * 2**20}\r\n"
    "Content-Type: multipart/form-data; boundary=56\r\nAccept-Language: es\r\n\r\n".encode()
)
answer = b""
while chunk := connection.recv(65536):
    answer += chunk
sys.stdout.write(answer.decode())
"""


def test_a_post_past_the_largest_body_is_told_in_the_phones_language(night):
    page = reverse("archive:import_store")  # Publish results: the largest upload, 50 MB
    answer = on_the_phone(night, TOLD_TOO_LARGE, night.phone.laptop, str(night.port), page)
    assert answer.returncode == 0, answer.stderr
    head, _, body = answer.stdout.partition("\n\n")  # read as text: each CRLF a line's end
    lines = head.lower().splitlines()
    assert lines[0] == "http/1.1 413 request entity too large"
    assert "content-type: text/html; charset=utf-8" in lines
    assert "content-language: es" in lines
    assert "connection: close" in lines  # the body is left unread
    shown = html.unescape(body)
    assert "El archivo pesa 314,6 MB; esta página admite como máximo 50 MB." in shown
    assert "Volver al formulario" in shown  # the club's page, not waitress's English text
    assert "generated by" not in body


def test_the_largest_body_taken_is_the_largest_upload():
    from club.archive.forms import MAX_UPLOAD_BYTES
    from club.leaderboards.services import MAX_IMPORT_BYTES
    from club.tournaments.forms import MAX_LIST_BYTES
    from club.web.uploads import FORM_ROOM

    assert max(MAX_UPLOAD_BYTES, MAX_IMPORT_BYTES, MAX_LIST_BYTES) == MAX_UPLOAD_BYTES
    assert venue_server.LARGEST_BODY == MAX_UPLOAD_BYTES + FORM_ROOM  # and its form's other fields


def test_the_venue_listens_on_its_address_and_the_laptops_own_only(night):
    listening = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, _, state = line.split()[1:4]
        address, port = local.split(":")
        if int(port, 16) == night.port and state == "0A":  # LISTEN
            listening.append(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    assert sorted(listening) == sorted([night.phone.laptop, "127.0.0.1"])
