"""Dates day first (1 December 2026, 01/12/2026), as clubs in India and the UK read them.

Used when ``DJANGO_DATE_ORDER`` is ``day`` (the default; club/settings.py). Times
stay as Django writes them for the language (2:20 p.m.).
"""

DATE_FORMAT = "j F Y"
DATETIME_FORMAT = "j F Y, P"
SHORT_DATE_FORMAT = "d/m/Y"
SHORT_DATETIME_FORMAT = "d/m/Y P"
MONTH_DAY_FORMAT = "j F"
FIRST_DAY_OF_WEEK = 1  # Monday
# What a date typed into a form may look like: ISO (the browsers' date fields) first.
DATE_INPUT_FORMATS = ["%Y-%m-%d", "%d/%m/%Y", "%d/%m/%y", "%d-%m-%Y"]
DATETIME_INPUT_FORMATS = [
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
]
