"""A site administrator adds a club: ``manage.py add_club`` and the page for it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from club.clubs.models import Club
from club.web.auth import is_organiser


def test_add_club_makes_the_club_and_its_organiser(db, monkeypatch, capsys):
    monkeypatch.setenv("DJANGO_ORGANISER_PASSWORD", "a-long-gulf-password-9")
    call_command(
        "add_club", name="Gulf  56", slug="Gulf", organiser=["rashid"], time_zone="Asia/Dubai"
    )
    club = Club.objects.get(slug="gulf")
    assert club.name == "Gulf 56" and club.time_zone == "Asia/Dubai"
    rashid = get_user_model().objects.get(username="rashid")
    assert rashid.check_password("a-long-gulf-password-9")
    assert not rashid.is_staff  # a club's organiser, not the site's administrator
    assert is_organiser(rashid, club)
    home = Club.objects.exclude(pk=club.pk).get()
    assert not is_organiser(rashid, home)
    assert "added at /clubs/gulf/" in capsys.readouterr().out


def test_a_login_may_organise_several_clubs(db, monkeypatch):
    monkeypatch.setenv("DJANGO_ORGANISER_PASSWORD", "a-long-gulf-password-9")
    call_command("add_club", name="Gulf 56", slug="gulf", organiser=["rashid"])
    call_command("add_club", name="Leeds 56", slug="leeds", organiser=["rashid"])
    rashid = get_user_model().objects.get(username="rashid")
    assert set(rashid.clubs_organised.values_list("slug", flat=True)) == {"gulf", "leeds"}


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"name": "Gulf 56", "slug": "gulf club"}, "slug"),
        ({"name": "Gulf 56", "slug": "new"}, "kept for the site's own pages"),
        ({"name": "Gulf 56", "slug": "gulf", "time_zone": "Mars/Olympus"}, "not a time zone"),
        ({"name": "Gulf 56", "slug": "gulf", "languages": "en,xx"}, "no language xx"),
        ({"name": "Gulf 56", "slug": "gulf", "organiser": ["newbie"]}, "DJANGO_ORGANISER_PASSWORD"),
    ],
)
def test_add_club_refuses_what_it_cannot_make_and_saves_nothing(db, options, says):
    options.setdefault("organiser", [])
    before = Club.objects.count(), get_user_model().objects.count()
    with pytest.raises(CommandError, match=says):
        call_command("add_club", **options)
    assert (Club.objects.count(), get_user_model().objects.count()) == before


def test_a_club_name_or_address_is_taken_once(db):
    call_command("add_club", name="Gulf 56", slug="gulf")
    with pytest.raises(CommandError, match="slug"):
        call_command("add_club", name="Other", slug="gulf")
    with pytest.raises(CommandError, match="name"):
        call_command("add_club", name="Gulf 56", slug="other")


def test_the_administrators_page_adds_a_club(client, db, django_user_model):
    admin = django_user_model.objects.create_user(username="ada", password="pw", is_staff=True)
    organiser = django_user_model.objects.create_user(username="olga", password="pw")
    client.force_login(organiser)
    assert client.get("/clubs/new/").status_code == 302  # not the site's administrator
    client.force_login(admin)
    assert client.get("/clubs/new/").status_code == 200
    response = client.post(
        "/clubs/new/",
        {
            "name": "Leeds 56",
            "slug": "leeds",
            "languages": ["en", "ml"],
            "time_zone": "Europe/London",
        },
    )
    assert response.status_code == 302 and response["Location"] == "/clubs/leeds/"
    assert Club.objects.get(slug="leeds").languages == ["en", "ml"]
    refused = client.post(
        "/clubs/new/",
        {"name": "leeds 56", "slug": "leeds", "languages": ["en"], "time_zone": "UTC"},
    )
    assert refused.status_code == 200
    assert "There is already a club called" in refused.content.decode()
    assert Club.objects.filter(slug="leeds").count() == 1
