"""The club's annotations are true: mypy, with django-stubs, checks club/ on every run.

Its settings are in pyproject.toml (``[tool.mypy]``). An error it cannot be told out of
is silenced line by line, and only with the error's code and the reason beside it,
so each silence says what it hides and why; mypy itself says when one hides nothing
(``warn_unused_ignores``).
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

IGNORE = re.compile(r"type:\s*ignore")
# "# type: ignore[code]  # why", or several codes: "[union-attr, arg-type]".
EXPLAINED = re.compile(r"#\s*type:\s*ignore\[[a-z-]+(?:,\s*[a-z-]+)*\]\s*#\s*\S")


def test_mypy_finds_nothing_in_the_club(tmp_path):
    # A cache of its own: the Django plugin does not see that a changed settings.py
    # changes the types of settings.X in a module that did not change.
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), "club"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_silenced_type_error_says_which_and_why():
    unexplained = []
    for path in sorted((ROOT / "club").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT and IGNORE.search(token.string):
                if not EXPLAINED.search(token.string):
                    unexplained.append(f"{path.relative_to(ROOT)}:{token.start[0]}")
    assert unexplained == []
