import pytest
from django.db import OperationalError, connection


@pytest.mark.django_db
def test_health_reports_the_database(client):
    response = client.get("/health/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


@pytest.mark.django_db
def test_health_says_when_the_database_is_unreachable(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = client.get("/health/")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "could not connect to server"}
