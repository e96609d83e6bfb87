"""Backup and restore: a restored club reads exactly as the one backed up; bad files are refused.

The club under test is the demo club plus what the demo lacks: logins, a game
with a correction and an undo, scorer links (one revoked) with a deal waiting
for confirmation, and a tournament with a confirmed sitting, a bye and a
proposed sitting. The demo already holds a finished tournament whose results
are final.

The signature tests forge files the way an attacker holding a backup would:
edit rows, recompute the table's checksum and count as the guide documents (docs/deploying.md),
and see that the signature, keyed by the server's secret key, still refuses them.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import random
import re
import stat
from io import StringIO

import pytest
from django.apps import apps
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.test import Client
from django.utils import timezone

from club.games import links
from club.games.models import Change, Game, GameTeam, PendingDeal, Player, Round, ScorerLink
from club.games.services import (
    DealEntry,
    TeamEntry,
    create_game,
    edit_deal,
    record_deal,
    undo_last_deal,
)
from club.ops import backup, backup_format
from club.ops.backup_versions import MISSING_IN
from club.ops.management.commands.restore_club import Command as RestoreCommand
from club.ops.restore import club_is_empty
from club.tournaments import services as tournaments
from club.tournaments.models import Sitting, Standing, Tournament
from tests.tournaments.helpers import make_tournament, play_sitting

User = get_user_model()


def _deal(game: Game, declaring_position: int, points: list[int], bid=28) -> DealEntry:
    teams = list(game.teams.order_by("position"))
    return DealEntry(
        points={team.position: pile for team, pile in zip(teams, points, strict=True)},
        declarer=teams[declaring_position].first_player_id,
        bid=bid,
        trump="hearts",
    )


def build_club() -> User:
    """The demo club and the extra records above; returns the organiser."""
    call_command("load_demo", stdout=StringIO())
    organiser = User.objects.create_user(
        username="olive", password="olive-organiser-pw", is_staff=True, email="olive@example.org"
    )
    User.objects.create_user(
        username="pat", password="pat-player-pw", first_name="Pat", last_name="Nair"
    )
    User.objects.filter(username="pat").update(
        last_login=datetime.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=datetime.UTC)
    )

    corrected = create_game(
        label="Backup night · <b>table 1</b>",
        teams=[TeamEntry("Zara", "Yusuf"), TeamEntry("അമ്മു", "Xavier 🃏")],
        first_dealer=0,
        user=organiser,
    )
    for number, (declaring, points) in enumerate(
        [(0, [30, 26]), (1, [20, 36]), (0, [40, 16])], start=1
    ):
        record_deal(
            game=corrected, number=number, entry=_deal(corrected, declaring, points), user=organiser
        )
    edit_deal(game=corrected, number=1, entry=_deal(corrected, 0, [27, 29]), user=organiser)
    undo_last_deal(game=corrected, number=3, user=organiser)

    waiting = create_game(
        label="Backup night, table 2",
        teams=[TeamEntry("Wanda", "Victor"), TeamEntry("Uma", "Tariq")],
        first_dealer=1,
        require_confirmation=True,
        user=organiser,
    )
    first_link, _second_link = links.issue_links(game=waiting, user=organiser)
    links.send_deal(link=first_link, number=1, entry=_deal(waiting, 0, [33, 23]))

    linked = create_game(
        label="Backup night, table 3",
        teams=[TeamEntry("Sami", "Rhea"), TeamEntry("Quentin", "Priya")],
        first_dealer=2,
        user=organiser,
    )
    links.issue_links(game=linked, user=organiser)
    [link] = links.issue_links(game=linked, user=organiser)  # the first one is revoked
    links.send_deal(link=link, number=1, entry=_deal(linked, 1, [10, 46], bid=40))

    tournament = make_tournament(name="Backup Open", teams=5, user=organiser)
    sitting = tournaments.propose_sitting(
        tournament=tournament, user=organiser, rng=random.Random(3)
    )
    tournaments.confirm_sitting(sitting=sitting, user=organiser, rng=random.Random(4))
    play_sitting(sitting)
    tournaments.propose_sitting(tournament=tournament, user=organiser, rng=random.Random(5))

    # What the brief of this test promises is really there.
    assert Change.objects.filter(action=Change.Action.EDITED).exists()
    assert Change.objects.filter(action=Change.Action.UNDONE).exists()
    assert Change.objects.filter(scorer_link__isnull=False).exists()
    assert PendingDeal.objects.count() == 1
    assert ScorerLink.objects.filter(revoked_at__isnull=False).exists()
    assert Sitting.objects.filter(status=Sitting.Status.PROPOSED).exists()
    assert Tournament.objects.filter(is_final=True, status=Tournament.Status.FINISHED).exists()
    return organiser


# --- what a visitor, an organiser and an export see ---------------------------

_CSRF = [
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'), 'name="csrfmiddlewaretoken"'),
    (re.compile(r'"X-CSRFToken": "[^"]*"'), '"X-CSRFToken": ""'),
    # Every form that writes carries a fresh key against resends.
    (re.compile(r'name="idempotency_key" value="[^"]*"'), 'name="idempotency_key"'),
    # The printable standings say when they were printed, to the minute.
    (re.compile(r"Printed [^<]*"), "Printed"),
    # The projector and the director's board show a clock (data-clock), to the minute.
    (re.compile(r"(data-clock[^>]*>)[0-9]{2}:[0-9]{2}<"), r"\1<"),
]


def _page(client: Client, url: str) -> str:
    response = client.get(url)
    body = b"".join(response) if response.streaming else response.content
    text = body.decode("utf-8")
    for pattern, replacement in _CSRF:
        text = pattern.sub(replacement, text)
    return f"{response.status_code} {response.get('Location', '')}\n{text}"


def _urls() -> tuple[list[str], list[str]]:
    """Pages anyone may open, and pages for organisers; from the club's rows."""
    public = ["/", "/tournaments/", "/players/", "/leaderboards/players/", "/leaderboards/teams/"]
    organiser = list(public)
    for pk in Game.objects.order_by("pk").values_list("pk", flat=True):
        public.append(f"/games/{pk}/")
        organiser += [f"/games/{pk}/", f"/games/{pk}/links/", f"/games/{pk}/sheet/"]
    for pk in Tournament.objects.order_by("pk").values_list("pk", flat=True):
        pages = ["", "live/", "projector/", "print/", "export.json"]
        pages += ["standings.csv", "games.csv", "deals.csv"]
        public += [f"/tournaments/{pk}/{page}" for page in pages]
        organiser.append(f"/tournaments/{pk}/")
    for pk, number in Sitting.objects.order_by("pk").values_list("tournament", "number"):
        public.append(f"/tournaments/{pk}/sittings/{number}/")
        organiser += [
            f"/tournaments/{pk}/sittings/{number}/",
            f"/tournaments/{pk}/sittings/{number}/sheets/",
        ]
    public += [
        f"/players/{pk}/" for pk in Player.objects.order_by("pk").values_list("pk", flat=True)
    ]
    public += [f"/s/{token}/" for token in ScorerLink.objects.values_list("token", flat=True)]
    return public, organiser


def _export(*args: str) -> str:
    out = StringIO()
    call_command("export_results", *args, stdout=out)
    return out.getvalue()


def everything_shown(organiser) -> dict[str, str]:
    public, organiser_urls = _urls()
    anonymous, staff = Client(), Client()
    staff.force_login(organiser)
    shown = {f"anonymous {url}": _page(anonymous, url) for url in public}
    shown |= {f"organiser {url}": _page(staff, url) for url in organiser_urls}
    shown["export json"] = _export()
    shown["export csv"] = _export("--format", "csv")
    for name in Tournament.objects.order_by("pk").values_list("name", flat=True):
        shown[f"export {name} json"] = _export("--tournament", name)
        for table in ("standings", "games", "deals"):
            shown[f"export {name} {table}"] = _export(
                "--tournament", name, "--format", "csv", "--table", table
            )
    return shown


def _without_created_at(text: str) -> str:
    """The backup without the moment it was written, nor the signature that covers it."""
    text = re.sub(r'"created_at": "[^"]*"', '"created_at": ""', text, count=1)
    return re.sub(r'("signature": \{[^}]*"value": )"[0-9a-f]*"', r'\1""', text, count=1)


def _contracts() -> dict[int, tuple[int, int]]:
    """Each game team's contracts declared and made, as stored."""
    return {team.pk: (team.declared, team.made) for team in GameTeam.objects.all()}


def _restore(path, *options: str) -> str:
    out = StringIO()
    call_command("restore_club", str(path), *options, stdout=out)
    return out.getvalue()


def _restore_warned(path, *options: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("restore_club", str(path), *options, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


# --- the round trip ------------------------------------------------------------


# Without a test transaction around it, as on a real server: the backup reads
# one snapshot, flush empties the tables, the restore commits on its own.
@pytest.mark.django_db(transaction=True)
def test_a_restore_into_an_empty_database_reproduces_every_page_and_export(tmp_path):
    organiser = build_club()
    before = everything_shown(organiser)
    assert len(before) > 150
    assert "Backup night · &lt;b&gt;table 1&lt;/b&gt;" in before["anonymous /"]
    path = tmp_path / "club.json"
    call_command("backup_club", "--output", str(path), stdout=StringIO())
    first = path.read_text(encoding="utf-8")
    ids = {
        "game": Game.objects.order_by("pk").last().pk,
        "player": Player.objects.order_by("pk").last().pk,
        "tournament": Tournament.objects.order_by("pk").last().pk,
        "user": User.objects.order_by("pk").last().pk,
    }

    contracts = _contracts()
    assert sum(declared for declared, _made in contracts.values()) > 0
    # Derived from the deals: left out of the file, and counted again on restore.
    assert not {"declared", "made"} & set(backup_format.columns()["games.gameteam"])

    call_command("flush", interactive=False, verbosity=0)
    assert club_is_empty()
    message = _restore(path)
    assert f"{Game.objects.count()} games" in message
    assert _contracts() == contracts

    call_command("backup_club", "--output", str(tmp_path / "again.json"), stdout=StringIO())
    again = (tmp_path / "again.json").read_text(encoding="utf-8")
    assert again != first  # created_at differs ...
    assert _without_created_at(again) == _without_created_at(first)  # ... and nothing else

    after = everything_shown(User.objects.get(username="olive"))
    assert after.keys() == before.keys()
    differing = [key for key in before if before[key] != after[key]]
    assert differing == []

    # The ids go on from where they were, on PostgreSQL too (sequences reset).
    game = create_game(
        label="After the restore", teams=[TeamEntry("New", "Comer"), TeamEntry("Zara", "Yusuf")]
    )
    assert game.pk == ids["game"] + 1
    assert Player.objects.get(name="New").pk == ids["player"] + 1
    assert tournaments.create_tournament(name="Next", starts_on=datetime.date(2026, 3, 1)).pk == (
        ids["tournament"] + 1
    )
    assert User.objects.create_user(username="new").pk == ids["user"] + 1


@pytest.mark.django_db
def test_the_backup_is_complete_deterministic_and_private(tmp_path):
    organiser = build_club()
    path = tmp_path / "club.json"
    call_command("backup_club", "--output", str(path), stdout=StringIO())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # password hashes and link secrets
    assert [p.name for p in tmp_path.iterdir()] == ["club.json"]  # no part file left behind

    document = json.loads(path.read_text(encoding="utf-8"))
    manifest = document["manifest"]
    assert manifest["format"] == "fiftysix-club-backup"
    assert manifest["version"] == 9
    assert manifest["app_version"] == "0.1.0"
    assert datetime.datetime.fromisoformat(manifest["created_at"]) <= timezone.now()
    for key, model in backup_format.TABLES:
        rows = document["tables"][key]
        assert manifest["counts"][key] == model._base_manager.count() == len(rows)
        assert [row["id"] for row in rows] == sorted(
            model._base_manager.values_list("pk", flat=True)
        )
        payload = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
        assert manifest["sha256"][key] == hashlib.sha256(payload.encode()).hexdigest()
    # The signature, checked with nothing but Python, as the guide says (docs/deploying.md).
    assert list(manifest) == [
        "format",
        "version",
        "created_at",
        "app_version",
        "counts",
        "sha256",
        "signature",
    ]
    assert manifest["signature"] == {"algorithm": "hmac-sha256", "value": _hmac(manifest)}

    olive = next(u for u in document["tables"]["auth.user"] if u["username"] == "olive")
    assert olive["password"] == organiser.password and olive["is_staff"] is True
    pat = next(u for u in document["tables"]["auth.user"] if u["username"] == "pat")
    assert pat["last_login"] == "2026-01-02T03:04:05.678901+00:00"
    tokens = {row["token"] for row in document["tables"]["games.scorerlink"]}
    assert tokens == set(ScorerLink.objects.values_list("token", flat=True))
    edited = next(
        row for row in document["tables"]["games.change"] if row["action"] == Change.Action.EDITED
    )
    assert edited["made_by"] == "olive"  # a login is referred to by its user name
    assert edited["before"] and edited["after"]
    sent = next(row for row in document["tables"]["games.change"] if row["scorer_link"])
    assert sent["made_by"] is None

    second = backup.make_backup().text
    assert _without_created_at(second) == _without_created_at(path.read_text(encoding="utf-8"))
    # The signature is of the content: the same club at the same moment signs the same.
    moment = datetime.datetime(2026, 3, 1, 21, 30, tzinfo=datetime.UTC)
    assert backup.make_backup(moment).text == backup.make_backup(moment).text


def _hmac(manifest: dict, secret: str | None = None) -> str:
    """The manifest's HMAC-SHA256 computed with the standard library only."""
    secret = django_settings.SECRET_KEY if secret is None else secret
    content = {key: value for key, value in manifest.items() if key != "signature"}
    text = json.dumps(content, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    key = hashlib.sha256(b"club.backup" + secret.encode()).digest()
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


@pytest.mark.django_db
def test_the_backup_says_what_it_leaves_out(tmp_path):
    from django.contrib.auth.models import Group

    user = User.objects.create_user(username="treasurer")
    user.groups.add(Group.objects.create(name="Committee"))
    out, err = StringIO(), StringIO()
    call_command("backup_club", "--output", str(tmp_path / "b.json"), stdout=out, stderr=err)
    assert "1 logins, 0 players, 0 games with 0 deals, 0 tournaments" in out.getvalue()
    assert "1 logins have groups or single permissions" in err.getvalue()


@pytest.mark.django_db
def test_an_unwritable_place_is_refused(tmp_path):
    with pytest.raises(CommandError, match="Cannot write"):
        call_command("backup_club", "--output", str(tmp_path / "no" / "b.json"), stdout=StringIO())


# --- refusals -------------------------------------------------------------------


@pytest.fixture(scope="module")
def good_backup(django_db_setup, django_db_blocker) -> str:
    """A backup of the test club, taken in a transaction that is then rolled back."""
    with django_db_blocker.unblock(), transaction.atomic():
        build_club()
        text = backup.make_backup().text
        transaction.set_rollback(True)
    return text


def _tamper(text: str, change) -> str:
    document = json.loads(text)
    change(document)
    return json.dumps(document, ensure_ascii=False)


def _retable(document, key, change_rows):
    """Change a table's rows and recompute its checksum and count, as a careful forger would."""
    rows = document["tables"][key]
    change_rows(rows)
    payload = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    document["manifest"]["sha256"][key] = hashlib.sha256(payload.encode()).hexdigest()
    document["manifest"]["counts"][key] = len(rows)


def _resigned(change):
    """``change``, then the manifest signed again with the server's own key.

    What only the server itself could write: the checks behind the signature
    (counts, columns, ids, values) still refuse what it should never have written.
    """

    def change_and_sign(document):
        change(document)
        document["manifest"]["signature"]["value"] = _hmac(document["manifest"])

    return change_and_sign


def _set(mapping, key, value):
    mapping[key] = value


def _give_an_eliminated_team_30_tables(document):
    """A forged backup: a team out of a game comes back its winner, checksums recomputed."""

    def give_30_tables(rows):
        out = next(row for row in rows if row["tables"] == 0 and row["out_in_deal"] is not None)
        out["tables"], out["place"], out["out_in_deal"] = 30, 1, None

    _retable(document, "games.gameteam", give_30_tables)


def _without_link_expiry(document):
    _retable(
        document,
        "games.scorerlink",
        lambda rows: [row.pop("expired_at") for row in rows],
    )


def _without_tables(document, *tables):
    for part in (
        document["tables"],
        document["manifest"]["counts"],
        document["manifest"]["sha256"],
    ):
        for table in tables:
            del part[table]


# The tables each version added: a file of an older version holds none of them.
TABLES_ADDED = {
    6: ("tournaments.stage", "games.rejecteddeal"),
    7: ("tournaments.checkin",),
    8: ("tournaments.substitution",),
    9: ("games.playeralias",),
}


def _as_version(document, version):
    """The rows as ``version`` wrote them: its missing columns and tables taken out."""
    for key, names in MISSING_IN[version].items():
        _retable(
            document, key, lambda rows, names=names: [row.pop(n) for row in rows for n in names]
        )
    _without_tables(
        document,
        *(table for since, added in TABLES_ADDED.items() if since > version for table in added),
    )


def _without_forms_of_play(document):
    """The rows as version 3 wrote them: no settings of docs/rules.md section D, no third
    players."""
    _as_version(document, 3)


def _unsigned_version_2(document):
    """The file as version 2 wrote it: no signature, and no scorer link's expiry."""
    document["manifest"]["version"] = 2
    del document["manifest"]["signature"]
    _without_link_expiry(document)
    _without_forms_of_play(document)


SIGNATURE_FAILS = "signature does not match: the file was changed after it was written"

BAD_FILES = {
    "unknown version": (
        lambda text: _tamper(text, lambda d: _set(d["manifest"], "version", 10)),
        "version 10 of the backup format",
    ),
    "version as text": (
        lambda text: _tamper(text, lambda d: _set(d["manifest"], "version", "1")),
        'version "1" of the backup format',
    ),
    "another format": (
        lambda text: _tamper(text, lambda d: _set(d["manifest"], "format", "fiftysix-results/1")),
        "its format is",
    ),
    "a tampered row": (
        lambda text: text.replace('"points":56', '"points":55', 1),
        "table games.pile fails its checksum",
    ),
    "a tampered password": (
        lambda text: re.sub(r'("username":"pat".*?"password":")\w+', r"\1md5", text, count=1),
        "table auth.user fails its checksum",
    ),
    "a forged row, its checksum and count recomputed": (
        lambda text: _tamper(text, _give_an_eliminated_team_30_tables),
        SIGNATURE_FAILS,
    ),
    "a forged password, its checksum recomputed": (
        lambda text: _tamper(
            text,
            lambda d: _retable(
                d, "auth.user", lambda rows: rows[0].__setitem__("password", "md5$x$0")
            ),
        ),
        SIGNATURE_FAILS,
    ),
    "a changed created_at": (
        lambda text: _tamper(text, lambda d: _set(d["manifest"], "created_at", "2020-01-01")),
        SIGNATURE_FAILS,
    ),
    "a signature of the unsigned content": (
        lambda text: _tamper(
            text,
            lambda d: _set(
                d["manifest"]["signature"],
                "value",
                hashlib.sha256(backup_format.signed_content(d["manifest"])).hexdigest(),
            ),
        ),
        SIGNATURE_FAILS,
    ),
    "another signature algorithm": (
        lambda text: _tamper(
            text, lambda d: _set(d["manifest"]["signature"], "algorithm", "hmac-sha1")
        ),
        SIGNATURE_FAILS,
    ),
    "a signature that is not an object": (
        lambda text: _tamper(text, lambda d: _set(d["manifest"], "signature", "yes")),
        SIGNATURE_FAILS,
    ),
    "a count that is not a number, signed": (
        lambda text: text.replace('"games.game": 27', '"games.game": NaN', 1),
        SIGNATURE_FAILS,
    ),
    "no signature": (
        lambda text: _tamper(text, lambda d: d["manifest"].pop("signature")),
        "no signature, though every backup of version 9 carries one",
    ),
    "an unsigned version 2": (
        lambda text: _tamper(text, _unsigned_version_2),
        "written before backups were signed",
    ),
    # Deals: the demo's 285, 2 left of the corrected game's 3, 1 sent through a
    # link, and 1 in each of the tournament's 2 games: 290.
    "a row too few": (
        lambda text: _tamper(text, lambda d: d["tables"]["games.round"].pop()),
        "table games.round holds 289 rows, but its manifest says 290",
    ),
    "a wrong count": (
        lambda text: _tamper(
            text, _resigned(lambda d: _set(d["manifest"]["counts"], "games.game", 99))
        ),
        "table games.game holds",
    ),
    "a missing table": (
        lambda text: _tamper(text, lambda d: d["tables"].pop("games.pendingdeal")),
        "missing games.pendingdeal",
    ),
    "an unknown table": (
        lambda text: _tamper(text, lambda d: _set(d["tables"], "games.extra", [])),
        "unknown games.extra",
    ),
    "a column too many": (
        lambda text: _tamper(
            text,
            _resigned(
                lambda d: _retable(
                    d, "games.player", lambda rows: rows[0].__setitem__("nickname2", "")
                )
            ),
        ),
        "games.player, row 1, does not have the columns",
    ),
    "an identifier that is not one": (
        lambda text: _tamper(
            text,
            _resigned(
                lambda d: _retable(
                    d, "games.player", lambda rows: rows[0].__setitem__("identifier", "Meera")
                )
            ),
        ),
        "games.player, row 1, column identifier",
    ),
    "two players with one identifier": (
        lambda text: _tamper(
            text,
            _resigned(
                lambda d: _retable(
                    d,
                    "games.player",
                    lambda rows: rows[1].__setitem__("identifier", rows[0]["identifier"]),
                )
            ),
        ),
        "does not fit the database",
    ),
    # Teams: the demo's 12, 2 in each of the 3 extra games, 5 in the tournament: 23.
    "a repeated id": (
        lambda text: _tamper(
            text,
            _resigned(lambda d: _retable(d, "games.team", lambda rows: rows.append(dict(rows[0])))),
        ),
        "games.team, row 24, has a missing or repeated id",
    ),
    "a reference to a missing player": (
        lambda text: _tamper(
            text,
            _resigned(
                lambda d: _retable(
                    d, "games.team", lambda rows: rows[-1].__setitem__("first_player", 9999)
                )
            ),
        ),
        "does not fit the database",
    ),
    "a value of the wrong type": (
        lambda text: _tamper(
            text,
            _resigned(
                lambda d: _retable(
                    d, "games.game", lambda rows: rows[0].__setitem__("created_at", "yesterday")
                )
            ),
        ),
        "games.game, row 1, column created_at",
    ),
    "truncated": (lambda text: text[: len(text) // 2], "not valid JSON"),
    "empty": (lambda text: "", "not valid JSON (line 1, column 1)"),
    "not JSON at all": (lambda text: "PK\x03\x04 zip?", "not valid JSON"),
    "a list": (lambda text: "[]", "has no manifest"),
    "no tables": (
        lambda text: _tamper(text, lambda d: d.pop("tables")),
        "The backup has no tables",
    ),
}


@pytest.mark.django_db
@pytest.mark.parametrize("fault", list(BAD_FILES))
def test_a_bad_file_is_refused_and_nothing_is_written(fault, good_backup, tmp_path):
    spoil, expected = BAD_FILES[fault]
    path = tmp_path / "bad.json"
    spoiled = spoil(good_backup)
    assert spoiled != good_backup
    path.write_text(spoiled, encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        _restore(path)
    assert expected in str(refused.value)
    assert club_is_empty()


@pytest.mark.django_db
def test_a_file_that_is_not_utf8_or_missing_is_refused(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"manifest": "café"}'.encode("latin-1"))
    with pytest.raises(CommandError, match="not UTF-8"):
        _restore(path)
    with pytest.raises(CommandError, match="Cannot read"):
        _restore(tmp_path / "nowhere.json")
    assert club_is_empty()


@pytest.mark.django_db
def test_the_good_file_restores(good_backup, tmp_path):
    # The refusals above are refusals of the faults, not of the file they start from.
    path = tmp_path / "good.json"
    path.write_text(good_backup, encoding="utf-8")
    _restore(path)
    assert Game.objects.filter(label="Backup night, table 2").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("already", ["a login", "a player", "a game", "a tournament"])
def test_a_database_that_holds_club_data_is_refused(already, good_backup, tmp_path):
    if already == "a login":
        User.objects.create_user(username="admin")
    elif already == "a player":
        Player.objects.create(name="Early bird")
    elif already == "a game":
        create_game(label="Tonight", teams=[TeamEntry("A", "B"), TeamEntry("C", "D")])
    else:
        make_tournament(name="Early Cup", teams=0)
    held = backup.make_backup().text
    path = tmp_path / "club.json"
    path.write_text(good_backup, encoding="utf-8")
    with pytest.raises(CommandError, match="already holds club data.*Nothing was restored"):
        _restore(path)
    assert _without_created_at(backup.make_backup().text) == _without_created_at(held)


# --- the signature ------------------------------------------------------------------


# Without a test transaction around it: the command runs as from the shell, and
# exits as it would there.
@pytest.mark.django_db(transaction=True)
def test_the_forged_backup_of_issue_10_exits_non_zero_and_writes_nothing(
    good_backup, tmp_path, capsys
):
    forged = json.loads(_tamper(good_backup, _give_an_eliminated_team_30_tables))
    # The forger did what the guide documents: every checksum and count holds.
    for key, rows in forged["tables"].items():
        payload = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
        assert forged["manifest"]["sha256"][key] == hashlib.sha256(payload.encode()).hexdigest()
        assert forged["manifest"]["counts"][key] == len(rows)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged, ensure_ascii=False), encoding="utf-8")

    with pytest.raises(SystemExit) as exited:
        RestoreCommand().run_from_argv(["manage.py", "restore_club", str(path)])
    assert exited.value.code != 0
    err = capsys.readouterr().err
    assert SIGNATURE_FAILS in err
    assert "or it was written by a server with a different secret key" in err
    assert "Nothing was restored" in err
    assert club_is_empty()
    assert not GameTeam.objects.filter(tables=30).exists()


@pytest.mark.django_db
def test_the_signed_backup_restores_and_says_nothing_of_integrity(good_backup, tmp_path):
    path = tmp_path / "good.json"
    path.write_text(good_backup, encoding="utf-8")
    out, err = _restore_warned(path)
    assert "Restored the backup" in out
    assert err == ""


@pytest.mark.django_db
def test_a_backup_of_a_server_with_another_secret_key_needs_accept_unsigned(
    good_backup, tmp_path, settings
):
    settings.SECRET_KEY = "the-new-server-" + "k" * 50
    path = tmp_path / "moved.json"
    path.write_text(good_backup, encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        _restore(path)
    message = str(refused.value)
    assert SIGNATURE_FAILS in message
    assert "written by a server with a different secret key" in message
    assert "--accept-unsigned" in message
    assert club_is_empty()

    # The organiser olive is restored as one only when the command is told so.
    with pytest.raises(CommandError, match=r"olive \(staff\).*--with-organisers"):
        _restore_warned(path, "--accept-unsigned")
    assert club_is_empty()
    out, err = _restore_warned(path, "--accept-unsigned", "--with-organisers")
    assert "WARNING: the integrity of this backup cannot be proved" in err
    assert "its signature does not match this server's secret key" in err
    assert "gives organiser or admin rights to 1 login: olive (staff)" in err
    assert "Restored the backup" in out
    assert Game.objects.filter(label="Backup night, table 2").exists()


@pytest.mark.django_db
def test_a_backup_signed_before_the_key_was_rotated_verifies_with_the_old_key_kept(
    good_backup, tmp_path, settings
):
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "the-rotated-key-" + "r" * 50
    path = tmp_path / "before-rotation.json"
    path.write_text(good_backup, encoding="utf-8")
    out, err = _restore_warned(path)
    assert "Restored the backup" in out and err == ""


@pytest.mark.django_db
def test_accept_unsigned_still_refuses_a_damaged_file(good_backup, tmp_path, settings):
    settings.SECRET_KEY = "the-new-server-" + "k" * 50
    path = tmp_path / "damaged.json"
    path.write_text(good_backup.replace('"points":56', '"points":55', 1), encoding="utf-8")
    with pytest.raises(CommandError, match="table games.pile fails its checksum"):
        _restore_warned(path, "--accept-unsigned")
    assert club_is_empty()


@pytest.mark.django_db
def test_an_unsigned_version_2_backup_needs_accept_unsigned(good_backup, tmp_path):
    path = tmp_path / "version-2.json"
    path.write_text(_tamper(good_backup, _unsigned_version_2), encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        _restore(path)
    message = str(refused.value)
    assert "version 2 of the backup format, written before backups were signed" in message
    assert "restore it with --accept-unsigned" in message
    assert club_is_empty()

    out, err = _restore_warned(path, "--accept-unsigned", "--with-organisers")
    assert "WARNING: the integrity of this backup cannot be proved" in err
    assert "it is of version 2, written before backups were signed" in err
    assert Game.objects.filter(label="Backup night, table 2").exists()
    assert GameTeam.objects.count() == len(json.loads(good_backup)["tables"]["games.gameteam"])


# --- the format stays what version 1 says ----------------------------------------


def test_every_table_of_the_club_is_in_the_backup():
    club_models = {
        model
        for app in ("games", "tournaments", "leaderboards")
        for model in apps.get_app_config(app).get_models()
    }
    backed_up = {model for _key, model in backup_format.TABLES}
    left_out = {
        model for model in club_models if model._meta.label_lower in backup_format.NOT_BACKED_UP
    }
    assert club_models - backed_up - left_out == set()
    assert User in backed_up


def test_the_columns_of_each_version_are_pinned():
    # A model change fails this test: bump backup_format.VERSION, keep reading the older versions.
    assert backup_format.VERSION == 9
    assert backup_format.READABLE_VERSIONS == {1, 2, 3, 4, 5, 6, 7, 8, 9}
    assert backup_format.columns(1) == VERSION_1_COLUMNS
    assert backup_format.columns(2) == VERSION_2_COLUMNS
    assert backup_format.columns(3) == VERSION_3_COLUMNS
    assert backup_format.columns(4) == VERSION_4_COLUMNS
    assert backup_format.columns(5) == VERSION_5_COLUMNS
    assert backup_format.columns(6) == VERSION_6_COLUMNS
    assert backup_format.columns(7) == VERSION_7_COLUMNS
    assert backup_format.columns(8) == VERSION_8_COLUMNS
    assert backup_format.columns() == backup_format.columns(9) == VERSION_9_COLUMNS


@pytest.mark.django_db
def test_a_substitution_and_the_limit_restore_and_a_version_7_backup_has_none(tmp_path):
    """Version 8 keeps the substitutions and the limit a team; a version 7 backup restores
    with the default limit, one, and no substitution."""
    from club.games.models import Player
    from club.tournaments import substitutions
    from club.tournaments.models import Substitution, Tournament, TournamentTeam
    from tests.tournaments.helpers import make_tournament, night

    with transaction.atomic():  # the club backed up, then gone: restores need an empty one
        cup = make_tournament(teams=4, substitutions=2)
        made = substitutions.substitute(
            entry=TournamentTeam.objects.get(team__name="Anu & Biju"),
            player_out=Player.objects.get(name="Biju"),
            player_in="Omana",
        )
        night(cup, 1)
        substitutions.bring_back(substitution=made)
        text = backup.make_backup().text
        transaction.set_rollback(True)

    def rows():
        return list(
            Substitution.objects.values_list(
                "entry__team__name",
                "player_out__name",
                "player_in__name",
                "first_sitting",
                "returned_from",
            )
        )

    path = tmp_path / "substitutions.json"
    path.write_text(text, encoding="utf-8")
    with transaction.atomic():
        _restore(path)
        assert rows() == [("Anu & Biju", "Biju", "Omana", 1, 2)]
        assert Tournament.objects.get().substitutions == 2
        transaction.set_rollback(True)

    def to_version_7(document):
        document["manifest"]["version"] = 7
        _as_version(document, 7)
        document["manifest"]["signature"]["value"] = _hmac(document["manifest"])

    older = tmp_path / "version-7.json"
    older.write_text(_tamper(text, to_version_7), encoding="utf-8")
    _restore(older)
    assert rows() == []
    assert Tournament.objects.get().substitutions == 1


@pytest.mark.django_db
def test_identifiers_round_trip_and_a_version_8_backup_gives_each_player_a_new_one(tmp_path):
    """Version 9 keeps each player's identifier, which travels with their results, and the
    identifiers merged records were known by, exactly; a version 8 backup restores with
    each player given an identifier of their own, as the migration that added them gave
    them, and no earlier ones."""
    from club.games.people import PlayerAlias, with_identifier
    from club.leaderboards.merge import merge_players
    from tests.tournaments.helpers import make_tournament

    with transaction.atomic():  # the club backed up, then gone: restores need an empty one
        make_tournament(teams=3)
        meera = Player.objects.create(name="Meera")
        for twin in ("Meera K", "Meera Krishnan"):  # one person written down three times
            folded = Player.objects.create(name=twin)
            merge_players(keep=meera, fold=folded)
        identifiers = dict(Player.objects.values_list("name", "identifier"))
        aliases = list(
            PlayerAlias.objects.order_by("pk").values_list(
                "pk", "identifier", "player_id", "added_at"
            )
        )
        text = backup.make_backup().text
        transaction.set_rollback(True)
    assert len(identifiers) == 7 and len(aliases) == 2
    assert {player for _pk, _identifier, player, _at in aliases} == {meera.pk}

    path = tmp_path / "version-9.json"
    path.write_text(text, encoding="utf-8")
    with transaction.atomic():
        _restore(path)
        assert dict(Player.objects.values_list("name", "identifier")) == identifiers
        assert (
            list(
                PlayerAlias.objects.order_by("pk").values_list(
                    "pk", "identifier", "player_id", "added_at"
                )
            )
            == aliases
        )
        # A file naming a folded record still finds the person under the name kept.
        earlier = [identifier for _pk, identifier, _player, _at in aliases]
        assert {key: p.name for key, p in with_identifier(earlier).items()} == {
            identifier: "Meera" for identifier in earlier
        }
        transaction.set_rollback(True)

    def to_version_8(document):
        document["manifest"]["version"] = 8
        _as_version(document, 8)
        document["manifest"]["signature"]["value"] = _hmac(document["manifest"])

    older = tmp_path / "version-8.json"
    older.write_text(_tamper(text, to_version_8), encoding="utf-8")
    _restore(older)
    given = dict(Player.objects.values_list("name", "identifier"))
    assert given.keys() == identifiers.keys()
    assert None not in given.values()
    assert len(set(given.values())) == len(given)  # each player their own
    assert not set(given.values()) & set(identifiers.values())  # the file held none of them
    assert not PlayerAlias.objects.exists()
    # The next player made gets one of their own too.
    assert Player.objects.create(name="Newcomer").identifier not in given.values()


@pytest.mark.django_db
def test_a_version_6_backup_restores_each_teams_first_player_as_captain(tmp_path):
    """Written before captains: a registered team's captain is its first player, as the
    migration that added captains made it."""
    from club.tournaments.models import TournamentTeam
    from tests.tournaments.helpers import make_tournament

    with transaction.atomic():  # the club backed up, then gone: restores need an empty one
        make_tournament(teams=3)
        entry = TournamentTeam.objects.get(team__name="Chitra & Dev")
        entry.captain = entry.team.second_player
        entry.save()
        text = backup.make_backup().text
        transaction.set_rollback(True)

    def to_version_6(document):
        document["manifest"]["version"] = 6
        _as_version(document, 6)
        document["manifest"]["signature"]["value"] = _hmac(document["manifest"])

    older = tmp_path / "version-6.json"
    older.write_text(_tamper(text, to_version_6), encoding="utf-8")
    _restore(older)
    assert dict(TournamentTeam.objects.values_list("team__name", "captain__name")) == {
        "Anu & Biju": "Anu",
        "Chitra & Dev": "Chitra",
        "Esha & Farid": "Esha",
    }


@pytest.mark.django_db
def test_a_version_3_backup_restores_as_todays_game(good_backup, tmp_path):
    """Written before the forms of play: every game, team and tournament restores as the
    game of docs/rules.md sections A to C, teams of two, as the migration left the rows."""

    def to_version_3(document):
        document["manifest"]["version"] = 3
        _without_forms_of_play(document)
        document["manifest"]["signature"]["value"] = _hmac(document["manifest"])

    path = tmp_path / "version-3.json"
    path.write_text(_tamper(good_backup, to_version_3), encoding="utf-8")
    _restore(path)
    before = json.loads(good_backup)["tables"]
    assert Game.objects.count() == len(before["games.game"])
    assert set(Game.objects.values_list("team_size", "scoring", "doubling_mode", "kodi")) == {
        (2, "tables", "multiply", False)
    }
    assert not GameTeam.objects.filter(third_player__isnull=False).exists()
    assert not Round.objects.filter(thani=True).exists()
    assert set(GameTeam.objects.values_list("score", "kodis")) == {(0, 0)}


@pytest.mark.django_db
def test_a_version_1_backup_still_restores_and_its_ratings_are_recomputed(good_backup, tmp_path):
    from club.leaderboards.models import PlayerRating, PlayerTotals, RatingChange

    def to_version_1(document):
        document["manifest"]["version"] = 1
        del document["manifest"]["signature"]
        _without_link_expiry(document)
        _without_forms_of_play(document)
        _retable(
            document,
            "leaderboards.ratingchange",
            lambda rows: [(row.pop("mu_after"), row.pop("sigma_after")) for row in rows],
        )

    path = tmp_path / "old.json"
    path.write_text(_tamper(good_backup, to_version_1), encoding="utf-8")
    with pytest.raises(CommandError, match="version 1 of the backup format, written before"):
        _restore(path)
    _out, err = _restore_warned(path, "--accept-unsigned", "--with-organisers")
    assert "it is of version 1, written before backups were signed" in err
    assert RatingChange.objects.exists()
    assert not RatingChange.objects.filter(mu_after__isnull=True).exists()
    restored = {r.player_id: round(r.rating, 9) for r in PlayerRating.objects.all()}
    before = json.loads(good_backup)["tables"]["leaderboards.playerrating"]
    assert restored == {row["id"] and row["player"]: round(row["rating"], 9) for row in before}
    # The leaderboard figures, left out of every backup, are recomputed from the deals.
    assert PlayerTotals.objects.filter(played__gt=0).count() == len(restored)


VERSION_1_COLUMNS = {
    "auth.user": [
        "id",
        "username",
        "first_name",
        "last_name",
        "email",
        "is_staff",
        "is_superuser",
        "is_active",
        "password",
        "date_joined",
        "last_login",
    ],
    "games.player": ["id", "name", "nickname", "member_number", "active", "created_at"],
    "games.team": ["id", "name", "first_player", "second_player"],
    "games.game": [
        "id",
        "label",
        "status",
        "first_dealer_seat",
        "tables_per_team",
        "payout_bands",
        "double_factor",
        "redouble_factor",
        "deal_limit",
        "ended_early",
        "require_confirmation",
        "results_locked",
        "deals_played",
        "finished_at",
        "dealer_seat",
        "winner",
        "created_at",
        "updated_at",
        "created_by",
    ],
    "games.gameteam": [
        "id",
        "game",
        "team",
        "position",
        "first_player",
        "second_player",
        "tables",
        "place",
        "out_in_deal",
    ],
    "games.round": [
        "id",
        "game",
        "number",
        "all_pass",
        "declarer",
        "bid",
        "trump",
        "doubling",
        "dealer",
        "declaring_team",
        "made",
        "recorded_at",
        "recorded_by",
    ],
    "games.pile": ["id", "round", "game_team", "points"],
    "games.ledgerentry": ["id", "round", "game_team", "change", "balance"],
    "games.scorerlink": [
        "id",
        "game",
        "game_team",
        "token",
        "created_at",
        "created_by",
        "revoked_at",
    ],
    "games.change": [
        "id",
        "game",
        "number",
        "action",
        "before",
        "after",
        "made_by",
        "scorer_link",
        "made_at",
    ],
    "games.pendingdeal": ["id", "game", "number", "entry", "sent_by", "sent_at"],
    "tournaments.tournament": [
        "id",
        "name",
        "starts_on",
        "ends_on",
        "venue",
        "status",
        "is_final",
        "tables_per_team",
        "payout_bands",
        "double_factor",
        "redouble_factor",
        "deal_limit",
        "points_scheme",
        "require_confirmation",
        "results_version",
        "created_at",
        "created_by",
    ],
    "tournaments.tournamentteam": ["id", "tournament", "team", "registered_at"],
    "tournaments.sitting": [
        "id",
        "tournament",
        "number",
        "status",
        "game_size",
        "proposal",
        "proposed_byes",
        "created_at",
        "confirmed_at",
    ],
    "tournaments.sittinggame": ["id", "sitting", "game", "table_label", "position"],
    "tournaments.bye": ["id", "sitting", "entry"],
    "tournaments.standing": [
        "id",
        "tournament",
        "entry",
        "place",
        "shared",
        "points",
        "games",
        "won",
        "net_tables",
        "declared",
        "made",
        "byes",
    ],
    "tournaments.tournamentevent": [
        "id",
        "tournament",
        "action",
        "sitting_number",
        "note",
        "made_by",
        "made_at",
    ],
    "leaderboards.playerrating": ["id", "player", "mu", "sigma", "rating", "games"],
    "leaderboards.ratingchange": ["id", "game", "player", "before", "after", "position"],
    "leaderboards.ratingsstate": ["id", "rebuilt_at", "games"],
}

VERSION_2_COLUMNS = {
    **VERSION_1_COLUMNS,
    "leaderboards.ratingchange": [
        "id",
        "game",
        "player",
        "before",
        "after",
        "position",
        "mu_after",
        "sigma_after",
    ],
}

# Version 3 signs the manifest, and keeps when a scorer link expired.
VERSION_3_COLUMNS = {
    **VERSION_2_COLUMNS,
    "games.scorerlink": [*VERSION_2_COLUMNS["games.scorerlink"], "expired_at"],
}

# Version 4 keeps the forms clubs play: settings, teams of three and four, thani rounds.
FORM_OF_PLAY = [
    "team_size",
    "scoring",
    "doubling_mode",
    "all_pass",
    "kodi",
    "thani_made",
    "thani_failed",
    "small_deck",
]


def _after(columns, name, added):
    at = columns.index(name) + 1
    return [*columns[:at], *added, *columns[at:]]


VERSION_4_COLUMNS = {
    **VERSION_3_COLUMNS,
    "games.game": _after(VERSION_3_COLUMNS["games.game"], "redouble_factor", FORM_OF_PLAY),
    "tournaments.tournament": _after(
        VERSION_3_COLUMNS["tournaments.tournament"], "redouble_factor", FORM_OF_PLAY
    ),
    "games.team": [*VERSION_3_COLUMNS["games.team"], "third_player", "fourth_player"],
    "games.gameteam": [
        *_after(
            VERSION_3_COLUMNS["games.gameteam"], "second_player", ["third_player", "fourth_player"]
        ),
        "score",
        "kodis",
    ],
    "games.round": _after(VERSION_3_COLUMNS["games.round"], "recorded_at", ["thani"]),
}
VERSION_5_COLUMNS = {
    **VERSION_4_COLUMNS,
    "tournaments.standing": _after(
        VERSION_4_COLUMNS["tournaments.standing"], "net_tables", ["score_difference"]
    ),
    "tournaments.tournamentteam": [
        *VERSION_4_COLUMNS["tournaments.tournamentteam"],
        "withdrawn_at",
    ],
}


VERSION_6_COLUMNS = {
    **{
        key: columns
        for key, columns in VERSION_5_COLUMNS.items()
        if not key.startswith("tournaments.sitting")
    },
    "games.game": _after(VERSION_5_COLUMNS["games.game"], "deal_limit", ["tie_deals"]),
    "games.change": _after(VERSION_5_COLUMNS["games.change"], "scorer_link", ["note"]),
    "games.pendingdeal": [
        *VERSION_5_COLUMNS["games.pendingdeal"],
        "counter_entry",
        "counter_by",
        "counter_at",
    ],
    "games.rejecteddeal": [
        "id",
        "game",
        "number",
        "entry",
        "sent_by",
        "reason",
        "rejected_by_link",
        "rejected_by",
        "rejected_at",
    ],
    "tournaments.stage": [
        "id",
        "tournament",
        "number",
        "kind",
        "status",
        "deal_limit",
        "tie_deals",
        "groups",
        "chart",
        "seeds",
        "created_at",
        "confirmed_at",
    ],
    "tournaments.sitting": _after(VERSION_5_COLUMNS["tournaments.sitting"], "number", ["stage"]),
    "tournaments.sittinggame": VERSION_5_COLUMNS["tournaments.sittinggame"],
    "tournaments.tournamentevent": _after(
        VERSION_5_COLUMNS["tournaments.tournamentevent"], "sitting_number", ["stage_number"]
    ),
}


VERSION_7_COLUMNS = {
    **VERSION_6_COLUMNS,
    "tournaments.tournament": _after(
        VERSION_6_COLUMNS["tournaments.tournament"], "require_confirmation", ["check_in"]
    ),
    "tournaments.tournamentteam": [
        *VERSION_6_COLUMNS["tournaments.tournamentteam"],
        "captain_key",
        "captain",
    ],
    "tournaments.checkin": ["id", "entry", "number", "at", "by", "by_captain"],
    "tournaments.sitting": _after(
        VERSION_6_COLUMNS["tournaments.sitting"], "proposed_byes", ["absent"]
    ),
}


VERSION_8_COLUMNS = {
    **VERSION_7_COLUMNS,
    "tournaments.tournament": _after(
        VERSION_7_COLUMNS["tournaments.tournament"], "check_in", ["substitutions"]
    ),
    "tournaments.substitution": [
        "id",
        "entry",
        "player_out",
        "player_in",
        "first_sitting",
        "returned_from",
        "made_by",
        "made_at",
    ],
}


# Version 9 keeps each player's identifier and the identifiers merged records were known by.
VERSION_9_COLUMNS = {
    **VERSION_8_COLUMNS,
    "games.player": _after(VERSION_8_COLUMNS["games.player"], "member_number", ["identifier"]),
    "games.playeralias": ["id", "identifier", "player", "added_at"],
}


@pytest.mark.django_db(transaction=True)  # flush, as on a real server
def test_a_version_4_backup_of_a_points_tournament_restores_its_score_difference(tmp_path):
    """Version 4 kept no score difference: the standings of a points tournament are
    derived again from its games, so the tie-break reads as before the backup."""
    from tests.tournaments.test_forms_of_play import played_international

    played_international()
    before = sorted(Standing.objects.values_list("entry__team__name", "place", "score_difference"))
    assert {difference for _team, _place, difference in before} == {3, 2, -2, -3}

    def to_version_4(document):
        document["manifest"]["version"] = 4
        _as_version(document, 4)
        document["manifest"]["signature"]["value"] = _hmac(document["manifest"])

    path = tmp_path / "version-4.json"
    path.write_text(_tamper(backup.make_backup().text, to_version_4), encoding="utf-8")
    call_command("flush", interactive=False, verbosity=0)
    _restore(path)
    after = sorted(Standing.objects.values_list("entry__team__name", "place", "score_difference"))
    assert after == before


@pytest.mark.django_db(transaction=True)  # flush, as on a real server
def test_a_tournament_in_stages_round_trips_and_a_version_5_backup_has_none(tmp_path):
    """Version 6 keeps the stages, the stage of each sitting and a knockout game's tie rule;
    a version 5 file restores as it was written: Swiss sittings, no tie rule."""
    from club.tournaments import stages
    from club.tournaments.models import Sitting, Stage
    from tests.tournaments.test_stages import event, next_sitting

    tournament = event(teams=4, tables_per_team=3)
    knockout = stages.add_stage(
        tournament=tournament, kind="knockout", qualifiers=4, deal_limit=4, tie_deals=2
    )
    stages.confirm_stage(stage=knockout)
    next_sitting(tournament)
    before = (
        list(Stage.objects.values_list("kind", "seeds", "deal_limit", "tie_deals", "status")),
        sorted(Sitting.objects.values_list("number", "stage__number")),
        sorted(Game.objects.values_list("label", "deal_limit", "tie_deals")),
    )
    text = backup.make_backup().text
    path = tmp_path / "version-6.json"
    path.write_text(text, encoding="utf-8")
    call_command("flush", interactive=False, verbosity=0)
    _restore(path)
    after = (
        list(Stage.objects.values_list("kind", "seeds", "deal_limit", "tie_deals", "status")),
        sorted(Sitting.objects.values_list("number", "stage__number")),
        sorted(Game.objects.values_list("label", "deal_limit", "tie_deals")),
    )
    assert after == before and before[2][0][2] == 2

    def to_version_5(document):
        document["manifest"]["version"] = 5
        _as_version(document, 5)
        document["manifest"]["signature"]["value"] = _hmac(document["manifest"])

    old = tmp_path / "version-5.json"
    old.write_text(_tamper(text, to_version_5), encoding="utf-8")
    call_command("flush", interactive=False, verbosity=0)
    _restore(old)
    assert not Stage.objects.exists()
    assert set(Sitting.objects.values_list("stage", flat=True)) == {None}
    assert set(Game.objects.values_list("tie_deals", flat=True)) == {None}
