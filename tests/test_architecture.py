"""The shape of the code is a contract: import-linter checks it on every run.

The contracts are in pyproject.toml (``[tool.importlinter]``); grimp, which
import-linter builds its graph with, counts imports inside functions too, so a
cycle cannot hide in one.
"""

from __future__ import annotations

import ast
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


def club_modules():
    return sorted((ROOT / "club").rglob("*.py"))


# A module one reads in a sitting; a function one reads on a screen or two. Past either,
# split by concern (a package of modules, named steps), never by trimming the words.
MODULE_LINES = 700
FUNCTION_LINES = 80


def test_no_module_of_the_club_is_longer_than_one_can_read_in_a_sitting():
    long = {
        str(path.relative_to(ROOT)): lines
        for path in club_modules()
        if "migrations" not in path.parts
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert long == {}


def test_no_function_of_the_club_is_longer_than_a_reader_holds_at_once():
    long = {}
    for path in club_modules():
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"] = lines
    assert long == {}


def test_imports_of_the_club_sit_at_the_top_of_their_module():
    """An import placed inside a function is how a cycle hides; the layers make none needed.

    The two exceptions are the apps' ``ready()``, which connect their receivers
    once the models are loaded, as Django asks.
    """
    inside = []
    for path in club_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for inner in ast.walk(node):
                names = (
                    [inner.module or ""]
                    if isinstance(inner, ast.ImportFrom)
                    else [alias.name for alias in inner.names]
                    if isinstance(inner, ast.Import)
                    else []
                )
                if any(name == "club" or name.startswith("club.") for name in names):
                    if not (path.name == "apps.py" and node.name == "ready"):
                        inside.append(f"{path.relative_to(ROOT)}:{inner.lineno}")
    assert inside == []
