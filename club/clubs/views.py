"""The site administrator's page that adds a club."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from club.clubs.addresses import reverse_in
from club.clubs.forms import ClubForm
from club.clubs.models import default_languages, default_time_zone


@staff_member_required
@require_http_methods(["GET", "POST"])
def club_new(request: HttpRequest) -> HttpResponse:
    """A new club, by a site administrator: its name, address, languages and time zone.
    Its organisers are given in the admin (or by ``manage.py add_club``)."""
    form = ClubForm(
        request.POST or None,
        initial={"languages": default_languages(), "time_zone": default_time_zone()},
    )
    if request.method == "POST" and form.is_valid():
        club = form.save()
        messages.success(
            request, _("Club “%(name)s” added: its pages are ready.") % {"name": club.name}
        )
        return redirect(reverse_in(club, "games:list"))
    return render(request, "clubs/new.html", {"form": form})
