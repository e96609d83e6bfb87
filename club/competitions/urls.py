"""A club's competitions (``competitions:``) and the federation's circuits (``circuits:``):
the same pages, under their own addresses."""

from django.urls import path

from club.competitions import views

app_name = "competitions"

urlpatterns = [
    path("", views.competition_list, name="list"),
    path("new/", views.competition_new, name="new"),
    path("<int:pk>/", views.competition_detail, name="detail"),
    path("<int:pk>/edit/", views.competition_edit, name="edit"),
    path("<int:pk>/delete/", views.competition_delete, name="delete"),
    path("<int:pk>/print/", views.competition_print, name="print"),
    path("<int:pk>/projector/", views.competition_projector, name="projector"),
    path("<int:pk>/lines/<int:line>/", views.competition_line, name="line"),
]

circuits = (urlpatterns, "circuits")
