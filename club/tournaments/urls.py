from django.urls import path

from club.tournaments import (
    checkin_views,
    clock_views,
    sitting_views,
    stage_views,
    substitution_views,
    team_views,
    views,
)

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("new/", views.tournament_new, name="new"),
    path("<int:pk>/", views.tournament_detail, name="detail"),
    path("<int:pk>/live/", views.tournament_live, name="live"),
    path("<int:pk>/embed/", views.tournament_embed, name="embed"),
    path("<int:pk>/preview.png", views.tournament_picture, name="preview"),
    path("<int:pk>/projector/", views.tournament_projector, name="projector"),
    path("<int:pk>/board/", views.director_board, name="board"),
    path("<int:pk>/teams/", team_views.team_register, name="register"),
    path("<int:pk>/teams/list/", team_views.teams_register, name="register_list"),
    path("<int:pk>/teams/<int:entry>/edit/", team_views.team_edit, name="team_edit"),
    path("<int:pk>/teams/<int:entry>/withdraw/", team_views.team_withdraw, name="team_withdraw"),
    path("<int:pk>/teams/<int:entry>/reinstate/", team_views.team_reinstate, name="team_reinstate"),
    path("<int:pk>/sittings/", sitting_views.sitting_draw, name="draw"),
    path("<int:pk>/finish/", views.tournament_finish, name="finish"),
    path("<int:pk>/final/", views.tournament_final, name="final"),
    path("<int:pk>/reopen/", views.tournament_reopen, name="reopen"),
    path("<int:pk>/sittings/<int:number>/", sitting_views.sitting_detail, name="sitting"),
    path(
        "<int:pk>/sittings/<int:number>/preview.png",
        views.sitting_picture,
        name="sitting_preview",
    ),
    path("<int:pk>/sittings/<int:number>/adjust/", sitting_views.sitting_adjust, name="adjust"),
    path("<int:pk>/sittings/<int:number>/confirm/", sitting_views.sitting_confirm, name="confirm"),
    path("<int:pk>/sittings/<int:number>/discard/", sitting_views.sitting_discard, name="discard"),
    path("<int:pk>/sittings/<int:number>/time/", sitting_views.sitting_call_time, name="call_time"),
    path("<int:pk>/sittings/<int:number>/clock/", clock_views.sitting_clock, name="sitting_clock"),
    path(
        "<int:pk>/sittings/<int:number>/sheets/",
        sitting_views.sitting_sheets,
        name="sitting_sheets",
    ),
    path(
        "<int:pk>/sittings/<int:number>/links/",
        sitting_views.sitting_links,
        name="sitting_links",
    ),
    path(
        "<int:pk>/sittings/<int:number>/links/print/",
        sitting_views.sitting_links_print,
        name="sitting_links_print",
    ),
    path("<int:pk>/print/", views.print_standings, name="print_standings"),
    path("<int:pk>/seats/", views.seats_page, name="seats"),
    path("<int:pk>/players/<int:player>/", views.player_page, name="player"),
    path("<int:pk>/stages/", stage_views.stage_add, name="stage_add"),
    path("<int:pk>/stages/<int:number>/", stage_views.stage_detail, name="stage"),
    path("<int:pk>/stages/<int:number>/groups/", stage_views.stage_groups, name="stage_groups"),
    path("<int:pk>/stages/<int:number>/seeds/", stage_views.stage_seeds, name="stage_seeds"),
    path("<int:pk>/stages/<int:number>/redraw/", stage_views.stage_redraw, name="stage_redraw"),
    path("<int:pk>/stages/<int:number>/confirm/", stage_views.stage_confirm, name="stage_confirm"),
    path("<int:pk>/stages/<int:number>/discard/", stage_views.stage_discard, name="stage_discard"),
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
