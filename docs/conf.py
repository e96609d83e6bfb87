"""The guide to the 56 club score keeper: built with Sphinx from Markdown (MyST).

    python3 dev.py docs        # builds docs/_build/html with warnings as errors

tests/test_guide.py builds it the same way on every test run, so a broken link, a
missing picture or a page left out of the contents fails the suite.

The developers' pages read the code: ``sphinx.ext.autosummary`` makes the module
tables of "Where things are" from each module's docstring, and the small extension
``docs/_ext/club_modules.py`` lists the modules of each layer at build time. So
Django is set up here first, as ``manage.py`` does, for the modules to import.
"""

import os
import sys
from pathlib import Path

import django

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS / "_ext")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "club.settings")
django.setup()

project = "56 Club score keeper"
author = "The 56 club score keeper's makers"
copyright = "2026, the 56 club score keeper's makers"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "club_modules",
]
# Tables only, from the modules' docstrings: no page of its own for each module.
autosummary_generate = False
source_suffix = {".md": "markdown"}
root_doc = "index"
# The translators' glossaries are for translators, read in the repository; the build
# output and the screenshot command are not pages.
exclude_patterns = ["_build", "glossary", "README.md", "Thumbs.db", ".DS_Store"]

# Headings up to ### get anchors, so a page can link to a section: [text](page.md#anchor).
myst_heading_anchors = 3
# html_image: a picture is an <img> with its width, which both Sphinx and the
# repository's own Markdown view show.
myst_enable_extensions = ["colon_fence", "deflist", "html_image"]

html_theme = "furo"
html_title = "56 Club score keeper"
html_static_path = []
html_show_sourcelink = False
