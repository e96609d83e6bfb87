"""The guide to the 56 club score keeper: built with Sphinx from Markdown (MyST).

    python3 dev.py docs        # builds docs/_build/html with warnings as errors

tests/test_guide.py builds it the same way on every test run, so a broken link, a
missing picture or a page left out of the contents fails the suite.
"""

project = "56 Club score keeper"
author = "The 56 club score keeper's makers"
copyright = "2026, the 56 club score keeper's makers"

extensions = ["myst_parser"]
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
