"""Who is who: the players a results file lists, matched to this site's, and then seated.

A file's ``players`` list names each player with the identifier that travels with them
(club.games.people). A listed player is found here by that identifier (theirs, or an
earlier one of theirs), else by member number, else by name; a player found keeps this
site's name. A listed player whose identifier is unknown here but whose name is another
person's here is a *clash*: the organiser says which it is, "the same person" (the
file's identifier becomes an earlier one of theirs, so the next file finds them) or
"another person, called …" (added under that name). Nothing is merged unasked: an
import with a clash undecided is refused, naming it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction
from django.db.models import CharField
from django.db.models.functions import Lower
from django.utils.translation import gettext as _

from club.games.errors import ScoringError
from club.games.people import Player, PlayerAlias, with_identifier
from club.scoring import names as spelling
from club.scoring.names import unstorable

HERE, NEW, CLASH = "here", "new", "clash"


def _name_max() -> int:
    """The most characters a player's name holds: its column's max_length."""
    field = Player._meta.get_field("name")
    assert isinstance(field, CharField) and field.max_length is not None
    return field.max_length


MAX_NAME = _name_max()


def name_key(name: str) -> str:
    """How names are matched: spacing and capitals do not matter."""
    return " ".join(name.split()).lower()


@dataclass(frozen=True)
class Listed:
    """A player as a file lists them: name, identifier, member number (or "")."""

    name: str
    identifier: uuid.UUID
    member_number: str = ""

    @property
    def key(self) -> str:
        return name_key(self.name)


@dataclass(frozen=True)
class Choice:
    """The organiser's word on a clash: the same person as this site's, or another person
    to be added under ``called``."""

    same: bool
    called: str = ""


@dataclass
class Match:
    """Who a listed player is here. ``found``: HERE (``player``, found ``by`` identifier or
    member number), NEW, or CLASH (``player`` is this site's person of that name)."""

    listed: Listed
    found: str
    player: Player | None = None
    by: str = ""
    choice: Choice | None = None

    @property
    def new(self) -> bool:
        """Added here: a new player, or a clash said to be another person."""
        return self.found == NEW or (self.choice is not None and not self.choice.same)

    @property
    def renamed(self) -> bool:
        """Found here under another name than the file's: this site's is kept."""
        return (
            self.player is not None and self.found == HERE and self.player.name != self.listed.name
        )


class ChoiceRefused(ScoringError):
    """An organiser's choice that cannot stand (another person's name taken, empty ...):
    the matches come with it, so the preview can ask again."""

    def __init__(self, message: str, people: WhosWho):
        super().__init__(message, field="players")
        self.people = people


class WhosWho:
    """The file's listed players, each matched (:func:`match`); :meth:`settle` writes what
    that needs and gives the players to seat, by name."""

    def __init__(self, matches: Sequence[Match]):
        self.matches = list(matches)
        self.aliased = 0  # earlier identifiers given (settle)

    @property
    def clashes(self) -> list[Match]:
        return [match for match in self.matches if match.found == CLASH]

    @property
    def undecided(self) -> list[Match]:
        return [match for match in self.clashes if match.choice is None]

    def settle(self, *, adopt: bool = False) -> dict[str, Player]:
        """Add the new players, give the found ones the file's identifiers as earlier ones,
        and answer {name key: player} for every listed player. In the import's transaction;
        every clash decided (:func:`match` refuses one that is not).

        ``adopt`` (the club's roster, loaded at the venue): a player found here by member
        number, name or the organiser's word takes the club's identifier as their own, and
        keeps theirs as an earlier one, so the night's file names them as the club does.
        """
        players: dict[str, Player] = {}
        added: list[Player] = []
        aliases: list[PlayerAlias] = []
        adopted: list[Player] = []
        for match in self.matches:
            listed = match.listed
            if match.new:
                if match.found == NEW:
                    name = listed.name
                else:  # a clash the organiser said is another person
                    assert match.choice is not None
                    name = match.choice.called
                player = Player(
                    name=name, identifier=listed.identifier, member_number=listed.member_number
                )
                added.append(player)
            else:
                # Found here, or a clash the organiser said is this site's person.
                assert match.player is not None
                player = match.player
                if match.by != "identifier" and player.identifier != listed.identifier:
                    if adopt:
                        aliases.append(PlayerAlias(identifier=player.identifier, player=player))
                        player.identifier = listed.identifier
                        adopted.append(player)
                    else:
                        aliases.append(PlayerAlias(identifier=listed.identifier, player=player))
            players[listed.key] = player
        self.aliased = len(aliases)
        try:
            with transaction.atomic():  # a savepoint: a clash with another import is said
                Player.objects.bulk_create(added, batch_size=500)
                Player.objects.bulk_update(adopted, ["identifier"], batch_size=500)
                PlayerAlias.objects.bulk_create(aliases, batch_size=500)
        except IntegrityError as error:
            raise ScoringError(
                _(
                    "Another import or another organiser added one of the file's players "
                    "just now; check the file again."
                ),
                field="players",
            ) from error
        return players


def match(listed: Sequence[Listed], choices: Mapping[uuid.UUID, Choice] | None = None) -> WhosWho:
    """Match a file's listed players to this site's (a few queries, whatever their number),
    with the organiser's ``choices`` for clashes, keyed by the file's identifier. Refused
    (:class:`~club.games.errors.ScoringError`, naming them): a listed player whose
    identifier and member number are two people here, two listed players who are one
    person here, a choice for a player who is no clash, or another person's name taken."""
    choices = dict(choices or {})
    by_identifier = with_identifier(player.identifier for player in listed)
    numbers = [player.member_number for player in listed if player.member_number]
    by_number = {}
    for chunk in _chunks(numbers):
        by_number.update(
            {p.member_number: p for p in Player.objects.filter(member_number__in=chunk)}
        )
    by_name = _named_here([player.name for player in listed])
    matches = []
    for player in listed:
        here = by_identifier.get(player.identifier)
        holder = by_number.get(player.member_number) if player.member_number else None
        if here is not None:
            if holder is not None and holder.pk != here.pk:
                raise ScoringError(
                    _(
                        "The file's %(name)s is %(here)s here by identifier, but member number "
                        "%(number)s belongs to %(holder)s here."
                    )
                    % {
                        "name": player.name,
                        "here": here.name,
                        "number": player.member_number,
                        "holder": holder.name,
                    },
                    field="players",
                )
            matches.append(Match(player, HERE, here, "identifier"))
        elif holder is not None:
            matches.append(Match(player, HERE, holder, "member_number"))
        elif player.name in by_name:
            choice = choices.pop(player.identifier, None)
            matches.append(Match(player, CLASH, by_name[player.name], choice=choice))
        else:
            matches.append(Match(player, NEW))
    if choices:
        names = {player.identifier: player.name for player in listed}
        unknown = next(iter(choices))
        if unknown in names:
            message = _("%(name)s of the file is not a clash: there is nothing to decide.") % {
                "name": names[unknown]
            }
        else:
            message = _("A choice names a player the file does not list.")
        raise ChoiceRefused(message, WhosWho(matches))
    try:
        _check_one_each(matches)
    except ScoringError as error:
        raise ChoiceRefused(error.message, WhosWho(matches)) from None
    return WhosWho(matches)


def _chunks(items: Sequence, size: int = 500):
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _named_here(names: Sequence[str]) -> dict[str, Player]:
    """{name: this site's player of that name}, the names compared as the database compares
    them for its rule that no two players share a name (its own lower case, which is not
    always Python's): two queries a few hundred names."""
    found: dict[str, Player] = {}
    for chunk in _chunks(list(names)):
        with connection.cursor() as cursor:
            cursor.execute("SELECT " + ", ".join(["LOWER(%s)"] * len(chunk)), chunk)
            lowered = dict(zip(cursor.fetchone(), chunk, strict=True))
        here = Player.objects.annotate(key=Lower("name")).filter(key__in=list(lowered))
        found.update({lowered[player.key]: player for player in here})
    return found


def _check_one_each(matches: Sequence[Match]) -> None:
    """Two listed players are two people here too, and another person's name is free."""
    seen: dict[int, Match] = {}
    names: dict[str, str] = {}  # the names the new players take, by key
    for match_ in matches:
        if match_.found == HERE or (match_.choice is not None and match_.choice.same):
            player = match_.player
            assert player is not None  # found here, or this site's person of that name
            before = seen.get(player.pk)
            if before is not None:
                raise ScoringError(
                    _(
                        "Two players of the file, %(first)s and %(second)s, would both be "
                        "%(here)s here."
                    )
                    % {
                        "first": before.listed.name,
                        "second": match_.listed.name,
                        "here": player.name,
                    },
                    field="players",
                )
            seen[player.pk] = match_
        if match_.found == NEW:
            names[match_.listed.key] = match_.listed.name
    for match_ in matches:
        if match_.choice is None or match_.choice.same:
            continue
        try:
            called = spelling.clean_name(match_.choice.called)
        except spelling.UnusableName as error:
            raise ScoringError(error.translated(_), field="players") from None
        match_.choice = Choice(False, called)
        if unstorable(called):
            raise ScoringError(
                _("%(name)s holds a control character: type it again.") % {"name": called[:40]},
                field="players",
            )
        if not called:
            raise ScoringError(
                _("Give %(name)s of the file a name of their own, as another person.")
                % {"name": match_.listed.name},
                field="players",
            )
        if len(called) > MAX_NAME:
            raise ScoringError(
                _("A name can be at most %(max)d characters.") % {"max": MAX_NAME},
                field="players",
            )
        taken = names.get(name_key(called))
        if taken is not None or Player.objects.filter(name__iexact=called).exists():
            raise ScoringError(
                _("%(called)s, the name given to %(name)s of the file, is taken: choose another.")
                % {"called": called, "name": match_.listed.name},
                field="players",
            )
        names[name_key(called)] = called
