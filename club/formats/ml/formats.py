"""Dates day first, as for English (club/formats/en/formats.py): Django gives Malayalam
month-first formats or none.
"""

from club.formats.en.formats import *  # noqa: F403
