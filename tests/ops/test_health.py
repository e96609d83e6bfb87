"""/health/: fixed words for load balancers, the details in the log only."""

import logging
import shutil
import socket
from pathlib import Path

import pytest
from django.db import connection, connections
from django.db.utils import load_backend

from club.ops.health import MIB, disk_paths


def a_closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens there once the probe is closed


def broken_database(tmp_path, kind):
    """A real connection to a database that cannot be reached, with the details it would leak."""
    settings_dict = dict(connection.settings_dict)
    if connection.vendor == "sqlite":
        (tmp_path / "club.sqlite3").mkdir()  # a folder where the file should be: cannot open
        settings_dict["NAME"] = str(tmp_path / "club.sqlite3")
        secrets = [str(tmp_path), "club.sqlite3", "unable to open"]
    elif kind == "unreachable":
        port = a_closed_port()
        settings_dict.update(HOST="127.0.0.1", PORT=str(port))
        secrets = ["127.0.0.1", str(port), settings_dict["USER"] or "postgres"]
    else:  # a role that does not exist, on the real server
        settings_dict["USER"] = "health_ghost_role"
        secrets = ["health_ghost_role", settings_dict["HOST"] or "localhost"]
        secrets += [str(settings_dict["PORT"])] if settings_dict["PORT"] else []
    wrapper = load_backend(settings_dict["ENGINE"]).DatabaseWrapper(settings_dict, "default")
    return wrapper, secrets


@pytest.fixture(params=["unreachable", "unknown role"])
def unreachable_database(request, tmp_path):
    """Points the default connection at a database that fails for real, then puts it back.

    PostgreSQL: a closed port on 127.0.0.1, or a role the server does not know.
    SQLite: a database "file" that is a folder, so it cannot be opened."""
    if connection.vendor == "sqlite" and request.param != "unreachable":
        pytest.skip("SQLite has no roles")
    original = connections["default"]
    broken, secrets = broken_database(tmp_path, request.param)
    connections["default"] = broken
    try:
        yield secrets
    finally:
        connections["default"] = original
        broken.close()


@pytest.mark.django_db
def test_health_reports_the_database_and_the_disk(client):
    response = client.get("/health/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "disk": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_an_unreachable_database_is_reported_without_its_details(
    client, unreachable_database, caplog
):
    with caplog.at_level(logging.ERROR, logger="club.ops.health"):
        response = client.get("/health/")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "unavailable", "disk": "ok"}
    for secret in unreachable_database:
        assert secret not in response.text
    # The operator finds the real error in the log.
    [record] = [r for r in caplog.records if r.name == "club.ops.health"]
    assert record.levelno == logging.ERROR
    assert record.exc_info is None  # one line a probe, not a traceback
    logged = caplog.text
    assert any(secret in logged for secret in unreachable_database), logged


@pytest.mark.django_db
def test_a_disk_below_the_minimum_is_reported_full(client, settings, tmp_path, caplog):
    free_mb = shutil.disk_usage(tmp_path).free // MIB
    settings.HEALTH_DISK_PATHS = [str(tmp_path)]
    settings.HEALTH_MIN_FREE_MB = free_mb + 1024  # a real reading, a minimum above it
    with caplog.at_level(logging.ERROR, logger="club.ops.health"):
        response = client.get("/health/")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "ok", "disk": "full"}
    assert str(tmp_path) not in response.text
    assert str(tmp_path) in caplog.text


@pytest.mark.django_db
def test_a_disk_with_room_passes(client, settings, tmp_path):
    free_mb = shutil.disk_usage(tmp_path).free // MIB
    assert free_mb >= 1, "the test machine's own disk is full"
    settings.HEALTH_DISK_PATHS = [str(tmp_path)]
    settings.HEALTH_MIN_FREE_MB = 1
    response = client.get("/health/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "disk": "ok"}


@pytest.mark.django_db
def test_one_full_disk_among_several_is_enough(client, settings, tmp_path):
    free_mb = shutil.disk_usage(tmp_path).free // MIB
    settings.HEALTH_DISK_PATHS = ["/", str(tmp_path)]
    settings.HEALTH_MIN_FREE_MB = max(free_mb, shutil.disk_usage("/").free // MIB) + 1024
    response = client.get("/health/")
    assert response.status_code == 503
    assert response.json()["disk"] == "full"


@pytest.mark.django_db
def test_a_disk_path_that_cannot_be_read_is_not_healthy(client, settings, tmp_path, caplog):
    settings.HEALTH_DISK_PATHS = [str(tmp_path / "not-there")]
    with caplog.at_level(logging.ERROR, logger="club.ops.health"):
        response = client.get("/health/")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "ok", "disk": "unavailable"}
    assert "not-there" not in response.text
    assert "not-there" in caplog.text


def test_the_sqlite_database_folder_is_watched(tmp_path, settings):
    settings.HEALTH_DISK_PATHS = ["/var/lib/postgresql"]
    sqlite = load_backend("django.db.backends.sqlite3")
    on_disk = sqlite.DatabaseWrapper({**_sqlite_settings(), "NAME": str(tmp_path / "club.sqlite3")})
    in_memory = sqlite.DatabaseWrapper({**_sqlite_settings(), "NAME": ":memory:"})
    assert disk_paths(on_disk) == [tmp_path.resolve(), Path("/var/lib/postgresql")]
    assert disk_paths(in_memory) == [Path("/var/lib/postgresql")]


def _sqlite_settings():
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "OPTIONS": {},
        "TIME_ZONE": None,
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False,
        "AUTOCOMMIT": True,
        "ATOMIC_REQUESTS": False,
        "USER": "",
        "PASSWORD": "",
        "HOST": "",
        "PORT": "",
        "TEST": {},
    }
