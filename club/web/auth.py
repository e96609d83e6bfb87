"""Who may write: a club's organisers, and the site's administrators (active staff
accounts, whom the admin shows every club anyway) in every club (docs/clubs.md, "Who
may write")."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest
from django.shortcuts import render


def is_organiser(user, club=None) -> bool:
    """Whether ``user`` may write in ``club`` (a site administrator writes in any; a club's
    own organiser only in it; with no club named, only an administrator)."""
    if not (user.is_authenticated and user.is_active):
        return False
    if user.is_staff:
        return True
    return club is not None and club.is_organised_by(user)


def may_write(request: HttpRequest) -> bool:
    """Whether the request's user organises the club whose page this is (asked once a
    request)."""
    known = getattr(request, "_club_organiser", None)
    if known is None:
        user = getattr(request, "user", None)  # none on a refusal made before the login is read
        known = user is not None and is_organiser(user, getattr(request, "club", None))
        request._club_organiser = known  # type: ignore[attr-defined]  # the request's answer
    return known


def written_by(may: Callable[[HttpRequest], bool]):
    """A decorator: the view is for those ``may(request)`` lets write; a visitor is sent to
    log in, someone logged in whom it does not let is told so (403), not sent to log in
    again."""

    def decorator(view):
        @wraps(view)
        def only_writers(request: HttpRequest, *args, **kwargs):
            if may(request):
                return view(request, *args, **kwargs)
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated:
                return render(request, "not_organiser.html", status=403)
            return redirect_to_login(request.get_full_path())

        return only_writers

    return decorator


# The view is the club's organisers' (and the site's administrators').
organiser_required = written_by(may_write)
