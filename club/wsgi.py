"""WSGI entry point, for gunicorn: ``gunicorn club.wsgi``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "club.settings")

application = get_wsgi_application()
