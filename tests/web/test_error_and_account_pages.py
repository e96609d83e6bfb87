"""The pages a visitor meets when something is missing or broken, and the organiser's own
password page: the club's, in its words and its menu, never the framework's bare ones."""

from __future__ import annotations

import pytest
from django.test import Client

from club.clubs.models import Club

pytestmark = pytest.mark.django_db


def test_a_missing_page_is_the_clubs_page_with_its_menu(client):
    response = client.get("/games/999999/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "Page not found" in page
    assert "There is no page at /games/999999/" in page
    assert 'class="site-menu"' in page  # the club's menu: the way on


def test_a_missing_page_of_a_club_leads_back_to_that_club(client):
    Club.objects.create(name="Gulf 56", slug="gulf")
    page = client.get("/clubs/gulf/games/999999/").content.decode()
    assert '<a href="/clubs/gulf/">Back to Gulf 56</a>' in page


def test_a_server_error_page_says_what_to_do(settings):
    settings.ROOT_URLCONF = "tests.web.failing_urls"
    browser = Client(raise_request_exception=False)
    response = browser.get("/fails/")
    assert response.status_code == 500
    page = response.content.decode()
    assert "Something went wrong" in page and "Nothing you sent was half saved" in page


def test_an_organiser_changes_their_password_on_the_clubs_page(organiser_client, organiser):
    page = organiser_client.get("/accounts/password/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Change your password" in html and "Django administration" not in html
    assert 'href="/accounts/password/"' in organiser_client.get("/").content.decode()
    wrong = organiser_client.post(
        "/accounts/password/",
        {"old_password": "not it", "new_password1": "x", "new_password2": "y"},
    )
    assert wrong.status_code == 200 and 'role="alert"' in wrong.content.decode()
    organiser.refresh_from_db()
    assert organiser.check_password("olive-organiser-pw")  # nothing changed
    new = "a-longer-club-password-2026"
    done = organiser_client.post(
        "/accounts/password/",
        {"old_password": "olive-organiser-pw", "new_password1": new, "new_password2": new},
        follow=True,
    )
    assert "Password changed" in done.content.decode()
    organiser.refresh_from_db()
    assert organiser.check_password(new)
