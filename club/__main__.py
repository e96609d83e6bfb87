"""``python -m club`` (or ``fiftysix-club``): Django's commands for the installed package.

The same as ``manage.py`` in a checkout, for the app installed from its wheel:
``fiftysix-club migrate``, ``fiftysix-club check --deploy``. Its files (the SQLite
database, the collected static files) go to ``DJANGO_DATA_DIR``, else the folder it
runs in.
"""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "club.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line([sys.argv[0], *sys.argv[1:]])


if __name__ == "__main__":
    main()
