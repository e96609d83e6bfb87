"""An attack on the app, run again from outside against gunicorn in production mode.

    python -m loadtest.attack --database postgres|sqlite [--trials 10] [--duration 20]
        [--workers 2] [--seed 56] [--postgres-url URL] [--keep]

Run by hand, never in CI's pass/fail. Everything goes over 127.0.0.1 only, every
loop is bounded (a count, a clock, a timeout on every request) and the run
stops by itself. The set-up is loadtest.run's, imported, not copied
(``fresh_database``, ``manage``, ``build_world``, ``start_gunicorn``,
``stop_gunicorn``, ``free_port``): a throwaway database (the SQLite file
``/tmp/fiftysix-attack.sqlite3``, or PostgreSQL ``fiftysix_attack`` on the
machine's server, dropped and created again), ``migrate``, ``load_demo``,
``collectstatic``, three organisers and a tournament of six teams whose first
sitting is drawn and confirmed; then the games the findings need, made here
with the app's services; then gunicorn with ``DJANGO_DEBUG=0``, a random secret
key, ``DJANGO_ALLOWED_HOSTS=127.0.0.1``, ``DJANGO_SECURE_SSL_REDIRECT=0`` and
``DJANGO_TRUSTED_PROXIES=127.0.0.1``. This process also calls
``django.setup()`` on the same ``DATABASE_URL``, to count rows and to run the
app's own importer.

The findings of the attack, each reproduced every time before its fix:

1. Anonymous writes: a POST carrying a UUID ``idempotency_key`` to every URL of
   the permission table (tests/test_permissions.py RULES, real ids), to ``/`` and
   to a 2,000-character path; with no cookie, with the CSRF cookie of a GET but
   no token, with cookie and token, and as a logged-in player. No row may be
   added to ``games_submittedform`` (or any table) and nothing may answer 5xx.
   Scorer-link URLs are posted with a withdrawn and an unknown link: a working
   link is a credential (whoever holds it may write).
2. Two phones send the deal that ends a game through the same link at the same
   moment (two threads released by a barrier, one as htmx sends it, one as a
   plain form): no 5xx, one round stored, the slower told the deal is already
   recorded; each resend of the same key gets the kept answer
   (``X-Idempotent-Replay``), not 403.
3. Tournament ``export.json`` downloads while organisers record, correct and undo
   deals on the tournament's games: every download is checked by the app's own
   ``parse_archive`` as it arrives, and after the scorers stop each is imported
   in a rolled-back transaction (tournament and labels renamed). No refusals.
4. House rules beyond the bounds (a payout of 5,000 and of 10^30) are refused on
   ``/games/new/`` and create nothing.
5. Behind a trusted proxy, five wrong passwords for "olive" from
   X-Forwarded-For 203.0.113.9 lock that address out, not olive elsewhere.
6. A connection lost after the commit: the database side cannot be cut at a
   chosen moment from outside (tests/concurrency/test_faults.py covers it); the
   phone's side is: the phone sends a deal and drops the connection before the
   answer, then sends the same form again.
7. Smaller: a POST to a 600-character path; ``/health/`` details, healthy and
   in an outage; ``Cache-Control`` of the links page; a link that expired when
   its game ended stays expired when the final deal is undone; a look-alike
   name (U+200B) is refused.

The table goes to stdout and to ``results/attack-<database>.md``. Server log
lines that name an error are quoted under the table, finding by finding.
"""

from __future__ import annotations

import argparse
import datetime
import html
import http.client
import json
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from loadtest import run
from loadtest.run import (
    HOST,
    Answer,
    DealForm,
    build_world,
    free_port,
    fresh_database,
    inputs,
    manage,
    start_gunicorn,
    stop_gunicorn,
)

BASE_DIR = run.BASE_DIR
SQLITE_PATH = Path("/tmp/fiftysix-attack.sqlite3")
DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/fiftysix_attack"
TIMEOUT = 30.0  # every request
SCORERS = 3  # organisers recording on the tournament's games in finding 3
MAX_IMPORT_SECONDS = 120  # finding 3: the rolled-back imports after the run, at most this long
# The final deal of a two-team game with one table a team: Chitra (team 1, seat 1)
# bids 30 in hearts and her team takes 36 card points: made, one table moves.
FINAL_DEAL = {
    "bid": "30",
    "trump": "hearts",
    "doubling": "none",
    "points_0": "20",
    "points_1": "36",
}
ERROR_MARKS = (
    "Traceback",
    "Internal Server Error",
    "[ERROR]",
    "[CRITICAL]",
    "Error:",
    "Health check:",
    "Database connection lost",
)


# --- HTTP ------------------------------------------------------------------------------


class Browser(run.Client):
    """loadtest.run's client (its own cookies, one connection per request), with headers."""

    def __init__(self, port: int, forwarded_for: str | None = None):
        super().__init__(port)
        self.forwarded_for = forwarded_for

    def prepare(self, form: dict | None, htmx: bool, extra: dict | None = None):
        body, headers = super().prepare(form, htmx, extra)
        if self.forwarded_for:
            headers["X-Forwarded-For"] = self.forwarded_for
        return body, headers

    def send_and_hang_up(self, path: str, form: dict, htmx: bool = False) -> None:
        """Send a POST whole, then close the connection without reading the answer."""
        body, sent = self.prepare(form, htmx)
        connection = http.client.HTTPConnection(HOST, self.port, timeout=TIMEOUT)
        try:
            connection.request("POST", path, body=body, headers=sent)
        finally:
            connection.close()

    def token(self, path: str) -> tuple[Answer, str]:
        page = self.request("GET", path)
        return page, inputs(page.body).get("csrfmiddlewaretoken", "")

    def log_in(self, username: str, password: str = run.PASSWORD) -> Answer:
        _, token = self.token("/accounts/login/")
        form = {"csrfmiddlewaretoken": token, "username": username, "password": password}
        return self.request("POST", "/accounts/login/", form)


def header(answer: Answer, name: str) -> str:
    for key, value in answer.headers:
        if key.lower() == name.lower():
            return value
    return ""


def text_of(answer: Answer) -> str:
    return html.unescape(answer.body)


# --- Bookkeeping -------------------------------------------------------------------------


@dataclass
class Row:
    number: str
    finding: str
    sent: str
    expected: str
    happened: str = ""
    passed: bool | None = None  # None: skipped
    details: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        return "skipped" if self.passed is None else ("**pass**" if self.passed else "**FAIL**")


class ServerLog:
    def __init__(self, path: Path):
        self.path = path

    def mark(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    def since(self, offset: int) -> list[str]:
        with self.path.open("rb") as log:
            log.seek(offset)
            return log.read().decode("utf-8", "replace").splitlines()


def error_lines(lines: list[str]) -> list[str]:
    return [line.rstrip() for line in lines if any(mark in line for mark in ERROR_MARKS)]


@dataclass
class Targets:
    """What the findings aim at: ids made in this process with the app's services."""

    tournament: int
    sitting: int
    tournament_games: list[int]
    organisers: list[str]
    game: int  # deal 1 recorded, a working link
    link: int
    token: str
    withdrawn_token: str
    player: int
    races: list[tuple[int, str, int]]  # (game, token, declarer) with one table a team
    dropped: tuple[int, str, int]  # finding 6: a game of 12 tables, its link, a declarer
    ending: tuple[int, str, int]  # finding 7: one table a team, its link, a declarer


def make_targets(world: run.World, trials: int) -> Targets:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from club.games.links import issue_links, revoke_link
    from club.games.models import Game, Player, ScorerLink
    from club.games.services import Deal, TeamEntry, create_game, load_seating, record_deal
    from club.scoring import rules as core
    from club.tournaments.models import Sitting

    users = get_user_model()
    password = make_password(run.PASSWORD)
    users.objects.create(username="olive", password=password, is_staff=True)
    users.objects.create(username="pat", password=password)  # a player, not an organiser
    teams = [TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")]

    def game(label: str, tables: int) -> tuple[int, str, int]:
        started = create_game(
            label=label, teams=teams, first_dealer=0, rules=core.Rules(tables_per_team=tables)
        )
        [link] = issue_links(game=started)
        return started.pk, link.token, load_seating(started).players[1].pk

    permissions_game, token, _declarer = game("Attack: permissions", 12)
    record_deal(
        game=Game.objects.get(pk=permissions_game),
        number=1,
        entry=Deal(points={0: 20, 1: 36}, declarer=1, bid=30, trump="hearts"),  # Chitra's seat
    )
    _, withdrawn_token, _ = game("Attack: withdrawn link", 12)
    revoke_link(link=ScorerLink.objects.get(token=withdrawn_token))
    return Targets(
        tournament=world.tournament,
        sitting=Sitting.objects.filter(tournament_id=world.tournament).get().number,
        tournament_games=world.games,
        organisers=world.users,
        game=permissions_game,
        link=ScorerLink.objects.get(token=token).pk,
        token=token,
        withdrawn_token=withdrawn_token,
        player=Player.objects.order_by("pk").values_list("pk", flat=True).first(),
        races=[game(f"Attack: race {i + 1}", 1) for i in range(trials)],
        dropped=game("Attack: lost answer", 12),
        ending=game("Attack: link after the end", 1),
    )


# --- 1. Anonymous writes -------------------------------------------------------------------


def submitted_forms() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM games_submittedform")
        return cursor.fetchone()[0]


def every_row() -> dict[str, int]:
    """Rows of each table of the app (sessions and login throttling aside)."""
    from django.apps import apps

    return {
        model._meta.db_table: model._default_manager.count()
        for model in apps.get_models()
        if model._meta.app_label not in {"sessions", "axes"}
    }


def permission_urls(targets: Targets) -> list[tuple[str, str]]:
    from django.urls import reverse

    from tests.test_permissions import RULES, SCORER

    kwargs = {
        None: {},
        "game": {"pk": targets.game},
        "deal": {"pk": targets.game, "number": 1},
        "link": {"pk": targets.game, "link_pk": targets.link},
        "sitting": {"pk": targets.tournament, "number": targets.sitting},
        "tournament": {"pk": targets.tournament},
        "player": {"pk": targets.player},
        # A working link may write: it is posted to as a withdrawn and an unknown link.
        "token": {"token": targets.withdrawn_token},
        "token_deal": {"token": targets.withdrawn_token, "number": 2},
    }
    urls = []
    for name, (rule, _methods, key) in RULES.items():
        if name == "logout":
            continue  # last, below: it ends the player's session
        label = f"{name} (withdrawn link)" if rule == SCORER else name
        urls.append((label, reverse(name, kwargs=kwargs[key])))
    urls.append(("games:scorer_send (unknown link)", "/s/no-such-link/deals/"))
    urls.append(("games:scorer_confirm (600-char token)", f"/s/{'x' * 600}/deals/1/confirm/"))
    urls.append(("/", "/"))
    urls.append(("2,000-character path", "/" + "x" * 1998 + "/"))
    urls.append(("logout", reverse("logout")))
    return urls


def finding_anonymous_writes(port: int, targets: Targets) -> Row:
    row = Row(
        "1",
        "Anonymous writes keep no one-time key",
        "POST `idempotency_key=<uuid4>&label=x` to every URL of RULES (real ids; scorer URLs "
        "with a withdrawn and an unknown link), `/` and a 2,000-char path; as: no cookie; "
        "CSRF cookie from a GET, no token; cookie and token; a logged-in player with token",
        "0 rows added to games_submittedform (counted in the database) or any table; no 5xx",
    )
    urls = permission_urls(targets)
    modes: dict[str, tuple[Browser, bool]] = {}
    modes["no cookie"] = (Browser(port), False)
    cookie_only = Browser(port)
    cookie_only.request("GET", "/")
    modes["CSRF cookie only"] = (cookie_only, False)
    with_token = Browser(port)
    modes["cookie and token"] = (with_token, True)
    player = Browser(port)
    logged_in = player.log_in("pat")
    if logged_in.status != 302:
        row.details.append(f"the player could not log in: {logged_in.status}")
    modes["player"] = (player, True)
    if "csrftoken" not in cookie_only.cookies:
        row.details.append("the GET of / set no csrftoken cookie")

    forms_before, rows_before = submitted_forms(), every_row()
    statuses: Counter = Counter()
    server_errors = []
    sent = 0
    for mode, (browser, send_token) in modes.items():
        for name, url in urls:
            form = {"idempotency_key": str(uuid.uuid4()), "label": "x"}
            if send_token:
                # The token of the page a browser would post from: any page gives one.
                _, token = browser.token("/accounts/login/")
                form["csrfmiddlewaretoken"] = token or browser.cookies.get("csrftoken", "")
            try:
                answer = browser.request("POST", url, form)
            except (OSError, http.client.HTTPException) as error:
                server_errors.append(f"{mode}: {name}: no answer ({error!r})")
                continue
            sent += 1
            statuses[answer.status] += 1
            if answer.status >= 500:
                server_errors.append(f"{mode}: POST {url[:80]} ({name}) -> {answer.status}")
    forms_after, rows_after = submitted_forms(), every_row()
    changed = {
        table: (rows_before.get(table), count)
        for table, count in rows_after.items()
        if rows_before.get(table) != count
    }
    by_status = ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items()))
    row.happened = (
        f"{sent} POSTs ({len(urls)} URLs x {len(modes)} ways); statuses {by_status}; "
        f"games_submittedform {forms_before} -> {forms_after}; "
        + ("no other table changed" if not changed else f"tables changed: {changed}")
    )
    row.details.extend(server_errors)
    row.passed = not server_errors and forms_after == forms_before and not changed
    return row


# --- 2. Two phones send the final deal at once ------------------------------------------------


def scorer_kind(answer: Answer | Exception | None) -> str:
    if answer is None:
        return "no answer (thread did not finish)"
    if isinstance(answer, Exception):
        return f"no answer ({answer!r})"
    if answer.status >= 500:
        return f"{answer.status} server error"
    body = text_of(answer)
    if answer.status == 200 and "is already recorded" in body:
        return "already recorded"
    if answer.status == 200 and header(answer, "HX-Refresh"):
        return "HX-Refresh (link refused)"
    if answer.status == 403 and "expired" in body:
        return "403 link expired"
    if answer.status == 200 and "won the game" in body:
        return "finished-game page, no notice"
    return f"{answer.status} unexpected"


def visible_text(answer: Answer, start: str = "Scorer link of", length: int = 420) -> str:
    """The words of an answer a phone shows, from ``start`` on, tags and spaces squeezed."""
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", answer.body))).strip()
    at = text.find(start)
    return text[max(at, 0) : max(at, 0) + length]


# Each phone's piles (the same contract, the same outcome: made, one table moves, the
# game ends), so that the stored round says whose send was written.
PHONE_PILES = [("20", "36"), ("21", "35")]


def race_trial(port: int, target: tuple[int, str, int]) -> dict:
    from club.games.models import Game, Pile

    game_id, token, declarer = target
    path = f"/s/{token}/deals/"
    phones = [Browser(port), Browser(port)]
    htmx = [False, True]
    forms = []
    for phone, (ours, theirs) in zip(phones, PHONE_PILES, strict=True):
        page = phone.request("GET", f"/s/{token}/")
        parsed = DealForm.parse(page.body) if page.status == 200 else None
        if parsed is None:
            return {"problem": f"game {game_id}: the scorer page had no deal form ({page.status})"}
        deal = {**parsed.hidden, "declarer": str(declarer), **FINAL_DEAL}
        forms.append({**deal, "points_0": ours, "points_1": theirs})
    barrier = threading.Barrier(2, timeout=TIMEOUT)
    answers: list[Answer | Exception | None] = [None, None]
    finished = [0.0, 0.0]

    def send(index: int) -> None:
        try:
            barrier.wait()
            answers[index] = phones[index].request("POST", path, forms[index], htmx[index])
        except Exception as error:  # noqa: BLE001 - reported in the table
            answers[index] = error
        finished[index] = time.perf_counter()

    threads = [threading.Thread(target=send, args=(i,), daemon=True) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT * 2)
    resends: list[Answer | Exception] = []
    for index in (0, 1):
        try:
            resends.append(phones[index].request("POST", path, forms[index], htmx[index]))
        except (OSError, http.client.HTTPException) as error:
            resends.append(error)
    game = Game.objects.get(pk=game_id)
    rounds = game.rounds.count()
    stored = list(
        Pile.objects.filter(round__game=game, game_team__position=1).values_list(
            "points", flat=True
        )
    )
    writer = next((i for i, (_, theirs) in enumerate(PHONE_PILES) if [int(theirs)] == stored), None)
    replays = []
    for index in (0, 1):
        resend, first = resends[index], answers[index]
        replays.append(
            isinstance(resend, Answer)
            and isinstance(first, Answer)
            and resend.status == first.status
            and header(resend, "X-Idempotent-Replay") == "true"
            and resend.body == first.body
        )
    kinds = [scorer_kind(answer) for answer in answers]
    if writer is not None and kinds[writer] == "finished-game page, no notice":
        kinds[writer] = "recorded"
    return {
        "game": game_id,
        "answers": answers,
        "forms": forms,
        "kinds": kinds,
        "writer": writer,
        "arrived_last": 0 if finished[0] >= finished[1] else 1,
        "rounds": rounds,
        "finished": game.is_finished,
        "replays": replays,
        "resend_statuses": [r.status if isinstance(r, Answer) else repr(r) for r in resends],
        "statuses": [a.status if isinstance(a, Answer) else repr(a) for a in answers],
    }


def form_against_game_now(game_id: int, data: dict) -> tuple[list[int], str] | None:
    """The deal form bound as scorer_send binds it, to the game as it now stands; its errors."""
    from club.games.deal_form import DealForm as AppDealForm
    from club.games.models import Game
    from club.games.services import load_seating

    game = Game.objects.get(pk=game_id)
    seating = load_seating(game)
    in_play = [team.position for team in seating.teams if team.tables > 0]
    form = AppDealForm(data, seating=seating, in_play=in_play)
    if form.is_valid():
        return None
    errors = "; ".join(f"{name}: {' '.join(messages)}" for name, messages in form.errors.items())
    return in_play, errors


def finding_final_deal_race(port: int, targets: Targets) -> Row:
    trials = len(targets.races)
    row = Row(
        "2",
        "Two phones send the game's final deal at once",
        f"{trials} games of 2 teams x 1 table; per game, one scorer link, two phones (own "
        "cookies, own page and key) POST the deal that ends the game (Chitra 30 hearts, made; "
        "piles 20/36 from phone 1, 21/35 from phone 2, so the stored round names the writer) "
        "to /s/<token>/deals/, released by a threading.Barrier, phone 1 as a plain form, "
        "phone 2 with HX-Request; then each resends its form (same key)",
        "no 5xx; the writer's answer shows the result, the other's says 'Deal 1 is already "
        "recorded'; 1 round per game; each resend gets its kept answer (same status and body, "
        "X-Idempotent-Replay), not 403",
    )
    results = [race_trial(port, target) for target in targets.races]
    problems = [r["problem"] for r in results if "problem" in r]
    done = [r for r in results if "problem" not in r]
    good, quoted = [], False
    for r in done:
        other = None if r["writer"] is None else 1 - r["writer"]
        ok = (
            other is not None
            and r["kinds"][other] == "already recorded"
            and r["kinds"][r["writer"]] == "recorded"
            and r["rounds"] == 1
            and r["finished"]
            and all(r["replays"])
        )
        good.append(ok)
        if ok:
            continue
        who = "no round stored" if other is None else f"phone {r['writer'] + 1}'s deal stored"
        row.details.append(
            f"game {r['game']}: {who}; answers {r['statuses']} = {r['kinds']} (phone 1 plain, "
            f"phone 2 htmx; last to arrive: phone {r['arrived_last'] + 1}); {r['rounds']} "
            f"round(s), finished {r['finished']}; resends {r['resend_statuses']}, replayed "
            f"{r['replays']}"
        )
        answer = r["answers"][other] if other is not None else None
        if not quoted and isinstance(answer, Answer):
            quoted = True
            row.details.append(
                f"what phone {other + 1} was shown (its answer's text): “{visible_text(answer)}…”"
            )
            refusal = form_against_game_now(r["game"], r["forms"][other])
            if refusal:
                row.details.append(
                    f"diagnosis, in this process: phone {other + 1}'s form bound as scorer_send "
                    f"binds it, against the game as it stands after the other phone's commit "
                    f"(teams in play {refusal[0]}), is refused: {refusal[1]}; the page of a "
                    "finished game shows no form, so that refusal is shown nowhere and "
                    "submit_deal (which would answer 'already recorded') is never called"
                )
    losers: Counter = Counter(
        r["kinds"][1 - r["writer"]] if r["writer"] is not None else "no writer" for r in done
    )
    writers: Counter = Counter(
        "none" if r["writer"] is None else f"phone {r['writer'] + 1}" for r in done
    )
    rounds = Counter(r["rounds"] for r in done)
    replayed = sum(sum(r["replays"]) for r in done)
    fivexx = sum(
        1
        for r in done
        for status in r["statuses"] + r["resend_statuses"]
        if isinstance(status, int) and status >= 500
    )
    row.happened = (
        f"{len(done)} trials; stored: "
        + ", ".join(f"{k} {n}" for k, n in sorted(writers.items()))
        + "; the other phone's answer: "
        + ", ".join(f"{k}: {n}" for k, n in losers.most_common())
        + f"; rounds per game {dict(rounds)}; resends replayed {replayed}/{2 * len(done)}; "
        f"5xx: {fivexx}"
    )
    row.details.extend(problems)
    row.passed = not problems and all(good) and len(done) == trials
    return row


# --- 3. Downloads while deals are recorded, corrected and undone -----------------------------

UNDO_FORM = re.compile(
    r'<form method="post" action="(/games/\d+/deals/undo/)"[^>]*>(.*?)</form>', re.S
)


def renamed(text: str, suffix: str) -> str:
    """The downloaded document with the tournament and game labels renamed, to import beside."""
    document = json.loads(text)
    document["tournament"]["name"] += suffix
    for sitting in document["tournament"].get("sittings", []):
        for game in sitting.get("games", []):
            game["game"] += suffix
    for game in document["games"]:
        game["label"] += suffix
    return json.dumps(document)


def finding_downloads_while_scoring(port: int, targets: Targets, duration: float, seed: int) -> Row:
    from django.db import connection, transaction

    from club.archive.documents import parse_archive
    from club.archive.format import ArchiveError
    from club.archive.load import import_results

    row = Row(
        "3",
        "Tournament export.json downloads while deals are recorded, corrected, undone",
        f"{SCORERS} organisers loop for {duration:g} s on the tournament's {SCORERS} games "
        "(record by htmx 60%, correct a deal 20%, undo the last 20%, through the real forms); "
        "one downloader loops on GET /tournaments/<id>/export.json",
        "every download 200 and accepted by club.archive.parse_archive as it arrives, "
        "and imported (renamed) in a rolled-back transaction after the run: 0 refusals; "
        "no 5xx for the scorers",
    )
    deadline = time.monotonic() + duration
    stats: dict[str, Counter] = {"record": Counter(), "correct": Counter(), "undo": Counter()}
    faults: list[str] = []
    lock = threading.Lock()
    downloads: list[str] = []
    download_statuses: Counter = Counter()
    parse_refusals: list[str] = []

    def note(action: str, status: int, what: str = "") -> None:
        with lock:
            stats[action][status] += 1
            if status >= 500 or what:
                faults.append(f"{action}: {status} {what}".strip())

    def scorer(index: int) -> None:
        rng = random.Random(f"{seed}-attack-scorer-{index}")
        game = targets.tournament_games[index]
        browser = Browser(port)
        if browser.log_in(targets.organisers[index]).status != 302:
            with lock:
                faults.append(f"{targets.organisers[index]} could not log in")
            return
        for _ in range(5000):
            if time.monotonic() >= deadline:
                break
            try:
                page = browser.request("GET", f"/games/{game}/")
                form = DealForm.parse(page.body)
                undo = UNDO_FORM.search(page.body)
                last = int(inputs(undo.group(2)).get("number", 0)) if undo else 0
                roll = rng.random()
                if last and roll < 0.2:
                    fields = inputs(undo.group(2))
                    answer = browser.request("POST", undo.group(1), fields)
                    note("undo", answer.status, "" if answer.status == 302 else "not a redirect")
                elif last and roll < 0.4:
                    number = rng.randint(1, last)
                    edit = f"/games/{game}/deals/{number}/edit/"
                    edit_form = DealForm.parse(browser.request("GET", edit).body)
                    if edit_form is None:
                        note("correct", 0, f"no form on {edit}")
                        continue
                    answer = browser.request("POST", edit, edit_form.random_deal(rng))
                    refused = answer.status == 200 and 'class="error' in answer.body
                    note("correct", answer.status, "refused" if refused else "")
                elif form is not None:
                    deal = form.random_deal(rng)
                    answer = browser.request("POST", f"/games/{game}/deals/", deal, htmx=True)
                    told = f"Deal {deal['number']}:" in answer.body
                    note("record", answer.status, "" if told else "not recorded")
                else:
                    note("record", page.status, "the game page has no deal form")
                    break
            except (OSError, http.client.HTTPException) as error:
                note("record", 0, f"no answer ({error!r})")

    def downloader() -> None:
        browser = Browser(port)
        path = f"/tournaments/{targets.tournament}/export.json"
        try:
            for number in range(5000):
                if time.monotonic() >= deadline:
                    break
                try:
                    answer = browser.request("GET", path)
                except (OSError, http.client.HTTPException) as error:
                    download_statuses[f"no answer ({error!r})"] += 1
                    continue
                download_statuses[answer.status] += 1
                if answer.status != 200:
                    continue
                downloads.append(answer.body)
                try:
                    parse_archive(renamed(answer.body, f" (check {number})"))
                except (ArchiveError, ValueError, KeyError) as error:
                    parse_refusals.append(f"download {number + 1}: {error}")
        finally:
            connection.close()

    threads = [threading.Thread(target=scorer, args=(i,), daemon=True) for i in range(SCORERS)]
    threads.append(threading.Thread(target=downloader, daemon=True))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(duration + TIMEOUT * 3)

    # Every download, imported whole by the app's importer, then rolled back.
    imported, import_refusals, started = 0, [], time.monotonic()
    for number, text in enumerate(downloads):
        if time.monotonic() - started > MAX_IMPORT_SECONDS:
            break
        try:
            with transaction.atomic():
                import_results(renamed(text, f" (copy {number})"))
                transaction.set_rollback(True)
            imported += 1
        except (ArchiveError, ValueError, KeyError) as error:
            import_refusals.append(f"download {number + 1}: {error}")

    def counted(counter: Counter) -> str:
        return ", ".join(f"{status}: {n}" for status, n in sorted(counter.items()))

    actions = ", ".join(
        f"{action} {sum(counter.values())} ({counted(counter)})"
        for action, counter in stats.items()
    )
    row.happened = (
        f"scorers: {actions}; downloads: "
        + ", ".join(f"{s}: {n}" for s, n in download_statuses.items())
        + f"; parse_archive refused {len(parse_refusals)} of {len(downloads)}; imported "
        f"{imported} of {len(downloads)} (rolled back), refused {len(import_refusals)}"
    )
    if imported < len(downloads) and not import_refusals:
        row.happened += f" (the import budget of {MAX_IMPORT_SECONDS} s ran out)"
    row.details.extend(faults[:20])
    row.details.extend(parse_refusals[:10])
    row.details.extend(import_refusals[:10])
    server_errors = sum(n for counter in stats.values() for s, n in counter.items() if s >= 500)
    row.passed = (
        bool(downloads)
        and set(download_statuses) == {200}
        and not parse_refusals
        and not import_refusals
        and server_errors == 0
        and not faults
    )
    return row


# --- 4. House rules beyond the bounds ----------------------------------------------------------


def new_game_form(page: Answer, label: str, made: str = "1", first: str = "Anu") -> dict:
    fields = inputs(page.body)
    return {
        "csrfmiddlewaretoken": fields.get("csrfmiddlewaretoken", ""),
        "idempotency_key": fields.get("idempotency_key", ""),
        "label": label,
        "players": "4",
        "first_dealer": "random",
        "tables_per_team": "12",
        "payout": f"28-39: {made} 2\n40-47: 2 3\n48-55: 3 4\n56-56: 4 5",
        "double_factor": "2",
        "redouble_factor": "4",
        "team1_name": "",
        "team1_player1": first,
        "team1_player2": "Biju",
        "team2_name": "",
        "team2_player1": "Chitra",
        "team2_player2": "Dev",
    }


def post_new_game(organiser: Browser, label: str, **values) -> tuple[Answer, int, bool]:
    """POST /games/new/ as the page would; (answer, games added, a game with that label)."""
    from club.games.models import Game

    before = Game.objects.count()
    page = organiser.request("GET", "/games/new/")
    answer = organiser.request("POST", "/games/new/", new_game_form(page, label, **values))
    return answer, Game.objects.count() - before, Game.objects.filter(label=label).exists()


def finding_house_rules(port: int, organiser: Browser) -> Row:
    row = Row(
        "4",
        "House rules beyond the bounds are refused",
        "as an organiser, POST /games/new/ with payout band 1 made = 5000, then = 10^30 "
        "(control: the same form with 1)",
        "200 with the message 'a band moves at most 4000', no game created; the control is created",
    )
    results = []
    for made, shown in (("5000", "5000"), (str(10**30), "10^30")):
        label = f"Attack payout {shown}"
        answer, added, exists = post_new_game(organiser, label, made=made)
        message = "a band moves at most 4000" in text_of(answer)
        results.append(answer.status == 200 and message and added == 0 and not exists)
        row.details.append(
            f"payout {shown}: {answer.status}, message shown {message}, games added {added}"
        )
    control, added, exists = post_new_game(organiser, "Attack payout control")
    control_ok = control.status == 302 and added == 1 and exists
    row.details.append(f"control (payout 1): {control.status}, games added {added}")
    row.happened = "; ".join(row.details)
    row.details = []
    row.passed = all(results) and control_ok
    return row


# --- 5. Lock-outs behind a trusted proxy -------------------------------------------------------


def finding_proxy_lockout(port: int) -> Row:
    row = Row(
        "5",
        "Login lock-out keyed on the client behind a trusted proxy",
        "DJANGO_TRUSTED_PROXIES=127.0.0.1; 5 wrong passwords for 'olive' with X-Forwarded-For: "
        "203.0.113.9, then a 6th attempt (right password) from it; then olive with the right "
        "password from X-Forwarded-For: 198.51.100.7",
        "6th attempt from 203.0.113.9 refused (lock-out page); olive from 198.51.100.7 "
        "logs in (302)",
    )
    attacker = Browser(port, forwarded_for="203.0.113.9")
    wrong = [attacker.log_in("olive", "wrong-" + secrets.token_hex(4)).status for _ in range(5)]
    sixth = attacker.log_in("olive")
    locked = sixth.status in (403, 429) and "sessionid" not in attacker.cookies
    olive = Browser(port, forwarded_for="198.51.100.7")
    elsewhere = olive.log_in("olive")
    row.happened = (
        f"wrong passwords: {wrong}; 6th (right password) from 203.0.113.9: {sixth.status}"
        f"{' (no session)' if 'sessionid' not in attacker.cookies else ' (a session!)'}; "
        f"olive from 198.51.100.7: {elsewhere.status}"
    )
    row.passed = locked and elsewhere.status == 302 and "sessionid" in olive.cookies
    return row


# --- 6. A lost connection after the commit ------------------------------------------------------


def wait_for_rounds(game_id: int, count: int, seconds: float = 15) -> int:
    from club.games.models import Round

    deadline = time.monotonic() + seconds
    while True:
        stored = Round.objects.filter(game_id=game_id).count()
        if stored >= count or time.monotonic() > deadline:
            return stored
        time.sleep(0.1)


def finding_lost_answer(port: int, targets: Targets) -> Row:
    from club.games.models import Round

    row = Row(
        "6",
        "A connection lost after the commit",
        "the database side cannot be cut at a chosen moment from outside (covered by "
        "tests/concurrency/test_faults.py); the phone's side: a scorer link POSTs deal 1 (plain) "
        "and deal 2 (htmx) and closes the connection before the answer, then sends the same "
        "form (same key) again",
        "each deal stored once; each resend answered with the kept answer (X-Idempotent-Replay: "
        "302 for the plain form, 200 for htmx), not 'already recorded' and not a 5xx",
    )
    game_id, token, declarer = targets.dropped
    phone = Browser(port)
    path = f"/s/{token}/deals/"
    results = []
    for number, htmx in ((1, False), (2, True)):
        page = phone.request("GET", f"/s/{token}/")
        form = DealForm.parse(page.body)
        if form is None:
            row.details.append(f"deal {number}: the scorer page had no form ({page.status})")
            results.append(False)
            continue
        deal = {**form.hidden, "declarer": str(declarer), **FINAL_DEAL}
        phone.send_and_hang_up(path, deal, htmx=htmx)
        stored = wait_for_rounds(game_id, number)
        again = phone.request("POST", path, deal, htmx=htmx)
        replay = header(again, "X-Idempotent-Replay") == "true"
        expected = 200 if htmx else 302
        results.append(stored == number and replay and again.status == expected)
        row.details.append(
            f"deal {number} ({'htmx' if htmx else 'plain'}): rounds after the hang-up {stored}; "
            f"resend {again.status}, X-Idempotent-Replay {replay}"
        )
    total = Round.objects.filter(game_id=game_id).count()
    row.happened = "; ".join(row.details) + f"; rounds stored at the end {total}"
    row.details = []
    row.passed = all(results) and total == 2
    return row


# --- 7. Smaller findings -------------------------------------------------------------------------

HEALTH_WORDS = {"ok", "error", "unavailable", "full"}


def health_body_is_bare(answer: Answer, secrets_to_hide: list[str]) -> tuple[bool, str]:
    try:
        body = json.loads(answer.body)
    except ValueError:
        return False, f"not JSON: {answer.body[:120]!r}"
    bare = (
        isinstance(body, dict)
        and set(body) == {"status", "database", "disk"}
        and set(body.values()) <= HEALTH_WORDS
        and not any(secret.lower() in answer.body.lower() for secret in secrets_to_hide)
    )
    return bare, answer.body.strip()


def postgres_outage(args, port: int, hide: list[str]) -> tuple[bool, str]:
    """/health/ while PostgreSQL refuses new connections to the database; then restored."""
    import psycopg
    from django.db import connection

    parts = urllib.parse.urlsplit(args.postgres_url)
    name = parts.path.lstrip("/")
    admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    connection.close()
    with psycopg.connect(admin, autocommit=True) as pg:
        pg.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        try:
            pg.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                [name],
            )
            answer = Browser(port).request("GET", "/health/")
        finally:
            pg.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    bare, body = health_body_is_bare(answer, hide)
    back = Browser(port).request("GET", "/health/").status
    return answer.status == 503 and bare and back == 200, (
        f"database refusing connections: {answer.status} {body}; after: {back}"
    )


def finding_smaller(
    args, port: int, targets: Targets, organiser: Browser, watch: Path, log: ServerLog
) -> list[Row]:
    from club.games.models import Game

    rows: list[Row] = []
    marks: list[int] = []

    def begin() -> None:
        marks.append(log.mark())

    def done(row: Row) -> None:
        time.sleep(0.3)  # the workers' last lines reach the log
        row.log = error_lines(log.since(marks[-1]))
        rows.append(row)

    # A POST to a 600-character path.
    long_path = "/games/" + "9" * (600 - len("/games//deals/")) + "/deals/"
    begin()
    row = Row(
        "7a",
        "POST to a 600-character path",
        f"as an organiser with CSRF token and idempotency_key, POST {long_path[:16]}... "
        f"({len(long_path)} chars, a 586-digit game id); the same anonymously",
        "404, not 500; no key kept",
    )
    before = submitted_forms()
    _, token = organiser.token("/")
    key = str(uuid.uuid4())
    answer = organiser.request(
        "POST", long_path, {"csrfmiddlewaretoken": token, "idempotency_key": key}
    )
    anonymous = Browser(port).request("POST", long_path, {"idempotency_key": str(uuid.uuid4())})
    after = submitted_forms()
    row.happened = (
        f"organiser: {answer.status}; anonymous: {anonymous.status}; "
        f"games_submittedform {before} -> {after}"
    )
    row.passed = answer.status == 404 and anonymous.status < 500 and after == before
    done(row)

    # /health/ without details.
    hide = [HOST, "5432", "postgres", "fiftysix", "FATAL", "role", "port", str(watch), "/tmp"]
    begin()
    row = Row(
        "7b",
        "/health/ shows no host, port, role or path",
        "GET /health/ healthy; with the watched folder (DJANGO_HEALTH_DISK_PATHS) gone; "
        + (
            "with PostgreSQL refusing connections to the database (ALLOW_CONNECTIONS false, "
            "backends ended), then restored"
            if args.database == "postgres"
            else "(SQLite: the database cannot be taken away from open connections here)"
        ),
        "body is exactly {status, database, disk} with fixed words; 200 healthy, 503 otherwise; "
        "details only in the server log",
    )
    healthy = Browser(port).request("GET", "/health/")
    healthy_bare, healthy_body = health_body_is_bare(healthy, hide)
    parts = [f"healthy: {healthy.status} {healthy_body}"]
    passes = [healthy.status == 200 and healthy_bare]
    shutil.rmtree(watch, ignore_errors=True)
    try:
        gone = Browser(port).request("GET", "/health/")
    finally:
        watch.mkdir(exist_ok=True)
    gone_bare, gone_body = health_body_is_bare(gone, hide)
    parts.append(f"watched folder gone: {gone.status} {gone_body}")
    passes.append(gone.status == 503 and gone_bare)
    if args.database == "postgres":
        ok, said = postgres_outage(args, port, hide)
        parts.append(said)
        passes.append(ok)
    row.happened = "; ".join(parts)
    row.passed = all(passes)
    done(row)

    # The links page is not cached.
    begin()
    row = Row(
        "7c",
        "The scorer links page is never cached",
        f"as an organiser, GET /games/{targets.game}/links/ (and /links/print/)",
        "200 with Cache-Control including no-store",
    )
    links = organiser.request("GET", f"/games/{targets.game}/links/")
    printed = organiser.request("GET", f"/games/{targets.game}/links/print/")
    row.happened = (
        f"links: {links.status}, Cache-Control: {header(links, 'Cache-Control')!r}; print: "
        f"{printed.status}, Cache-Control: {header(printed, 'Cache-Control')!r}"
    )
    row.passed = all(
        a.status == 200 and "no-store" in header(a, "Cache-Control") for a in (links, printed)
    )
    done(row)

    # A link that expired with its game stays expired after the final deal is undone.
    game_id, token, declarer = targets.ending
    begin()
    row = Row(
        "7d",
        "An expired scorer link stays expired when the final deal is undone",
        "a phone records the final deal through /s/<token>/deals/ (1 table a team); GET the "
        "link; the organiser POSTs the game page's undo form; GET the link, and POST a deal "
        "through it (plain and htmx)",
        "link 403 'expired' before and after the undo; the undo 302 and the game open again; "
        "nothing recorded through the dead link",
    )
    phone = Browser(port)
    form = DealForm.parse(phone.request("GET", f"/s/{token}/").body)
    ended = (
        phone.request(
            "POST", f"/s/{token}/deals/", {**form.hidden, "declarer": str(declarer), **FINAL_DEAL}
        )
        if form
        else None
    )
    before_undo = phone.request("GET", f"/s/{token}/")
    page = organiser.request("GET", f"/games/{game_id}/")
    undo = UNDO_FORM.search(page.body)
    undone = organiser.request("POST", undo.group(1), inputs(undo.group(2))) if undo else None
    game = Game.objects.get(pk=game_id)
    reopened = not game.is_finished and game.deals_played == 0
    after_undo = phone.request("GET", f"/s/{token}/")
    fresh = Browser(port).request("GET", f"/s/{token}/")
    key = {"idempotency_key": str(uuid.uuid4())}
    deal = {**(form.hidden if form else {}), **key, "declarer": str(declarer), **FINAL_DEAL}
    posted = phone.request("POST", f"/s/{token}/deals/", deal)
    posted_htmx = phone.request("POST", f"/s/{token}/deals/", {**deal, **key}, htmx=True)
    game.refresh_from_db()

    def expired(answer: Answer) -> bool:
        return answer.status == 403 and "expired" in text_of(answer)

    row.happened = (
        f"final deal: {ended.status if ended else 'no form'} "
        f"({'game over shown' if ended and 'won the game' in ended.body else '?'}); link before "
        f"the undo: {before_undo.status}; undo: {undone.status if undone else 'no undo form'}, "
        f"game open again {reopened}; link after: {after_undo.status} "
        f"({'expired' if expired(after_undo) else 'not expired'}), a new browser "
        f"{fresh.status}; deal POSTed through it: {posted.status}, by htmx: {posted_htmx.status} "
        f"(HX-Refresh {header(posted_htmx, 'HX-Refresh')!r}); deals played now {game.deals_played}"
    )
    row.passed = (
        ended is not None
        and ended.status == 200
        and expired(before_undo)
        and undone is not None
        and undone.status == 302
        and reopened
        and expired(after_undo)
        and expired(fresh)
        and expired(posted)
        and posted_htmx.status == 200
        and header(posted_htmx, "HX-Refresh") == "true"
        and game.deals_played == 0
    )
    done(row)

    # Look-alike names.
    begin()
    row = Row(
        "7e",
        "Look-alike names are refused",
        "as an organiser, POST /games/new/ with team 1, player 1 'A\\u200bnu' (a zero-width space)",
        "200 with the form refusing the name and naming U+200B; no game created",
    )
    label = "Attack look-alike"
    answer, added, exists = post_new_game(organiser, label, first="A\u200bnu")
    named = "U+200B" in text_of(answer)
    row.happened = f"{answer.status}, U+200B named {named}, games added {added}"
    row.passed = answer.status == 200 and named and added == 0 and not exists
    done(row)
    return rows


# --- The run ------------------------------------------------------------------------------------


def timed_finding(log: ServerLog, make: Callable[[], Row | list[Row]]) -> list[Row]:
    mark, start = log.mark(), time.perf_counter()
    try:
        made = make()
    except Exception as error:  # noqa: BLE001 - the harness reports its own fault and goes on
        import traceback

        made = Row("?", "the harness failed", "", "", f"{error!r}", False)
        made.details.append(traceback.format_exc().strip().splitlines()[-1])
    rows = made if isinstance(made, list) else [made]
    took = time.perf_counter() - start
    time.sleep(0.3)  # let the workers' last lines reach the log
    for row in rows:
        row.seconds = took  # for 7a-7e: the five together
    if len(rows) == 1:
        rows[0].log = error_lines(log.since(mark))
    return rows


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def report(args, rows: list[Row], timings: dict[str, float], log_lines: list[str]) -> str:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=BASE_DIR, capture_output=True, text=True
    ).stdout.strip()
    passed = sum(row.passed is True for row in rows)
    failed = [row for row in rows if row.passed is False]
    lines = [
        f"# An attack on the app, run again: {args.database}",
        "",
        f"`python -m loadtest.attack --database {args.database} --trials {args.trials} "
        f"--duration {args.duration:g} --workers {args.workers} --seed {args.seed}`",
        "",
        f"- When: {datetime.datetime.now().isoformat(timespec='seconds')}, commit {commit} "
        "(plus the working tree).",
        f"- Machine: {run.machine()}.",
        f"- gunicorn `club.wsgi`, {args.workers} sync workers, on 127.0.0.1 only, "
        "DJANGO_DEBUG=0, DJANGO_ALLOWED_HOSTS=127.0.0.1, DJANGO_SECURE_SSL_REDIRECT=0, "
        "DJANGO_TRUSTED_PROXIES=127.0.0.1, a random secret key.",
        f"- Database: {os.environ['DATABASE_URL']} (throwaway).",
        f"- Time: set-up {timings['setup']:.1f} s, findings {timings['findings']:.1f} s, "
        f"whole run {timings['total']:.1f} s.",
        f"- Result: {passed} of {len(rows)} pass"
        + (f"; FAILED: {', '.join(row.number for row in failed)}." if failed else "."),
        "",
        "| # | finding | what was sent | expected | what happened | result |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.number} | {cell(row.finding)} | {cell(row.sent)} | {cell(row.expected)} | "
            f"{cell(row.happened)} | {row.verdict} |"
        )
    lines.append("")
    per_finding = {row.number.rstrip("abcde"): row.seconds for row in rows}
    lines.append(
        "Time per finding: "
        + ", ".join(f"{number}: {seconds:.1f} s" for number, seconds in per_finding.items())
        + " (3 includes the rolled-back imports after the scorers stop)."
    )
    lines.append("")
    notes = [row for row in rows if row.details or row.log]
    if notes:
        lines += ["## Details and server log lines, finding by finding", ""]
        for row in notes:
            took = f"{row.seconds:.1f} s" + (", 7a-7e together" if row.number[1:] else "")
            lines.append(f"### {row.number}. {row.finding} ({took})")
            lines.append("")
            lines += [f"- {detail}" for detail in row.details]
            if row.log:
                expected = row.number == "7b"
                lines.append(
                    f"- server log, {len(row.log)} error lines"
                    + (
                        " (the health check logs what it keeps from the public: expected)"
                        if expected
                        else ""
                    )
                    + ":"
                )
                lines.append("")
                lines.append("```")
                lines += [line[:300] for line in row.log[:40]]
                lines.append("```")
            lines.append("")
    lines.append(
        "Server log (whole run): "
        + (
            "no error lines."
            if not log_lines
            else f"{len(log_lines)} error lines, quoted above with their finding."
        )
    )
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m loadtest.attack", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--database", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--trials", type=int, default=10, help="finding 2: games raced")
    parser.add_argument("--duration", type=float, default=20, help="finding 3: seconds")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=56)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--out", type=Path, default=BASE_DIR / "results")
    args = parser.parse_args()
    if not 1 <= args.trials <= 200 or not 1 <= args.duration <= 120:
        parser.error("--trials is 1 to 200, --duration 1 to 120 seconds")
    begun = time.perf_counter()

    run.SQLITE_PATH = SQLITE_PATH  # loadtest.run's helpers read it: our own throwaway file
    watch = Path(f"/tmp/fiftysix-attack-watch-{args.database}")
    watch.mkdir(exist_ok=True)
    os.environ.update(
        DATABASE_URL=run.database_url(args),
        DJANGO_SETTINGS_MODULE="club.settings",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS=HOST,
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_TRUSTED_PROXIES=HOST,
        DJANGO_HEALTH_DISK_PATHS=str(watch),
        DJANGO_LOG_LEVEL="WARNING",
    )
    sys.path.insert(0, str(BASE_DIR))
    print(f"Preparing {os.environ['DATABASE_URL']} ...", flush=True)
    fresh_database(args)
    manage("migrate", "--no-input")
    manage("load_demo")
    manage("collectstatic", "--no-input")
    import django

    django.setup()
    world = build_world(SCORERS, args.seed)
    targets = make_targets(world, args.trials)

    port = free_port()
    log_path = Path(f"/tmp/fiftysix-attack-gunicorn-{args.database}.log")
    server = start_gunicorn(port, args.workers, log_path)
    setup = time.perf_counter() - begun
    log = ServerLog(log_path)
    rows: list[Row] = []
    started = time.perf_counter()
    try:
        print(f"gunicorn on {HOST}:{port}; attacking ...", flush=True)
        organiser = Browser(port)
        if organiser.log_in("olive").status != 302:
            raise SystemExit("the organiser 'olive' could not log in")
        steps: list[tuple[str, Callable[[], Row | list[Row]]]] = [
            ("1", lambda: finding_anonymous_writes(port, targets)),
            ("2", lambda: finding_final_deal_race(port, targets)),
            ("3", lambda: finding_downloads_while_scoring(port, targets, args.duration, args.seed)),
            ("4", lambda: finding_house_rules(port, organiser)),
            ("5", lambda: finding_proxy_lockout(port)),
            ("6", lambda: finding_lost_answer(port, targets)),
            ("7", lambda: finding_smaller(args, port, targets, organiser, watch, log)),
        ]
        for number, step in steps:
            print(f"finding {number} ...", flush=True)
            made = timed_finding(log, step)
            for row in made:
                print(f"  {row.number}: {row.verdict.strip('*')} ({row.seconds:.1f} s)", flush=True)
            rows += made
    finally:
        stop_gunicorn(server)
    findings = time.perf_counter() - started
    all_errors = error_lines(log.since(0))
    timings = {"setup": setup, "findings": findings, "total": time.perf_counter() - begun}
    text = report(args, rows, timings, all_errors)
    args.out.mkdir(exist_ok=True)
    out = args.out / f"attack-{args.database}.md"
    out.write_text(text)
    print(text)
    print(f"Written to {out}; server log {log_path}")
    shutil.rmtree(watch, ignore_errors=True)
    if not args.keep:
        run.drop_database(args)


if __name__ == "__main__":
    main()
