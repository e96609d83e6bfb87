"""Production settings, login throttling and the security headers every page carries."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

ROOT = Path(__file__).resolve().parent.parent


def test_check_deploy_passes_with_the_documented_production_environment():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(60),
        DJANGO_ALLOWED_HOSTS="scores.example-club.org",
        DJANGO_SETTINGS_MODULE="club.settings",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


@pytest.mark.django_db
def test_every_page_sends_a_strict_content_security_policy(client):
    response = client.get(reverse("games:list"))
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "style-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert response["X-Frame-Options"] == "DENY"
    assert "<script>" not in response.text  # no inline script anywhere on the page


@pytest.mark.django_db
def test_login_is_paused_after_five_wrong_passwords(client, django_user_model):
    django_user_model.objects.create_user(
        username="olive", password="the-right-password", is_staff=True
    )
    url = reverse("login")
    for _ in range(4):
        response = client.post(url, {"username": "olive", "password": "a-wrong-guess"})
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.text
    # The fifth wrong password locks the pair out ...
    response = client.post(url, {"username": "olive", "password": "a-wrong-guess"})
    assert response.status_code == 429
    # ... and then even the right password is refused until the pause is over.
    response = client.post(url, {"username": "olive", "password": "the-right-password"})
    assert response.status_code == 429
    assert "Too many wrong passwords" in response.text
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_right_password_clears_the_count(client, django_user_model):
    django_user_model.objects.create_user(
        username="olive", password="the-right-password", is_staff=True
    )
    url = reverse("login")
    for _ in range(4):
        client.post(url, {"username": "olive", "password": "a-wrong-guess"})
    response = client.post(url, {"username": "olive", "password": "the-right-password"})
    assert response.status_code == 302
    client.logout()
    for _ in range(4):
        client.post(url, {"username": "olive", "password": "a-wrong-guess"})
    response = client.post(url, {"username": "olive", "password": "the-right-password"})
    assert response.status_code == 302
