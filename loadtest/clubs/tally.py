"""What the clients were told, kept as they are told it, for the check afterwards.

Every form that writes is a :class:`Post`: its club, its game, the deal's number, what
it said, its one-time key. A post is *acknowledged* when an answer said it was written
(a deal: the ``Club-Deal-Sent`` header naming its number; a correction: the redirect to
the game's history). The check compares the database with the acknowledgements alone.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

from loadtest.clubs.forms import Content


@dataclass
class Post:
    club: str  # the club's short name
    game: int
    number: int
    content: Content
    key: str
    kind: str  # "deal" or "correction"
    via: str  # "link", "organiser"
    outcome: str = ""  # recorded, already recorded, refused, unresolved
    order: int = 0  # corrections: the order they were acknowledged in


@dataclass
class Tally:
    """Counts, acknowledgements and oddities, from every client thread at once."""

    counts: Counter = field(default_factory=Counter)
    posts: list[Post] = field(default_factory=list)
    oddities: list[str] = field(default_factory=list)
    probe_keys: list[str] = field(default_factory=list)  # cross-club posts: none may be kept
    seconds: list[float] = field(default_factory=list)  # each answered send of a form
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, count: int = 1) -> None:
        with self.lock:
            self.counts[name] += count

    def took(self, seconds: float) -> None:
        with self.lock:
            self.seconds.append(seconds)

    def odd(self, text: str) -> None:
        with self.lock:
            self.counts["oddities"] += 1
            if len(self.oddities) < 200:
                self.oddities.append(text)

    def settle(self, post: Post, outcome: str) -> None:
        with self.lock:
            post.outcome = outcome
            if outcome == "recorded" and post.kind == "correction":
                self.counts["corrections acknowledged"] += 1
                post.order = self.counts["corrections acknowledged"]
            self.counts[f"{post.kind}s {outcome}"] += 1
            self.posts.append(post)

    def probe(self, key: str) -> None:
        with self.lock:
            self.probe_keys.append(key)
            self.counts["cross-club posts"] += 1
