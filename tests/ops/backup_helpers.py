"""What the backup tests share: the club they back up, what its pages show, how they
restore, and how a forger changes a backup file.

The club under test is the demo club plus what the demo lacks: logins, a game
with a correction and an undo, scorer links (one revoked) with a deal waiting
for confirmation, and a tournament with a confirmed sitting, a bye and a
proposed sitting. The demo already holds a finished tournament whose results
are final. ``add_second_club`` makes it a site of two clubs: the second with an
organiser of its own, a game and a tournament, and players of both clubs.

The forging helpers change a file the way an attacker holding a backup would:
edit rows, recompute the table's checksum and count as the guide documents
(docs/deploying.md).
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import random
import re
from io import StringIO

from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from club.clubs.addresses import part_of
from club.clubs.models import Club
from club.games import calls, links
from club.games.models import (
    Change,
    Game,
    GameTeam,
    Membership,
    PendingDeal,
    Player,
    ScorerLink,
)
from club.games.people import join
from club.games.services import (
    Deal,
    TeamEntry,
    create_game,
    edit_deal,
    load_seating,
    record_deal,
    submit_deal,
    undo_last_deal,
)
from club.ops.backup import make_backup
from club.ops.backup_versions import MISSING_IN
from club.tournaments import services as tournaments
from club.tournaments.models import Sitting, Tournament
from tests.tournaments.helpers import PAIRS, make_tournament, play_sitting

User = get_user_model()


def _deal(game: Game, declaring_position: int, points: list[int], bid=28) -> Deal:
    """A deal in seats: piles by team position, declared by that team's first player."""
    teams = list(game.teams.order_by("position"))
    return Deal(
        points={team.position: pile for team, pile in zip(teams, points, strict=True)},
        declarer=load_seating(game).seat_of(teams[declaring_position].first_player_id),
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
    submit_deal(game=waiting, number=1, entry=_deal(waiting, 0, [33, 23]), link=first_link)

    linked = create_game(
        label="Backup night, table 3",
        teams=[TeamEntry("Sami", "Rhea"), TeamEntry("Quentin", "Priya")],
        first_dealer=2,
        user=organiser,
    )
    links.issue_links(game=linked, user=organiser)
    [link] = links.issue_links(game=linked, user=organiser)  # the first one is revoked
    submit_deal(game=linked, number=1, entry=_deal(linked, 1, [10, 46], bid=40), link=link)
    # The director called: once through a team's link, answered; once open, with a reason.
    answered, _new = calls.call_director(game=waiting, link=first_link, reason="score")
    calls.answer_call(call=answered, user=organiser)
    calls.call_director(game=linked, link=link)
    calls.call_director(game=linked, reason="misdeal")

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


def add_second_club() -> Club:
    """A second club, in the Gulf: its organiser rashid (no staff account), a game with a
    deal and a tournament with a sitting played. Its game's label and its tournament's name
    are the first club's too (each club's own), and two of its players play in both."""
    gulf = Club.objects.create(
        name="Gulf 56", slug="gulf", languages=["en", "ml"], time_zone="Asia/Dubai"
    )
    rashid = User.objects.create_user(username="rashid", password="rashid-organiser-pw")
    gulf.organisers.add(rashid)
    # The first club's players who play here are registered here too (a name typed at a
    # club is not taken for a player of other clubs only).
    shared = ["Zara", "Yusuf", *(name for pair in PAIRS[:3] for name in pair)]
    join(gulf.pk, Player.objects.filter(name__in=shared).values_list("pk", flat=True))
    game = create_game(
        label="Backup night, table 2",
        teams=[TeamEntry("Zara", "Yusuf"), TeamEntry("Rashid", "Salma")],
        first_dealer=0,
        user=rashid,
        club=gulf,
    )
    record_deal(game=game, number=1, entry=_deal(game, 1, [20, 36]), user=rashid)
    calls.call_director(game=game, reason="leaving")
    tournament = make_tournament(name="Backup Open", teams=3, user=rashid, club=gulf)
    sitting = tournaments.propose_sitting(tournament=tournament, user=rashid, rng=random.Random(6))
    tournaments.confirm_sitting(sitting=sitting, user=rashid, rng=random.Random(7))
    play_sitting(sitting)

    assert Game.objects.filter(label=game.label).count() == 2  # one in each club
    assert Tournament.objects.filter(name="Backup Open").count() == 2
    assert Membership.objects.filter(player__name="Zara").count() == 2
    assert Membership.objects.filter(player__name="Salma").count() == 1
    return gulf


def clubs_held() -> dict[str, object]:
    """The site's clubs, their organisers and their members, as stored."""
    return {
        "clubs": list(
            Club.objects.order_by("pk").values_list(
                "pk", "name", "slug", "languages", "time_zone", "created_at"
            )
        ),
        "organisers": sorted(Club.organisers.through.objects.values_list("club", "user")),
        "members": sorted(Membership.objects.values_list("pk", "club", "player", "since")),
        "games": sorted(Game.objects.values_list("pk", "club")),
        "tournaments": sorted(Tournament.objects.values_list("pk", "club")),
    }


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
    # A link preview's picture is named by the page's version, which is the club's token
    # (new on a restore, so that no copy of an old page is served for the restored one).
    (re.compile(r"preview\.png\?v=[0-9a-f]+"), "preview.png?v="),
]


def _page(client: Client, url: str) -> str:
    response = client.get(url)
    body = b"".join(response) if response.streaming else response.content
    text = body.decode("utf-8")
    for pattern, replacement in _CSRF:
        text = pattern.sub(replacement, text)
    return f"{response.status_code} {response.get('Location', '')}\n{text}"


def _club_urls(club: Club) -> tuple[list[str], list[str]]:
    """Pages of ``club`` anyone may open, and pages for its organisers; from its rows, at
    its address (the short addresses on a site of one club, else ``/clubs/<slug>/``)."""
    at = "/" + part_of(club)
    public = [
        at + page
        for page in (
            "",
            "tournaments/",
            "players/",
            "leaderboards/players/",
            "leaderboards/teams/",
            "api/v1/games/",
            "api/v1/tournaments/",
        )
    ]
    organiser = public[:5]
    for pk in Game.objects.filter(club=club).order_by("pk").values_list("pk", flat=True):
        public += [f"{at}games/{pk}/", f"{at}api/v1/games/{pk}/"]
        organiser += [f"{at}games/{pk}/", f"{at}games/{pk}/links/", f"{at}games/{pk}/sheet/"]
    for pk in Tournament.objects.filter(club=club).order_by("pk").values_list("pk", flat=True):
        pages = ["", "live/", "projector/", "print/", "export.json"]
        pages += ["standings.csv", "games.csv", "deals.csv"]
        public += [f"{at}tournaments/{pk}/{page}" for page in pages]
        public.append(f"{at}api/v1/tournaments/{pk}/")
        organiser.append(f"{at}tournaments/{pk}/")
    for pk, number in (
        Sitting.objects.filter(tournament__club=club)
        .order_by("pk")
        .values_list("tournament", "number")
    ):
        public.append(f"{at}tournaments/{pk}/sittings/{number}/")
        organiser += [
            f"{at}tournaments/{pk}/sittings/{number}/",
            f"{at}tournaments/{pk}/sittings/{number}/sheets/",
        ]
    members = Membership.objects.filter(club=club).order_by("player")
    public += [f"{at}players/{pk}/" for pk in members.values_list("player", flat=True)]
    tokens = ScorerLink.objects.filter(game__club=club).order_by("pk")
    public += [f"{at}s/{token}/" for token in tokens.values_list("token", flat=True)]
    return public, organiser


def _urls() -> tuple[list[str], dict[Club, list[str]]]:
    """Pages anyone may open (the site's home, and each club's), and each club's pages for
    its organisers; from the clubs' rows."""
    public, organiser = ["/"], {}
    for club in Club.objects.order_by("pk"):
        anyone, organisers = _club_urls(club)
        public += anyone
        organiser[club] = organisers
    return public, organiser


def _export(*args: str) -> str:
    out = StringIO()
    call_command("export_results", *args, stdout=out)
    return out.getvalue()


def everything_shown(organiser) -> dict[str, str]:
    """Every page of every club, as a visitor, as ``organiser`` (a staff account) and as
    each club's own organisers see it; and every export of every club."""
    public, organiser_urls = _urls()
    anonymous, staff = Client(), Client()
    staff.force_login(organiser)
    shown = {f"anonymous {url}": _page(anonymous, url) for url in public}
    for club, urls in organiser_urls.items():
        shown |= {f"organiser {url}": _page(staff, url) for url in urls}
        for login in club.organisers.order_by("username"):
            own = Client()
            own.force_login(login)
            shown |= {f"{login.username} {url}": _page(own, url) for url in urls}
    for club in Club.objects.order_by("pk"):
        at = ("--club", club.slug)
        shown[f"export {club.slug} json"] = _export(*at)
        shown[f"export {club.slug} csv"] = _export(*at, "--format", "csv")
        for name in club.tournaments.order_by("pk").values_list("name", flat=True):
            shown[f"export {club.slug} {name} json"] = _export(*at, "--tournament", name)
            for table in ("standings", "games", "deals"):
                shown[f"export {club.slug} {name} {table}"] = _export(
                    *at, "--tournament", name, "--format", "csv", "--table", table
                )
    return shown


def _without_created_at(text: str) -> str:
    """The backup without the moment it was written, nor the signature that covers it."""
    text = re.sub(r'"created_at": "[^"]*"', '"created_at": ""', text, count=1)
    return re.sub(r'("signature": \{[^}]*"value": )"[0-9a-f]*"', r'\1""', text, count=1)


def club_backup(slug: str) -> str:
    """The backup of the club at ``/clubs/<slug>/``, as its organisers download it."""
    return make_backup(club=Club.objects.get(slug=slug)).text


def written(folder, text: str, name: str = "club.json"):
    """``text`` as the file ``name`` in ``folder``."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def same_backup(first: str, second: str) -> bool:
    """Whether two backups hold the same, taken at different moments."""
    return _without_created_at(first) == _without_created_at(second)


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


def _hmac(manifest: dict, secret: str | None = None) -> str:
    """The manifest's HMAC-SHA256 computed with the standard library only."""
    secret = django_settings.SECRET_KEY if secret is None else secret
    content = {key: value for key, value in manifest.items() if key != "signature"}
    text = json.dumps(content, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    key = hashlib.sha256(b"club.backup" + secret.encode()).digest()
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


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
    10: ("clubs.club", "clubs.club_organisers", "games.membership"),
    11: ("competitions.competition", "competitions.competition_events"),
    12: ("games.directorcall",),
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


def _signed_as_version(version: int):
    """The change that makes a backup one an older ``version`` wrote, signed with the
    server's own key as that version signed it."""

    def as_older(document):
        document["manifest"]["version"] = version
        _as_version(document, version)

    return _resigned(as_older)


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
