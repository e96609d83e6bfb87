"""A view that fails, for the server error page's test: the club's own pages never do."""

from django.urls import path


def fails(request):
    raise RuntimeError("a fault no view catches")


urlpatterns = [path("fails/", fails)]
handler500 = "club.urls.server_error"
