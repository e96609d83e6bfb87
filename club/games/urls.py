from django.urls import include, path

from club.games import views

app_name = "games"

urlpatterns = [
    path("", views.game_list, name="list"),
    path("rules/", views.rules_page, name="rules"),
    path("games/new/", views.game_new, name="new"),
    path("games/<int:pk>/", views.game_detail, name="detail"),
    path("games/<int:pk>/embed/", views.game_embed, name="embed"),
    path("games/<int:pk>/preview.png", views.game_picture, name="preview"),
    path("games/<int:pk>/deals/", views.deal_record, name="record"),
    path("games/<int:pk>/deals/<int:number>/edit/", views.deal_edit, name="edit"),
    path("games/<int:pk>/deals/undo/", views.deal_undo, name="undo"),
    path("games/<int:pk>/end/", views.game_end, name="end"),
    path(
        "games/<int:pk>/waiting/<int:number>/confirm/",
        views.waiting_confirm,
        name="waiting_confirm",
    ),
    path(
        "games/<int:pk>/waiting/<int:number>/reject/", views.waiting_reject, name="waiting_reject"
    ),
    path("", include("club.games.link_urls")),
]
