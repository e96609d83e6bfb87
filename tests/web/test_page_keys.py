"""A kept page's key (club.web.pages) names all that changes the page's bytes: a request
that differs in any of them never meets another's page, however its parts are worked out
and remembered."""

from __future__ import annotations

import pytest

from club.web import pages


@pytest.fixture
def key(rf, settings):
    settings.ALLOWED_HOSTS = ["a.example", "b.example"]
    pages.forget()

    def key_of(path="/games/1/", host="a.example", language="en", **extra) -> str:
        request = rf.get(path, HTTP_HOST=host, **extra)
        request.LANGUAGE_CODE = language
        return pages._key(request, "version-1")

    yield key_of
    pages.forget()


def test_each_part_of_the_address_and_the_answer_makes_another_key(key):
    first = key()
    assert key() == first  # read again: remembered, the same
    others = {
        key(host="b.example"),
        key(secure=True),
        key(path="/games/2/"),
        key(path="/games/1/?page=2"),
        key(language="ml"),
        key(HTTP_HX_REQUEST="true"),
    }
    assert len(others) == 6 and first not in others


def test_what_does_not_change_the_page_does_not_change_the_key(key, settings):
    assert key("/games/1/?a=1&b=2") == key("/games/1/?b=2&a=1")
    # A poll's version is no part of the address; it asks for the fragment, as htmx does.
    assert key("/games/1/?version=7") == key("/games/1/?version=8") == key(HTTP_HX_REQUEST="true")
    # A forwarded host the settings do not trust is anybody's header.
    assert key(HTTP_X_FORWARDED_HOST="b.example") == key()
    settings.USE_X_FORWARDED_HOST = True
    assert key(HTTP_X_FORWARDED_HOST="b.example") == key(host="b.example") != key()


def test_a_long_address_gets_its_own_key_and_is_not_held(key):
    long = "/games/1/?q=" + "x" * pages.REMEMBERED_ADDRESS
    assert key(long) == key(long) != key(long + "y")
    assert len(pages._wheres) == 0
