"""The translation catalogues are complete, consistent, compiled, and cover every page.

The last test renders every page under a pseudo-language whose catalogue wraps
each translated string in ⟦ ⟧: any word on a page outside those marks that is
not data (a name, a number, a date) escaped translation.
"""

import html.parser
import re
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.conf.locale import LANG_INFO
from django.urls import reverse
from django.utils import translation
from django.utils.translation import trans_real

from club.clubs.models import Club
from club.competitions.models import Competition
from club.games.models import Game, Player, Team
from club.tournaments.models import Tournament
from tests.test_permissions import (
    ORGANISER,
    PUBLIC,
    RULES,
    kwargs_for,
    world,  # noqa: F401  (the fixture, shared)
    world_kept,  # noqa: F401  (what it is copied from)
)

LOCALE = Path(settings.BASE_DIR) / "club" / "locale"
LANGUAGES = [code for code, _name in settings.LANGUAGES if code != "en"]
PLACEHOLDER = re.compile(r"%(?:\([a-z_]+\))?[sdif]|%%")


def catalogue(code):
    return polib.pofile(str(LOCALE / code / "LC_MESSAGES" / "django.po"))


def placeholders(text):
    return sorted(PLACEHOLDER.findall(text))


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_entry_is_translated_and_none_is_fuzzy(code):
    po = catalogue(code)
    untranslated = [entry.msgid for entry in po.untranslated_entries()]
    fuzzy = [entry.msgid for entry in po.fuzzy_entries()]
    assert not untranslated, f"{code}: {len(untranslated)} untranslated, e.g. {untranslated[:5]}"
    assert not fuzzy, f"{code}: {len(fuzzy)} fuzzy, e.g. {fuzzy[:5]}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_placeholders_match_the_source(code):
    wrong = []
    for entry in catalogue(code):
        if entry.obsolete:
            continue
        if entry.msgid_plural:
            for index, text in entry.msgstr_plural.items():
                source = (
                    entry.msgid
                    if index == 0 and len(entry.msgstr_plural) > 1
                    else (entry.msgid_plural)
                )
                expected = set(placeholders(source)) | set(placeholders(entry.msgid))
                if not set(placeholders(text)) <= expected or not text:
                    wrong.append((entry.msgid, text))
        elif placeholders(entry.msgstr) != placeholders(entry.msgid):
            wrong.append((entry.msgid, entry.msgstr))
    assert not wrong, f"{code}: placeholders differ in {len(wrong)} entries, e.g. {wrong[:3]}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_compiled_catalogue_matches_the_source(code):
    mo_path = LOCALE / code / "LC_MESSAGES" / "django.mo"
    assert mo_path.exists(), f"{code}: compile the catalogue (msgfmt) and commit django.mo"
    compiled = {
        (entry.msgctxt, entry.msgid): entry.msgstr or dict(entry.msgstr_plural)
        for entry in polib.mofile(str(mo_path))
        if entry.msgid
    }
    source = {
        (entry.msgctxt, entry.msgid): entry.msgstr or dict(entry.msgstr_plural)
        for entry in catalogue(code).translated_entries()
    }
    stale = [key for key, text in source.items() if compiled.get(key) != text]
    assert not stale, f"{code}: django.mo is older than django.po, e.g. {stale[:3]}"


# --- Every page under a pseudo-language --------------------------------------

PSEUDO = "xx"
MARKED = re.compile(r"⟦[^⟦⟧]*⟧", re.S)  # innermost first: translations nest
URL = re.compile(r"https?://\S+")
# Dates and times are formatted by Django's own locale data for the language
# (the pseudo-language has none, so they come out in English).
DATE_WORDS = {
    "a",
    "m",
    "p",
    "noon",
    "midnight",
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Sept",
    "Oct",
    "Nov",
    "Dec",
    "January",
    "February",
    "March",
    "April",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
}
# Text that is not meant for translation: symbols, numbers and the like.
NOT_WORDS = re.compile(r"[\W\d_]+", re.U)


def wrap(text):
    return f"⟦{text}⟧" if text else text


@pytest.fixture
def pseudo_language(tmp_path, settings):
    """A catalogue in which every string of ours is the English one inside ⟦ ⟧."""
    po = catalogue("es")
    pseudo = polib.POFile()
    pseudo.metadata = {
        "Content-Type": "text/plain; charset=UTF-8",
        "Plural-Forms": "nplurals=2; plural=(n != 1);",
        "Language": PSEUDO,
    }
    for entry in po:
        if entry.obsolete:
            continue
        pseudo.append(
            polib.POEntry(
                msgctxt=entry.msgctxt,
                msgid=entry.msgid,
                msgid_plural=entry.msgid_plural,
                msgstr="" if entry.msgid_plural else wrap(entry.msgid),
                msgstr_plural={0: wrap(entry.msgid), 1: wrap(entry.msgid_plural)}
                if entry.msgid_plural
                else {},
            )
        )
    folder = tmp_path / PSEUDO / "LC_MESSAGES"
    folder.mkdir(parents=True)
    pseudo.save_as_mofile(str(folder / "django.mo"))
    LANG_INFO[PSEUDO] = {"bidi": False, "code": PSEUDO, "name": "Pseudo", "name_local": "⟦Pseudo⟧"}
    settings.LOCALE_PATHS = [str(tmp_path), *settings.LOCALE_PATHS]
    settings.LANGUAGES = [*settings.LANGUAGES, (PSEUDO, "Pseudo")]
    trans_real._translations = {}
    trans_real._default = None
    trans_real.translation_catalog_exists.cache_clear()
    trans_real.get_languages.cache_clear()
    yield PSEUDO
    LANG_INFO.pop(PSEUDO, None)
    trans_real._translations = {}
    trans_real._default = None
    trans_real.translation_catalog_exists.cache_clear()
    trans_real.get_languages.cache_clear()
    translation.activate(settings.LANGUAGE_CODE)


class VisibleText(html.parser.HTMLParser):
    """Text a person sees or hears: text nodes and the attributes read out or shown."""

    SHOWN = {"title", "placeholder", "aria-label", "alt", "data-confirm"}
    # Not interface text: scripts, drawings, and samples of file formats (<pre>, <code>).
    NOT_SHOWN = {"script", "style", "svg", "datalist", "pre", "code"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.NOT_SHOWN:
            self.hidden += 1
        attributes = dict(attrs)
        for name in self.SHOWN & attributes.keys():
            self.parts.append(attributes[name] or "")
        if tag == "input" and attributes.get("type") in ("submit", "button"):
            self.parts.append(attributes.get("value") or "")

    def handle_endtag(self, tag):
        if tag in self.NOT_SHOWN and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def untranslated_words(page_html, data_words):
    parser = VisibleText()
    parser.feed(page_html)
    text = " ".join(parser.parts)
    while MARKED.search(text):
        text = MARKED.sub(" ", text)
    text = URL.sub(" ", text)
    words = {word for word in NOT_WORDS.split(text) if word}
    return sorted(words - data_words)


def data_words():
    """Words that come from the club's records, not from the interface."""
    names = [
        *Player.objects.values_list("name", flat=True),
        *Team.objects.values_list("name", flat=True),
        *Game.objects.values_list("label", flat=True),
        *Tournament.objects.values_list("name", flat=True),
        *Tournament.objects.values_list("venue", flat=True),
        *Club.objects.values_list("name", flat=True),
        *Competition.objects.values_list("name", flat=True),
    ]
    words = {word for name in names for word in NOT_WORDS.split(name) if word}
    # Codes and letters shown as they are in every language: card ranks, formats.
    words |= {"J", "A", "K", "Q", "JSON", "CSV", "fiftysix", "results", "QR", "x"}
    words |= DATE_WORDS
    words |= {str(name) for _code, name in settings.LANGUAGES}  # the switcher's own names
    words |= {info.get("name_local", "") for info in LANG_INFO.values()}
    return {piece for word in words for piece in NOT_WORDS.split(word) if piece} | words


@pytest.mark.django_db
def test_no_page_shows_text_that_escaped_translation(
    world,  # noqa: F811
    pseudo_language,
    client,  # noqa: F811
    django_user_model,
):
    organiser = django_user_model.objects.create_user("olive", is_staff=True)
    client.force_login(organiser)
    client.cookies["django_language"] = pseudo_language
    known = data_words() | {"olive"}
    problems = {}
    for name, (rule, methods, key) in RULES.items():
        if rule not in (PUBLIC, ORGANISER) or "get" not in methods:
            continue
        if name == "api:openapi-view":
            continue  # the API's docs (Swagger UI): for developers, in the API's English
        response = client.get(reverse(name, kwargs=kwargs_for(key, world)))
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        words = untranslated_words(response.content.decode(), known)
        if words:
            problems[name] = words
    assert not problems, f"text outside the catalogue: {problems}"


def test_no_text_to_translate_hides_inside_an_f_string():
    """makemessages (xgettext) does not read inside an f-string: a gettext there never
    reaches the catalogues, and its words stay English in every language (the home page's
    "won" badge did). The call goes on a line of its own, outside the f-string."""
    import ast
    from pathlib import Path

    names = {"gettext", "_", "ngettext", "pgettext", "gettext_lazy", "ngettext_lazy"}
    hidden = []
    for path in sorted(Path(settings.BASE_DIR, "club").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr):
                continue
            for inner in ast.walk(node):
                called = isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                if called and inner.func.id in names:
                    hidden.append(f"{path.relative_to(settings.BASE_DIR)}:{inner.lineno}")
    assert hidden == []
