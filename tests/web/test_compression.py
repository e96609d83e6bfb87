"""Pages go out compressed to browsers that ask, padded at
random against BREACH by Django's gzip; the same bytes once unpacked."""

from __future__ import annotations

import gzip

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import start_game

pytestmark = pytest.mark.django_db


def test_a_page_is_sent_gzipped_when_the_browser_asks_and_reads_the_same():
    game = start_game(2)
    plain = Client().get(game.get_absolute_url())
    packed = Client().get(game.get_absolute_url(), headers={"accept-encoding": "gzip"})
    assert "Content-Encoding" not in plain
    assert packed["Content-Encoding"] == "gzip" and "Accept-Encoding" in packed["Vary"]
    body = gzip.decompress(packed.content).decode()
    # Same page but for the per-request secrets (the CSRF token of the language form).
    assert body.count("<section") == plain.text.count("<section")
    assert game.label in body
    assert len(packed.content) < len(plain.content) / 2


def test_the_padding_differs_from_one_response_to_the_next():
    # A page rendered for each reader (the register; an organiser's pages, with their
    # forms' tokens) is padded at random: Django's BREACH mitigation. A kept public page
    # holds no secret and is compressed once (tests/web/test_pages_cache.py).
    start_game(2)
    sizes = {
        len(
            Client()
            .get(reverse("leaderboards:players"), headers={"accept-encoding": "gzip"})
            .content
        )
        for _ in range(6)
    }
    assert len(sizes) > 1


def test_the_home_page_is_compressed_too():
    game = start_game(2)
    response = Client().get(reverse("games:list"), headers={"accept-encoding": "gzip"})
    assert response["Content-Encoding"] == "gzip"
    assert game.label in gzip.decompress(response.content).decode()
