from django.contrib import admin
from django.db import connection
from django.http import JsonResponse
from django.urls import include, path
from django.views.decorators.cache import never_cache


@never_cache
def health(request):
    """For load balancers and uptime checks: 200 when the database answers, else 503."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any database fault means "not healthy"
        return JsonResponse({"status": "error", "database": str(error)}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})


urlpatterns = [
    path("health/", health, name="health"),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("tournaments/", include("club.tournaments.urls")),
    path("", include("club.leaderboards.urls")),
    path("", include("club.games.urls")),
]
