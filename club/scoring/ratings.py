"""Skill ratings for the club leaderboards, computed from finished games.

Like :mod:`club.scoring.rules` this module imports nothing from Django: it is a
pure function of the games it is given. :func:`rate_games` starts every player
from the same prior and rates the games in the order given (callers pass them
by finish time). Nothing is stored between calls and nothing is random, so the
same list of games always gives the same ratings, to the last bit. A corrected
or deleted game is handled by recomputing from the corrected list: the ratings
can never drift away from what the recorded games say.

The model
---------
Ratings come from openskill's :class:`~openskill.models.PlackettLuce` model
(Weng and Lin's Bayesian approximation, the openskill default) with its default
parameters (``mu`` 25, ``sigma`` 25/3, ``beta`` 25/6, ``tau`` 25/300). It is
chosen because it fits 56 as the club plays it:

* it rates *teams* of players and shares each team's update between the
  partners, so a player's rating follows them from partner to partner;
* it takes a full finishing order of any number of teams, so 3- and 4-team
  games (where teams go out one by one) count every place, not just the win;
* it accepts ties (teams sharing a place), and tied teams receive the same
  change in ``mu``;
* it is fast, and has a closed-form update with no iteration or sampling, so
  a recomputation over the club's whole history is cheap and deterministic.

The other openskill models (Bradley-Terry, Thurstone-Mosteller) rate pairwise
and would also work; Plackett-Luce is the natural model for a finishing order.
Only the places are used, not the tables left at the end: a win is a win.

The displayed rating
--------------------
Each player has a skill estimate ``mu`` and an uncertainty ``sigma``. The
rating shown on the leaderboard is the conservative *ordinal*
``mu - 3 * sigma`` (the skill the player very probably has at least), so a
player climbs both by winning and by playing enough games to be known. It is
shifted so that a new player shows exactly 0 (with the defaults the ordinal
of a new player is already 0) and multiplied by :data:`DISPLAY_SCALE` (10), so
that the rounded whole numbers the caller shows still move after a routine
game: a new player's first win shows about +24, a regular's game a few points.
Ratings go below 0 for players who lose more than they win.

Players and teams
-----------------
A player's rating follows the player from partner to partner. A team that has
played together has a rating of its own, from its results as a team:
:func:`rate_teams` rates each team of a game as one side, with the same model,
prior and display, so a team that won three games out of three ranks above
one that lost its only game, whoever its players are. (The mean of its
players' ratings would say how good they are with anyone, not how the team did.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from openskill.models import PlackettLuce

from club.scoring.messages import _
from club.scoring.rules import TEAM_SIZES, RulesError

__all__ = [
    "DISPLAY_SCALE",
    "PlayerRating",
    "RatedGame",
    "RatingChange",
    "RatingsError",
    "displayed",
    "rate_games",
    "rate_teams",
]

TEAM_SIZE = 2  # the usual team; a game's teams may be 2, 3 or 4 (TEAM_SIZES), all the same
MIN_TEAMS = 2

#: Model prior: a new player's skill estimate and its uncertainty.
MU = 25.0
SIGMA = MU / 3
#: Standard deviations subtracted from ``mu`` for the conservative ordinal.
Z = 3.0
#: Display points per point of ordinal.
DISPLAY_SCALE = 10.0
#: Ordinal of a new player, subtracted so that a new player shows exactly 0.
_BASELINE = MU - Z * SIGMA


class RatingsError(RulesError):
    """A game that cannot be rated.

    ``template`` is an English message marked for translation and ``params``
    fill it in (a ``team`` param is a team index, shown as a name by
    :meth:`~club.scoring.rules.RulesError.translated`); ``game`` is the id of
    the game at fault and ``field`` the part of it (``teams`` or ``places``).
    """

    def __init__(
        self,
        template: str,
        *,
        game: int | None = None,
        field: str | None = None,
        **params: object,
    ):
        self.game = game
        super().__init__(template, field=field, **params)


@dataclass(frozen=True)
class RatedGame:
    """A finished game: its id, the player ids of each team, and each team's place."""

    game: int
    teams: Sequence[Sequence[int]]
    places: Sequence[int]


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating after all the games rated.

    ``rating`` is the displayed rating (see the module docstring), unrounded;
    ``games`` counts the games rated for the player.
    """

    player: int
    mu: float
    sigma: float
    rating: float
    games: int


@dataclass(frozen=True)
class RatingChange:
    """A player's displayed rating just before and just after one game."""

    game: int
    player: int
    before: float
    after: float
    # The skill estimate after the game: where the player's next game starts from.
    mu_after: float = field(default=0.0, compare=False)
    sigma_after: float = field(default=0.0, compare=False)

    @property
    def change(self) -> float:
        return self.after - self.before


def displayed(mu: float, sigma: float) -> float:
    """The displayed rating for a skill estimate: the scaled, shifted ordinal."""
    return DISPLAY_SCALE * ((mu - Z * sigma) - _BASELINE)


def _check(game: RatedGame, *, one_a_side: bool = False) -> None:
    teams, places = game.teams, game.places
    if len(teams) < MIN_TEAMS:
        raise RatingsError(
            _("A game needs at least %(minimum)d teams to be rated, not %(count)d."),
            game=game.game,
            field="teams",
            minimum=MIN_TEAMS,
            count=len(teams),
        )
    seen: set[int] = set()
    # Every team of a game is the same size: two, three or four players.
    size = len(teams[0]) if len(teams[0]) in TEAM_SIZES else TEAM_SIZE
    if one_a_side:  # teams rated as teams: each side is one team
        size = 1
    for index, team in enumerate(teams):
        if len(team) != size:
            raise RatingsError(
                _("Each team must have %(size)d players; %(team)s has %(count)d."),
                game=game.game,
                field="teams",
                size=size,
                team=index,
                count=len(team),
            )
        for player in team:
            if player in seen:
                raise RatingsError(
                    _("A player cannot take two seats in one game."),
                    game=game.game,
                    field="teams",
                )
            seen.add(player)
    if len(places) != len(teams):
        raise RatingsError(
            _("Each of the %(count)d teams needs a place, not %(places)d places."),
            game=game.game,
            field="places",
            count=len(teams),
            places=len(places),
        )
    for index, place in enumerate(places):
        if isinstance(place, bool) or not isinstance(place, int) or not 1 <= place <= len(teams):
            raise RatingsError(
                _("The place of %(team)s must be a whole number from 1 to %(count)d."),
                game=game.game,
                field="places",
                team=index,
                count=len(teams),
            )


def rate_games(
    games: Iterable[RatedGame],
    *,
    start: Mapping[int, PlayerRating] | None = None,
) -> tuple[dict[int, PlayerRating], list[RatingChange]]:
    """Rate ``games`` in the order given, every player starting as new.

    Returns each player's rating after the last game (players of ``start``
    first, then the others in order of first appearance) and, game by game,
    every player's displayed rating before and after it (teams in the game's
    order, first partner first).

    ``start`` continues from ratings an earlier call returned instead of from
    new players: ``rate_games(later, start=rate_games(earlier)[0])`` gives the
    same ratings as ``rate_games(earlier + later)``. The leaderboards should
    still recompute from all games, so that corrections are always honoured.

    Raises :class:`RatingsError` for a game with fewer than two teams, a team
    that is not a pair, a player in two seats, or places that do not fit the
    teams; nothing is rated then.
    """
    return _rate(games, start, one_a_side=False)


def rate_teams(
    games: Iterable[RatedGame],
    *,
    start: Mapping[int, PlayerRating] | None = None,
) -> dict[int, PlayerRating]:
    """Each team's own rating from its results as a team, game after game.

    ``games`` name teams, not players: each of a game's ``teams`` is one team id
    alone (``[[7], [9]]``). A team is rated as one side by the same model as the
    players, from the same prior, and shown the same way (a new team shows 0);
    the returned ratings' ``player`` is the team's id. ``start`` continues as
    :func:`rate_games` does.
    """
    return _rate(games, start, one_a_side=True)[0]


def _rate(
    games: Iterable[RatedGame],
    start: Mapping[int, PlayerRating] | None,
    *,
    one_a_side: bool,
) -> tuple[dict[int, PlayerRating], list[RatingChange]]:
    games = list(games)
    seen_games: set[int] = set()
    for game in games:
        _check(game, one_a_side=one_a_side)
        if game.game in seen_games:
            raise RatingsError(
                _("Game %(number)s is listed twice."), game=game.game, number=game.game
            )
        seen_games.add(game.game)

    # A model of our own for each call: PlackettLuce.rate() can change the
    # model's settings, and no state may leak from one computation to the next.
    model = PlackettLuce(mu=MU, sigma=SIGMA)
    state: dict[int, tuple[float, float, int]] = {
        player: (found.mu, found.sigma, found.games) for player, found in (start or {}).items()
    }
    changes: list[RatingChange] = []

    for game in games:
        players = [player for team in game.teams for player in team]
        before = {player: state.get(player, (MU, SIGMA, 0)) for player in players}
        teams = [
            [model.rating(mu=before[player][0], sigma=before[player][1]) for player in team]
            for team in game.teams
        ]
        rated = model.rate(teams, ranks=[float(place) for place in game.places])
        for team, new_team in zip(game.teams, rated, strict=True):
            for player, new in zip(team, new_team, strict=True):
                mu, sigma, played = before[player]
                state[player] = (new.mu, new.sigma, played + 1)
                changes.append(
                    RatingChange(
                        game=game.game,
                        player=player,
                        before=displayed(mu, sigma),
                        after=displayed(new.mu, new.sigma),
                        mu_after=new.mu,
                        sigma_after=new.sigma,
                    )
                )

    ratings = {
        player: PlayerRating(
            player=player, mu=mu, sigma=sigma, rating=displayed(mu, sigma), games=played
        )
        for player, (mu, sigma, played) in state.items()
    }
    return ratings, changes
