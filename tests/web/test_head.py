"""What every page's head tells a browser and a search engine (the
Lighthouse findings that are ours): a description in the reader's language, and the
Latin faces of the club's font fetched before the first paint."""

from __future__ import annotations

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_every_page_describes_itself_in_the_readers_language():
    english = Client().get("/rules/").text
    assert '<meta name="description" content="Scores, tournaments and leaderboards' in english
    reader = Client()
    reader.cookies["django_language"] = "es"
    spanish = reader.get("/rules/").text
    assert '<meta name="description" content="Puntos, torneos y rankings' in spanish


def test_the_fonts_the_headings_use_are_preloaded():
    page = Client().get("/rules/").text
    preloads = re.findall(r'<link rel="preload" href="([^"]+)" as="font"[^>]*crossorigin>', page)
    assert len(preloads) == 2 and all(url.endswith(".woff2") for url in preloads)
    for url in preloads:
        assert url.startswith("/static/fonts/noto-sans-latin-")
