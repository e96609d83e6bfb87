"""The venue's threads share two of the C library's memory arenas (club.venue_server.
few_arenas): glibc's one arena a thread kept each thread's high-water mark, and the
server's memory grew with a published file's size (measured on the venue's own server
in tests/archive/test_web_import_memory.py). Where the C library has no ``mallopt``
(macOS, Windows) nothing is asked of it, and the venue starts all the same."""

from __future__ import annotations

import ctypes

import pytest

from club import venue_server


class Libc:
    def __init__(self):
        self.asked: list[tuple[int, int]] = []

    def mallopt(self, option: int, value: int) -> int:
        self.asked.append((option, value))
        return 1


def test_the_arenas_are_limited_before_any_thread_starts(monkeypatch):
    libc = Libc()
    monkeypatch.setattr(ctypes, "CDLL", lambda name: libc)
    venue_server.few_arenas()
    assert libc.asked == [(-8, venue_server.ARENAS)]  # M_ARENA_MAX, as MALLOC_ARENA_MAX=2


@pytest.mark.parametrize("missing", [AttributeError, OSError, TypeError])
def test_a_c_library_without_mallopt_is_left_as_it_is(monkeypatch, missing):
    """macOS's libc has no ``mallopt`` (AttributeError); Windows takes no ``CDLL(None)``
    (TypeError); a library that cannot be opened raises OSError."""

    def absent(name):
        if missing is AttributeError:
            return object()
        raise missing("no C library here")

    monkeypatch.setattr(ctypes, "CDLL", absent)
    venue_server.few_arenas()  # nothing raised
