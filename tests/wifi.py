"""A phone on the club's Wi-Fi, for real: a network namespace with an address of its own,
joined to this machine by a veth pair, as a phone on the venue's Wi-Fi is joined to the
organiser's laptop. Its Wi-Fi can drop and come back (the link goes down and up).

It needs root and iproute2 (CI runs as root); elsewhere the tests that use it are skipped.
Traffic goes only between this machine and the namespace.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

_made = itertools.count(1)


def sh(*command: str) -> None:
    subprocess.run(command, check=True, capture_output=True)


@dataclass(frozen=True)
class Phone:
    namespace: str
    laptop: str  # the laptop's address on the Wi-Fi
    address: str  # the phone's
    link: str  # the phone's end of the veth pair

    def run(self, *command: str, **options) -> subprocess.CompletedProcess:
        """``command`` run on the phone."""
        return subprocess.run(["ip", "netns", "exec", self.namespace, *command], **options)

    def wifi(self, on: bool) -> None:
        """The phone's Wi-Fi drops (``on=False``) or comes back."""
        state = "up" if on else "down"
        sh("ip", "netns", "exec", self.namespace, "ip", "link", "set", self.link, state)

    def chromium(self, folder: Path) -> Path:
        """A launcher that starts Debian's Chromium on the phone (for Playwright's
        ``executable_path``: the browser talks to Playwright over a pipe, which crosses the
        namespace, and to the network only from the phone's address)."""
        launcher = folder / "chromium-on-the-phone"
        launcher.write_text(
            f'#!/bin/sh\nexec ip netns exec {self.namespace} /usr/bin/chromium "$@"\n'
        )
        launcher.chmod(0o755)
        return launcher


@contextmanager
def phone_on_the_wifi() -> Iterator[Phone]:
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("a network namespace needs root and iproute2 (CI runs as root)")
    number = next(_made)
    # A subnet and names of this test process's own: a run killed before it cleaned up
    # leaves nothing the next one trips over.
    subnet = f"10.56.{(os.getpid() * 4 + number) % 250 + 1}"
    tag = f"{os.getpid() % 100000}{number}"
    # The namespace names its process: CI removes those whose process is gone (.ci/run).
    phone = Phone(f"club-phone-{os.getpid()}-{number}", f"{subnet}.1", f"{subnet}.2", f"vc{tag}p")
    laptop_link = f"vc{tag}h"
    sh("ip", "netns", "add", phone.namespace)
    try:
        sh("ip", "link", "add", laptop_link, "type", "veth", "peer", "name", phone.link)
        sh("ip", "link", "set", phone.link, "netns", phone.namespace)
        sh("ip", "addr", "add", f"{phone.laptop}/24", "dev", laptop_link)
        sh("ip", "link", "set", laptop_link, "up")
        on_phone = ("ip", "netns", "exec", phone.namespace)
        sh(*on_phone, "ip", "addr", "add", f"{phone.address}/24", "dev", phone.link)
        sh(*on_phone, "ip", "link", "set", phone.link, "up")
        sh(*on_phone, "ip", "link", "set", "lo", "up")
        yield phone
    finally:
        subprocess.run(["ip", "link", "del", laptop_link], capture_output=True)
        subprocess.run(["ip", "netns", "del", phone.namespace], capture_output=True)
