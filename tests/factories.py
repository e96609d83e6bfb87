"""Factories for the club's records, and the one set of helpers that play a game in tests.

Games are started and played through the real services (``start_game``,
``deal``, ``all_pass``); ``deal_form`` is the deal form as a scorer's phone
or the organiser's page posts it.
"""

import factory

from club.games.models import Player, Team
from club.games.services import TeamEntry, create_game, load_seating
from club.scoring.rules import Deal


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"Player {n}")


class TeamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Team

    first_player = factory.SubFactory(PlayerFactory)
    second_player = factory.SubFactory(PlayerFactory)
    name = factory.LazyAttribute(lambda team: f"{team.first_player} & {team.second_player}")


PAIRS = [("Anu", "Biju"), ("Chitra", "Dev"), ("Esha", "Farid"), ("Gita", "Hari")]
_labels = iter(range(1, 10**9))


def start_game(teams: int = 2, *, first_dealer: int = 0, label: str | None = None, **kwargs):
    """A game of ``teams`` teams from Anu & Biju, Chitra & Dev, Esha & Farid, Gita & Hari."""
    return create_game(
        label=label or f"Test game {next(_labels)}",
        teams=[TeamEntry(*pair) for pair in PAIRS[:teams]],
        first_dealer=first_dealer,
        **kwargs,
    )


def pid(name: str) -> int:
    """The id of the player of that name."""
    return Player.objects.get(name=name).pk


def seat(game, name: str) -> int:
    """The seat of the player of that name at the game, in play order."""
    found = load_seating(game).seat_of(pid(name))
    assert found is not None, f"{name} does not sit at {game}"
    return found


def deal(game, points: dict[int, int], declarer: str, bid: int, trump="hearts", doubling="none"):
    """A deal for the services: piles by team position, the declarer by name."""
    return Deal(
        points=points, declarer=seat(game, declarer), bid=bid, trump=trump, doubling=doubling
    )


def all_pass(points: dict[int, int]) -> Deal:
    """A deal everyone passed: the dealer's team plays 28, no trumps."""
    return Deal(points=points)


def deal_form(number, declarer="pass", bid="", trump="", doubling="none", *, key=None, **piles):
    """The deal form as posted: ``declarer`` a player id (or "pass"), piles as p0=, p1=...

    ``key`` is the form's one-time key (club.games.idempotency); a form posted
    without one is written once too, but a resend of it is not recognised.
    """
    data = {
        "number": number,
        "declarer": declarer,
        "bid": bid,
        "trump": trump,
        "doubling": doubling,
    }
    data.update({f"points_{name[1:]}": value for name, value in piles.items()})
    if key is not None:
        data["idempotency_key"] = key
    return data
