from django.urls import path

from club.tournaments import checkin_views, substitution_views, views

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("new/", views.tournament_new, name="new"),
    path("<int:pk>/", views.tournament_detail, name="detail"),
    path("<int:pk>/live/", views.tournament_live, name="live"),
    path("<int:pk>/embed/", views.tournament_embed, name="embed"),
    path("<int:pk>/projector/", views.tournament_projector, name="projector"),
    path("<int:pk>/board/", views.director_board, name="board"),
    path("<int:pk>/teams/", views.team_register, name="register"),
    path("<int:pk>/teams/list/", views.teams_register, name="register_list"),
    path("<int:pk>/teams/<int:entry>/edit/", views.team_edit, name="team_edit"),
    path("<int:pk>/teams/<int:entry>/withdraw/", views.team_withdraw, name="team_withdraw"),
    path("<int:pk>/teams/<int:entry>/reinstate/", views.team_reinstate, name="team_reinstate"),
    path("<int:pk>/sittings/", views.sitting_draw, name="draw"),
    path("<int:pk>/finish/", views.tournament_finish, name="finish"),
    path("<int:pk>/final/", views.tournament_final, name="final"),
    path("<int:pk>/reopen/", views.tournament_reopen, name="reopen"),
    path("<int:pk>/sittings/<int:number>/", views.sitting_detail, name="sitting"),
    path("<int:pk>/sittings/<int:number>/adjust/", views.sitting_adjust, name="adjust"),
    path("<int:pk>/sittings/<int:number>/confirm/", views.sitting_confirm, name="confirm"),
    path("<int:pk>/sittings/<int:number>/discard/", views.sitting_discard, name="discard"),
    path("<int:pk>/sittings/<int:number>/time/", views.sitting_call_time, name="call_time"),
    path("<int:pk>/sittings/<int:number>/sheets/", views.sitting_sheets, name="sitting_sheets"),
    path("<int:pk>/sittings/<int:number>/links/", views.sitting_links, name="sitting_links"),
    path(
        "<int:pk>/sittings/<int:number>/links/print/",
        views.sitting_links_print,
        name="sitting_links_print",
    ),
    path("<int:pk>/print/", views.print_standings, name="print_standings"),
    path("<int:pk>/seats/", views.seats_page, name="seats"),
    path("<int:pk>/players/<int:player>/", views.player_page, name="player"),
    path("<int:pk>/stages/", views.stage_add, name="stage_add"),
    path("<int:pk>/stages/<int:number>/", views.stage_detail, name="stage"),
    path("<int:pk>/stages/<int:number>/groups/", views.stage_groups, name="stage_groups"),
    path("<int:pk>/stages/<int:number>/seeds/", views.stage_seeds, name="stage_seeds"),
    path("<int:pk>/stages/<int:number>/redraw/", views.stage_redraw, name="stage_redraw"),
    path("<int:pk>/stages/<int:number>/confirm/", views.stage_confirm, name="stage_confirm"),
    path("<int:pk>/stages/<int:number>/discard/", views.stage_discard, name="stage_discard"),
    path("<int:pk>/check-in/", checkin_views.check_in_setting, name="check_in_setting"),
    path("<int:pk>/teams/<int:entry>/check-in/", checkin_views.check_in_team, name="check_in"),
    path("<int:pk>/cards/", checkin_views.team_cards, name="team_cards"),
    path(
        "<int:pk>/teams/<int:entry>/new-card/",
        checkin_views.new_captain_key,
        name="new_captain_key",
    ),
    path("captain/<str:key>/", checkin_views.captain_page, name="captain"),
    path(
        "<int:pk>/teams/<int:entry>/players/",
        substitution_views.team_players,
        name="team_players",
    ),
    path(
        "<int:pk>/teams/<int:entry>/players/<int:substitution>/back/",
        substitution_views.player_back,
        name="player_back",
    ),
    path(
        "<int:pk>/teams/<int:entry>/players/<int:substitution>/undo/",
        substitution_views.substitution_undo,
        name="substitution_undo",
    ),
    # The downloads (export.json, standings.csv, games.csv, deals.csv) are the
    # archive's: club/archive/urls.py, at the same paths.
]
