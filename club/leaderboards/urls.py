from django.urls import path

from club.leaderboards import views

app_name = "leaderboards"

urlpatterns = [
    path("players/<int:pk>/", views.player_profile, name="player"),
]
