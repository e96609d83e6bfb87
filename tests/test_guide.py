"""The guide in docs/ builds with warnings as errors, and the README stays a short way in.

A broken link between pages, a missing picture, a page left out of the contents or a
heading out of order is a warning, so it fails here, on every test run.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def build(source: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", source, out],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_guide_builds_with_warnings_as_errors(tmp_path):
    done = build(DOCS, tmp_path / "html")
    assert done.returncode == 0, done.stderr
    for page in ("index", "first-club-night", "at-the-table", "running-a-tournament"):
        assert (tmp_path / "html" / f"{page}.html").exists()
    for page in (DOCS / "developers").glob("*.md"):
        assert (tmp_path / "html" / "developers" / f"{page.stem}.html").exists(), page
    # The old address of the developers' guide still leads there.
    moved = (tmp_path / "html" / "how-the-code-is-built.html").read_text(encoding="utf-8")
    assert 'href="developers/index.html"' in moved
    # Every picture of the guide is in the site.
    shown = set(
        re.findall(
            r"images/([\w-]+\.png)",
            (tmp_path / "html").joinpath("first-club-night.html").read_text(encoding="utf-8"),
        )
    )
    assert shown and all((DOCS / "images" / name).exists() for name in shown)


def test_a_broken_link_fails_the_build(tmp_path):
    """The check above can fail: a copy of the guide with one link broken does not build."""
    import shutil

    copy = tmp_path / "docs"
    shutil.copytree(DOCS, copy, ignore=shutil.ignore_patterns("_build"))
    shutil.copy(ROOT / "CHANGELOG.md", tmp_path / "CHANGELOG.md")
    page = copy / "first-club-night.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace("(at-the-table.md)", "(at-the-tabel.md)"),
        encoding="utf-8",
    )
    done = build(copy, tmp_path / "html")
    assert done.returncode != 0
    assert "at-the-tabel" in done.stderr


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
