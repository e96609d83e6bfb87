"""Exports and printouts of a tournament, mounted under /tournaments/<pk>/."""

urlpatterns: list = []
