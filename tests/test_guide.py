"""The guide in docs/ builds with warnings as errors, and the README stays a short way in.

A broken link between pages, a missing picture, a page left out of the contents or a
heading out of order is a warning, so it fails here, on every test run. The developers'
pages read the code: every module of the club is in the tables of "Where things are"
(made from the modules' docstrings as the guide is built), and every file, folder and
dotted name of the club those pages cite is still there.
"""

from __future__ import annotations

import ast
import html
import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DEVELOPERS = DOCS / "developers"


def build(source: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", source, out],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The guide built once for the tests that read it."""
    out = tmp_path_factory.mktemp("guide") / "html"
    done = build(DOCS, out)
    assert done.returncode == 0, done.stderr
    return out


def test_the_guide_builds_with_warnings_as_errors(site):
    for page in ("index", "first-club-night", "at-the-table", "running-a-tournament"):
        assert (site / f"{page}.html").exists()
    for page in DEVELOPERS.glob("*.md"):
        assert (site / "developers" / f"{page.stem}.html").exists(), page
    # The old address of the developers' guide still leads there.
    moved = (site / "how-the-code-is-built.html").read_text(encoding="utf-8")
    assert 'href="developers/index.html"' in moved
    # Every picture of the guide is in the site.
    shown = set(
        re.findall(
            r"images/([\w-]+\.png)",
            (site / "first-club-night.html").read_text(encoding="utf-8"),
        )
    )
    assert shown and all((DOCS / "images" / name).exists() for name in shown)


def club_modules() -> dict[str, str]:
    """Every module of club/ but its migrations, by dotted name, with its docstring ("" for
    none), read from the files themselves, not from the guide's extension.

    An ``__init__.py`` stands for its package. One that is empty only makes a folder a
    package and has nothing to say: the page names that package in a heading instead.
    """
    found = {}
    for path in sorted((ROOT / "club").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if "migrations" in parts:
            continue
        source = path.read_text(encoding="utf-8")
        if parts[-1] == "__init__":
            if not source.strip():
                continue
            parts = parts[:-1]
        found[".".join(parts)] = ast.get_docstring(ast.parse(source)) or ""
    return found


def _plain(text: str) -> str:
    """Text as a reader sees it: no markup, quotes straight, spaces single."""
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    text = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = re.sub(r"``|`|\*\*|:\w+:", "", text)
    return " ".join(text.split())


def test_every_module_of_the_club_is_in_the_tables_with_its_docstring(site):
    page = (site / "developers" / "where-things-are.html").read_text(encoding="utf-8")
    tables = re.findall(r'<table class="autosummary.*?</table>', page, re.S)
    rows = {
        _plain(name): _plain(summary)
        for table in tables
        for name, summary in re.findall(r"<tr[^>]*><td>(.*?)</td>\s*<td>(.*?)</td>", table, re.S)
    }
    modules = club_modules()
    assert len(modules) > 100
    assert sorted(set(modules) - set(rows)) == []
    for name, docstring in modules.items():
        if docstring.strip():
            # The first sentence of the docstring, as autosummary takes it.
            assert rows[name] and rows[name][:30] in _plain(docstring), (name, rows[name])


CITED_PATH = re.compile(r"^(?:club|tests|benchmarks|loadtest|docs|fixtures|requirements|\.ci)/")
CITED_NAME = re.compile(r"^club(?:\.\w+)+$")


def _resolves(name: str) -> bool:
    """Whether ``name`` is a module of the club, or a name in one."""
    parts = name.split(".")
    for size in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:size]))
        except ImportError:
            continue
        for attribute in parts[size:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def test_what_the_developers_pages_cite_is_in_the_code():
    """A file moved or a function renamed fails here until its page follows it."""
    missing = []
    for page in sorted([*DEVELOPERS.glob("*.md"), DOCS / "how-the-code-is-built.md"]):
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
        for cited in re.findall(r"`([^`\s]+)`", text):
            if "<" in cited or cited.endswith(".sqlite3"):  # a pattern; the quick start's file
                continue
            if CITED_PATH.match(cited) and not (ROOT / cited).exists():
                missing.append(f"{page.name}: {cited}")
            elif CITED_NAME.match(cited) and not _resolves(cited):
                missing.append(f"{page.name}: {cited}")
    assert missing == []


def test_a_broken_link_fails_the_build(tmp_path):
    """The check above can fail: a copy of the guide with one link broken does not build."""
    copy = tmp_path / "docs"
    shutil.copytree(DOCS, copy, ignore=shutil.ignore_patterns("_build"))
    shutil.copy(ROOT / "CHANGELOG.md", tmp_path / "CHANGELOG.md")
    # The developers' pages read the code and its contracts beside the guide.
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "club").symlink_to(ROOT / "club")
    page = copy / "first-club-night.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace("(at-the-table.md)", "(at-the-tabel.md)"),
        encoding="utf-8",
    )
    done = build(copy, tmp_path / "html")
    assert done.returncode != 0
    warnings = [line for line in done.stderr.splitlines() if "WARNING" in line]
    assert warnings and all("at-the-tabel" in line for line in warnings), done.stderr


def test_the_readme_is_short_and_its_links_lead_somewhere():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme) + re.findall(
        r'src="([^"]+)"', readme
    ):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target
    # The two quick-start commands, the venue command and the guide's commands.
    for command in (
        "python3 dev.py start",
        "python3 dev.py test",
        "python3 dev.py start --venue",
        "python3 dev.py docs",
        "python3 dev.py screenshots",
    ):
        assert command in readme


def test_no_page_of_the_guide_or_the_readme_names_an_issue_number():
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *DOCS.rglob("*.md")]
    for page in pages:
        if "_build" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\bissues? #?\d+|what to build \d", text, re.IGNORECASE), page
