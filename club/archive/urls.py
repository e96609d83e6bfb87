"""The tournament downloads, at /tournaments/<id>/export.json and beside it."""

from django.urls import path

from club.archive import views

app_name = "archive"

urlpatterns = [
    path("<int:pk>/export.json", views.export_json, name="export_json"),
    path("<int:pk>/standings.csv", views.standings_csv, name="standings_csv"),
    path("<int:pk>/games.csv", views.games_csv, name="games_csv"),
    path("<int:pk>/deals.csv", views.deals_csv, name="deals_csv"),
]
