"""Scorer links and printable score sheets, mounted at the site root by club/games/urls.py."""

urlpatterns: list = []
