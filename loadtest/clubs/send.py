"""Sending a form that writes until its fate is known, through whatever goes wrong.

A form is sent with its one-time key; when no answer comes (a worker killed, the
connection cut, the phone hanging up) or the answer is a 5xx (the database restarting),
the very same form is sent again, key and all, to either server, until an answer says
what became of it: written (acknowledged), already recorded by someone else, or
refused. That is what the phone's app does, and what the one-time keys promise is safe.

The first send may be one of the faults a venue's phones make (:data:`FAULTS`); an
acknowledged deal may be sent once more (a second tap), which must get the kept answer.
"""

from __future__ import annotations

import html
import http.client
import random
import re
import threading
import time

from loadtest.clubs.browser import Answer, Browser
from loadtest.clubs.tally import Post, Tally

GIVE_UP_AFTER = 120.0  # seconds of retrying before a post is called unresolved
# The first send's fault, with its weight: most sends are plain.
FAULTS = {
    "none": 70,
    "hung up before the answer": 6,
    "body cut in the middle": 5,
    "slow client": 3,
    "sent twice at once": 8,
    "sent again after its answer": 8,
}


def fault(rng: random.Random) -> str:
    return rng.choices(list(FAULTS), list(FAULTS.values()))[0]


def deal_fate(answer: Answer, number: int) -> str:
    """recorded, already recorded, refused, or unknown (send again)."""
    if answer.status >= 500:
        return "unknown"
    if answer.header("Club-Deal-Sent"):
        return "recorded" if answer.header("Club-Deal-Sent") == str(number) else "refused"
    if answer.status == 200 and "is already recorded" in html.unescape(answer.body):
        return "already recorded"
    return "refused"


def correction_fate(answer: Answer, number: int) -> str:
    if answer.status >= 500:
        return "unknown"
    if answer.status == 302 and answer.header("Location").endswith("#history"):
        return "recorded"
    return "refused"


ERROR = re.compile(r'class="errors?\b[^"]*"[^>]*>(.*?)</(?:p|div)>', re.S)


def why(answer: Answer) -> str:
    """The status and the first error an answer shows, in its words."""
    found = ERROR.search(answer.body)
    words = html.unescape(re.sub(r"<[^>]+>", " ", found.group(1))) if found else ""
    return f"{answer.status} {' '.join(words.split())[:160]}".strip()


FATES = {"deal": deal_fate, "correction": correction_fate}


class Sender:
    """Sends one person's posts for the tally; ``stop`` only shortens the waits."""

    def __init__(self, browser: Browser, tally: Tally, rng: random.Random):
        self.browser, self.tally, self.rng = browser, tally, rng

    def _once(self, path: str, form: dict, htmx: bool, how: str) -> Answer | None:
        """One send; None when no answer came back."""
        self.tally.add("requests sent")
        try:
            if how == "hung up before the answer":
                self.browser.hang_up(path, form, htmx=htmx)
                return None
            if how == "body cut in the middle":
                self.browser.cut(path, form, htmx=htmx)
                return None
            if how == "slow client":
                return self.browser.slow(path, form, htmx=htmx)
            if how == "sent twice at once":
                return self._twice(path, form, htmx)
            start = time.perf_counter()
            answer = self.browser.request("POST", path, form, htmx=htmx)
            self.tally.took(time.perf_counter() - start)
            return answer
        except (OSError, http.client.HTTPException):
            self.tally.add("sends without an answer")
            return None

    def _twice(self, path: str, form: dict, htmx: bool) -> Answer | None:
        """The same form at the same moment to both servers (a double tap, two tabs)."""
        answers: list[Answer | None] = [None, None]
        ports = list(self.browser.ports)
        barrier = threading.Barrier(2, timeout=10)

        def send(index: int) -> None:
            try:
                barrier.wait()
                answers[index] = self.browser.request(
                    "POST", path, form, htmx=htmx, port=ports[index % len(ports)]
                )
            except (OSError, http.client.HTTPException, threading.BrokenBarrierError):
                answers[index] = None

        threads = [threading.Thread(target=send, args=(i,), daemon=True) for i in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.tally.add("requests sent")
        known = [a for a in answers if a is not None and a.status < 500]
        if len(known) == 2:
            fates = {
                (a.header("Club-Deal-Sent"), a.status, "is already recorded" in a.body)
                for a in known
            }
            if len(fates) != 1:
                self.tally.odd(f"{path}: one form sent twice at once got two answers {fates}")
        return known[0] if known else next((a for a in answers if a is not None), None)

    def send(self, post: Post, path: str, form: dict, *, htmx: bool, first: str) -> Answer | None:
        """Send until the post's fate is known; the tally learns it. The answer that told."""
        fate_of = FATES[post.kind]
        if first != "none" and first != "sent again after its answer":
            self.tally.add(f"fault: {first}")
        how = first
        deadline = time.monotonic() + GIVE_UP_AFTER
        attempt = 0
        while True:
            answer = self._once(path, form, htmx, how if attempt == 0 else "none")
            if answer is not None and answer.status >= 500:
                self.tally.add(f"answers {answer.status}")
            fate = "unknown" if answer is None else fate_of(answer, post.number)
            if fate != "unknown":
                break
            attempt += 1
            if time.monotonic() > deadline:
                self.tally.settle(post, "unresolved")
                self.tally.odd(f"{path}: no answer told the fate of deal {post.number}")
                return None
            self.tally.add("resends")
            time.sleep(min(2.0, 0.1 * 2 ** min(attempt, 5)) * self.rng.uniform(0.5, 1.5))
        assert answer is not None
        if attempt and answer.header("X-Idempotent-Replay") == "true":
            self.tally.add("resends answered with the kept answer")
        self.tally.settle(post, fate)
        if fate == "refused":  # a valid form, for a game that takes deals: never expected
            words = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", answer.body)))
            self.tally.odd(
                f"{path}: {post.kind} {post.number} refused, {answer.status}: {words[:160]}"
            )
        if fate == "recorded" and how == "sent again after its answer":
            self._again(post, path, form, htmx, answer)
        return answer

    def _again(self, post: Post, path: str, form: dict, htmx: bool, first: Answer) -> None:
        """A second tap after the answer: it must get the kept answer, and write nothing."""
        self.tally.add("fault: sent again after its answer")
        for _attempt in range(20):
            again = self._once(path, form, htmx, "none")
            if again is not None and again.status < 500:
                break
            time.sleep(0.2)
        else:
            self.tally.odd(f"{path}: deal {post.number} sent again got no answer")
            return
        same = (
            again.header("X-Idempotent-Replay") == "true"
            and again.status == first.status
            and again.header("Club-Deal-Sent") == first.header("Club-Deal-Sent")
        )
        if not same:
            self.tally.odd(
                f"{path}: {post.kind} {post.number} sent again after it was written got "
                f"{again.status} (replay {again.header('X-Idempotent-Replay')!r}), "
                "not the kept answer"
            )
