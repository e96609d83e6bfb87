"""A document's ``players`` list: who each name of the document is, by an identifier that
travels with them (club.games.people), and their member number where the club gives one.

``"players": [{"name": "Anu", "id": "0b5e…", "member_number": "K-17"}, …]``: each name of
the document at most once, each identifier under one name; a name not listed has no
identifier (an older file), and is found by its name as before. The lists of a file's
documents are one register: a name or an identifier means the same in all of them.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.utils.translation import gettext as _

from club.archive.format import MAX_PLAYER_NAME, ArchiveError, _Place, _quoted, max_length
from club.games.models import Player
from club.games.whos_who import Listed as ListedPlayer
from club.games.whos_who import name_key

PLAYER_KEYS = ("name", "id", "member_number")
MAX_MEMBER_NUMBER = max_length(Player, "member_number")


def _identifier(value: object, name: str, place, field: str) -> uuid.UUID:
    """A UUID in its canonical text: 36 characters, lower case, with its four hyphens."""
    if isinstance(value, str):
        try:
            found = uuid.UUID(value)
        except ValueError:
            found = None
        if found is not None and str(found) == value:
            return found
    raise place(
        _(
            "the identifier of %(name)s, %(value)s, is not an identifier: it must be a UUID "
            "written as 36 characters in lower case, such as "
            "“0b5e8c1e-7f3a-4d2b-9c61-2f0e5a7d4b93”."
        )
        % {"name": name, "value": _quoted(value)},
        field,
    )


def _parse_entry(place: _Place, item: object, number: int, field: str) -> tuple[str, object, str]:
    """A player of the list: their name, the identifier as given, and their member number
    (or "")."""
    what = _("player %(number)d of the list") % {"number": number}
    item = place.json_object(item, PLAYER_KEYS, what=what, field=field)
    for key in ("name", "id"):
        if key not in item:
            raise place.error(
                _("%(what)s needs its “%(key)s”.") % {"what": what, "key": key},
                field=field,
            )
    name = place.text(
        item["name"], field=f"{field}.name", limit=MAX_PLAYER_NAME, what=_("the name")
    )
    member_number = ""
    if "member_number" in item:
        member_number = place.text(
            item["member_number"],
            field=f"{field}.member_number",
            limit=MAX_MEMBER_NUMBER,
            what=_("the member number"),
        )
    return name, item["id"], member_number


def parse_players(raw: object, document: int | None = None) -> list[ListedPlayer]:
    """One document's ``players`` list, checked; raise :class:`ArchiveError` at its first fault."""

    def error(problem: str, field: str | None = "players") -> ArchiveError:
        return ArchiveError(problem, field=field, document=document)

    if not isinstance(raw, list):
        raise error(
            _(
                "“players” must be a list of players, each with its name and identifier, "
                "not %(value)s."
            )
            % {"value": _quoted(raw)}
        )
    place = _Place(None, None)
    listed: list[ListedPlayer] = []
    names: dict[str, str] = {}
    holders: dict[uuid.UUID, str] = {}
    numbered: dict[str, str] = {}  # a member number: the name it was given to
    for number, item in enumerate(raw, start=1):
        field = f"players[{number}]"
        try:
            name, given_id, member_number = _parse_entry(place, item, number, field)
        except ArchiveError as refused:
            raise error(refused.problem, refused.field) from None
        identifier = _identifier(given_id, name, error, f"{field}.id")
        if name_key(name) in names:
            raise error(_("%(name)s is listed twice.") % {"name": name}, f"{field}.name")
        if identifier in holders:
            raise error(
                _("the identifier %(id)s is given to both %(first)s and %(second)s.")
                % {"id": identifier, "first": holders[identifier], "second": name},
                f"{field}.id",
            )
        if member_number and member_number in numbered:
            raise error(
                _("member number %(number)s is given to both %(first)s and %(second)s.")
                % {"number": member_number, "first": numbered[member_number], "second": name},
                f"{field}.member_number",
            )
        if member_number:
            numbered[member_number] = name
        names[name_key(name)] = name
        holders[identifier] = name
        listed.append(ListedPlayer(name, identifier, member_number))
    return listed


def file_players(documents: Sequence[dict]) -> dict[str, ListedPlayer]:
    """Every document's ``players``, by name (:func:`~club.games.whos_who.name_key`): one
    register for the file. A name with another identifier in another document, or an
    identifier under another name, is refused, naming both."""
    register: dict[str, ListedPlayer] = {}
    by_identifier: dict[uuid.UUID, ListedPlayer] = {}
    numbered: dict[str, ListedPlayer] = {}
    for number, document in enumerate(documents, start=1):
        if "players" not in document:
            continue
        where = number if len(documents) > 1 else None
        for player in parse_players(document["players"], where):
            before = register.get(player.key) or by_identifier.get(player.identifier)
            _as_listed_before(player, before, numbered.get(player.member_number), where)
            register[player.key] = by_identifier[player.identifier] = player
            if player.member_number:
                numbered[player.member_number] = player
    return register


def _as_listed_before(
    player: ListedPlayer,
    before: ListedPlayer | None,
    holder: ListedPlayer | None,
    where: int | None,
) -> None:
    """Refuse a player an earlier document lists otherwise: ``before`` (of their name or
    their identifier) with another member number, or with another name or identifier;
    ``holder`` another player with their member number."""
    if (
        before is not None
        and (before.key, before.identifier) == (player.key, player.identifier)
        and before.member_number != player.member_number
    ):
        raise ArchiveError(
            _(
                "%(name)s is listed with member number %(number)s, but an earlier "
                "document of the file gives them %(before)s."
            )
            % {
                "name": player.name,
                "number": player.member_number or "—",
                "before": before.member_number or "—",
            },
            field="players",
            document=where,
        )
    if player.member_number and holder is not None and holder.key != player.key:
        raise ArchiveError(
            _("member number %(number)s is given to both %(first)s and %(second)s.")
            % {
                "number": player.member_number,
                "first": holder.name,
                "second": player.name,
            },
            field="players",
            document=where,
        )
    if before is not None and (before.key, before.identifier) != (
        player.key,
        player.identifier,
    ):
        raise ArchiveError(
            _(
                "%(name)s is listed with the identifier %(id)s, but an earlier document "
                "of the file lists %(before)s with %(before_id)s."
            )
            % {
                "name": player.name,
                "id": player.identifier,
                "before": before.name,
                "before_id": before.identifier,
            },
            field="players",
            document=where,
        )
