"""This deploy's name (settings.release): what kept pages and the scorers' app are keyed on."""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from django.conf import settings

KINDS = {".py", ".html", ".mo", ".css", ".js", ".svg", ".json", ".png"}


def release_of(base_dir: Path, static_root: Path | None = None) -> str:
    """DJANGO_RELEASE, else a digest of the code, templates, translations and static files
    of ``club/`` under ``base_dir`` and of the collected static files' manifest (in
    ``static_root``, by default ``base_dir/staticfiles``)."""
    given = os.environ.get("DJANGO_RELEASE", "").strip()
    if given:
        return given
    found = {
        str(path.relative_to(base_dir)): path
        for path in (base_dir / "club").rglob("*")
        if path.suffix in KINDS and path.is_file()
    }
    manifest = Path(static_root or base_dir / "staticfiles") / "staticfiles.json"
    found["staticfiles/staticfiles.json"] = manifest
    digest = hashlib.sha256()
    for name in sorted(found):
        try:
            data = found[name].read_bytes()
        except OSError:
            continue
        digest.update(name.encode() + b"\0" + data)
    return digest.hexdigest()[:12]


@functools.cache
def current() -> str:
    """This process's release, worked out once (reading every file takes a tenth of a second)."""
    return release_of(Path(settings.BASE_DIR), Path(settings.STATIC_ROOT))
