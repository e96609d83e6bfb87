"""The club register's writes: adding a player, changing their details, marking them
active or inactive.

Players are the site's, one person across its clubs; a club's register is its members
(club.games.people.Membership). Names are unique on the whole site ignoring case, and
member numbers too, when given: a name the site already has is that person, so adding it
to a club's register makes them one of the club's players too (:func:`add_player`), once
the organiser has said it is the same person when they play at other clubs
(club.games.other_clubs). A
refusal is a :class:`RegisterError` naming the field at fault; its words are the
constants below.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import CharField
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from club.clubs import known
from club.clubs.models import Club
from club.games.models import Player
from club.games.other_clubs import check_same_people
from club.games.people import Membership, join
from club.scoring import names
from club.scoring.messages import Refusal


def _max_length(name: str) -> int:
    """The most characters the Player field ``name`` holds: its column's max_length, which
    each of the register's text fields sets (a field without one would have no limit to
    check)."""
    field = Player._meta.get_field(name)
    assert isinstance(field, CharField) and field.max_length is not None, name
    return field.max_length


NAME_MAX = _max_length("name")
NICKNAME_MAX = _max_length("nickname")
MEMBER_NUMBER_MAX = _max_length("member_number")

# What a refusal says (an import's faults say some of it again: importing.py).
# Names and member numbers are the site's: the player who has one may be another club's.
NAME_TAKEN = gettext_lazy("There is already a player called %(name)s on this site.")
MEMBER_NUMBER_TAKEN = gettext_lazy(
    "Member number %(number)s already belongs to %(name)s, a player on this site."
)
ALREADY_THE_CLUBS = gettext_lazy("%(name)s is already one of the club's players.")
# A name the site has, given with a nickname or number that are not that player's.
OTHER_DETAILS = gettext_lazy(
    "%(name)s is already a player on this site, with other details: add them by name alone "
    "to make them one of the club's players, or give this player another name."
)
# A player of several clubs is every club's: one club alone does not change their details.
SHARED_PLAYER = gettext_lazy(
    "%(name)s is also a player of another club: their details are changed by a site administrator."
)
GIVE_A_NAME = gettext_lazy("Give the player a name.")
NAME_TOO_LONG = gettext_lazy("A name can be at most %(max)d characters.")
NICKNAME_TOO_LONG = gettext_lazy("A nickname can be at most %(max)d characters.")
MEMBER_NUMBER_TOO_LONG = gettext_lazy("A member number can be at most %(max)d characters.")
TAKEN_JUST_NOW = gettext_lazy(
    "The player could not be saved: the name or member number was taken just now."
)


class RegisterError(Refusal):
    """A register write refused; ``field`` names the input at fault."""


def _clean(text: str | None, field: str = "name") -> str:
    """``text`` as the register keeps it (names.clean_name); refused if it holds a hidden
    character."""
    try:
        return names.clean_name(text or "")
    except names.UnusableName as error:
        raise RegisterError(error.translated(_), field=field) from None


def name_taken(name: str) -> str:
    """The refusal of a name another player has, in the reader's language."""
    return NAME_TAKEN % {"name": name}


def member_number_taken(number: str, holder: str) -> str:
    """The refusal of a member number ``holder`` has, in the reader's language."""
    return MEMBER_NUMBER_TAKEN % {"number": number, "name": holder}


def _check_player(
    *, name: str, nickname: str, member_number: str, player: Player | None = None
) -> None:
    """Refuse details that are missing, too long, or another player's (``player`` is the one
    being changed)."""
    if not name:
        raise RegisterError(str(GIVE_A_NAME), field="name")
    if len(name) > NAME_MAX:
        raise RegisterError(NAME_TOO_LONG % {"max": NAME_MAX}, field="name")
    if len(nickname) > NICKNAME_MAX:
        raise RegisterError(NICKNAME_TOO_LONG % {"max": NICKNAME_MAX}, field="nickname")
    if len(member_number) > MEMBER_NUMBER_MAX:
        raise RegisterError(
            MEMBER_NUMBER_TOO_LONG % {"max": MEMBER_NUMBER_MAX}, field="member_number"
        )
    others = Player.objects.exclude(pk=player.pk) if player else Player.objects.all()
    clash = others.filter(name__iexact=name).first()
    if clash:
        raise RegisterError(name_taken(clash.name), field="name")
    if member_number:
        holder = others.filter(member_number=member_number).first()
        if holder:
            raise RegisterError(
                member_number_taken(member_number, holder.name), field="member_number"
            )


def _save(player: Player) -> Player:
    """Save ``player``; a clash the checks could not see yet is refused, not raised."""
    try:
        # A savepoint, so a clash with a player added at the same moment leaves
        # the surrounding transaction usable.
        with transaction.atomic():
            player.save()
    except IntegrityError as error:
        raise RegisterError(str(TAKEN_JUST_NOW), field="name") from error
    return player


@dataclass(frozen=True)
class Added:
    """A player added to a club's register: made, or ``joined`` (a player the site had
    already, of another club, who is now one of this club's too, their details as they
    were)."""

    player: Player
    joined: bool


@transaction.atomic
def add_player(
    *,
    club: Club | None = None,
    name: str,
    nickname: str = "",
    member_number: str = "",
    active: bool = True,
    same_people: Collection[str] = (),
) -> Added:
    """Add a player to ``club``'s register (the home club's when None).

    A name the site already has (ignoring case) is that person: one of the club's players
    already is refused, and so are details that are not theirs (not theirs to change from
    here); a player of other clubs only is asked about (refused with
    :class:`~club.games.other_clubs.PlayersOfOtherClubs`) unless their name key is among
    ``same_people``, the organiser having said it is them; then they join the club as they
    are. Otherwise a player is made: names are unique ignoring case, member numbers when
    given, both on the whole site.
    """
    club_id = club.pk if club is not None else known.home_id()
    name, nickname, member_number = _clean(name), _clean(nickname), _clean(member_number)
    same = Player.objects.filter(name__iexact=name).first() if name else None
    if same is not None:
        if Membership.objects.filter(club_id=club_id, player=same).exists():
            raise RegisterError(ALREADY_THE_CLUBS % {"name": same.name}, field="name")
        given = {"nickname": nickname, "member_number": member_number}
        for field, value in given.items():
            if value and value != getattr(same, field):
                # Not dropped unsaid: the details are every club's, not this form's.
                raise RegisterError(OTHER_DETAILS % {"name": same.name}, field=field)
        # Another club's player is this club's only when the organiser says it is them.
        check_same_people([same], club_id=club_id, same_people=same_people, field="name")
        join(club_id, [same.pk])
        return Added(player=same, joined=True)
    _check_player(name=name, nickname=nickname, member_number=member_number)
    player = _save(Player(name=name, nickname=nickname, member_number=member_number, active=active))
    join(club_id, [player.pk])
    return Added(player=player, joined=False)


def register_player(
    *,
    club: Club | None = None,
    name: str,
    nickname: str = "",
    member_number: str = "",
    active: bool = True,
    same_people: Collection[str] = (),
) -> Player:
    """:func:`add_player`'s player (made, or joined from the site's players)."""
    return add_player(
        club=club,
        name=name,
        nickname=nickname,
        member_number=member_number,
        active=active,
        same_people=same_people,
    ).player


def check_only_the_clubs(player: Player, club: Club | None) -> None:
    """Refuse a change of details asked by ``club`` (None: a site administrator, who may)
    for a player who is also another club's."""
    if club is not None and Membership.objects.filter(player=player).exclude(club=club).exists():
        raise RegisterError(SHARED_PLAYER % {"name": player.name}, field="name")


@transaction.atomic
def update_player(
    *,
    player: Player,
    name: str,
    nickname: str = "",
    member_number: str = "",
    active: bool = True,
    club: Club | None = None,
) -> Player:
    """Change a player's details; past games show the new name. Asked by ``club`` (None: a
    site administrator), refused for a player who is also another club's."""
    name, nickname, member_number = _clean(name), _clean(nickname), _clean(member_number)
    player = Player.objects.select_for_update().get(pk=player.pk)
    check_only_the_clubs(player, club)
    _check_player(name=name, nickname=nickname, member_number=member_number, player=player)
    player.name, player.nickname, player.member_number, player.active = (
        name,
        nickname,
        member_number,
        active,
    )
    return _save(player)


@transaction.atomic
def set_player_active(*, player: Player, active: bool, club: Club | None = None) -> Player:
    """Mark a player active or inactive; an inactive player keeps every result. Asked by
    ``club`` (None: a site administrator), refused for a player who is also another club's."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    check_only_the_clubs(player, club)
    player.active = active
    player.save(update_fields=["active"])
    return player
