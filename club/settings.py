"""Settings for the 56 club score keeper, read from the environment.

Local use needs nothing set: SQLite in the project folder, DEBUG on, a
development secret key. Production sets ``DJANGO_DEBUG=0``, and then a missing
``DJANGO_SECRET_KEY`` or ``DJANGO_ALLOWED_HOSTS`` stops the app at start-up.
"""

import datetime
import os
import re
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

from club.web.net import parse_networks, parse_origins, parse_public_url
from club.web.release import release_of

BASE_DIR = Path(__file__).resolve().parent.parent
# Where the club's own files go (the SQLite database, the collected static files):
# DJANGO_DATA_DIR; in a checkout the project folder by default. The package installed
# from its wheel (whose BASE_DIR is site-packages) must be given one.
if os.environ.get("DJANGO_DATA_DIR"):
    DATA_DIR = Path(os.environ["DJANGO_DATA_DIR"]).resolve()
elif (BASE_DIR / "manage.py").exists():
    DATA_DIR = BASE_DIR
else:  # an installed package: commands and gunicorn must agree on one folder
    raise ImproperlyConfigured(
        "DJANGO_DATA_DIR is not set: give the folder for the club's database and static files "
        "(the same for fiftysix-club and for gunicorn), such as /srv/club."
    )


def env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_flag("DJANGO_DEBUG", True)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY and (DATA_DIR / "venue-secret-key").is_file():
    # The venue's folder keeps its key beside the database: the club's commands run on
    # it (backup_club, restore_club) sign and verify with the key the venue served with.
    SECRET_KEY = (DATA_DIR / "venue-secret-key").read_text().strip()
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off (production)."
        )
    SECRET_KEY = "django-insecure-local-development-only"  # noqa: S105

ALLOWED_HOSTS = [
    host.strip()
    for host in os.environ.get(
        "DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else ""
    ).split(",")
    if host.strip()
]
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("DJANGO_ALLOWED_HOSTS must be set when DJANGO_DEBUG is off.")

CSRF_TRUSTED_ORIGINS = [
    origin.strip()
    for origin in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",")
    if origin.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    "ninja",  # the API's docs: Swagger UI from its own static files (club/api)
    "club.clubs",
    "club.games",
    "club.tournaments",
    "club.competitions",
    "club.leaderboards",
    "club.archive",
    "club.ops",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before anything reads a post: its files stop at the page's limit as they are read.
    "club.web.uploads.UploadLimitMiddleware",
    # Whose page it is (club.clubs.addresses): a club's pages under /clubs/<slug>/, the
    # short addresses on a one-club site; before anything else reads the path. After the
    # upload limit, whose refusal of a body the server would not take reads no database
    # (the limit of each page is found when its post is read, with the club's part gone).
    "club.clubs.addresses.ClubAddressMiddleware",
    # The writes of a club's page are its club's: they move only its kept pages' counter.
    "club.clubs.writing.ClubWritesMiddleware",
    # Work a write may leave until its answer is sent (the boards' figures and ratings
    # of a game that ends: club.web.after, club.leaderboards.owed).
    "club.web.after.AfterAnswerMiddleware",
    # Pages and JSON compressed for browsers that ask (55 KB of standings are about 9 KB);
    # Django's gzip pads each response by a random amount against BREACH. Static files
    # are WhiteNoise's, compressed ahead, and never come through here.
    "django.middleware.gzip.GZipMiddleware",
    # Text with a control character (PostgreSQL refuses a NUL) is refused here, before a
    # view or a query reads it; a cookie holding one is forgotten before the session and
    # the CSRF check read it. Its refusal page needs neither the session nor the user.
    "club.web.unreadable.UnreadableCharactersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # What a shared phone may keep of each page (club.web.kept): nothing of a logged-in
    # account's pages; the scorer's own page apart; one copy per page, not per address.
    "club.web.kept.KeptPagesMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A view that loses the database answers 503 "send it again", not 500.
    "club.middleware.DatabaseLostMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Work a write may leave until its answer is sent (club.web.after): the leaderboards'
# figures and ratings of a game that ends. False does it in the request, as before.
CLUB_WORK_AFTER_ANSWER = env_flag("DJANGO_WORK_AFTER_ANSWER", True)
# The club websites that may show its embeddable standings and game cards in an <iframe>
# (club/web/embed.py); no other page may be framed by anyone.
CLUB_EMBED_ORIGINS = parse_origins(os.environ.get("DJANGO_EMBED_ORIGINS", ""))
# Requests one client may make of the API in a period (club/api): "600/m"; "" for no limit.
CLUB_API_RATE = os.environ.get("DJANGO_API_RATE", "600/m").strip()
if CLUB_API_RATE and not re.fullmatch(r"[1-9][0-9]{0,6}/[smhd]", CLUB_API_RATE):
    raise ImproperlyConfigured(
        f"DJANGO_API_RATE is {CLUB_API_RATE!r}; give requests per second, minute, hour or "
        "day, such as 600/m, or leave it empty for no limit."
    )

# Rated games a player needs to be listed in the federation's ranking
# (club.leaderboards.federation).
CLUB_RANKING_MIN_GAMES = int(os.environ.get("DJANGO_RANKING_MIN_GAMES", "10"))

ROOT_URLCONF = "club.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "club" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "club.clubs.context.club",
            ],
        },
    },
]

WSGI_APPLICATION = "club.wsgi.application"

# SQLite in the data folder (the project folder in a checkout) unless DATABASE_URL names
# another database.
DEFAULT_DATABASE_URL = f"sqlite:///{DATA_DIR / 'club.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Wait for a writer instead of failing at once with "database is locked".
    # Write-ahead logging: readers never wait for a scorer's write, and a commit
    # syncs the disk once instead of three times; synchronous=FULL keeps every
    # committed deal through a power cut. Python keeps the statements it prepared, a
    # hundred by default: an import's and a rebuild's statements of hundreds of rows each
    # held tens of MB (a 49 MB import peaked at 155 MiB; with eight, 84 MiB), where a
    # page's few statements cost microseconds to prepare again.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "cached_statements": 8,
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL",
        }
    )
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A club's data sit in the server's memory or on a solid-state disk: reading a page
    # out of turn costs about what reading the next does, not the four times PostgreSQL
    # assumes of a spinning disk. With four, a club's 136 members were found among the
    # site's 20,000 players by reading every player (a club's register, its team board
    # and its line of the ranking, 4 to 5 ms each); looked up by key, under 1 ms.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("options", "-c random_page_cost=1.1")


def release() -> str:
    """This deploy's name: DJANGO_RELEASE, else a digest of what makes the pages' bytes: the
    code, templates, translations and static files of ``club/`` and the collected static
    files' manifest. A deploy that changes any of them never meets pages kept by the one
    before in a shared cache (the keys hold it), and the scorers' app updates itself."""
    return release_of(BASE_DIR, DATA_DIR / "staticfiles")  # (STATIC_ROOT, set below)


def cache_settings(url: str) -> dict:
    """The ``pages`` cache (club.web.pages) from DJANGO_CACHE_URL: this process's memory
    by default; ``redis://host:6379/0`` for a Redis shared by several app servers;
    ``none`` to keep no page."""
    if not url or url == "locmem":
        return {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "club-pages",
            "OPTIONS": {"MAX_ENTRIES": 2000},
        }
    if url.startswith(("redis://", "rediss://", "unix://")):
        return {
            # Django's own backend, keeping its clients (club/web/cache.py).
            "BACKEND": "club.web.cache.RedisCache",
            "LOCATION": url,
            # A Redis that does not answer within half a second: the page is rendered.
            "OPTIONS": {"socket_timeout": 0.5, "socket_connect_timeout": 0.5},
            # A release's pages are its own: new templates, translations or static file
            # names (or another time zone) never meet pages kept by the one before.
            "KEY_PREFIX": f"club-pages-{release()}-{os.environ.get('DJANGO_TIME_ZONE', 'UTC')}",
        }
    if url == "none":
        return {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
    raise ImproperlyConfigured(
        f"DJANGO_CACHE_URL must be redis://host:port/db, locmem or none, not {url!r}."
    )


CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "pages": cache_settings(os.environ.get("DJANGO_CACHE_URL", "")),
}
# The API's count of each client's requests (club/api/common.py): in the pages' Redis when
# there is one, so every worker and app server counts together; else this process's memory.
CACHES["api-rate"] = (
    {**CACHES["pages"], "KEY_PREFIX": "club-api-rate"}
    if CACHES["pages"]["BACKEND"] == "club.web.cache.RedisCache"
    else {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "club-api-rate",
        "OPTIONS": {"MAX_ENTRIES": 20_000},
    }
)
# How far each web import has gone (club/archive/progress.py), read by the page waiting
# for it: in the pages' Redis when there is one, so any worker answers; else this process's.
CACHES["progress"] = (
    {**CACHES["pages"], "KEY_PREFIX": "club-import-progress"}
    if CACHES["pages"]["BACKEND"] == "club.web.cache.RedisCache"
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "progress"}
)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# /health/ answers 503 "disk": "full" when a disk it watches has less free space
# than this (MiB): the SQLite database's folder, and DJANGO_HEALTH_DISK_PATHS
# (comma-separated folders, e.g. PostgreSQL's data directory on this machine).
HEALTH_MIN_FREE_MB = int(os.environ.get("DJANGO_HEALTH_MIN_FREE_MB", "100"))
HEALTH_DISK_PATHS = [
    path.strip()
    for path in os.environ.get("DJANGO_HEALTH_DISK_PATHS", "").split(",")
    if path.strip()
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # Counts failed logins and refuses a user name + address pair after too many.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Five wrong passwords for one user name from one address lock that pair out
# for 15 minutes; a right password before then clears the count.
AXES_FAILURE_LIMIT = int(os.environ.get("DJANGO_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = datetime.timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# The address is the real client's, not the proxy's: X-Forwarded-For is believed
# only from the proxies in DJANGO_TRUSTED_PROXIES (comma-separated addresses or
# networks; empty trusts none and keys on REMOTE_ADDR). See club/web/net.py.
TRUSTED_PROXIES = parse_networks(os.environ.get("DJANGO_TRUSTED_PROXIES", ""))
# The club's address as the phones at the tables reach it (scorer links and their QR
# codes are built on it); without it they use the address the organiser browses from.
PUBLIC_URL = parse_public_url(os.environ.get("DJANGO_PUBLIC_URL", ""))
AXES_CLIENT_IP_CALLABLE = "club.web.net.client_ip"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "games:list"

LANGUAGE_CODE = "en"
# The interface's languages. The choice comes from the browser's preference,
# or from the switcher on every page, which keeps it in a cookie: URLs carry no
# language, so a link shared between players opens in each one's own language.
LANGUAGES = [
    ("en", _("English")),
    ("ml", _("Malayalam")),
    ("el", _("Greek")),
    ("da", _("Danish")),
    ("mr", _("Marathi")),
    ("th", _("Thai")),
    ("es", _("Spanish")),
]
LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365
# How dates read: "day" (1 December 2026, 01/12/2026: India, the UK, most of the
# world; the default) or "month" (Django's English, December 1, 2026). Day first
# comes from club/formats for English, Malayalam and Marathi, whose Django formats
# are month first or missing; the other languages' own formats are day first.
DATE_ORDER = os.environ.get("DJANGO_DATE_ORDER", "day").strip().lower()
if DATE_ORDER not in ("day", "month"):
    raise ImproperlyConfigured(
        f"DJANGO_DATE_ORDER is {DATE_ORDER!r}; give day (the default) or month."
    )
if DATE_ORDER == "day":
    FORMAT_MODULE_PATH = ["club.formats"]
LOCALE_PATHS = [BASE_DIR / "club" / "locale"]
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "club" / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# The venue's laptop (club/venue.py) serves phones on the club's Wi-Fi over plain HTTP:
# no certificate there, so no redirect to HTTPS and cookies not marked secure.
VENUE = env_flag("DJANGO_VENUE", False)
if not DEBUG and not VENUE:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_flag("DJANGO_SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
if VENUE:
    # A browser obeys Cross-Origin-Opener-Policy only from a trustworthy origin (HTTPS or
    # this computer); from the venue's plain HTTP address it ignores the header and logs an
    # error on every page. The hosted site, over HTTPS, keeps Django's same-origin.
    SECURE_CROSS_ORIGIN_OPENER_POLICY = None

# No inline scripts or styles anywhere: scripts and styles come from our own
# static files, so a name typed into a form can never run as code.
SECURE_CSP: dict[str, list[str]] = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
}
