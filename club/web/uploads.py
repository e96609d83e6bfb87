"""Uploads bounded while they are read: a file past its page's limit is never read whole.

A form says how large its file may be (:class:`LimitedFileField`, ``max_bytes``) and
its view says which form it takes (:func:`takes_upload`). Every post then reads its
files through :class:`LimitedUploads`, put first among the request's upload handlers
by :class:`UploadLimitMiddleware` before anything reads the post (the control
characters' middleware and the CSRF check both do). It refuses a file:

- when the post's Content-Length is past the page's limit (its files' limits and
  room for the form's other fields): as the file's part begins, so the fields before
  it (the CSRF token, the one-time key) are read and the file is not;
- when the file's bytes pass its limit as they arrive, for a body whose length was
  not told or not true (under WSGI, Django reads no body without a Content-Length);
- always, with 400, on a page that takes no file.

The rest of the body is left unread. A refused file reaches its form as a
:class:`RefusedFile`, the form shows its message in the club's words, and the page
is answered 413 with the form again. Nothing is saved: the form is not valid.

The fields of a post (not its files) are Django's: ``DATA_UPLOAD_MAX_MEMORY_SIZE``
refuses a body past it with 400, before reading it when its Content-Length says so,
or as a multipart form's fields are read.

A body past the largest of all (the largest upload and its form) never reaches the app
at the venue: its server refuses it as it arrives (club.venue), and asks the app for its
answer with the request's headers and :data:`REFUSED_BODY`: the page of
:func:`refused_as_too_large`, in the reader's language.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django import forms
from django.core.exceptions import DisallowedHost, TooManyFilesSent
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from club.web.posts import page_sent_from
from club.web.unreadable import with_site_headers

KB, MB = 1_000, 1_000_000
# The WSGI key by which the venue's server (club.venue) tells of a body it refused unread for
# being past the most it takes: (that most, the body's told length or None). Only a server
# sets such a key: a request's headers arrive as HTTP_... keys.
REFUSED_BODY = "club.refused_body"
# What an upload form sends besides its file: the CSRF token, the one-time key, each
# part's headers, and a pasted list of teams (200 lines of four names in Malayalam,
# three bytes a letter, is under 100 KB).
FORM_ROOM = 256 * KB


@dataclass(frozen=True)
class RefusedFile:
    """A file refused for its size before it was read: its name and, when the post told
    it, about how large it was (the post's Content-Length)."""

    name: str
    size: int | None

    def __bool__(self) -> bool:
        return True  # a file was sent: not "no file chosen"


def size_text(size: int) -> str:
    """A size as a club reads it: 52.4 MB, 1 MB, 150 KB (of 1,000 bytes, as a disk is sold)."""
    if size < MB:
        return _("%(size)s KB") % {"size": number_format(round(size / KB))}
    figure = round(size / MB, 1)
    shown = number_format(figure, decimal_pos=0 if figure == int(figure) else 1)
    return _("%(size)s MB") % {"size": shown}


def too_large(size: int | None, limit: int) -> str:
    most = size_text(limit)
    if size is None or size_text(size) == most:
        return _("The file is larger than %(most)s, the most this page takes.") % {"most": most}
    return _("The file is %(size)s; the most this page takes is %(most)s.") % {
        "size": size_text(size),
        "most": most,
    }


class LimitedFileField(forms.FileField):
    """A file of at most ``max_bytes``; its view names its form with :func:`takes_upload`,
    so that a larger one is stopped while it is read, not after."""

    def __init__(self, *, max_bytes: int, **kwargs):
        self.max_bytes = max_bytes
        super().__init__(**kwargs)

    def to_python(self, data):
        if isinstance(data, RefusedFile):
            raise forms.ValidationError(too_large(data.size, self.max_bytes), code="too_large")
        upload = super().to_python(data)
        # Read in full by a handler other than ours (a form bound outside a request).
        if upload is not None and upload.size > self.max_bytes:
            raise forms.ValidationError(too_large(upload.size, self.max_bytes), code="too_large")
        return upload


def _limits_of_form(form_class: type[forms.Form]) -> dict[str, int]:
    return {
        name: field.max_bytes
        for name, field in form_class.base_fields.items()
        if isinstance(field, LimitedFileField)
    }


def takes_upload(form_class: type[forms.Form]):
    """The view takes the files of ``form_class``, each up to its field's ``max_bytes``.

    Put it right above the view, below its permission check and its one-time key, so
    that the refusal reaches the form and the kept answer is the one given: 413.
    """
    limits = _limits_of_form(form_class)

    def decorator(view):
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            refused = None
            if request.method == "POST":
                files = request.FILES  # read, or already read, through LimitedUploads
                refused = getattr(request, "refused_upload", None)
                if refused is not None:
                    field, upload = refused
                    files.setlist(field, [upload])
            response = view(request, *args, **kwargs)
            if refused is not None and response.status_code == 200:
                response.status_code = 413  # the form again, with what was refused
            return response

        wrapped.upload_limits = limits  # read by LimitedUploads through the URL's view
        return wrapped

    return decorator


def refused_as_too_large(request: HttpRequest, largest: int, size: int | None) -> HttpResponse:
    """413, a page in the reader's language, for a post of ``size`` bytes (None: not told)
    that the server refused, unread, for being past ``largest``, the most it takes in one
    request: the file is larger than the page takes (the limit its form names), or, on a
    page that takes no file, than the club takes at all. Made from the request's line and
    headers alone: no session, no user, no database."""
    limits = _limits_of_view(request)
    try:
        back = page_sent_from(request)
    except DisallowedHost:  # a Host the site does not answer to: its own home page
        back = "/"
    language = translation.get_language_from_request(request)
    with translation.override(language):
        if limits:
            refused = too_large(size, max(limits.values()))
        else:
            refused = _("What was sent is larger than %(most)s, the most the club takes.") % {
                "most": size_text(largest)
            }
        body = render_to_string(
            "too_large.html", {"refused": refused, "back": back}, request=request
        )
    response = HttpResponse(body, status=413)
    response["Content-Language"] = language
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return with_site_headers(response)


class FileNotTaken(TooManyFilesSent):
    """A file sent to a page that takes none, or under a name its form does not have:
    more files than it takes. Django answers it 400, as too many files."""


def _limits_of_view(request: HttpRequest) -> dict[str, int]:
    try:
        match = resolve(request.path_info, getattr(request, "urlconf", None))
    except Resolver404:
        return {}
    return getattr(match.func, "upload_limits", {})


class UploadRequest(HttpRequest):
    """A post read through :class:`LimitedUploads` (club.web.requests): a file it refused
    is put on it as ``refused_upload``, (its field's name, the :class:`RefusedFile`), for
    :func:`takes_upload` to hand to the form."""

    refused_upload: tuple[str, RefusedFile]


class LimitedUploads(FileUploadHandler):
    """The first upload handler of every post: passes each file's bytes on to Django's
    handlers, stopping the upload at its page's limit."""

    # Narrower than Django's handler says: UploadLimitMiddleware makes this one with its
    # post, and Django names the file (new_file) before any of its bytes arrive.
    request: UploadRequest
    field_name: str
    file_name: str

    def __init__(self, request: UploadRequest):
        super().__init__(request)
        self.limits: dict[str, int] = {}
        self.length: int | None = None
        self.received: dict[str, int] = {}

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        self.limits = _limits_of_view(self.request)
        self.length = content_length or None
        return None  # Django's parser reads the post, through receive_data_chunk

    def _refuse(self, size: int | None):
        self.request.refused_upload = (self.field_name, RefusedFile(self.file_name, size))
        # Not reading the rest (connection_reset): the answer goes out at once.
        raise StopUpload(connection_reset=True)

    def new_file(self, field_name, file_name, *args, **kwargs):
        super().new_file(field_name, file_name, *args, **kwargs)
        if field_name not in self.limits:
            raise FileNotTaken(f"A file was sent as {field_name!r}, which this page does not take.")
        if self.length is not None and self.length > sum(self.limits.values()) + FORM_ROOM:
            self._refuse(self.length)

    def receive_data_chunk(self, raw_data, start):
        limit = self.limits[self.field_name]
        received = self.received.get(self.field_name, 0) + len(raw_data)
        self.received[self.field_name] = received
        if received > limit:
            self._refuse(self.length if self.length and self.length > limit else None)
        return raw_data

    def file_complete(self, file_size):
        return None  # Django's own handlers, after this one, keep the file


class UploadLimitMiddleware:
    """Give every post :class:`LimitedUploads` before anything reads it; answer a post the
    server refused as too large (:data:`REFUSED_BODY`) with the club's page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: UploadRequest) -> HttpResponse:
        refused = request.META.get(REFUSED_BODY)
        if refused is not None:
            largest, size = refused
            return refused_as_too_large(request, largest, size)
        if request.method == "POST":  # Django reads no other method's body as a form
            request.upload_handlers.insert(0, LimitedUploads(request))
        return self.get_response(request)
