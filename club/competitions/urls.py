"""A club's competitions (``competitions:``) and the federation's circuits (``circuits:``):
the same pages under their own addresses, each kept under its own writes."""

from django.urls import path

from club.competitions import views

app_name = "competitions"


def _patterns(detail, line, printed, projector, pictured) -> list:
    return [
        path("", views.competition_list, name="list"),
        path("new/", views.competition_new, name="new"),
        path("<int:pk>/", detail, name="detail"),
        path("<int:pk>/edit/", views.competition_edit, name="edit"),
        path("<int:pk>/delete/", views.competition_delete, name="delete"),
        path("<int:pk>/print/", printed, name="print"),
        path("<int:pk>/projector/", projector, name="projector"),
        path("<int:pk>/lines/<int:line>/", line, name="line"),
        path("<int:pk>/preview.png", pictured, name="preview"),
    ]


urlpatterns = _patterns(
    views.competition_detail,
    views.competition_line,
    views.competition_print,
    views.competition_projector,
    views.competition_picture,
)
circuits = (
    _patterns(
        views.circuit_detail,
        views.circuit_line,
        views.circuit_print,
        views.circuit_projector,
        views.circuit_picture,
    ),
    "circuits",
)
