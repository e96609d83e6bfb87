"""Exports and printouts of a tournament, mounted under /tournaments/<pk>/."""

from django.urls import path

from club.tournaments import exports

urlpatterns = [
    path("export.json", exports.export_json, name="export_json"),
    path("standings.csv", exports.standings_csv, name="standings_csv"),
    path("games.csv", exports.games_csv, name="games_csv"),
    path("deals.csv", exports.deals_csv, name="deals_csv"),
    path("print/", exports.print_standings, name="print_standings"),
]
