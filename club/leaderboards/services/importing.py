"""Importing a club's register from a CSV file: every row checked first, then written at
once.

A row matches one of the club's players by member number, else any player of the site
by name (ignoring case: one person across clubs), and updates it; other rows add
players. Every player the file names becomes one of the club's players: a player the
site had, of another club, joins it. Any fault refuses the whole file: a
:class:`PlayerImportError` lists each fault with its row and column, and nothing is
saved. What a fault says is one of the constants below.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from club.clubs import known
from club.clubs.models import Club
from club.games.models import Player
from club.games.people import Membership, join
from club.leaderboards.services.register import (
    MEMBER_NUMBER_MAX,
    NAME_MAX,
    NICKNAME_MAX,
    SHARED_PLAYER,
    RegisterError,
    member_number_taken,
    name_taken,
)
from club.scoring import names
from club.web.uploads import size_text

COLUMNS = ("name", "nickname", "member_number", "active")
TRUE_WORDS = {"1", "yes", "y", "true", "t", "active"}
FALSE_WORDS = {"0", "no", "n", "false", "f", "inactive"}
# A register of 5,000 players (a federation) is about 200 KB. The import page stops a
# larger file while it is read (forms.ImportForm); the command reads it, then refuses.
MAX_IMPORT_BYTES = 1_000_000

# Where a fault is: a cell, or a whole row.
FAULT_IN_CELL = gettext_lazy("Row %(row)d, column %(column)s: %(message)s")
FAULT_IN_ROW = gettext_lazy("Row %(row)d: %(message)s")
# The file as a whole.
FILE_TOO_LARGE = gettext_lazy("The file is too large (at most %(most)s).")
NOT_UTF8 = gettext_lazy("The file is not UTF-8 text; save it as CSV UTF-8.")
CSV_UNREADABLE = gettext_lazy("The CSV cannot be read: %(e)s")
FILE_EMPTY = gettext_lazy("The file is empty: it needs a header row and players.")
NO_PLAYERS = gettext_lazy("The file has no players.")
# The header row.
UNKNOWN_COLUMN = gettext_lazy("Unknown column; the columns are %(columns)s.")
COLUMN_TWICE = gettext_lazy("This column appears twice.")
NO_NAME_COLUMN = gettext_lazy("The header row needs a name column.")
# A row, or one of its cells.
TOO_MANY_CELLS = gettext_lazy(
    "This row has %(cells)d cells but the header has %(columns)d columns."
)
CONTROL_CHARACTER = gettext_lazy(
    "This cell holds a control character (such as NUL) that cannot be stored."
)
NAME_MISSING = gettext_lazy("The name is missing.")
AT_MOST = gettext_lazy("At most %(max)d characters.")
NOT_YES_OR_NO = gettext_lazy("“%(value)s” is not yes or no.")
NAME_ON_EARLIER_ROW = gettext_lazy("%(name)s is already on row %(row)d.")
NUMBER_ON_EARLIER_ROW = gettext_lazy("Member number %(number)s is already on row %(row)d.")


@dataclass(frozen=True)
class ImportFault:
    row: int | None  # the line of the file, the header being row 1
    column: str | None
    message: str

    def __str__(self) -> str:
        if self.row and self.column:
            return FAULT_IN_CELL % {"row": self.row, "column": self.column, "message": self.message}
        if self.row:
            return FAULT_IN_ROW % {"row": self.row, "message": self.message}
        return self.message


class PlayerImportError(RegisterError):
    """Every fault found in an import file; nothing was saved."""

    def __init__(self, faults: list[ImportFault]):
        self.faults = faults
        super().__init__("\n".join(str(fault) for fault in faults), field="file")


@dataclass
class ImportResult:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    # Players the site had, of another club, now the club's too (updated or unchanged).
    joined: list[str] = field(default_factory=list)


def _refuse_file(message: str) -> PlayerImportError:
    """The refusal of a file whose fault is in no row."""
    return PlayerImportError([ImportFault(None, None, message)])


def _read_rows(data: bytes | str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header's column names and the rows that hold something, each with its line."""
    if isinstance(data, bytes):
        if len(data) > MAX_IMPORT_BYTES:
            raise _refuse_file(FILE_TOO_LARGE % {"most": size_text(MAX_IMPORT_BYTES)})
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise _refuse_file(str(NOT_UTF8)) from error
    else:
        text = data.removeprefix("\ufeff")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        lines = [(reader.line_num, row) for row in reader]
    except csv.Error as error:
        raise PlayerImportError(
            [ImportFault(reader.line_num, None, CSV_UNREADABLE % {"e": error})]
        ) from error
    lines = [(number, row) for number, row in lines if any(cell.strip() for cell in row)]
    if not lines:
        raise _refuse_file(str(FILE_EMPTY))
    header, rows = lines[0][1], lines[1:]
    return [cell.strip().lower().replace(" ", "_") for cell in header], rows


def _check_header(header: list[str], rows: list) -> None:
    """Refuse a header with unknown, repeated or missing columns, then a file without rows."""
    faults: list[ImportFault] = []
    unknown = [name for name in header if name not in COLUMNS]
    for name in unknown:
        faults.append(ImportFault(1, name or "?", UNKNOWN_COLUMN % {"columns": ", ".join(COLUMNS)}))
    for name in {n for n in header if header.count(n) > 1}:
        faults.append(ImportFault(1, name, str(COLUMN_TWICE)))
    if "name" not in header:
        faults.append(ImportFault(1, "name", str(NO_NAME_COLUMN)))
    if faults:
        raise PlayerImportError(faults)
    if not rows:
        raise _refuse_file(str(NO_PLAYERS))


def _parse_active(value: str) -> bool | None:
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(word)


@dataclass
class _Plan:
    """What an import will write, and what the register will hold after it.

    The register's final names and numbers are keyed by player (a new row by minus its
    line), to catch clashes among rows and with players the file leaves alone. The
    existing players are the site's, each marked ``the_clubs`` when one of the club's: a
    member number finds only the club's own (another club's is a clash), a name anyone.
    """

    existing: list[Player]
    by_number: dict[str, Player]
    by_name: dict[str, Player]
    final_name: dict[int, str]
    final_number: dict[int, str]
    seen_names: dict[str, int] = field(default_factory=dict)
    seen_numbers: dict[str, int] = field(default_factory=dict)
    rows: list[tuple[int, Player | None, dict]] = field(default_factory=list)
    faults: list[ImportFault] = field(default_factory=list)

    @classmethod
    def of(cls, existing: list[Player]) -> _Plan:
        """An empty plan over the register as it is."""
        return cls(
            existing=existing,
            by_number={
                p.member_number: p
                for p in existing
                if p.member_number and getattr(p, "the_clubs", True)
            },
            by_name={p.name.lower(): p for p in existing},
            final_name={p.pk: p.name.lower() for p in existing},
            final_number={p.pk: p.member_number for p in existing if p.member_number},
        )


def _row_values(header: list[str], cells: list[str]) -> dict[str, str]:
    """A row's cells by column, read as names are (names.normal_name); a short row's
    missing cells empty."""
    return {
        column: names.normal_name(cells[i]) if i < len(cells) else ""
        for i, column in enumerate(header)
    }


def _cell_faults(line: int, values: dict[str, str]) -> list[ImportFault]:
    """The cells that hold a control character, then those that cannot be a name."""
    faults = [
        ImportFault(line, column, str(CONTROL_CHARACTER))
        for column, value in values.items()
        if column in COLUMNS and names.unstorable(value)
    ]
    for column, value in values.items():
        if column in COLUMNS and not names.unstorable(value):
            try:
                names.clean_name(value)
            except names.UnusableName as error:
                faults.append(ImportFault(line, column, error.translated(_)))
    return faults


def _length_faults(line: int, values: dict[str, str]) -> list[ImportFault]:
    """A name missing, and a name, nickname or member number too long to keep."""
    faults = []
    name = values.get("name", "")
    if not name:
        faults.append(ImportFault(line, "name", str(NAME_MISSING)))
    elif len(name) > NAME_MAX:
        faults.append(ImportFault(line, "name", AT_MOST % {"max": NAME_MAX}))
    if len(values.get("nickname", "")) > NICKNAME_MAX:
        faults.append(ImportFault(line, "nickname", AT_MOST % {"max": NICKNAME_MAX}))
    if len(values.get("member_number", "")) > MEMBER_NUMBER_MAX:
        faults.append(ImportFault(line, "member_number", AT_MOST % {"max": MEMBER_NUMBER_MAX}))
    return faults


def _active_faults(line: int, values: dict[str, str]) -> list[ImportFault]:
    """An active cell that is neither yes nor no."""
    if values.get("active"):
        try:
            _parse_active(values["active"])
        except ValueError:
            return [ImportFault(line, "active", NOT_YES_OR_NO % {"value": values["active"]})]
    return []


def _repeat_faults(line: int, values: dict[str, str], plan: _Plan) -> list[ImportFault]:
    """A name or member number an earlier row of the file already has."""
    faults = []
    name = values.get("name", "")
    number = values.get("member_number", "")
    if name and name.lower() in plan.seen_names:
        row = plan.seen_names[name.lower()]
        faults.append(ImportFault(line, "name", NAME_ON_EARLIER_ROW % {"name": name, "row": row}))
    if number and number in plan.seen_numbers:
        row = plan.seen_numbers[number]
        faults.append(
            ImportFault(
                line, "member_number", NUMBER_ON_EARLIER_ROW % {"number": number, "row": row}
            )
        )
    return faults


def _plan_row(plan: _Plan, line: int, values: dict[str, str]) -> None:
    """Plan a row found fine: the player it matches, if any, and what it changes."""
    name = values.get("name", "")
    number = values.get("member_number", "")
    plan.seen_names[name.lower()] = line
    if number:
        plan.seen_numbers[number] = line
    player = plan.by_number.get(number) if number else None
    player = player or plan.by_name.get(name.lower())
    changes: dict = {"name": name}
    if values.get("nickname"):
        changes["nickname"] = values["nickname"]
    if number:
        changes["member_number"] = number
    if values.get("active"):
        changes["active"] = _parse_active(values["active"])
    key = player.pk if player else -line
    plan.final_name[key] = name.lower()
    if number:
        plan.final_number[key] = number
    plan.rows.append((line, player, changes))


def _clash_faults(plan: _Plan) -> list[ImportFault]:
    """Clashes with players the file does not change (or changes elsewhere)."""
    faults = []
    for line, player, changes in plan.rows:
        key = player.pk if player else -line
        name = changes["name"]
        if any(other != key and held == name.lower() for other, held in plan.final_name.items()):
            faults.append(ImportFault(line, "name", name_taken(name)))
        number = changes.get("member_number")
        if number:
            holders = [
                other
                for other, held in plan.final_number.items()
                if other != key and held == number
            ]
            if holders:
                holder = next((p.name for p in plan.existing if p.pk in holders), number)
                faults.append(
                    ImportFault(line, "member_number", member_number_taken(number, holder))
                )
    return faults


def _plan(header: list[str], rows: list[tuple[int, list[str]]], existing: list[Player]) -> _Plan:
    """Check every row and plan its write; refuse the file with every fault found."""
    plan = _Plan.of(existing)
    for line, cells in rows:
        if len(cells) > len(header):
            counts = {"cells": len(cells), "columns": len(header)}
            plan.faults.append(ImportFault(line, None, TOO_MANY_CELLS % counts))
            continue
        values = _row_values(header, cells)
        row_faults = [
            *_cell_faults(line, values),
            *_length_faults(line, values),
            *_active_faults(line, values),
            *_repeat_faults(line, values, plan),
        ]
        if row_faults:
            plan.faults.extend(row_faults)
            continue
        _plan_row(plan, line, values)
    plan.faults.extend(_clash_faults(plan))
    if plan.faults:
        raise PlayerImportError(sorted(plan.faults, key=lambda f: (f.row or 0, f.column or "")))
    return plan


def _refuse_shared_changes(plan: _Plan, before: dict) -> None:
    """A row may name a player of another club (they become this club's too), but not
    change their details: those are every club's (club.leaderboards.services.register)."""
    faults = []
    for line, player, changes in plan.rows:
        if player is None or not getattr(player, "elsewhere", False):
            continue
        name0, nickname0, number0, active0 = before[player.pk]
        now = (
            changes["name"],
            changes.get("nickname", nickname0),
            changes.get("member_number", number0),
            changes.get("active", active0),
        )
        if now != (name0, nickname0, number0, active0):
            faults.append(ImportFault(line, None, str(SHARED_PLAYER % {"name": name0})))
    if faults:
        raise PlayerImportError(faults)


def _write(plan: _Plan, club_id: int) -> ImportResult:
    """Write the planned rows, every player of them one of the club's; say which players
    were added, changed or left as they were, and which joined the club."""
    result = ImportResult()
    named: list[int] = []
    before = {p.pk: (p.name, p.nickname, p.member_number, p.active) for p in plan.existing}
    _refuse_shared_changes(plan, before)
    # Two steps, so that swapping names or numbers between players never meets
    # the unique constraints half-way: clear what moves, then write.
    moving = [p for _, p, c in plan.rows if p is not None]
    for mover in moving:
        mover.member_number = ""
        mover.name = f"~import~{mover.pk}"
    Player.objects.bulk_update(moving, ["name", "member_number"])
    for _line, player, changes in plan.rows:
        if player is None:
            created = Player.objects.create(**{"active": True, **changes})
            result.created.append(created.name)
            named.append(created.pk)
            continue
        named.append(player.pk)
        if not getattr(player, "the_clubs", True):
            result.joined.append(changes["name"])
        _name, nickname0, number0, active0 = before[player.pk]
        player.name = changes["name"]
        player.nickname = changes.get("nickname", nickname0)
        player.member_number = changes.get("member_number", number0)
        player.active = changes.get("active", active0)
        player.save(update_fields=["name", "nickname", "member_number", "active"])
        now = (player.name, player.nickname, player.member_number, player.active)
        (result.unchanged if now == before[player.pk] else result.updated).append(player.name)
    join(club_id, named)
    return result


@transaction.atomic
def import_players(data: bytes | str, *, club: Club | None = None) -> ImportResult:
    """Add or update ``club``'s players (the home club's when None) from CSV text with a
    header row.

    Columns: ``name`` (required), ``nickname``, ``member_number``, ``active``
    (yes/no, true/false, 1/0). A row matches one of the club's players by member
    number, else a player of the site by name (ignoring case), and updates it;
    other rows add players; each becomes one of the club's players. An empty cell
    leaves that detail as it is (a new player gets no nickname or number and is
    active). Every row is checked first; on any fault nothing is saved and
    :class:`PlayerImportError` lists each fault with its row and column.
    """
    club_id = club.pk if club is not None else known.home_id()
    header, rows = _read_rows(data)
    _check_header(header, rows)
    the_clubs = Exists(Membership.objects.filter(club_id=club_id, player=OuterRef("pk")))
    elsewhere = Exists(Membership.objects.filter(player=OuterRef("pk")).exclude(club_id=club_id))
    found = (
        Player.objects.select_for_update()
        .annotate(the_clubs=the_clubs, elsewhere=elsewhere)
        .order_by("pk")
    )
    existing: list[Player] = list(found)
    return _write(_plan(header, rows, existing), club_id)
