"""Restoring a club's backup: the rows the site's clubs share, matched with the site's.

A club backup (``club.ops.backup_scope``) holds the logins, players, earlier identifiers
and teams its club's rows name; the site may already have them, shared with its other
clubs. Each is matched here, inside the restore's transaction, and what is new added:

- a *login* by its user name. One the site has must be the same account, joined at the
  same moment (a backup keeps when each login joined); it is left as the site has it,
  password and rights. One the site lacks is added, without the site's rights (a club
  backup writes none), its id kept when no row has it.
- a *player* by their identifier, their own or an earlier one of theirs
  (``club.games.people.with_identifier``): the same person whatever their name. A player
  another club of the site knows keeps the details the site has; one no other club knows
  takes the file's (name, nickname, member number, active). A player the site lacks is
  added, the id kept when free. A name or member number another player of the site has
  is refused, naming both: they are other people.
- an *earlier identifier* is added to its player unless the site has it; one the site
  knows as another player's is refused.
- a *team* by its players in their seats and its name (two teams of the same partners
  may have two names); one the site lacks is added, the id kept when free.

Each match is a map from the file's ids to the site's, which the club's own rows are
written through (``remap``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import connection, models
from django.db.models.functions import Lower
from django.utils.translation import gettext as _

from club.games.models import PLAYER_FIELDS, Membership, Player, PlayerAlias, Team
from club.games.people import with_identifier
from club.games.whos_who import name_key
from club.ops.backup_format import BackupError, fields_of

# Ids looked up at once: well inside every database's limit of a query's parameters.
CHUNK = 500
# Player details a club's restore writes over a player no other club knows.
DETAILS = ("name", "nickname", "member_number", "active")


def _chunks(values: list) -> list[list]:
    return [values[start : start + CHUNK] for start in range(0, len(values), CHUNK)]


def taken_ids(model: type[models.Model], ids) -> set[int]:
    """Which of ``ids`` the site's table of ``model`` already holds."""
    taken: set[int] = set()
    for chunk in _chunks(sorted(set(ids))):
        taken.update(model._base_manager.filter(pk__in=chunk).values_list("pk", flat=True))
    return taken


def insert(model: type[models.Model], objects: list, *, keep_ids: bool = True) -> None:
    """Write ``objects`` as they are (raw: the stored moments of ``auto_now`` columns kept),
    with their ids, or with new ones."""
    fields = [f for f in fields_of(model) if keep_ids or not f.primary_key]
    for chunk in _chunks(objects):
        # QuerySet._insert, what Model.save() writes through, is private: no stub has it.
        model._base_manager._insert(  # type: ignore[attr-defined]  # private, no stub
            chunk, fields=fields, raw=True, using=connection.alias
        )


def _insert_new(model: type[models.Model], instance: models.Model) -> int:
    """Write ``instance`` under a new id; the id."""
    fields = [f for f in fields_of(model) if not f.primary_key]
    [(pk,)] = model._base_manager._insert(  # type: ignore[attr-defined]  # private, no stub
        [instance], fields=fields, returning_fields=[model._meta.pk], raw=True
    )
    return pk


def advance_sequence(model: type[models.Model]) -> None:
    """Move PostgreSQL's id sequence of ``model`` past the rows written under their ids,
    never back, so that a row written under a new id gets one no row has (SQLite's counters
    only go up by themselves)."""
    if connection.vendor != "postgresql":
        return
    quote = connection.ops.quote_name
    table, column = model._meta.db_table, str(model._meta.pk.column)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [quote(table), column])
        (sequence,) = cursor.fetchone()
        if sequence is None:
            return
        cursor.execute(
            f"SELECT setval(%s, GREATEST((SELECT last_value FROM {sequence}), "
            f"(SELECT COALESCE(MAX({quote(column)}), 1) FROM {quote(table)})))",
            [sequence],
        )


def add(model: type[models.Model], objects: list) -> dict[int, int]:
    """Add ``objects`` to the site, each under its own id when no row has it, else a new
    one; {the file's id: the site's}."""
    taken = taken_ids(model, [instance.pk for instance in objects])
    insert(model, [instance for instance in objects if instance.pk not in taken])
    if taken:  # the new ids come after those just written under their own
        advance_sequence(model)
    ids = {instance.pk: instance.pk for instance in objects if instance.pk not in taken}
    for instance in objects:
        if instance.pk in taken:
            ids[instance.pk] = _insert_new(model, instance)
    return ids


def add_rows(model: type[models.Model], objects: list) -> None:
    """``add`` when nothing refers to the rows: those whose id is taken are written at once
    under new ones."""
    taken = taken_ids(model, [instance.pk for instance in objects])
    insert(model, [instance for instance in objects if instance.pk not in taken])
    if taken:  # the new ids come after those just written under their own
        advance_sequence(model)
    insert(model, [instance for instance in objects if instance.pk in taken], keep_ids=False)


def remap(
    model: type[models.Model], objects: list, maps: Mapping[type[models.Model], Mapping[int, int]]
) -> None:
    """Point every reference of ``objects`` to a matched table (players, teams, the club)
    at the site's row."""
    columns = []
    for f in fields_of(model):
        related = f.related_model if f.is_relation else None
        if isinstance(related, type) and related in maps:
            columns.append((f.attname, maps[related]))
    for instance in objects:
        for attname, ids in columns:
            value = getattr(instance, attname)
            if value is not None:
                setattr(instance, attname, ids[value])


def _refuse(message: str, clashes: list[str], club: str) -> None:
    if clashes:
        raise BackupError(message % {"club": club, "clashes": "; ".join(clashes)})


# --- logins ----------------------------------------------------------------------------


def match_logins(users: list, club: str) -> dict[str, int]:
    """{user name: the site's login} for the file's logins, those the site lacks added."""
    model = get_user_model()
    names = [user.username for user in users]
    on_site = {
        login.username: login
        for chunk in _chunks(names)
        for login in model._base_manager.filter(username__in=chunk)
    }
    clashes = [
        _("%(name)s (joined %(site)s here, %(file)s in the backup)")
        % {
            "name": user.username,
            "site": on_site[user.username].date_joined,
            "file": user.date_joined,
        }
        for user in users
        if user.username in on_site and on_site[user.username].date_joined != user.date_joined
    ]
    _refuse(
        _(
            "The backup of the club %(club)s has organisers whose user names are other "
            "accounts on this site: %(clashes)s. Rename or remove those logins here, or "
            "restore into a new database. Nothing was restored."
        ),
        clashes,
        club,
    )
    new = [user for user in users if user.username not in on_site]
    for user in new:
        user.is_staff = user.is_superuser = False  # the site's rights are not the club's
    ids = add(model, new)
    logins = {user.username: ids[user.pk] for user in new}
    logins.update({name: login.pk for name, login in on_site.items()})
    return logins


def logins_named(names: set[str]) -> dict[str, int]:
    """{user name: id} of the site's logins of these names."""
    found: dict[str, int] = {}
    for chunk in _chunks(sorted(names)):
        found.update(
            get_user_model()._base_manager.filter(username__in=chunk).values_list("username", "pk")
        )
    return found


# --- players ---------------------------------------------------------------------------


@dataclass
class Players:
    """The file's players matched with the site's: {the file's id: the site's}, and how
    many were the site's already, kept as the site has them (another club knows them),
    and added."""

    ids: dict[int, int] = field(default_factory=dict)
    matched: int = 0
    kept: int = 0
    added: int = 0


def _known_elsewhere(player_ids: list[int], club_id: int) -> dict[int, list[str]]:
    """{player: the names of the other clubs that know them}."""
    clubs: dict[int, list[str]] = defaultdict(list)
    for chunk in _chunks(sorted(player_ids)):
        members = Membership._base_manager.filter(player__in=chunk).exclude(club_id=club_id)
        for player, name in members.values_list("player", "club__name").order_by("club__name"):
            clubs[player].append(name)
    return clubs


def match_players(players: list[Player], club_id: int, club: str) -> Players:
    """Match the file's players with the site's by identifier; add those it lacks."""
    found = with_identifier([player.identifier for player in players])
    elsewhere = _known_elsewhere([p.pk for p in found.values()], club_id)
    result = Players()
    updated, new = [], []
    for player in players:
        site = found.get(player.identifier)
        if site is None:
            new.append(player)
            continue
        result.ids[player.pk] = site.pk
        result.matched += 1
        if site.pk in elsewhere:
            result.kept += 1
        elif any(getattr(site, name) != getattr(player, name) for name in DETAILS):
            for name in DETAILS:
                setattr(site, name, getattr(player, name))
            updated.append(site)
    _refuse_other_people(updated, new, club)
    Player._base_manager.bulk_update(updated, DETAILS, batch_size=CHUNK)
    added = add(Player, new)
    result.ids.update(added)
    result.added = len(added)
    return result


def _refuse_other_people(updated: list[Player], new: list[Player], club: str) -> None:
    """Refuse the names and member numbers, given to the site's players (``updated``) or
    to players it adds (``new``), that other players of the site have."""
    changing = {player.pk for player in updated}  # the site's ids; the new have none yet
    names = {player.name.lower(): player for player in updated + new}
    numbers = {player.member_number: player for player in updated + new if player.member_number}
    others: list[tuple[Player | None, Player]] = []
    for chunk in _chunks(sorted(names)):
        rows = Player._base_manager.annotate(lowered=Lower("name")).filter(lowered__in=chunk)
        others += [(names.get(other.name.lower()), other) for other in rows]
    for chunk in _chunks(sorted(numbers)):
        numbered = Player._base_manager.filter(member_number__in=chunk)
        others += [(numbers.get(other.member_number), other) for other in numbered]
    # A player being written has their own name; one whose name changes too gives it up.
    clashes = [
        _other_person(player, other)
        for player, other in others
        if player is not None and other.pk not in changing
    ]
    _refuse(
        _(
            "The backup of the club %(club)s names players whom this site knows as other "
            "people (by their identifiers): %(clashes)s. Nothing was restored."
        ),
        list(dict.fromkeys(clashes)),
        club,
    )


def _other_person(player: Player, other: Player) -> str:
    if other.member_number and other.member_number == player.member_number:
        return _(
            "%(name)s (this site's %(other)s, another player, has member number %(number)s)"
        ) % {
            "name": player.name,
            "other": other.name,
            "number": other.member_number,
        }
    return _("%(name)s (this site's %(other)s is another player)") % {
        "name": player.name,
        "other": other.name,
    }


def match_aliases(aliases: list[PlayerAlias], players: Players, club: str) -> None:
    """Add the file's earlier identifiers the site lacks to their players."""
    found = with_identifier([alias.identifier for alias in aliases])
    clashes, new = [], []
    for alias in aliases:
        alias.player_id = players.ids[alias.player_id]
        site = found.get(alias.identifier)
        if site is None:
            new.append(alias)
        elif site.pk != alias.player_id:
            clashes.append(
                _("%(identifier)s (this site's %(player)s)")
                % {"identifier": alias.identifier, "player": site.name}
            )
    _refuse(
        _(
            "The backup of the club %(club)s gives players identifiers that are other "
            "players' on this site: %(clashes)s. Nothing was restored."
        ),
        clashes,
        club,
    )
    insert(PlayerAlias, new, keep_ids=False)


# --- teams -----------------------------------------------------------------------------


def _seats(team: Team) -> tuple:
    return tuple(getattr(team, f"{name}_id") for name in PLAYER_FIELDS)


def match_teams(teams: list[Team], players: Players) -> dict[int, int]:
    """{the file's team: the site's}: the site's team of the same players in the same
    seats and the same name (its own id first), or one added."""
    remap(Team, teams, {Player: players.ids})
    firsts = sorted({team.first_player_id for team in teams})
    on_site: dict[tuple, list[int]] = defaultdict(list)
    for chunk in _chunks(firsts):
        for team in Team._base_manager.filter(first_player__in=chunk).order_by("pk"):
            on_site[(_seats(team), name_key(team.name))].append(team.pk)
    ids, new = {}, []
    for team in teams:
        same = on_site.get((_seats(team), name_key(team.name)), [])
        if same:
            ids[team.pk] = team.pk if team.pk in same else same[0]
        else:
            new.append(team)
    ids.update(add(Team, new))
    return ids
