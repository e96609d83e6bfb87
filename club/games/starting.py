"""Starting a game: its table checked, its players and teams found or added, its rows.

:func:`create_game` starts one game for the pages and the services. An import starts
thousands: :func:`seat_game` makes a game's rows without saving them (the bulk writer,
club.games.bulk, saves many at once), and a :class:`KnownNames` finds each player and
team of the file once, as :func:`find_or_add_player` and :func:`find_or_add_team` would
find them one game at a time, with the same refusals.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from django.db import IntegrityError, transaction
from django.db.models.functions import Lower
from django.utils.translation import gettext as _

from club.clubs import known as clubs
from club.games.errors import ScoringError
from club.games.models import PLAYER_FIELDS, Game, GameTeam, Player, Team, rules_fields
from club.games.other_clubs import check_same_people
from club.games.people import join
from club.games.whos_who import name_key
from club.scoring import names
from club.scoring import rules as core


@dataclass(frozen=True)
class TeamEntry:
    """A team of a new game: its players in seat order (two, three or four), optionally a name.

    ``team``: the team the game is played under when its players tonight are not its usual
    ones (a substitute sits in). ``may_seat_a_substitute``: a named team may sit with a
    player replaced (as many players, at least one its own), as an archive's game says.
    """

    first: str
    second: str
    name: str = ""
    third: str = ""
    fourth: str = ""
    team: Team | None = None
    may_seat_a_substitute: bool = False

    @property
    def players(self) -> list[str]:
        return [self.first, self.second, *(name for name in (self.third, self.fourth) if name)]


class KnownNames:
    """The players and teams one writer has found or added, kept by the name it gave.

    For one transaction (an import): a name looked up once is not looked up again, and
    what is added is known at once. A name given in other capitals or spacing is looked
    up in the database, which decides as it always does (``iexact``). ``register``: the
    file's listed players, matched and settled already (club.games.whos_who), by name
    key. Two names of the file that find one player here are refused: they are two
    people in the file. What was found and what added is kept for the preview.
    """

    def __init__(self, register: Mapping[str, Player] | None = None) -> None:
        self.register = dict(register or {})
        self.players: dict[str, Player] = {}
        self.partners: dict[frozenset[int], list[Team]] = {}
        self.named: dict[str, list[Team]] = {}
        self.holders: dict[int, str] = {}  # a player's id: the file's name that found them
        self.added_players: set[int] = set()
        self.teams: dict[int, tuple[Team, str, bool]] = {}  # id: team, file's name, added

    def player(self, name: str) -> Player:
        found = self.players.get(name)
        if found is None:
            key = name_key(name)
            found = self.register.get(key)
            if found is None:
                found, added = _find_or_add_player(name)
                if added:
                    self.added_players.add(found.pk)
            holder = self.holders.setdefault(found.pk, name)
            if name_key(holder) != key:
                raise ScoringError(
                    _(
                        "Two players of the file, %(first)s and %(second)s, would both be "
                        "%(here)s here."
                    )
                    % {"first": holder, "second": name, "here": found.name},
                    field="teams",
                )
            self.players[name] = found
        return found

    def teams_of(self, players: Sequence[Player]) -> list[Team]:
        key = frozenset(player.pk for player in players)
        if key not in self.partners:
            self.partners[key] = _teams_of(players)
        return _seat_order_first(self.partners[key], players)

    def teams_named(self, name: str) -> list[Team]:
        key = name_key(name)
        if key not in self.named:
            self.named[key] = list(Team.objects.filter(name__iexact=name).order_by("pk"))
        return self.named[key]

    def seated(self, team: Team, name: str, added: bool) -> None:
        self.teams.setdefault(team.pk, (team, name, added))
        if added:  # what was looked up already of these partners, or this name, has it now
            self.partners.get(frozenset(team.player_ids), []).append(team)
            self.named.get(name_key(team.name), []).append(team)


class _Database(KnownNames):
    """No memory: every name is looked up (a page's one game); the players added are kept
    (a player just added is nobody's: club.games.other_clubs does not look them up)."""

    def player(self, name: str) -> Player:
        found, added = _find_or_add_player(name)
        if added:
            self.added_players.add(found.pk)
        return found

    def teams_of(self, players: Sequence[Player]) -> list[Team]:
        return _seat_order_first(_teams_of(players), players)

    def teams_named(self, name: str) -> list[Team]:
        return list(Team.objects.filter(name__iexact=name).order_by("pk"))

    def seated(self, team: Team, name: str, added: bool) -> None:
        pass


def find_or_add_player(name: str, known: KnownNames | None = None) -> Player:
    name = " ".join(name.split())
    return (known or _Database()).player(name)


def typed_names() -> KnownNames:
    """A page's writer of names typed by hand: each looked up afresh, the players it adds
    kept (``added_players``) for :func:`club.games.other_clubs.check_same_people`."""
    return _Database()


def _find_or_add_player(name: str) -> tuple[Player, bool]:
    existing = Player.objects.filter(name__iexact=name).first()
    if existing is not None:
        return existing, False
    return Player.objects.create(name=name), True


def _teams_of(players: Sequence[Player]) -> list[Team]:
    """The club's teams of exactly these players, in any seats, oldest first (found through
    the first two seats' indexes; the rest compared here)."""
    ids = {player.pk for player in players}
    candidates = Team.objects.filter(first_player__in=ids, second_player__in=ids).order_by("pk")
    return [team for team in candidates if team.player_ids == ids]


def _seat_order_first(teams: list[Team], players: Sequence[Player]) -> list[Team]:
    """The teams of these players, those with them in these seats first."""
    in_order = [player.pk for player in players]
    return sorted(teams, key=lambda team: team.player_ids_in_order != in_order)


def find_or_add_team(
    entry: TeamEntry, *players: Player, known: KnownNames | None = None, by_players: bool = False
) -> Team:
    """The team these players are, found or added.

    A team is who plays in it: the partners' team of the name given, or with no name
    their team. ``by_players`` (a results file): the partners' team whatever the file
    calls it (this site's name is kept). A name given by hand that the partners have
    never played under makes a team of that name, as the organiser asked; a name another
    team of other players has already is theirs too (it is a label; pages show the
    players beside it). A file's named team may sit with one player replaced
    (``may_seat_a_substitute``): that team, when the partners have none of their own.
    """
    known = known or _Database()
    named = " ".join(entry.name.split())
    name = named or names.default_team_name([player.name for player in players])
    partners = known.teams_of(players)
    existing = next((team for team in partners if name_key(team.name) == name_key(name)), None)
    if existing is None and partners and (by_players or not named):
        existing = partners[0]
    if existing is None and named and entry.may_seat_a_substitute:
        existing = _with_a_substitute(known.teams_named(name), players)
    added = existing is None
    if existing is None:
        existing = Team.objects.create(name=name, **dict(zip(PLAYER_FIELDS, players, strict=False)))
    known.seated(existing, name, added)
    return existing


def _with_a_substitute(teams: Sequence[Team], players: Sequence[Player]) -> Team | None:
    """Of the teams of a name, the one these players are with a player replaced (as many
    players, at least one its own; the most of its own)."""
    seated = {player.pk for player in players}
    fits = [
        team for team in teams if len(team.player_ids) == len(seated) and team.player_ids & seated
    ]
    return max(fits, key=lambda team: len(team.player_ids & seated), default=None)


def check_new_game(
    label: str, teams: Sequence[TeamEntry], *, label_free: bool = False, club_id: int | None = None
) -> None:
    """Refuse a table that cannot be seated, before anything is written. ``label_free``:
    the caller has just found no game of this label in the club (an import's check of its
    file); ``club_id``: the club that plays it (the home club when None)."""
    if not label.strip():
        raise ScoringError(_("Give the game a label."), field="label")
    if (
        not label_free
        and Game.objects.annotate(lower=Lower("label"))
        .filter(club_id=club_id or clubs.home_id(), lower=label.strip().lower())
        .exists()
    ):
        raise ScoringError(
            _("There is already a game called “%(label)s”.") % {"label": label.strip()},
            field="label",
        )
    sizes = {len(entry.players) for entry in teams}
    if len(sizes) > 1:
        raise ScoringError(
            _("Every team of a game has the same number of players; these have %(sizes)s.")
            % {"sizes": ", ".join(str(size) for size in sorted(sizes))},
            field="teams",
        )
    size = sizes.pop() if sizes else 2
    if size == 2 and len(teams) not in (2, 3, 4):
        raise ScoringError(
            _("A game is 4, 6 or 8 players in teams of two; this one has %(teams)d teams.")
            % {"teams": len(teams)},
            field="teams",
        )
    try:
        core.check_table(len(teams), size)
    except core.RulesError as error:
        raise ScoringError(error.translated(_), field="teams") from None
    seen: dict[str, int] = {}
    for number, entry in enumerate(teams, start=1):
        names = [" ".join(name.split()) for name in entry.players]
        if not all(names) or (entry.fourth and not entry.third):
            raise ScoringError(
                _("Team %(number)d needs two players.") % {"number": number}, field="teams"
            )
        for name in names:
            key = name.lower()
            if key in seen:
                raise ScoringError(
                    _(
                        "%(player)s is named twice at this game "
                        "(team %(first)d and team %(second)d)."
                    )
                    % {"player": name, "first": seen[key], "second": number},
                    field="teams",
                )
            seen[key] = number
    team_names = [entry.name.strip().lower() for entry in teams if entry.name.strip()]
    if len(set(team_names)) != len(team_names):
        raise ScoringError(_("Two teams of this game have the same name."), field="teams")


def seat_game(
    *,
    label: str,
    teams: Sequence[TeamEntry],
    first_dealer: int | None = None,
    rules: core.Rules = core.DEFAULT_RULES,
    user=None,
    rng: random.Random | None = None,
    deal_limit: int | None = None,
    require_confirmation: bool = False,
    tie_deals: int | None = None,
    known: KnownNames | None = None,
    label_free: bool = False,
    by_players: bool = False,
    club=None,
) -> tuple[Game, list[GameTeam]]:
    """A game of ``club`` (None: the home club) and its teams, checked and seated, not saved
    yet; its players and teams are found or added (saved). ``first_dealer``: a seat, or
    None to draw one. ``known``, ``label_free``, ``by_players``: an import's."""
    club_id = club.pk if club is not None else clubs.home_id()
    check_new_game(label, teams, label_free=label_free, club_id=club_id)
    size = len(teams[0].players)
    try:
        rules = replace(rules, deal_limit=rules.deal_limit if deal_limit is None else deal_limit)
        if tie_deals is not None:
            rules = replace(rules, tie_deals=tie_deals)
        core.check_house_rules(rules)
    except core.RulesError as error:
        raise ScoringError(error.translated(_), field=error.field or "rules") from None
    if rules.team_size != size:
        raise ScoringError(
            _(
                "This game's teams are of %(teams)d players, but its settings are for teams of "
                "%(rules)d."
            )
            % {"teams": size, "rules": rules.team_size},
            field="teams",
        )
    seats = len(teams) * rules.team_size
    if first_dealer is None:
        first_dealer = (rng or random.SystemRandom()).randrange(seats)
    elif not 0 <= first_dealer < seats:
        raise ScoringError(
            _("The first dealer must be one of the players seated."), field="first_dealer"
        )
    game = Game(
        club_id=club_id,
        label=label.strip(),
        first_dealer_seat=first_dealer,
        dealer_seat=first_dealer,
        **rules_fields(rules),
        deal_limit=rules.deal_limit,
        tie_deals=rules.tie_deals,
        require_confirmation=require_confirmation,
        created_by=user if user and user.is_authenticated else None,
    )
    seated = []
    names_at_the_table: set[str] = set()
    for position, entry in enumerate(teams):
        players = [find_or_add_player(name, known) for name in entry.players]
        team = entry.team or find_or_add_team(entry, *players, known=known, by_players=by_players)
        if name_key(team.name) in names_at_the_table and entry.team is None:
            team = _by_their_own_name(team, players, known)
        if name_key(team.name) in names_at_the_table:
            raise ScoringError(
                _("Two teams of this game would both be called %(team)s: give one another name.")
                % {"team": team.name},
                field="teams",
            )
        names_at_the_table.add(name_key(team.name))
        seated.append(
            GameTeam(
                game=game,
                team=team,
                position=position,
                tables=rules.tables_per_team,
                **dict(zip(PLAYER_FIELDS, players, strict=False)),
            )
        )
    return game, seated


def _by_their_own_name(team: Team, players: Sequence[Player], known: KnownNames | None) -> Team:
    """A team whose name another team of the game has (two teams of other players may share
    a name): the partners' team of the name made of theirs ("Anu & Biju") instead, so that
    a game's teams are told apart by name, as its deals and its file name them."""
    own = names.default_team_name([player.name for player in players])
    if name_key(own) == name_key(team.name):
        return team
    return find_or_add_team(TeamEntry("", "", own), *players, known=known)


def create_game(
    *,
    label: str,
    teams: Sequence[TeamEntry],
    first_dealer: int | None = None,
    rules: core.Rules = core.DEFAULT_RULES,
    user=None,
    rng: random.Random | None = None,
    deal_limit: int | None = None,
    require_confirmation: bool = False,
    tie_deals: int | None = None,
    club=None,
    same_people: Collection[str] = (),
) -> Game:
    """Seat the teams and start a game. ``first_dealer`` is a seat, or None to draw one;
    ``club`` plays it (the home club when None), and its players become the club's.

    A name typed for a team (an entry without its registered ``team``) that is the player
    of other clubs only is refused (:class:`~club.games.other_clubs.PlayersOfOtherClubs`)
    unless its name key is among ``same_people``: the organiser said it is that person."""
    typed = typed_names()
    try:
        with transaction.atomic():
            game, seated = seat_game(
                label=label,
                teams=teams,
                first_dealer=first_dealer,
                rules=rules,
                user=user,
                rng=rng,
                deal_limit=deal_limit,
                require_confirmation=require_confirmation,
                tie_deals=tie_deals,
                club=club,
                known=typed,
            )
            check_same_people(
                (
                    player
                    for entry, team in zip(teams, seated, strict=True)
                    if entry.team is None  # a registered team's: its registration asked
                    for player in team.players
                ),
                club_id=game.club_id,
                same_people=same_people,
                new=typed.added_players,
                field="teams",
            )
            game.save(force_insert=True)
            for team in seated:
                team.game = game
                team.save(force_insert=True)
            join(game.club_id or clubs.home_id(), {pk for team in seated for pk in team.player_ids})
    except IntegrityError as error:  # a clash with a game started at the same moment
        raise ScoringError(
            _("The game could not be started: %(reason)s") % {"reason": error}, field="label"
        ) from error
    return game
