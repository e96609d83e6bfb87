"""The words a phone shows of the deals it keeps with no network: written once a process
for each language ({% offline_words %}), and the same as the template writes them."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from club.clubs.templatetags import clubs


@pytest.fixture(autouse=True)
def forgotten():
    clubs._offline_words.clear()
    yield
    clubs._offline_words.clear()


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_each_languages_words_are_the_templates_and_written_once(language):
    with translation.override(language):
        first = clubs.offline_words()
        assert first == render_to_string("_offline_words.html")
        assert clubs.offline_words() is first  # kept: not written again
    words = json.loads(first.split(">", 1)[1].rsplit("</script>", 1)[0])
    assert len(words) > 20 and all(words.values())


def test_each_language_has_its_own_words_and_debug_writes_them_each_time(settings):
    with translation.override("ml"):
        malayalam = clubs.offline_words()
    with translation.override("en"):
        english = clubs.offline_words()
        assert "Kept on this phone, waiting to send" in english
        assert english != malayalam
        settings.DEBUG = True  # an edit of the template shows at once
        assert clubs.offline_words() is not english


@pytest.mark.django_db
def test_a_page_carries_the_words_once_in_its_language(client):
    answer = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="ml")
    assert answer.status_code == 200
    page = answer.content.decode()
    assert page.count('id="offline-words"') == 1
    with translation.override("ml"):
        assert render_to_string("_offline_words.html") in page
