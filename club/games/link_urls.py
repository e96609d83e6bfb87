"""Scorer links and a game's printable score sheet, mounted at the site root.

(A sitting's score sheets are the tournaments': club/tournaments/urls.py.)
"""

from django.urls import path

from club.games import link_views as views

urlpatterns = [
    path("connect/", views.connect_phones, name="connect"),
    path("games/<int:pk>/links/", views.game_links, name="links"),
    path("games/<int:pk>/links/print/", views.links_print, name="links_print"),
    path("games/<int:pk>/links/<int:link_pk>/revoke/", views.link_revoke, name="link_revoke"),
    path("games/<int:pk>/sheet/", views.game_sheet, name="sheet"),
    # Table side: everything is reached through the link's secret, never a game id.
    path("s/<str:token>/", views.scorer, name="scorer"),
    path("s/<str:token>/deals/", views.scorer_send, name="scorer_send"),
    path("s/<str:token>/deals/<int:number>/confirm/", views.scorer_confirm, name="scorer_confirm"),
    path("s/<str:token>/deals/<int:number>/reject/", views.scorer_reject, name="scorer_reject"),
]
