"""This deploy's name (settings.release): what kept pages and the scorers' app are keyed on."""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from django.conf import settings

KINDS = {".py", ".html", ".mo", ".css", ".js", ".svg", ".json", ".png"}


def release_of(base_dir: Path) -> str:
    """DJANGO_RELEASE, else a digest of the code, templates, translations and static files
    of ``club/`` under ``base_dir`` and of the collected static files' manifest."""
    given = os.environ.get("DJANGO_RELEASE", "").strip()
    if given:
        return given
    digest = hashlib.sha256()
    found = [p for p in (base_dir / "club").rglob("*") if p.suffix in KINDS and p.is_file()]
    found.append(base_dir / "staticfiles" / "staticfiles.json")
    for path in sorted(found):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        digest.update(str(path.relative_to(base_dir)).encode() + b"\0" + data)
    return digest.hexdigest()[:12]


@functools.cache
def current() -> str:
    """This process's release, worked out once (reading every file takes a tenth of a second)."""
    return release_of(Path(settings.BASE_DIR))
