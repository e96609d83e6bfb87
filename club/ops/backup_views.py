"""A club's backup, for its organisers: a page that says what it holds, and its button.

The backup (``club.ops.backup_scope``) holds the organisers' logins with their password
hashes and the scorer links' secrets, so it is made only on a POST by one of the club's
organisers (or a site administrator), never kept by a cache, and logged. The backup of the
whole site stays the administrator's: ``manage.py backup_club``.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from club.clubs.addresses import club_of
from club.ops.backup import default_filename, make_backup
from club.web.auth import organiser_required

logger = logging.getLogger(__name__)


@organiser_required
@require_http_methods(["GET", "HEAD", "POST"])
def club_backup(request: HttpRequest) -> HttpResponse:
    """The page of the club's backup; its button (a POST) downloads the file."""
    club = club_of(request)
    if request.method != "POST":
        response = render(request, "ops/club_backup.html", {"backed_up": club})
        response["Cache-Control"] = "private, no-store"
        return response
    created_at = timezone.now()
    backup = make_backup(created_at, club=club)
    logger.info("Backup of the club %s downloaded by %s", club.slug, request.user.get_username())
    response = HttpResponse(backup.text, content_type="application/json; charset=utf-8")
    filename = default_filename(created_at, club)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response
