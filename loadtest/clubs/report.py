"""The nights' figures, as printed and as written to ``results/clubs-night.md``."""

from __future__ import annotations

import datetime
import subprocess
from dataclasses import dataclass

from loadtest import run
from loadtest.clubs.checks import Findings
from loadtest.clubs.sabotage import Teeth
from loadtest.clubs.tally import Tally

FAULT_PREFIX = "fault: "


@dataclass
class Outcome:
    """Everything the report says, and whether the run failed."""

    tally: Tally
    findings: Findings
    pages: tuple[int, int, list[str]]  # compared, kept during the nights, differences
    database_lost: int  # tracebacks of a lost database in the servers' logs (answered 503)
    log_errors: list[str]  # every other traceback, a 500, a critical line
    elapsed: float
    command: str
    load: tuple[float, float, float]
    teeth: Teeth | None = None  # --sabotage: what the check found broken on purpose

    @property
    def unresolved(self) -> int:
        return sum(post.outcome == "unresolved" for post in self.tally.posts)

    @property
    def failures(self) -> list[str]:
        found = self.findings
        failed = []
        for name, items in (
            ("lost", found.lost),
            ("doubled", found.doubled),
            ("crossed", found.crossed),
            ("invariants broken", found.invariants),
            ("kept pages unlike a fresh render", self.pages[2]),
            ("promises not kept", self.tally.oddities),
            ("server errors", self.log_errors),
        ):
            if items:
                failed.append(f"{name}: {len(items)}")
        if self.unresolved:
            failed.append(f"posts whose fate no answer told: {self.unresolved}")
        if self.teeth is not None and not self.teeth.bitten:
            failed.append("the check did not find what was broken on purpose")
        if not self.acknowledged:
            failed.append("no post was acknowledged: the night never ran")
        return failed

    @property
    def acknowledged(self) -> int:
        return sum(post.outcome == "recorded" for post in self.tally.posts)


def figures(outcome: Outcome) -> dict:
    """The counts, for a program to read (``--json``)."""
    tally, found = outcome.tally, outcome.findings
    counts = tally.counts
    return {
        "posts": len(tally.posts),
        "acknowledged": outcome.acknowledged,
        "already_recorded": counts.get("deals already recorded", 0),
        "unresolved": outcome.unresolved,
        "retried": counts.get("resends", 0),
        "faults": {
            name[len(FAULT_PREFIX) :]: count
            for name, count in counts.items()
            if name.startswith(FAULT_PREFIX)
        },
        "cross_club_tries": sum(v for k, v in counts.items() if k.startswith("cross-club: ")),
        "crossed_acknowledgements": counts.get("crossed acknowledgements", 0),
        "lost": len(found.lost),
        "doubled": len(found.doubled),
        "crossed": len(found.crossed),
        "invariants_broken": len(found.invariants),
        "deals_stored": found.deals_stored,
        "pages_compared": outcome.pages[0],
        "pages_differing": len(outcome.pages[2]),
        "promises_not_kept": len(tally.oddities),
        "server_errors": len(outcome.log_errors),
        "sabotage_found": None if outcome.teeth is None else outcome.teeth.bitten,
        "failures": outcome.failures,
    }


def _ms(seconds: list[float], share: float) -> str:
    return f"{run.percentile(sorted(seconds), share) * 1000:.0f}"


def _count(outcome: Outcome, name: str) -> int:
    return outcome.tally.counts.get(name, 0)


def lines(outcome: Outcome) -> list[str]:
    tally, found = outcome.tally, outcome.findings
    posts = tally.posts
    faults = sorted(
        (k[len(FAULT_PREFIX) :], v) for k, v in tally.counts.items() if k.startswith(FAULT_PREFIX)
    )
    crossing = sorted((k, v) for k, v in tally.counts.items() if k.startswith("cross-club: "))
    statuses = sorted((k, v) for k, v in tally.counts.items() if k.startswith("answers "))
    compared, during, differ = outcome.pages
    return [
        f"- Posts tried: {len(posts):,} ({_count(outcome, 'deals sent by phones'):,} deals from "
        f"phones through scorer links, {_count(outcome, 'deals sent by organisers'):,} from the "
        f"organisers' game pages, {sum(p.kind == 'correction' for p in posts):,} corrections); "
        f"requests sent {_count(outcome, 'requests sent'):,} in {outcome.elapsed:.0f} s; a "
        f"form's answer took {_ms(tally.seconds, 0.5)} ms at the median, {_ms(tally.seconds, 0.95)}"
        " ms at the 95th percentile.",
        f"- Acknowledged: {outcome.acknowledged:,} ({_count(outcome, 'deals recorded'):,} deals, "
        f'{_count(outcome, "corrections recorded"):,} corrections); told "already recorded" '
        f"(another phone had it first): {_count(outcome, 'deals already recorded'):,}; refused: "
        f"{_count(outcome, 'deals refused') + _count(outcome, 'corrections refused')}; "
        f"fate never told: {outcome.unresolved}.",
        f"- Retried: {_count(outcome, 'resends'):,} resends of the same form and key after no "
        f"answer or a 5xx ({_count(outcome, 'sends without an answer'):,} sends got no answer; "
        + ", ".join(f"{k.removeprefix('answers ')}: {v}" for k, v in statuses)
        + f"); {_count(outcome, 'resends answered with the kept answer'):,} resends were "
        "answered with the kept answer of a write that had been made.",
        "- Faults injected: "
        + "; ".join(f"{name} {count:,}" for name, count in faults)
        + f" (ended {_count(outcome, 'database connections ended'):,} database connections).",
        f"- Cross-club tries: {sum(v for _k, v in crossing):,} ("
        + "; ".join(f"{k.removeprefix('cross-club: ')} {v}" for k, v in crossing)
        + f"); acknowledged: {_count(outcome, 'crossed acknowledgements')}.",
        f"- Readers: {_count(outcome, 'pages read'):,} pages read from both servers.",
        f"- **Lost: {len(found.lost)}. Doubled: {len(found.doubled)}. Crossed: "
        f"{len(found.crossed)}.** Stored deals {found.deals_stored:,}, every one checked "
        f"against its acknowledgement ({found.corrections_checked:,} of them against their "
        "last acknowledged correction).",
        f"- Invariants (piles sum to 56, tables conserved, ledger = replay, every derived row "
        f"= the services' replay): {len(found.invariants)} broken.",
        f"- Kept pages: {compared} compared ({during} kept during the nights), the two servers "
        f"alike and each equal to a fresh render: {compared - len(differ)}; differing: "
        f"{len(differ)}.",
        f"- Promises not kept (a kept answer not given back, two answers to one form): "
        f"{len(tally.oddities)}.",
        *([outcome.teeth.line()] if outcome.teeth is not None else []),
        f"- Servers' logs: {outcome.database_lost} tracebacks of a lost database (each "
        f"answered 503, send it again), {len(outcome.log_errors)} other errors.",
    ]


def details(outcome: Outcome) -> list[str]:
    found = outcome.findings
    shown = []
    for name, items in (
        ("Lost", found.lost),
        ("Doubled", found.doubled),
        ("Crossed", found.crossed),
        ("Invariants", found.invariants),
        ("Kept pages", outcome.pages[2]),
        ("Promises not kept", outcome.tally.oddities),
        ("Server log", outcome.log_errors),
    ):
        if items:
            shown += ["", f"{name}:", *(f"  - {item}" for item in items[:20])]
    return shown


def text(outcome: Outcome) -> str:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=run.BASE_DIR, capture_output=True, text=True
    ).stdout.strip()
    load = outcome.load
    head = [
        "# Two clubs' nights at once, under chaos",
        "",
        f"`{outcome.command}`",
        "",
        f"- When: {datetime.datetime.now().isoformat(timespec='seconds')}, commit {commit} "
        f"(plus the working tree). Machine: {run.machine()}; load average before "
        f"{load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}.",
    ]
    verdict = outcome.failures
    tail = [
        "",
        "**Verdict: " + ("FAILED (" + "; ".join(verdict) + ")" if verdict else "passed") + "**",
    ]
    return "\n".join(head + lines(outcome) + details(outcome) + tail) + "\n"
