"""The project's own checks: migrations match the models, lint is clean, settings are safe."""

import os
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
