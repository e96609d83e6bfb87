"""An unsigned restore checks the results as the results import checks a file.

A signed backup is trusted: its signature proves this server wrote it. A file
whose signature does not verify proves nothing, so ``restore_club
--accept-unsigned`` replays every game from its deals by the rules, derives
every tournament's standings again, and refuses (writing nothing) a file whose
recorded results disagree: the forgeries below are those of the outside attack,
each with its table's checksum and count recomputed and nothing signed again.
It also lists the logins the file makes organisers or admins, and restores them
only with ``--with-organisers``.
"""

from __future__ import annotations

import datetime
import json
from io import StringIO

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction

from club.clubs import known
from club.competitions.models import Competition
from club.competitions.services import Terms, save_competition
from club.games.models import Game, GameTeam, LedgerEntry, Round
from club.leaderboards.models import PlayerRating
from club.ops import backup
from club.ops.management.commands.restore_club import Command as RestoreCommand
from club.ops.restore import club_is_empty
from club.scoring import seasons
from club.tournaments.models import Standing
from tests.ops.backup_helpers import _retable, build_club

User = get_user_model()

UNSIGNED = ("--accept-unsigned", "--with-organisers")


@pytest.fixture(scope="module")
def club_backup(django_db_setup, django_db_blocker) -> str:
    """A signed backup of the test club (games, a tournament, the organiser olive)."""
    with django_db_blocker.unblock(), transaction.atomic():
        build_club()
        text = backup.make_backup().text
        transaction.set_rollback(True)
    return text


def _restore(path, *options: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("restore_club", str(path), *options, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _write(tmp_path, document: dict) -> str:
    path = tmp_path / "unsigned.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return str(path)


class Club:
    """The backup's rows, read as a forger reads them to pick what to change."""

    def __init__(self, document: dict):
        self.document = document
        tables = document["tables"]
        self.games = {row["id"]: row for row in tables["games.game"]}
        self.teams = {row["id"]: row for row in tables["games.gameteam"]}
        self.team_names = {row["id"]: row["name"] for row in tables["games.team"]}
        self.rounds = {row["id"]: row for row in tables["games.round"]}
        self.tournaments = {row["id"]: row for row in tables["tournaments.tournament"]}
        self.entries = {row["id"]: row for row in tables["tournaments.tournamentteam"]}

    def team_name(self, game_team_id: int) -> str:
        return self.team_names[self.teams[game_team_id]["team"]]

    def label(self, game_id: int) -> str:
        return self.games[game_id]["label"]

    def change(self, key: str, pick, edit) -> dict:
        """Edit the first row of ``key`` that ``pick`` accepts, recomputing the checksum."""
        found = {}

        def change_rows(rows):
            row = next(row for row in rows if pick(row))
            found.update(row)
            edit(row)

        _retable(self.document, key, change_rows)
        return found


def _game_named(club: Club, game_id: int) -> list[str]:
    """What a refusal says of a game: its id and its label."""
    return [f"Game {game_id} “{club.label(game_id)}”"]


def _tables_not_conserved(club: Club) -> list[str]:
    # A finished game's winner given 5 more tables: more than were ever dealt out.
    row = club.change(
        "games.gameteam",
        lambda row: row["place"] == 1 and row["tables"] > 0,
        lambda row: row.__setitem__("tables", row["tables"] + 5),
    )
    game = club.games[row["game"]]
    teams = sum(1 for team in club.teams.values() if team["game"] == row["game"])
    dealt = game["tables_per_team"] * teams
    return [
        *_game_named(club, row["game"]),
        f"its teams hold {dealt + 5} tables in all, but {dealt} were dealt out",
        f"team {club.team_name(row['id'])}: the file gives tables as {row['tables'] + 5}",
        f"give {row['tables']}",
    ]


def _ledger_row_edited(club: Club) -> list[str]:
    row = club.change(
        "games.ledgerentry",
        lambda row: row["change"] > 0,
        lambda row: row.update(change=row["change"] + 1, balance=row["balance"] + 1),
    )
    round_ = club.rounds[row["round"]]
    return [
        *_game_named(club, round_["game"]),
        f"deal {round_['number']}, team {club.team_name(row['game_team'])}",
        f"the ledger says {row['change'] + 1:+d} ({row['balance'] + 1} after)",
        f"the deal, settled by the rules, gives {row['change']:+d} ({row['balance']} after)",
    ]


def _pile(total: int):
    """A pile changed by one point, so that the deal's piles add up to ``total``."""

    def tamper(club: Club) -> list[str]:
        step = total - 56
        row = club.change(
            "games.pile",
            lambda row: 0 < row["points"] < 56,
            lambda row: row.__setitem__("points", row["points"] + step),
        )
        round_ = club.rounds[row["round"]]
        return [
            *_game_named(club, round_["game"]),
            f"Deal {round_['number']}: The piles add up to {total}; they must add up to "
            "exactly 56.",
        ]

    return tamper


def _pile_for_a_team_out(club: Club) -> list[str]:
    """A team already out given a pile taken from one still playing: the piles still add up
    to 56 and the ledger still matches (a team out moves no tables), but no rule allows it."""
    out = next(
        team
        for team in club.teams.values()
        if team["out_in_deal"] is not None
        and club.games[team["game"]]["deals_played"] > team["out_in_deal"]
    )
    later = next(
        round_
        for round_ in club.rounds.values()
        if round_["game"] == out["game"] and round_["number"] > out["out_in_deal"]
    )

    def give_a_pile(rows):
        taken = next(row for row in rows if row["round"] == later["id"] and row["points"] > 0)
        taken["points"] -= 1
        rows.append(
            {
                "id": max(row["id"] for row in rows) + 1,
                "round": later["id"],
                "game_team": out["id"],
                "points": 1,
            }
        )

    _retable(club.document, "games.pile", give_a_pile)
    return [
        *_game_named(club, out["game"]),
        f"Deal {later['number']}: {club.team_name(out['id'])} is out and reports no pile.",
    ]


def _deal_settlement_edited(club: Club) -> list[str]:
    # A contract that was made, recorded as failed (and its declaring team's ledger kept).
    row = club.change(
        "games.round",
        lambda row: row["made"] and not row["thani"],
        lambda row: row.__setitem__("made", False),
    )
    return [
        *_game_named(club, row["game"]),
        f"deal {row['number']}: the file gives made as no, but the deals, settled by the "
        "rules, give yes",
    ]


def _winner_edited(club: Club) -> list[str]:
    row = club.change(
        "games.game",
        lambda row: row["winner"] is not None,
        lambda row: row.__setitem__(
            "winner",
            next(
                team["id"]
                for team in club.teams.values()
                if team["game"] == row["id"] and team["id"] != row["winner"]
            ),
        ),
    )
    return [
        *_game_named(club, row["id"]),
        f"the file gives winner as {club.team_name(_other_team(club, row))}",
        f"give {club.team_name(row['winner'])}",
    ]


def _other_team(club: Club, game: dict) -> int:
    return next(
        team["id"]
        for team in club.teams.values()
        if team["game"] == game["id"] and team["id"] != game["winner"]
    )


def _standings_row_edited(club: Club) -> list[str]:
    row = club.change(
        "tournaments.standing",
        lambda row: row["games"] > 0,
        lambda row: row.__setitem__("won", row["won"] + 1),
    )
    tournament = club.tournaments[row["tournament"]]
    team = club.team_names[club.entries[row["entry"]]["team"]]
    return [
        f"Tournament “{tournament['name']}”, team {team}",
        f"the standings give won as {row['won'] + 1}, but its games give {row['won']}",
    ]


RESULTS_FORGED = {
    "tables not conserved": _tables_not_conserved,
    "a ledger row edited": _ledger_row_edited,
    "a pile edited: the piles add up to 55": _pile(55),
    "a pile edited: the piles add up to 57": _pile(57),
    "a pile given to a team out, the ledger unchanged": _pile_for_a_team_out,
    "a deal's settlement edited": _deal_settlement_edited,
    "a game's winner edited": _winner_edited,
    "a standings row edited": _standings_row_edited,
}


@pytest.mark.django_db
@pytest.mark.parametrize("forgery", list(RESULTS_FORGED))
def test_forged_results_are_refused_naming_what_is_wrong(forgery, club_backup, tmp_path):
    document = json.loads(club_backup)
    said = RESULTS_FORGED[forgery](Club(document))
    path = _write(tmp_path, document)
    with pytest.raises(CommandError) as refused:
        _restore(path, *UNSIGNED)
    message = str(refused.value)
    for words in said:
        assert words in message
    assert "Nothing was restored" in message
    assert club_is_empty()


# Without a test transaction around it: the command runs as from the shell, its
# transaction commits or rolls back for real, and it exits as it would there.
@pytest.mark.django_db(transaction=True)
def test_a_forged_ledger_exits_non_zero_and_leaves_the_database_empty(
    club_backup, tmp_path, capsys
):
    document = json.loads(club_backup)
    said = _ledger_row_edited(Club(document))
    path = _write(tmp_path, document)
    with pytest.raises(SystemExit) as exited:
        RestoreCommand().run_from_argv(["manage.py", "restore_club", path, *UNSIGNED])
    assert exited.value.code != 0
    err = capsys.readouterr().err
    assert "WARNING: the integrity of this backup cannot be proved" in err
    for words in said:
        assert words in err
    assert club_is_empty()


def _made_superuser(club: Club) -> None:
    club.change(
        "auth.user",
        lambda row: row["username"] == "pat",
        lambda row: row.__setitem__("is_superuser", True),
    )


@pytest.mark.django_db
def test_a_login_made_superuser_is_named_and_refused_without_the_flag(club_backup, tmp_path):
    document = json.loads(club_backup)
    _made_superuser(Club(document))
    path = _write(tmp_path, document)
    with pytest.raises(CommandError) as refused:
        _restore(path, "--accept-unsigned")
    message = str(refused.value)
    assert "pat (superuser)" in message
    assert "olive (staff)" in message
    assert "--with-organisers" in message
    assert "Nothing was restored" in message
    assert club_is_empty()

    # Told so, the restore gives them their rights, after a warning naming them.
    out, err = _restore(path, *UNSIGNED)
    assert "Restored the backup" in out
    assert "gives organiser or admin rights to 2 logins: olive (staff), pat (superuser)" in err
    assert User.objects.get(username="pat").is_superuser


@pytest.mark.django_db
@pytest.mark.parametrize("rights", ["user_permissions", "groups"])
def test_a_login_given_a_permission_is_named_and_refused_even_with_the_flag(
    rights, club_backup, tmp_path
):
    # A backup never holds groups or single permissions (organisers are staff accounts).
    document = json.loads(club_backup)
    Club(document).change(
        "auth.user",
        lambda row: row["username"] == "pat",
        lambda row: row.__setitem__(rights, ["games.change_game"]),
    )
    path = _write(tmp_path, document)
    for options in (("--accept-unsigned",), UNSIGNED):
        with pytest.raises(CommandError) as refused:
            _restore(path, *options)
        message = str(refused.value)
        assert "pat (" in message and "games.change_game" in message
        assert "no backup holds" in message
        assert "Nothing was restored" in message
        assert club_is_empty()


def _comparable_tables(text: str) -> dict:
    """Every table but those an unsigned restore derives again (ratings, standings'
    versions): the rows the club recorded."""
    tables = json.loads(text)["tables"]
    for key in (
        "leaderboards.playerrating",
        "leaderboards.ratingchange",
        "leaderboards.ratingsstate",
    ):
        del tables[key]
    for row in tables["tournaments.tournament"]:
        del row["results_version"]
    return tables


@pytest.mark.django_db
def test_a_clean_unsigned_backup_restores_with_its_organisers_when_told(club_backup, tmp_path):
    document = json.loads(club_backup)
    document["manifest"].pop("signature")  # no signature at all: nothing proves the file
    path = _write(tmp_path, document)

    with pytest.raises(CommandError) as refused:
        _restore(path, "--accept-unsigned")
    message = str(refused.value)
    assert "olive (staff)" in message and "--with-organisers" in message
    assert club_is_empty()

    out, err = _restore(path, *UNSIGNED)
    assert "Restored the backup" in out
    assert "gives organiser or admin rights to 1 login: olive (staff)" in err
    assert User.objects.get(username="olive").is_staff
    assert _comparable_tables(backup.make_backup().text) == _comparable_tables(club_backup)
    before = {
        row["player"]: round(row["rating"], 9)
        for row in json.loads(club_backup)["tables"]["leaderboards.playerrating"]
    }
    assert {r.player_id: round(r.rating, 9) for r in PlayerRating.objects.all()} == before


@pytest.mark.django_db
def test_forged_ratings_are_recomputed_not_trusted(club_backup, tmp_path):
    document = json.loads(club_backup)
    forged = Club(document).change(
        "leaderboards.playerrating",
        lambda row: True,
        lambda row: row.update(rating=9999.0, mu=9999.0),
    )
    path = _write(tmp_path, document)
    _restore(path, *UNSIGNED)
    rating = PlayerRating.objects.get(player_id=forged["player"])
    assert round(rating.rating, 9) == round(forged["rating"], 9)


@pytest.mark.django_db
def test_a_signed_backup_with_organisers_restores_as_before(club_backup, tmp_path):
    path = tmp_path / "signed.json"
    path.write_text(club_backup, encoding="utf-8")
    out, err = _restore(path)
    assert "Restored the backup" in out and err == ""
    assert User.objects.get(username="olive").is_staff
    assert Game.objects.count() == len(json.loads(club_backup)["tables"]["games.game"])
    assert LedgerEntry.objects.count() and Round.objects.count() and GameTeam.objects.count()
    assert Standing.objects.exists()


@pytest.mark.django_db
def test_a_login_made_a_clubs_organiser_is_named_and_refused_without_the_flag(
    club_backup, tmp_path
):
    # A club's organiser writes in it as a staff account does: a right a forger can give.
    document = json.loads(club_backup)
    [home] = document["tables"]["clubs.club"]
    _retable(
        document,
        "clubs.club_organisers",
        lambda rows: rows.append({"id": len(rows) + 1, "club": home["id"], "user": "pat"}),
    )
    path = _write(tmp_path, document)
    with pytest.raises(CommandError) as refused:
        _restore(path, "--accept-unsigned")
    message = str(refused.value)
    assert f"pat (organiser of {home['name']})" in message
    assert "olive (staff)" in message and "--with-organisers" in message
    assert club_is_empty()

    out, err = _restore(path, *UNSIGNED)
    assert "Restored the backup" in out
    assert f"2 logins: olive (staff), pat (organiser of {home['name']})" in err
    club = apps.get_model("clubs", "Club").objects.get(slug=home["slug"])
    assert list(club.organisers.values_list("username", flat=True)) == ["pat"]
    assert club.is_organised_by(User.objects.get(username="pat"))


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("place_points", [4, 6, 10], "The points cannot rise from a place to the next."),
        ("ranks", "pairs", "Choose whether teams or players are ranked."),
        ("ends_on", "9999-12-31", "Give days between the years 1900 and 2199."),
    ],
)
def test_a_forged_competition_is_refused_naming_it(db, tmp_path, field, value, said):
    """A rule, a choice or a day no season could be made with."""
    with transaction.atomic():
        build_club()
        save_competition(
            club=known.home(),
            terms=Terms(
                name="Winter league",
                starts_on=datetime.date(2026, 1, 1),
                ends_on=datetime.date(2026, 3, 31),
                counts=Competition.Counts.ALL,
                ranks=Competition.Ranks.TEAMS,
                method=seasons.PLACES,
                place_points=(10, 6, 4),
            ),
        )
        document = json.loads(backup.make_backup().text)
        transaction.set_rollback(True)
    _retable(
        document,
        "competitions.competition",
        lambda rows: rows[0].__setitem__(field, value),
    )
    path = _write(tmp_path, document)
    with pytest.raises(CommandError) as refused:
        _restore(path, *UNSIGNED)
    message = str(refused.value)
    assert f"Competition “Winter league”: {said}" in message
    assert "Nothing was restored" in message
    assert club_is_empty()
