"""The project's URLs plus a trivial view: the framework's floor, through the same middleware."""

from django.http import HttpResponse
from django.urls import path

from club.urls import urlpatterns as club_urlpatterns


def trivial(request):
    return HttpResponse(b"ok", content_type="text/plain")


urlpatterns = [path("bench/trivial/", trivial, name="bench_trivial"), *club_urlpatterns]
