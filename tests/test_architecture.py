"""The shape of the code is a contract: import-linter checks it on every run.

The contracts are in pyproject.toml (``[tool.importlinter]``); grimp, which
import-linter builds its graph with, counts imports inside functions too, so a
cycle cannot hide in one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_are_kept():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
