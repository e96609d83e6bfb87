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

from django.db.models.functions import Lower
from django.utils.translation import gettext as _

from club.games.errors import ScoringError
from club.games.people import Player, PlayerAlias, with_identifier

HERE, NEW, CLASH = "here", "new", "clash"
MAX_NAME = Player._meta.get_field("name").max_length


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
        found = self.player is not None and self.found == HERE
        return found and self.player.name != self.listed.name


class Undecided(ScoringError):
    """Clashes the organiser has not decided yet: nothing is imported until they are."""

    def __init__(self, clashes: Sequence[Match]):
        self.clashes = list(clashes)
        super().__init__(
            _(
                "%(names)s: this site has a player of that name with another identifier. "
                "Say for each whether it is the same person or another person, then import."
            )
            % {"names": ", ".join(clash.listed.name for clash in self.clashes)},
            field="players",
        )


class WhosWho:
    """The file's listed players, each matched (:func:`match`); :meth:`settle` writes what
    that needs and gives the players to seat, by name."""

    def __init__(self, matches: Sequence[Match]):
        self.matches = list(matches)

    @property
    def clashes(self) -> list[Match]:
        return [match for match in self.matches if match.found == CLASH]

    @property
    def undecided(self) -> list[Match]:
        return [match for match in self.clashes if match.choice is None]

    def settle(self) -> dict[str, Player]:
        """Add the new players, give the found ones the file's identifiers as earlier ones,
        and answer {name key: player} for every listed player. In the import's transaction."""
        if self.undecided:
            raise Undecided(self.undecided)
        players: dict[str, Player] = {}
        aliases = []
        for match in self.matches:
            listed = match.listed
            if match.new:
                name = listed.name if match.found == NEW else match.choice.called
                player = Player.objects.create(
                    name=name, identifier=listed.identifier, member_number=listed.member_number
                )
            else:
                player = match.player
                if player.identifier != listed.identifier and not match.by == "identifier":
                    aliases.append(PlayerAlias(identifier=listed.identifier, player=player))
            players[listed.key] = player
        PlayerAlias.objects.bulk_create(aliases)
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
    by_number = {p.member_number: p for p in Player.objects.filter(member_number__in=numbers)}
    keys = [player.key for player in listed]
    by_name = {
        name_key(p.name): p for p in Player.objects.annotate(key=Lower("name")).filter(key__in=keys)
    }
    matches = []
    for player in listed:
        here = by_identifier.get(player.identifier)
        holder = by_number.get(player.member_number) if player.member_number else None
        if here is not None:
            if holder is not None and holder.pk != here.pk:
                raise ScoringError(
                    _(
                        "%(name)s of the file is %(here)s here by identifier, but member number "
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
        elif player.key in by_name:
            choice = choices.pop(player.identifier, None)
            matches.append(Match(player, CLASH, by_name[player.key], choice=choice))
        else:
            matches.append(Match(player, NEW))
    if choices:
        unknown = next(iter(choices))
        raise ScoringError(
            _("The identifier %(id)s is not a clash to decide in this file.") % {"id": unknown},
            field="players",
        )
    _check_one_each(matches)
    return WhosWho(matches)


def _check_one_each(matches: Sequence[Match]) -> None:
    """Two listed players are two people here too, and another person's name is free."""
    seen: dict[int, Match] = {}
    names: dict[str, str] = {}  # the names the new players take, by key
    for match_ in matches:
        if match_.found == HERE or (match_.choice is not None and match_.choice.same):
            before = seen.get(match_.player.pk)
            if before is not None:
                raise ScoringError(
                    _("%(first)s and %(second)s of the file would both be %(here)s here.")
                    % {
                        "first": before.listed.name,
                        "second": match_.listed.name,
                        "here": match_.player.name,
                    },
                    field="players",
                )
            seen[match_.player.pk] = match_
        if match_.found == NEW:
            names[match_.listed.key] = match_.listed.name
    for match_ in matches:
        if match_.choice is None or match_.choice.same:
            continue
        called = " ".join(match_.choice.called.split())
        match_.choice = Choice(False, called)
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
