"""Running the phone's own JavaScript in Node, beside the Python it is held to.

``rules.js`` (the phone's count of a deal kept offline) and ``entry.js`` (the phone's
checks of a deal entry) are run by small runners here, fed JSON on stdin.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "club" / "static" / "js"
RULES_JS = SCRIPTS / "rules.js"
ENTRY_JS = SCRIPTS / "entry.js"
HERE = Path(__file__).parent
NODE = shutil.which("node")


def needs_node(what: str):
    """A module's mark: skipped without Node, failed instead where CI requires it
    (REQUIRE_BROWSER=1), saying ``what`` goes untested."""
    if NODE is None and os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but Node.js is missing: {what}")
    return pytest.mark.skipif(NODE is None, reason="Node.js is not installed")


def run_node(runner: Path, script: Path, payload: list) -> list:
    """``runner`` in Node over ``script`` (a file of the phone's), ``payload`` on its stdin
    as JSON; its answer read from stdout."""
    answer = subprocess.run(
        [NODE, str(runner), str(script)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(answer.stdout)


def run_entry_checks(cases: list[dict]) -> list[dict]:
    """entry.js's answer to each ``{"wire", "fields"}``: the mistakes (code, field, words)
    or the entry read."""
    return run_node(HERE / "run_phone_entry.js", ENTRY_JS, cases)
