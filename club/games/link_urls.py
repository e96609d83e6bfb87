"""Scorer links, the tables' calls for the director, and a game's printable score sheet,
mounted at the site root.

(A sitting's score sheets are the tournaments': club/tournaments/urls.py.)
"""

from django.urls import path

from club.games import call_views
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
    path("s/<str:token>/table/", call_views.scorer_table, name="scorer_table"),
    path("s/<str:token>/call/", call_views.scorer_call, name="scorer_call"),
    path(
        "s/<str:token>/call/withdraw/", call_views.scorer_call_withdraw, name="scorer_call_withdraw"
    ),
    # The organisers' page of the club's calls for the director.
    path("calls/", call_views.calls_page, name="calls"),
    path("calls/<int:pk>/answer/", call_views.call_answer, name="call_answer"),
]
