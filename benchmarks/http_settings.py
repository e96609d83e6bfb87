"""The club's settings with the harness's URLs (the trivial view that is the framework's
floor), for gunicorn in benchmarks.http."""

from club.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.urls"
