import sys

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.db import InterfaceError, OperationalError
from django.http import JsonResponse
from django.urls import include, path
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.i18n import set_language

from club.api.views import api
from club.clubs.views import club_new
from club.competitions.urls import circuits
from club.games.views import game_list
from club.leaderboards.federation import ranking, site_home
from club.middleware import DatabaseLostMiddleware
from club.ops.backup_views import club_backup
from club.ops.health import database_status, disk_status
from club.web.installable import manifest, offline, service_worker
from club.web.kept import LogoutView, page_query
from club.web.language import choose_language
from club.web.routes import RememberedRoutes


def server_error(request):
    """Errors outside any view: a lost database still answers "send it again" (503)."""
    error = sys.exc_info()[1]
    if isinstance(error, (OperationalError, InterfaceError)):
        return DatabaseLostMiddleware(lambda request: None).process_exception(request, error)
    return defaults.server_error(request)


handler500 = "club.urls.server_error"


@page_query("page")  # the club's games' page (the site's list of clubs reads no query)
def home(request):
    """The site's address: its clubs on a site of several, else the club's games."""
    if getattr(request, "club", False) is None:  # the site's own page (club.clubs.addresses)
        return site_home(request)
    return game_list(request)


@never_cache
def health(request):
    """For load balancers and uptime checks: 200 when the database answers and the disk has
    room, else 503. The answer holds fixed words only; the details go to the log."""
    checks = {"database": database_status(), "disk": disk_status()}
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503
    )


patterns = [
    path("health/", health, name="health"),
    # The scorers' installable app (club/web/installable.py): the worker's scope is the site.
    path("sw.js", service_worker, name="service_worker"),
    path("manifest.webmanifest", manifest, name="manifest"),
    path("offline/", offline, name="offline"),
    path("language/", set_language, name="set_language"),
    path("language/choose/", choose_language, name="choose_language"),
    path("admin/", admin.site.urls),
    # The read-only API, its schema and its docs (club/api).
    path("api/v1/", api.urls),
    # No password reset by email: the club has no mail server; an admin resets passwords.
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    # The site's clubs (club.clubs): its home on a site of several, the list, a new club.
    path("", home, name="site_home"),
    path("clubs/", site_home, name="clubs"),
    path("clubs/new/", club_new, name="club_new"),
    path("ranking/", ranking, name="ranking"),
    # A club's backup, for its organisers (club.ops.backup_scope): at /clubs/<slug>/backup/.
    path("backup/", club_backup, name="club_backup"),
    path("tournaments/", include("club.tournaments.urls")),
    # A club's seasons, and the federation's circuits (the site's own pages).
    path("competitions/", include("club.competitions.urls")),
    path("circuits/", include(circuits)),
    path("", include("club.archive.urls")),
    path("", include("club.leaderboards.urls")),
    path("", include("club.games.urls")),
]

# Each path's view worked out once a process (club.web.routes).
urlpatterns = [RememberedRoutes(patterns)]
