"""What the club puts on a request beyond Django's own, typed for the type checker.

Django's ``HttpRequest`` takes any attribute, and middleware and decorators add their
own; a type checker knows only those the class declares. So a view or decorator that
reads or sets one takes a request of a subclass that declares it, as django-htmx
documents for its ``request.htmx``. The subclass is only a type: Django still hands
each view its own request object, and nothing is converted.

- :class:`HtmxHttpRequest`: ``request.htmx``, put on every request by django-htmx's
  ``HtmxMiddleware`` (settings.MIDDLEWARE); a view that reads it takes one.
- ``request.cached_page`` (club.web.pages.KeptPageRequest) and ``request.refused_upload``
  (club.web.uploads.UploadRequest) are declared beside the code that sets them.
"""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request that came through django-htmx's middleware: ``htmx`` tells whether htmx
    sent it, and what it asked for (its target, trigger, current URL)."""

    htmx: HtmxDetails
