from django.urls import path

from club.leaderboards import views

app_name = "leaderboards"

urlpatterns = [
    path("players/", views.player_list, name="players"),
    path("players/new/", views.player_new, name="player_new"),
    path("players/merge/", views.player_merge, name="merge"),
    path("players/import/", views.player_import, name="import"),
    path("players/<int:pk>/", views.player_profile, name="player"),
    path("players/<int:pk>/preview.png", views.player_picture, name="player_preview"),
    path("players/<int:pk>/edit/", views.player_edit, name="player_edit"),
    path("players/<int:pk>/active/", views.player_active, name="player_active"),
    # The boards' index is the players' board, whose tabs lead to the teams'.
    path("leaderboards/", views.player_board, name="boards"),
    path("leaderboards/players/", views.player_board, name="player_board"),
    path("leaderboards/teams/", views.team_board, name="team_board"),
]
