"""Dates day first, as for English (club/formats/en/formats.py): Django gives Marathi
month-first formats or none.
"""

from club.formats.en.formats import *  # noqa: F403
