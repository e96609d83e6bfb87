"""The project's own checks: migrations match the models, lint is clean, settings are safe."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_migrations_match_the_models():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "club", "tests", "dev.py", "manage.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_is_formatted():
    """One layout for every file (ruff format), so a diff shows what changed, not spacing."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "club", "tests", "dev.py", "manage.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


SOURCES = ("club", "tests")
SUFFIXES = {".py", ".html", ".js", ".md", ".txt"}


def _source_files():
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and "locale" not in path.parts:
                yield path


def test_the_rules_are_cited_from_the_projects_own_page():
    """Code and tests cite docs/rules.md, the page in the repository, by a section it has:
    never a file outside it."""
    page = (ROOT / "docs" / "rules.md").read_text()
    sections = set(re.findall(r"^## ([A-Z])\. ", page, re.MULTILINE))
    numbered = {
        (section, number)
        for section, body in re.findall(r"^## ([A-Z])\. .*?\n(.*?)(?=^## |\Z)", page, re.M | re.S)
        for number in re.findall(r"^(\d+)\. ", body, re.MULTILINE)
    }
    outside, unknown = [], []
    for path in _source_files():
        text = path.read_text(errors="replace")
        where = path.relative_to(ROOT)
        if re.search(r"(?<!docs/)\bRULES\.md", text):
            outside.append(str(where))
        for cited in re.findall(r"docs/rules\.md,?\s+(?:sections?\s+)?([A-Z])(?:\.(\d+))?", text):
            section, number = cited
            if section not in sections or (number and (section, number) not in numbered):
                unknown.append(f"{where}: {section}{'.' + number if number else ''}")
    assert not outside, f"cite docs/rules.md, the project's own page: {outside}"
    assert not unknown, f"docs/rules.md has no such section: {unknown}"
    assert len(sections) == 6 and ("B", "2") in numbered and ("F", "6") in numbered


def _settings_in_production(**env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    clean.update({"DJANGO_DEBUG": "0", **env})
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; from django.conf import settings; "
            "django.setup(); print(settings.SESSION_COOKIE_SECURE, settings.DEBUG)",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**clean, "DJANGO_SETTINGS_MODULE": "club.settings"},
    )


def test_production_refuses_a_missing_secret_key():
    result = _settings_in_production(DJANGO_ALLOWED_HOSTS="club.example")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_production_refuses_missing_allowed_hosts():
    result = _settings_in_production(DJANGO_SECRET_KEY="x" * 50)
    assert result.returncode != 0
    assert "DJANGO_ALLOWED_HOSTS must be set" in result.stderr


def test_production_settings_are_secure():
    result = _settings_in_production(
        DJANGO_SECRET_KEY="x" * 50, DJANGO_ALLOWED_HOSTS="club.example"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "False"]
