from django.urls import path

from club.games import views

app_name = "games"

urlpatterns = [
    path("", views.game_list, name="list"),
]
