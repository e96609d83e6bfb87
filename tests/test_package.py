"""The project builds as a package, and the wheel runs on its own.

``python -m build`` makes an sdist and a wheel from a copy of the project (the
two database runs of CI build side by side, so never in the checkout itself).
The wheel must carry the app whole: every app's code and migrations, the
templates, the static files and the compiled translations. It is installed into
a fresh virtual environment that sees nothing of the checkout, and the
installed command (``fiftysix-club``, Django's ``manage.py`` for the package)
runs ``check``, ``migrate`` and ``collectstatic`` against a database of its
own, then renders the home page and the rules in production mode through
Django's test client.

The new environment takes the installed dependencies from this one (a ``.pth``
file naming its site-packages) instead of downloading them again: the wheel is
installed with ``--no-deps``, and its metadata is checked to ask for them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args, cwd: Path, env: dict | None = None, timeout: int = 300) -> str:
    done = subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    source = tmp_path_factory.mktemp("source")
    shutil.copytree(
        ROOT / "club",
        source / "club",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ".", cwd=source)
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def test_the_wheel_carries_the_whole_app(built):
    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    in_checkout = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "club").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }
    missing = sorted(in_checkout - names)
    assert missing == [], f"the wheel lacks {missing[:10]}"
    for kind in (
        "club/games/migrations/0001_initial.py",
        "club/templates/base.html",
        "club/static/js/rules.js",
        "club/locale/es/LC_MESSAGES/django.mo",
        "club/__main__.py",
    ):
        assert kind in names
    # Nothing of the checkout beside the app.
    assert not [name for name in names if name.split("/")[0] in {"tests", "benchmarks", "loadtest"}]
    metadata = zipfile.ZipFile(built["wheel"]).read(
        next(name for name in names if name.endswith(".dist-info/METADATA"))
    )
    for needed in (
        b"Requires-Dist: django",
        b"Requires-Dist: whitenoise",
        b"Requires-Dist: psycopg",
    ):
        assert needed in metadata.lower().replace(b"requires-dist: ", b"Requires-Dist: ")
    entry_points = zipfile.ZipFile(built["wheel"]).read(
        next(name for name in names if name.endswith(".dist-info/entry_points.txt"))
    )
    assert b"fiftysix-club = club.__main__:main" in entry_points


def test_the_sdist_builds_the_same_app(built):
    import tarfile

    with tarfile.open(built["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for kind in (
        "pyproject.toml",
        "club/templates/base.html",
        "club/locale/th/LC_MESSAGES/django.po",
    ):
        assert kind in names


def test_the_wheel_installed_in_a_fresh_environment_checks_migrates_and_serves(built, tmp_path):
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    site = Path(
        run(
            python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path
        ).strip()
    )
    # This environment's dependencies, not its checkout: the project is not installed
    # here (dev.py installs the lock file only), so `club` comes from the wheel alone.
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run(
        python,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--no-index",
        built["wheel"],
        cwd=tmp_path,
    )
    data = tmp_path / "data"
    data.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL", "PYTHON"))
    }
    env.update(
        DJANGO_DATA_DIR=str(data),
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="a-secret-key-for-the-package-test-only-0123456789abcdef",
        DJANGO_ALLOWED_HOSTS="testserver",
        DJANGO_SECURE_SSL_REDIRECT="0",
    )
    where = run(python, "-c", "import club; print(club.__file__)", cwd=data, env=env)
    assert where.startswith(str(venv)), f"club was imported from {where}, not the wheel"
    command = venv / "bin" / "fiftysix-club"
    assert "System check identified no issues" in run(command, "check", cwd=data, env=env)
    run(command, "migrate", "--noinput", cwd=data, env=env)
    assert (data / "club.sqlite3").exists()
    run(command, "collectstatic", "--noinput", cwd=data, env=env)
    assert (data / "staticfiles" / "staticfiles.json").exists()
    shown = run(
        python,
        "-c",
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'club.settings');"
        "django.setup();"
        "from django.test import Client; c = Client(HTTP_X_FORWARDED_PROTO='https');"
        "home = c.get('/'); rules = c.get('/rules/', HTTP_ACCEPT_LANGUAGE='es');"
        "print(home.status_code, rules.status_code, 'reglas' in rules.text.lower())",
        cwd=data,
        env=env,
    )
    assert shown.split() == ["200", "200", "True"], shown
