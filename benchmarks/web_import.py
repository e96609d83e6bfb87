"""Publishing a results file through the web, as the deploying guide serves the club:
``python -m benchmarks.web_import``.

Builds files the way :mod:`benchmarks.import_memory` does (``--mib``: 2, 22 and 47 by
default, the last 49 MB, just under the page's upload limit of 50 MB), then, for each
database asked for, on a fresh database each: starts gunicorn with the command
docs/deploying.md gives (read from the guide, so that its time-out is the one measured;
production settings, on 127.0.0.1), logs an organiser in through the login form, and
sends each file through the two pages of Publish results as the browser does: *Check and
preview* (the preview, timed), then *Import* with the preview's fingerprint (the import,
timed). Every answer must be the expected one (a preview offering the file's games; the
import's redirect), and the database then holds every deal.

    python -m benchmarks.web_import [--database sqlite|postgres|both] [--mib 2 22 47]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from benchmarks import import_memory, import_speed
from loadtest.run import HOST, Client, free_port

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "deploying.md"
PASSWORD = "web-import-benchmark-7"  # noqa: S105 (a throwaway database's)


def guide_command() -> list[str]:
    """gunicorn's arguments as the guide's first command gives them."""
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        if "gunicorn club.wsgi" in line:
            words = shlex.split(line.split("#")[0])
            return words[words.index("club.wsgi") :]
    raise SystemExit(f"{GUIDE} gives no gunicorn command")


def multipart(fields: dict[str, str], path: Path) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        for name, value in fields.items()
    ]
    head = "".join(parts) + (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="{path.name}"\r\nContent-Type: application/json\r\n\r\n'
    )
    body = head.encode() + path.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def field(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]+)"', page)
    if not found:
        raise SystemExit(f"the page has no {name}: {page[:2000]}")
    return found.group(1)


def send(client: Client, path: str, fields: dict, upload: Path):
    body, kind = multipart(fields, upload)
    headers = {"Content-Type": kind, "Origin": f"http://{HOST}:{client.port}"}
    started = time.perf_counter()
    client.connect().request(
        "POST", path, body=body, headers={**client.prepare(None, False)[1], **headers}
    )
    response = client.connection.getresponse()
    page = response.read().decode()
    client.close()
    return response.status, page, time.perf_counter() - started, response.getheader("Location")


def publish(port: int, upload: Path, games: int) -> tuple[float, float]:
    client = Client(port)
    form = client.request("GET", "/accounts/login/").body
    answer = client.request(
        "POST",
        "/accounts/login/",
        {
            "csrfmiddlewaretoken": field(form, "csrfmiddlewaretoken"),
            "username": "organiser",
            "password": PASSWORD,
        },
    )
    assert answer.status == 302, answer.status
    page = client.request("GET", "/import/").body
    token = field(page, "csrfmiddlewaretoken")
    status, page, preview, _ = send(
        client, "/import/", {"csrfmiddlewaretoken": token, "run": field(page, "run")}, upload
    )
    assert status == 200 and f"Import {games} games" in page, (status, page[-3000:])
    fields = {
        "csrfmiddlewaretoken": token,
        "previewed": field(page, "previewed"),
        "idempotency_key": field(page, "idempotency_key"),
        "run": field(page, "run"),
    }
    status, page, stored, where = send(client, "/import/store/", fields, upload)
    assert status == 302 and where, (status, page[-3000:])
    return preview, stored


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--mib", type=float, nargs="+", default=[2, 22, 47])
    parser.add_argument("--folder", type=Path, default=Path("/tmp"))
    args = parser.parse_args(argv)
    command = guide_command()
    print("gunicorn", shlex.join(command), flush=True)
    files = []
    for mib in args.mib:
        path = args.folder / f"fiftysix-import-{mib:g}mib.json"
        files.append((path, import_memory.build_file(path, mib, 56)))
    subprocess.run(  # the pages' static files, as the guide collects them
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=ROOT,
        env={**os.environ, **import_memory.PRODUCTION},
        check=True,
    )
    databases = ("sqlite", "postgres") if args.database == "both" else (args.database,)
    for database in databases:
        for path, made in files:
            url = import_speed.fresh_database(
                database,
                sqlite_path=Path("/tmp/fiftysix-web-import.sqlite3"),
                postgres_name="fiftysix_web_import",
            )
            port = free_port()
            env = {
                **os.environ,
                **import_memory.PRODUCTION,
                "DATABASE_URL": url,
                "DJANGO_ALLOWED_HOSTS": HOST,
                "DJANGO_SECURE_SSL_REDIRECT": "0",
                "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
            }
            subprocess.run(
                [
                    sys.executable,
                    "manage.py",
                    "createsuperuser",
                    "--noinput",
                    "--username",
                    "organiser",
                    "--email",
                    "o@example.org",
                ],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
            )
            bind = [*command]
            bind[bind.index("--bind") + 1] = f"{HOST}:{port}"
            server = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", *bind],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                for _ in range(100):
                    try:
                        if Client(port).request("GET", "/health/").status == 200:
                            break
                    except OSError:
                        time.sleep(0.2)
                preview, stored = publish(port, path, made["games"])
            finally:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(30)
            print(
                f"{database:<8} {made['bytes'] / 1e6:5.1f} MB, {made['games']:,} games, "
                f"{made['deals']:,} deals: preview {preview:.1f} s, import {stored:.1f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
