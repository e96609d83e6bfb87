"""The demo club's organiser login: made by ``load_demo`` on a development machine, and
printed in the README for anyone to read, so the venue refuses a database that has it.

Plain Python, no Django: the venue (club/venue.py) reads it before Django starts.
"""

DEMO_USER = "demo"
DEMO_PASSWORD = "demo-organiser"  # noqa: S105  (public on purpose: the quick start's login)
