from django.urls import include, path

from club.tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    # Downloads and printouts live in their own module (club/tournaments/exports.py).
    path("<int:pk>/", include("club.tournaments.export_urls")),
]
