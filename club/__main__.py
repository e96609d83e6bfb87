"""``python -m club`` (or ``fiftysix-club``): Django's commands for the installed package.

The same as ``manage.py`` in a checkout, for the app installed from its wheel:
``fiftysix-club migrate``, ``fiftysix-club check --deploy``, and ``fiftysix-club venue``
(club/venue.py) to serve the club's phones from a laptop at the venue. Its files (the SQLite
database, the collected static files) go to ``DJANGO_DATA_DIR``, else the folder it
runs in.
"""

import os
import sys

# Plain Python at import: the venue sets the environment before Django reads its settings.
from club.venue import main as venue


def main() -> None:
    if sys.argv[1:2] == ["venue"]:  # sets the environment before Django reads its settings
        venue(sys.argv[2:])
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "club.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line([sys.argv[0], *sys.argv[1:]])


if __name__ == "__main__":
    main()
