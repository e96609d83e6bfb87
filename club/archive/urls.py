"""The tournament downloads, at /tournaments/<id>/export.json and beside it; the club's
games as one file; and the web import (publishing a night)."""

from django.urls import path

from club.archive import views

app_name = "archive"

urlpatterns = [
    path("tournaments/<int:pk>/export.json", views.export_json, name="export_json"),
    path("tournaments/<int:pk>/standings.csv", views.standings_csv, name="standings_csv"),
    path("tournaments/<int:pk>/games.csv", views.games_csv, name="games_csv"),
    path("tournaments/<int:pk>/deals.csv", views.deals_csv, name="deals_csv"),
    path("games/export.json", views.games_json, name="games_json"),
    path("players/roster.json", views.roster_json, name="roster_json"),
    path("import/", views.results_import, name="import"),
    path("import/store/", views.results_import_store, name="import_store"),
    path("import/progress/", views.results_import_progress, name="import_progress"),
]
